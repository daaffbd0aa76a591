// The game's rules and its board, as a plain ES module: the rater's page
// (study.js) plays with it, and a static puzzle site can reuse it. The rules
// are the engine's (src/core/engine/state.rs): a stack moves onto another in
// the same row or column (any distance) when the two tops share a suit or
// have the same or adjacent rank (ace low, king high, not adjacent).

/** Rank characters in order, ace low, as in the research notation. */
export const RANKS = "A23456789TJQK";
/** Suit characters in deck order: clubs, diamonds, hearts, spades. */
export const SUITS = "CDHS";
/** The suits as drawn: ♣ ♦ ♥ ♠. */
export const SUIT_SYMBOLS = ["\u2663", "\u2666", "\u2665", "\u2660"];

/** A card from its two characters (`TH`, `10H` too), or null. */
export function parseCard(text) {
  const t = text.toUpperCase().replace(/^10/, "T");
  if (t.length !== 2) return null;
  const rank = RANKS.indexOf(t[0]);
  const suit = SUITS.indexOf(t[1]);
  return rank < 0 || suit < 0 ? null : { rank, suit };
}

/** A position from compact notation (`TH5H--…`, row-major) on a rows×cols grid. */
export function parseState(compact, rows, cols) {
  const cells = rows * cols;
  if (compact.length !== 2 * cells) {
    throw new Error(`${compact.length / 2} cells given for a ${rows}x${cols} grid`);
  }
  const tops = [];
  for (let i = 0; i < cells; i++) {
    const two = compact.slice(2 * i, 2 * i + 2);
    const card = two === "--" || two === ".." ? null : parseCard(two);
    if (card === null && two !== "--" && two !== "..") throw new Error(`bad card ${two}`);
    tops.push(card);
  }
  return { rows, cols, tops, sizes: tops.map((c) => (c ? 1 : 0)) };
}

/** Splits a compact row into cell tokens: two characters, three for `10x`. */
function compactTokens(text) {
  const tokens = [];
  for (let i = 0; i < text.length; ) {
    const width = text.startsWith("10", i) ? 3 : 2;
    tokens.push(text.slice(i, i + width));
    i += width;
  }
  return tokens;
}

/**
 * A puzzle from its id, as the engine's `parse_puzzle` reads one
 * (src/core/engine/notation.rs): a compact 4x4 state (`T` or `10`, `--` or
 * `..` for an empty cell), or rows split by `/` (each compact, or cells split
 * by spaces) whose shape gives the grid. Throws an Error that says what is
 * wrong; a deal number is not an id.
 */
export function parsePuzzle(id) {
  const text = id.trim();
  if (text === "") throw new Error("the id is empty");
  if (/^-?\d+$/.test(text)) throw new Error("a deal number is not a puzzle id");
  let rows;
  if (/[\s/]/.test(text)) {
    rows = text
      .split(/[/\n]/)
      .map((line) => line.split(/\s+/).filter((w) => w !== "").flatMap((w) => (w.length > 3 ? compactTokens(w) : [w])))
      .filter((row) => row.length > 0);
    if (rows.length === 0) throw new Error("the id has no cards");
    const ragged = rows.findIndex((row) => row.length !== rows[0].length);
    if (ragged >= 0) {
      throw new Error(`row ${ragged + 1} has ${rows[ragged].length} cells but row 1 has ${rows[0].length}`);
    }
    if (rows.length * rows[0].length > 16) {
      throw new Error(`a ${rows.length}x${rows[0].length} grid has more than the 16 cells allowed`);
    }
  } else {
    const tokens = compactTokens(text);
    const tens = tokens.filter((t) => t.startsWith("10")).length;
    if (tokens.length !== 16 || text.length !== 32 + tens) {
      throw new Error(`a 4x4 id needs 32 characters (2 a card, 3 for a 10 like 10H), found ${text.length}`);
    }
    rows = [0, 1, 2, 3].map((r) => tokens.slice(4 * r, 4 * r + 4));
  }
  const seen = new Set();
  const tops = rows.flat().map((token) => {
    if (token === "--" || token === "..") return null;
    const card = parseCard(token);
    if (card === null) throw new Error(`'${token}' is not a card (like TH or 10H) or an empty cell (--)`);
    const key = `${card.rank}:${card.suit}`;
    if (seen.has(key)) throw new Error(`${token} appears twice`);
    seen.add(key);
    return card;
  });
  if (seen.size === 0) throw new Error("the id has no cards");
  return { rows: rows.length, cols: rows[0].length, tops, sizes: tops.map((c) => (c ? 1 : 0)) };
}

/** Whether two cards flock: a shared suit, or the same or adjacent rank. */
export function flocks(a, b) {
  return a.suit === b.suit || Math.abs(a.rank - b.rank) <= 1;
}

/** Whether two distinct cells share a row or a column. */
export function inLine(state, a, b) {
  const c = state.cols;
  return a !== b && (Math.floor(a / c) === Math.floor(b / c) || a % c === b % c);
}

/** Whether the stack in cell `from` may move onto the stack in cell `to`. */
export function isLegal(state, from, to) {
  const n = state.rows * state.cols;
  if (from < 0 || to < 0 || from >= n || to >= n) return false;
  const a = state.tops[from];
  const b = state.tops[to];
  return a !== null && b !== null && inLine(state, from, to) && flocks(a, b);
}

/** The legal moves as `[from, to]` pairs, ordered by (from, to) as the engine's. */
export function legalMoves(state) {
  const n = state.rows * state.cols;
  const moves = [];
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      if (isLegal(state, a, b)) moves.push([a, b]);
    }
  }
  return moves;
}

/** The cells the stack in `from` may move onto. */
export function targets(state, from) {
  return legalMoves(state)
    .filter((m) => m[0] === from)
    .map((m) => m[1]);
}

/** The position after a legal move (the moving top covers the other stack). */
export function apply(state, from, to) {
  if (!isLegal(state, from, to)) throw new Error(`illegal move ${from}-${to}`);
  const tops = state.tops.slice();
  const sizes = state.sizes.slice();
  tops[to] = tops[from];
  tops[from] = null;
  sizes[to] += sizes[from];
  sizes[from] = 0;
  return { rows: state.rows, cols: state.cols, tops, sizes };
}

/** Solved: at most one stack left. */
export function isSolved(state) {
  return state.tops.filter((c) => c !== null).length <= 1;
}

/** Whether a card's suit is red (diamonds or hearts). */
export function isRed(card) {
  return card.suit === 1 || card.suit === 2;
}

/** The card as the app shows it: rank text and suit symbol, `10♥`. */
export function face(card) {
  const rank = RANKS[card.rank] === "T" ? "10" : RANKS[card.rank];
  return rank + SUIT_SYMBOLS[card.suit];
}

/**
 * One play of a puzzle with undo, redo and restart, counted as the desktop's
 * game (src/core/engine/game.rs), and its event log as the server replays it.
 */
export class Game {
  /** A new game from a deal. */
  constructor(deal) {
    this.states = [deal];
    this.played = [];
    this.redoList = [];
    this.events = [];
    // Whether a move of this play solved it at any point (the record's solved).
    this.solved = false;
  }

  /** The position now. */
  get state() {
    return this.states[this.states.length - 1];
  }

  /** Plays a move if it is legal; a new move forgets the redo list. */
  play(from, to) {
    if (!isLegal(this.state, from, to)) return false;
    const last = this.redoList[this.redoList.length - 1];
    if (last && last[0] === from && last[1] === to) this.redoList.pop();
    else this.redoList = [];
    this.push([from, to]);
    this.events.push({ kind: "move", from, to });
    return true;
  }

  push(mv) {
    this.states.push(apply(this.state, mv[0], mv[1]));
    this.played.push(mv);
    this.solved ||= isSolved(this.state);
  }

  takeBack() {
    if (this.played.length === 0) return false;
    this.states.pop();
    this.redoList.push(this.played.pop());
    return true;
  }

  /** Takes back the last move; false if there is none. */
  undo() {
    if (!this.takeBack()) return false;
    this.events.push({ kind: "undo" });
    return true;
  }

  /** Plays the last undone move again; false if there is none. */
  redo() {
    const mv = this.redoList.pop();
    if (!mv) return false;
    this.push(mv);
    this.events.push({ kind: "redo" });
    return true;
  }

  /** Back to the deal (the moves can be redone); logged when it took anything back. */
  restart() {
    let any = false;
    while (this.takeBack()) any = true;
    if (any) this.events.push({ kind: "restart" });
    return any;
  }

  /** Whether a move can be undone, redone. */
  get canUndo() {
    return this.played.length > 0;
  }

  get canRedo() {
    return this.redoList.length > 0;
  }

  /** A game of a deal with its logged events played again (a reload's resume). */
  static replay(deal, events) {
    const g = new Game(deal);
    for (const e of events) {
      if (e.kind === "move") g.play(e.from, e.to);
      else if (e.kind === "undo") g.undo();
      else if (e.kind === "redo") g.redo();
      else if (e.kind === "restart") g.restart();
    }
    return g;
  }
}

/**
 * Draws a position into `board` (a grid element) as one button a cell, each
 * with `data-cell`: the picked stack and its targets lit up. `onCell(cell)`
 * hears clicks and taps; `onDrop(from, to)` a stack dragged onto another.
 */
export function drawBoard(board, state, picked, onCell, onDrop) {
  const lit = picked === null ? [] : targets(state, picked);
  board.style.setProperty("--rows", state.rows);
  board.style.setProperty("--cols", state.cols);
  board.replaceChildren();
  state.tops.forEach((card, cell) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.cell = cell;
    b.className = "card";
    if (card === null) {
      b.classList.add("empty");
      b.setAttribute("aria-label", `cell ${cell + 1}, empty`);
    } else {
      b.classList.add(isRed(card) ? "red" : "black");
      const corner = document.createElement("span");
      corner.className = "corner";
      corner.textContent = face(card);
      const pip = document.createElement("span");
      pip.className = "pip";
      pip.textContent = SUIT_SYMBOLS[card.suit];
      pip.setAttribute("aria-hidden", "true");
      b.append(corner, pip);
      const size = state.sizes[cell];
      if (size > 1) {
        const badge = document.createElement("span");
        badge.className = "badge";
        badge.textContent = size;
        badge.title = `${size} cards in this stack`;
        b.append(badge);
      }
      b.setAttribute("aria-label", `${face(card)}${size > 1 ? `, a stack of ${size}` : ""}`);
    }
    if (cell === picked) b.classList.add("picked");
    if (lit.includes(cell)) b.classList.add("target");
    b.addEventListener("click", () => onCell(cell));
    b.addEventListener("pointerdown", (e) => {
      if (card !== null) board.dataset.dragFrom = cell;
      if (e.pointerType !== "mouse") b.releasePointerCapture?.(e.pointerId);
    });
    board.append(b);
  });
  board.onpointerup = (e) => {
    const from = Number(board.dataset.dragFrom ?? -1);
    delete board.dataset.dragFrom;
    const under = document.elementFromPoint(e.clientX, e.clientY)?.closest("[data-cell]");
    const to = under ? Number(under.dataset.cell) : -1;
    // A release on the same cell is a click, which the click handler takes.
    if (from >= 0 && to >= 0 && to !== from && isLegal(state, from, to)) {
      onDrop(from, to);
    }
  };
}
