// The puzzle site's play page (boaf site's play.html and daily.html, and
// boaf serve's /p/<id>): the puzzle is in the link (`play.html#<id>`, or
// the path after /p/), or, on the daily page, the schedule's puzzle of the
// visitor's local date (`?date=YYYY-MM-DD` sets another). The rules and the
// board are board.js's; the player's statistics stay in localStorage.

import { Game, drawBoard, parsePuzzle, targets } from "./board.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const daily = document.body.dataset.page === "daily";
const STATS = "boaf-site:stats";

let game = null;
let picked = null;
let startedAt = 0;
let dailyDate = null;
let link = location.href;

/** The site's data (puzzles.js, written by boaf site), or null (boaf serve). */
async function siteData() {
  try {
    return (await import("./puzzles.js")).SITE;
  } catch {
    return null;
  }
}

/** A date as YYYY-MM-DD, in local time. */
function isoDate(d) {
  const two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

/** Today: the visitor's local date, or the link's `?date=`. */
function today() {
  const asked = params.get("date") ?? "";
  return /^\d{4}-\d{2}-\d{2}$/.test(asked) ? asked : isoDate(new Date());
}

/**
 * The id in the link: after the `#`, or the path after the last `/p/` (boaf
 * serve's links; ids never hold a `p`); null when it is not valid
 * percent-encoding (`%ZZ`, half a character), which the page says rather
 * than going blank. A page's own file (a site kept in a folder named `p`)
 * is no id.
 */
function linkId() {
  try {
    const hash = decodeURIComponent(location.hash.slice(1));
    if (hash !== "") return hash;
    const path = location.pathname;
    const at = path.lastIndexOf("/p/");
    if (at < 0 || path.endsWith(".html")) return "";
    return decodeURIComponent(path.slice(at + 3));
  } catch {
    return null;
  }
}

function loadStats() {
  const none = { played: 0, won: 0, times: [], days: [] };
  try {
    return { ...none, ...JSON.parse(localStorage.getItem(STATS)) };
  } catch {
    return none;
  }
}

function saveStats(stats) {
  try {
    localStorage.setItem(STATS, JSON.stringify(stats));
  } catch {
    // Private modes may refuse storage: the page still plays.
  }
}

/** Days since 1970 of a YYYY-MM-DD date. */
function dayNumber(date) {
  const [y, m, d] = date.split("-").map(Number);
  return Date.UTC(y, m - 1, d) / 864e5;
}

/** The current and best runs of daily wins on consecutive days. */
function streaks(days, on) {
  const won = [...new Set(days.map(dayNumber))].sort((a, b) => a - b);
  let best = 0;
  let run = 0;
  won.forEach((d, i) => {
    run = i > 0 && won[i - 1] === d - 1 ? run + 1 : 1;
    best = Math.max(best, run);
  });
  const set = new Set(won);
  // A streak stays current until a day is missed: today may still be played.
  let day = dayNumber(on);
  if (!set.has(day)) day -= 1;
  let current = 0;
  while (set.has(day - current)) current += 1;
  return { current, best };
}

/** Seconds as M:SS. */
function clock(seconds) {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function median(values) {
  const v = values.slice().sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

function showStats() {
  const stats = loadStats();
  const { current, best } = streaks(stats.days, today());
  $("stat-played").textContent = stats.played;
  $("stat-won").textContent = stats.won;
  $("stat-streak").textContent = current;
  $("stat-best-streak").textContent = best;
  const some = stats.times.length > 0;
  $("stat-best-time").textContent = some ? clock(Math.min(...stats.times)) : "\u2013";
  $("stat-median-time").textContent = some ? clock(median(stats.times)) : "\u2013";
}

/** The moves made, as the desktop counts them: a redo is a move. */
function movesMade() {
  return game.events.filter((e) => e.kind === "move" || e.kind === "redo").length;
}

function draw() {
  drawBoard($("board"), game.state, picked, onCell, move);
  $("undo").disabled = !game.canUndo;
  $("redo").disabled = !game.canRedo;
  $("restart").disabled = !game.canUndo;
  const left = game.state.tops.filter((c) => c !== null).length;
  if (game.solvedText && left <= 1) $("status").textContent = game.solvedText;
  else if (picked !== null && targets(game.state, picked).length === 0) {
    $("status").textContent = "That card cannot move now: pick another.";
  } else $("status").textContent = `${left} stacks left`;
}

function onCell(cell) {
  if (picked !== null && cell !== picked && targets(game.state, picked).includes(cell)) {
    move(picked, cell);
    return;
  }
  picked = picked === cell || game.state.tops[cell] === null ? null : cell;
  draw();
}

function move(from, to) {
  const first = game.events.length === 0;
  const was = game.solved;
  if (!game.play(from, to)) return;
  picked = null;
  const stats = loadStats();
  if (first) stats.played += 1;
  if (!was && game.solved) {
    const seconds = (performance.now() - startedAt) / 1000;
    game.solvedText = `Solved in ${movesMade()} moves, ${clock(seconds)}`;
    stats.won += 1;
    stats.times = [...stats.times, seconds].slice(-1000);
    if (dailyDate !== null && !stats.days.includes(dailyDate)) stats.days.push(dailyDate);
  }
  saveStats(stats);
  showStats();
  draw();
}

function act(what) {
  if (!game[what]()) return;
  picked = null;
  draw();
}

/** Copies the puzzle's link; where the clipboard is refused, selects it to copy by hand. */
async function copyLink() {
  $("link").value = link;
  try {
    await navigator.clipboard.writeText(link);
    $("status").textContent = "Link copied";
  } catch {
    $("link-line").hidden = false;
    $("link").select();
    $("status").textContent = "Copy the selected link (Ctrl+C or \u2318C)";
  }
}

function bad(message) {
  $("bad-message").textContent = message;
  $("bad").hidden = false;
  $("game").hidden = true;
  document.body.dataset.ready = "bad";
}

function wire() {
  $("undo").addEventListener("click", () => act("undo"));
  $("redo").addEventListener("click", () => act("redo"));
  $("restart").addEventListener("click", () => act("restart"));
  $("copy").addEventListener("click", copyLink);
  window.addEventListener("hashchange", () => location.reload());
}

async function start() {
  wire();
  showStats();
  const site = await siteData();
  if (site) {
    document.title = site.title;
    $("home").hidden = false;
  }
  let id;
  if (daily) {
    dailyDate = today();
    const entry = site?.daily.find((d) => d.date === dailyDate);
    if (!entry) {
      const range = site?.daily.length ? ` (this site has them from ${site.daily[0].date} to ${site.daily.at(-1).date})` : "";
      return bad(`There is no daily puzzle for ${dailyDate}${range}.`);
    }
    id = entry.id;
    link = new URL(`play.html#${id}`, location.href).href;
  } else {
    id = linkId();
    if (id === null) return bad("This link's puzzle id is not valid: it has a % not followed by a character's code.");
    if (id === "") return bad("This link has no puzzle id: it should end in # and the id.");
  }
  let deal;
  try {
    deal = parsePuzzle(id);
  } catch (e) {
    return bad(`This link's puzzle id is not valid: ${e.message}.`);
  }
  const known = site?.puzzles.find((p) => p.id === id);
  const name = known ? `Puzzle ${known.number}` : "Puzzle";
  $("title").textContent = daily ? `Daily puzzle, ${dailyDate}` : name;
  $("grade").textContent = known?.grade ?? "";
  game = new Game(deal);
  $("game").hidden = false;
  startedAt = performance.now();
  draw();
  document.body.dataset.ready = "play";
  performance.mark("board-drawn");
}

start();
