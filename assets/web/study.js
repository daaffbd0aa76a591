// The rater's page of a boaf study: the intro and a nickname, a practice
// puzzle, then each handed-out puzzle played, rated (or skipped) and sent
// with its play log, and a thank-you page. The server's JSON API is in the
// README ("Rating studies"); the rules and the board come from board.js.
// A reload resumes: the cookie and /next give the same puzzle, and the play
// in progress is kept in sessionStorage.

import { Game, drawBoard, parseState, targets } from "./board.js";

const study = decodeURIComponent(location.pathname.split("/")[2] ?? "");
const pid = new URLSearchParams(location.search).get("pid");
const api = `/api/s/${encodeURIComponent(study)}`;
const saveKey = `boaf:${study}`;
const $ = (id) => document.getElementById(id);

/** The practice puzzle: 4 cards, solved by a suit, a suit, then a rank. */
const TUTORIAL = { puzzle: "5HJH6SJS", rows: 2, cols: 2 };

/** What a reload needs: the practice's state and the play in progress. */
let saved = loadSaved();
/** The puzzle on screen: the study's answer, its game, whether practice. */
let current = null;
let picked = null;
let since = null;
let info = null;

function loadSaved() {
  try {
    return JSON.parse(sessionStorage.getItem(saveKey)) ?? {};
  } catch {
    return {};
  }
}

function store() {
  try {
    sessionStorage.setItem(saveKey, JSON.stringify(saved));
  } catch {
    // Private modes may refuse storage: the page still works, without resume.
  }
}

function show(screen) {
  for (const s of document.querySelectorAll(".screen")) s.hidden = s.id !== screen;
  document.body.dataset.screen = screen;
}

function fail(message) {
  $("failed-message").textContent = message;
  show("failed");
}

/** A GET or POST to the API: the answer's status and JSON (or its error). */
async function call(path, body) {
  const options = { credentials: "same-origin" };
  if (body !== undefined) {
    options.method = "POST";
    options.headers = { "Content-Type": "application/json" };
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(api + path, options);
  } catch {
    // A dropped connection: once more, with the same body (and submission id).
    try {
      response = await fetch(api + path, options);
    } catch {
      return { status: 0, json: { error: "the server cannot be reached: check your connection and try again" } };
    }
  }
  let json;
  try {
    json = await response.json();
  } catch {
    json = { error: `the server answered ${response.status} without a message` };
  }
  return { status: response.status, json };
}

/** A random id for a submission, so a retry is stored once. */
function submissionId() {
  if (crypto.randomUUID && window.isSecureContext) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The active time: counted while the page is visible and focused, until the solve.
function counting() {
  return (
    current !== null &&
    !current.practice &&
    !current.game.solved &&
    document.visibilityState === "visible" &&
    document.hasFocus()
  );
}

function tick() {
  const now = performance.now();
  if (since !== null && saved.play) saved.play.activeMs += now - since;
  since = counting() ? now : null;
  // After a submit, and on the end page, there is no play to keep.
  if (current && !current.practice && saved.play) {
    saved.play.events = current.game.events;
    store();
  }
}

for (const e of ["visibilitychange", "focus", "blur", "pagehide"]) {
  window.addEventListener(e, tick);
}
document.addEventListener("visibilitychange", tick);

function draw() {
  const { game } = current;
  drawBoard($("board"), game.state, picked, onCell, (from, to) => move(from, to));
  $("undo").disabled = !game.canUndo;
  $("redo").disabled = !game.canRedo;
  $("restart").disabled = !game.canUndo;
  const left = game.state.tops.filter((c) => c !== null).length;
  let status;
  if (game.solved && left <= 1) status = current.practice ? "Solved! You have the rules." : "Solved!";
  else if (picked !== null && targets(game.state, picked).length === 0) status = "That card cannot move now: pick another.";
  else if (game.solved) status = "You solved it; rate it whenever you like.";
  else status = `${left} stacks left`;
  $("status").textContent = status;
  if (current.practice) {
    $("to-rate").textContent = "Start the study";
    $("to-rate").disabled = !game.solved;
  } else {
    $("to-rate").textContent = game.solved ? "Rate" : "Rate or skip";
    $("to-rate").disabled = false;
  }
}

function onCell(cell) {
  const state = current.game.state;
  if (picked !== null && cell !== picked && targets(state, picked).includes(cell)) {
    move(picked, cell);
    return;
  }
  picked = picked === cell || state.tops[cell] === null ? null : cell;
  draw();
}

function move(from, to) {
  const was = current.game.solved;
  if (!current.game.play(from, to)) return;
  picked = null;
  tick();
  draw();
  if (!was && current.game.solved && !current.practice) {
    // The solve ends the active time; the rating comes next.
    setTimeout(() => showRate(), 700);
  }
}

function act(what) {
  if (!current.game[what]()) return;
  picked = null;
  tick();
  draw();
}

function showPlay() {
  show("play");
  tick();
  draw();
}

/** The practice puzzle (played once after joining; nothing of it is sent). */
function startPractice() {
  const deal = parseState(TUTORIAL.puzzle, TUTORIAL.rows, TUTORIAL.cols);
  current = { practice: true, game: new Game(deal) };
  picked = null;
  $("title").textContent = "Practice";
  $("counter").textContent = "not rated";
  $("rules").textContent =
    "Tap a card, then another in the same row or column that shares its suit " +
    "or has the same or next rank (A is next to 2, never to K). The moved card " +
    "lands on top. Make one stack: try 5\u2665 onto J\u2665 first.";
  showPlay();
}

/** Asks for the next puzzle and shows it, or the thank-you page. */
async function next() {
  const { status, json } = await call("/next");
  if (status !== 200) return fail(json.error);
  if (json.status === "done") {
    saved.play = null;
    store();
    $("code").textContent = json.completion_code ?? "";
    $("code-line").hidden = !json.completion_code;
    // Skipping every puzzle earns no code: say so, not just show none.
    const none = json.reason === "no_rating";
    $("saved-line").hidden = none;
    $("no-rating").hidden = !none;
    show("done");
    return;
  }
  if (!saved.play || saved.play.puzzle !== json.id) {
    saved.play = {
      puzzle: json.id,
      events: [],
      activeMs: 0,
      shown: Date.now(),
      submission: submissionId(),
      rating: null,
      notes: "",
    };
    store();
  }
  const deal = parseState(json.puzzle, json.rows, json.cols);
  current = { practice: false, handed: json, game: Game.replay(deal, saved.play.events) };
  picked = null;
  $("title").textContent = `Puzzle ${json.position} of ${info.per_rater}`;
  $("counter").textContent = `${json.cards.filter((c) => c !== null).length} cards`;
  $("rules").textContent =
    "Tap a card, then another in the same row or column with the same suit or the same or next rank. Make one stack.";
  $("notes").value = saved.play.notes;
  markRating(saved.play.rating);
  $("error").hidden = true;
  showPlay();
  performance.mark("board-drawn");
}

function markRating(value) {
  for (const b of document.querySelectorAll("#rating button")) {
    b.setAttribute("aria-pressed", String(Number(b.value) === value));
  }
  $("submit").disabled = value === null;
}

function showRate() {
  tick();
  picked = null;
  $("rate-solved").textContent = current.game.solved
    ? "You solved it."
    : "Not solved: you may still rate it, go back to it, or skip it.";
  show("rate");
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = false;
}

async function submit() {
  tick();
  const play = saved.play;
  const wall = Math.max(0, Date.now() - play.shown);
  const log = {
    events: current.game.events,
    active_ms: Math.round(Math.min(play.activeMs, wall)),
    wall_ms: wall,
    solved: current.game.solved,
  };
  $("submit").disabled = true;
  const { status, json } = await call("/ratings", {
    submission: play.submission,
    puzzle: play.puzzle,
    log,
    rating: play.rating,
    notes: $("notes").value,
  });
  $("submit").disabled = false;
  if (status >= 200 && status < 300) {
    saved.play = null;
    store();
    return next();
  }
  showError(json.error);
}

async function skip() {
  const { status, json } = await call("/skip", { puzzle: saved.play.puzzle });
  if (status >= 200 && status < 300) {
    saved.play = null;
    store();
    return next();
  }
  showError(json.error);
}

async function join(event) {
  event.preventDefault();
  $("start").disabled = true;
  const query = pid ? `?pid=${encodeURIComponent(pid)}` : "";
  const { status, json } = await call(`/join${query}`, { nickname: $("nickname").value });
  $("start").disabled = false;
  if (status >= 300) return fail(json.error);
  localStorage.setItem(`${saveKey}:rater`, json.rater);
  saved = { practice: "pending" };
  store();
  startPractice();
}

function wire() {
  $("join-form").addEventListener("submit", join);
  $("undo").addEventListener("click", () => act("undo"));
  $("redo").addEventListener("click", () => act("redo"));
  $("restart").addEventListener("click", () => act("restart"));
  $("to-rate").addEventListener("click", () => {
    if (!current.practice) return showRate();
    saved.practice = "done";
    store();
    next();
  });
  $("back").addEventListener("click", showPlay);
  $("skip").addEventListener("click", skip);
  $("submit").addEventListener("click", submit);
  $("reload").addEventListener("click", () => location.reload());
  $("notes").addEventListener("input", () => {
    saved.play.notes = $("notes").value;
    store();
  });
  for (let r = 0; r <= 10; r++) {
    const b = document.createElement("button");
    b.type = "button";
    b.value = r;
    b.textContent = r;
    b.addEventListener("click", () => {
      saved.play.rating = r;
      store();
      markRating(r);
    });
    $("rating").append(b);
  }
}

async function start() {
  wire();
  const about = await call("");
  if (about.status !== 200) return fail(about.json.error);
  info = about.json;
  document.title = info.name;
  $("study-name").textContent = info.name;
  $("study-intro").textContent = info.intro;
  $("per-rater").textContent = info.per_rater;
  const joined = (await call("/next")).status !== 401;
  const samePid = !pid || localStorage.getItem(`${saveKey}:rater`) === pid;
  if (!joined || !samePid) {
    if (!info.open) return fail("This study is closed: thank you for your interest.");
    show("intro");
  } else if (saved.practice === "pending") {
    startPractice();
  } else {
    next();
  }
}

start();
