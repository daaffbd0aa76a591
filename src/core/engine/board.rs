//! The compact board the solver and the analysis work on.
//!
//! Solvability depends only on which card is on top of which cell, so a
//! [`Board`] is just that: for each occupied cell, the index of its top card
//! among the puzzle's cards. The facts that never change during play (which
//! cards flock, which cells share a line) live once in a [`Layout`].
//!
//! Packed key layout (used for transposition tables and layers):
//! bits 0..16 are the occupied-cell mask; then 4 bits per occupied cell, in
//! cell order, give its top's card index. A board with k stacks needs 16 + 4k
//! bits, so every board with at most 12 stacks fits a `u64`.

use crate::engine::card::Card;
use crate::engine::state::{Grid, MAX_CELLS, Move, State};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The hasher of the tables keyed by packed boards (the solver's table, the
/// halfway walk's sets): FxHash, fast for integer keys and spread well
/// enough for them. Only lookups read these tables, so the hasher decides
/// no result.
pub(crate) type KeyHasher = rustc_hash::FxHasher;

/// Puzzle facts shared by every board of one game: cards, flocking, lines.
#[derive(Clone, Debug)]
pub struct Layout {
    grid: Grid,
    /// Card index → card. Indices follow the cells of the starting state.
    cards: Vec<Card>,
    /// Card index → mask of the card indices it flocks with (not itself).
    flock: [u16; MAX_CELLS],
    /// Card index → mask of the card indices of same or adjacent rank (not itself).
    rank_flock: [u16; MAX_CELLS],
    /// Cell → mask of the other cells in its row or column.
    line: [u16; MAX_CELLS],
    /// Connectivity of the row/column graph for every occupancy mask (shared per grid).
    line_table: Arc<CutTable>,
    /// Connectivity of the flock graph for every set of tops, when asked for.
    flock_table: Option<Arc<CutTable>>,
}

/// Connectivity facts of one graph on up to 16 vertices, for every vertex set,
/// filled in as they are first asked for. Each entry packs: bit 31 known,
/// bit 30 connected, bits 0..16 the cut vertices (those whose removal
/// disconnects the rest; meaningful when connected).
pub struct CutTable {
    adj: [u16; MAX_CELLS],
    entries: Vec<AtomicU32>,
}

const KNOWN: u32 = 1 << 31;
const CONNECTED: u32 = 1 << 30;

impl CutTable {
    /// The table of the graph with these neighbour masks over `vertices` vertices.
    pub fn new(adj: [u16; MAX_CELLS], vertices: usize) -> CutTable {
        CutTable {
            adj,
            entries: (0..1usize << vertices).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    #[inline]
    fn get(&self, mask: u16) -> u32 {
        let v = self.entries[mask as usize].load(Ordering::Relaxed);
        if v & KNOWN != 0 { v } else { self.fill(mask) }
    }

    #[cold]
    fn fill(&self, mask: u16) -> u32 {
        let is_connected = connected(mask, &self.adj);
        let mut cuts = 0u16;
        if is_connected {
            for v in bits(mask) {
                let rest = mask & !(1 << v);
                if rest != 0 && !connected(rest, &self.adj) {
                    cuts |= 1 << v;
                }
            }
        }
        // Racing threads compute the same value, so a plain store is enough.
        let value = KNOWN | (is_connected as u32) << 30 | cuts as u32;
        self.entries[mask as usize].store(value, Ordering::Relaxed);
        value
    }

    /// Whether the vertices of `mask` form a connected graph.
    #[inline]
    pub fn connected(&self, mask: u16) -> bool {
        self.get(mask) & CONNECTED != 0
    }

    /// The vertices of a connected `mask` whose removal disconnects the rest.
    #[inline]
    pub fn cuts(&self, mask: u16) -> u16 {
        self.get(mask) as u16
    }
}

impl std::fmt::Debug for CutTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CutTable({} entries)", self.entries.len())
    }
}

/// The cells in line with each cell of a grid, and its row/column table,
/// built once per grid shape for the process (every layout of a grid
/// shares them; computing the lines costs a thousand divisions).
fn grid_lines(grid: Grid) -> ([u16; MAX_CELLS], Arc<CutTable>) {
    type Lines = ([u16; MAX_CELLS], Arc<CutTable>);
    static TABLES: OnceLock<Mutex<HashMap<Grid, Lines>>> = OnceLock::new();
    let mut tables = TABLES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    tables
        .entry(grid)
        .or_insert_with(|| {
            let mut line = [0u16; MAX_CELLS];
            for (a, mask) in line.iter_mut().enumerate().take(grid.cells()) {
                for b in 0..grid.cells() {
                    if grid.in_line(a, b) {
                        *mask |= 1 << b;
                    }
                }
            }
            (line, Arc::new(CutTable::new(line, grid.cells())))
        })
        .clone()
}

/// Tops of the occupied cells, as card indices into a [`Layout`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    at: [u8; MAX_CELLS],
    occ: u16,
}

/// Most moves a board can have: 16 cells, each in line with up to 15 others.
pub const MAX_MOVES: usize = MAX_CELLS * (MAX_CELLS - 1);

/// A fixed-capacity move list, so move generation never allocates.
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            moves: [Move { from: 0, to: 0 }; MAX_MOVES],
            len: 0,
        }
    }
}

impl MoveList {
    /// The moves.
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// Number of moves.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No moves.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn push(&mut self, mv: Move) {
        self.moves[self.len] = mv;
        self.len += 1;
    }
}

/// Iterates the set bits of a mask, lowest first.
#[inline]
pub(crate) fn bits(mask: u16) -> Bits {
    Bits(mask)
}

/// The set bits of a mask, as indices, lowest first.
pub(crate) struct Bits(u16);

impl Iterator for Bits {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(i)
    }
}

/// Whether the graph on `nodes` with neighbour masks `adj` is connected.
#[inline]
pub(crate) fn connected(nodes: u16, adj: &[u16; MAX_CELLS]) -> bool {
    if nodes == 0 {
        return true;
    }
    let mut seen = nodes & nodes.wrapping_neg();
    let mut frontier = seen;
    while frontier != 0 {
        let x = frontier.trailing_zeros() as usize;
        frontier &= frontier - 1;
        let new = adj[x] & nodes & !seen;
        seen |= new;
        frontier |= new;
    }
    seen == nodes
}

impl Layout {
    /// The layout of a state's tops, and the board of that state.
    pub fn new(state: &State) -> (Layout, Board) {
        let grid = state.grid();
        let mut cards = Vec::new();
        let mut board = Board {
            at: [0; MAX_CELLS],
            occ: 0,
        };
        for (cell, card) in state.stacks() {
            board.at[cell] = cards.len() as u8;
            board.occ |= 1 << cell;
            cards.push(card);
        }
        // The cards of each suit, and of each rank (one slot either side,
        // so a rank's neighbours are always two slots to read).
        let mut of_suit = [0u16; 4];
        let mut of_rank = [0u16; 13 + 2];
        for (i, card) in cards.iter().enumerate() {
            of_suit[card.suit() as usize] |= 1 << i;
            of_rank[card.rank() as usize + 1] |= 1 << i;
        }
        let mut flock = [0u16; MAX_CELLS];
        let mut rank_flock = [0u16; MAX_CELLS];
        for (i, card) in cards.iter().enumerate() {
            let r = card.rank() as usize + 1;
            let near = of_rank[r - 1] | of_rank[r] | of_rank[r + 1];
            rank_flock[i] = near & !(1 << i);
            flock[i] = (near | of_suit[card.suit() as usize]) & !(1 << i);
        }
        debug_assert!(cards.iter().enumerate().all(|(i, a)| {
            cards.iter().enumerate().all(|(j, b)| {
                (flock[i] >> j & 1 == 1) == (i != j && a.flocks_with(*b))
                    && (rank_flock[i] >> j & 1 == 1) == (i != j && a.rank_flocks_with(*b))
            })
        }));
        let (line, line_table) = grid_lines(grid);
        let layout = Layout {
            grid,
            cards,
            flock,
            rank_flock,
            line,
            line_table,
            flock_table: None,
        };
        (layout, board)
    }

    /// Adds a flock-graph table, which makes the class tests one lookup each.
    /// Worth it for long analyses; it costs 4·2^n bytes for n cards.
    pub fn with_flock_table(mut self) -> Layout {
        self.flock_table = Some(Arc::new(CutTable::new(self.flock, self.cards.len())));
        self
    }

    /// The grid.
    pub fn grid(&self) -> Grid {
        self.grid
    }

    /// The puzzle's cards, by card index.
    pub fn cards(&self) -> &[Card] {
        &self.cards
    }

    /// Card index → mask of card indices it flocks with.
    pub fn flock_masks(&self) -> &[u16; MAX_CELLS] {
        &self.flock
    }

    /// Cell → mask of the other cells in its row or column.
    pub(crate) fn line_masks(&self) -> &[u16; MAX_CELLS] {
        &self.line
    }

    /// Card index → mask of card indices of same or adjacent rank.
    pub fn rank_flock_masks(&self) -> &[u16; MAX_CELLS] {
        &self.rank_flock
    }

    /// The state a board stands for, with every stack of size one
    /// (a board does not keep sizes).
    pub fn to_state(&self, board: &Board) -> State {
        let cells: Vec<Option<Card>> = (0..self.grid.cells())
            .map(|c| board.top(c).map(|i| self.cards[i]))
            .collect();
        State::new(self.grid, &cells).expect("a board holds distinct cards")
    }
}

/// Defines a child-key function for one key width (the same bit operations
/// serve `u128` keys and the cheaper `u64` ones).
macro_rules! child_key_fn {
    ($(#[$doc:meta])* $name:ident, $key:ty) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(key: $key, mv: Move) -> $key {
            let occ = key as u16;
            let rank = |cell: u8| (occ & ((1u16 << cell) - 1)).count_ones();
            let (ra, rb) = (4 * rank(mv.from), 4 * rank(mv.to));
            let mut tops = key >> 16;
            let moving = tops >> ra & 0xf;
            tops = tops & !(0xf << rb) | moving << rb;
            let low = tops & (((1 as $key) << ra) - 1);
            let high = tops >> (ra + 4) << ra;
            (low | high) << 16 | (occ & !(1 << mv.from)) as $key
        }
    };
}

impl Board {
    /// The card index on top of a cell.
    #[inline]
    pub fn top(&self, cell: usize) -> Option<usize> {
        (self.occ >> cell & 1 == 1).then_some(self.at[cell] as usize)
    }

    /// Mask of occupied cells.
    #[inline]
    pub fn occupied(&self) -> u16 {
        self.occ
    }

    /// Number of stacks.
    #[inline]
    pub fn stacks(&self) -> u32 {
        self.occ.count_ones()
    }

    /// Mask of the card indices on top of a stack.
    #[inline]
    pub fn alive(&self) -> u16 {
        bits(self.occ).fold(0, |m, c| m | 1 << self.at[c])
    }

    /// Whether `from` may move onto `to` (both occupied and in line): the
    /// rule cell by cell, which the tests check [`Board::targets`] against.
    #[cfg(test)]
    fn flocks(&self, lay: &Layout, from: usize, to: usize) -> bool {
        lay.flock[self.at[from] as usize] >> self.at[to] & 1 == 1
    }

    /// The legal moves, ordered by (from, to).
    #[inline]
    pub fn moves(&self, lay: &Layout, out: &mut MoveList) {
        Meets::of(self, lay).moves(self, out);
    }

    /// The cells the top of `from` may move onto (occupied, in line and
    /// flocking), found without a branch per cell.
    #[inline]
    pub(crate) fn targets(&self, lay: &Layout, from: usize) -> u16 {
        let flock = lay.flock[self.at[from] as usize];
        let mut out = 0;
        for to in bits(lay.line[from] & self.occ) {
            out |= (flock >> self.at[to] & 1) << to;
        }
        out
    }

    /// Number of legal moves.
    #[inline]
    pub fn mobility(&self, lay: &Layout) -> u32 {
        bits(self.occ)
            .map(|a| self.targets(lay, a).count_ones())
            .sum()
    }

    /// The board after a move (assumed legal).
    #[inline]
    pub fn apply(&self, mv: Move) -> Board {
        let mut next = *self;
        next.at[mv.to as usize] = self.at[mv.from as usize];
        // Empty cells hold 0, so equal positions are equal boards.
        next.at[mv.from as usize] = 0;
        next.occ &= !(1 << mv.from);
        next
    }

    /// Stranded cards (seed 000): the graph joining stacks in a shared row or
    /// column is disconnected, so some stacks can never meet.
    #[inline]
    pub fn is_stranded(&self, lay: &Layout) -> bool {
        !lay.line_table.connected(self.occ)
    }

    /// A separated flock (seed 000; an odd bird is one of size one): the graph
    /// joining flockable tops, position aside, is disconnected.
    #[inline]
    pub fn has_separated_flock(&self, lay: &Layout) -> bool {
        match &lay.flock_table {
            Some(t) => !t.connected(self.alive()),
            None => !connected(self.alive(), &lay.flock),
        }
    }

    /// A frozen lynchpin: a stack whose cell joins the others' rows and
    /// columns (a cut vertex of the row/column graph) and whose top joins the
    /// others' flock graph (a cut vertex of it, among `flock_cuts`). It can
    /// neither leave its cell nor be buried without splitting one of the
    /// graphs for good, and every other move keeps each side of both cuts
    /// alive, so the board is unsolvable.
    #[inline]
    pub(crate) fn has_frozen_lynchpin(&self, lay: &Layout, flock_cuts: u16) -> bool {
        flock_cuts != 0
            && bits(lay.line_table.cuts(self.occ)).any(|c| flock_cuts >> self.at[c] & 1 == 1)
    }

    /// The packed key (layout in the module doc).
    #[inline]
    pub fn pack(&self) -> u128 {
        let mut key = self.occ as u128;
        let mut shift = 16;
        for c in bits(self.occ) {
            key |= (self.at[c] as u128) << shift;
            shift += 4;
        }
        key
    }

    /// The board of a packed key.
    #[inline]
    pub fn unpack(key: u128) -> Board {
        let occ = key as u16;
        let mut at = [0u8; MAX_CELLS];
        let mut shift = 16;
        for c in bits(occ) {
            at[c] = (key >> shift & 0xf) as u8;
            shift += 4;
        }
        Board { at, occ }
    }

    child_key_fn!(
        /// The packed key of the child after `mv`, computed from this board's
        /// packed key in a few bit operations: the moving top's nibble replaces
        /// the target's, then the vacated cell's nibble and occupancy bit go.
        child_key,
        u128
    );

    child_key_fn!(
        /// [`Board::child_key`] for keys of at most 12 stacks, in 64-bit arithmetic.
        child_key64,
        u64
    );

    /// [`Board::unpack`] for keys of at most 12 stacks, in 64-bit arithmetic.
    #[inline]
    pub fn unpack64(key: u64) -> Board {
        let occ = key as u16;
        let mut at = [0u8; MAX_CELLS];
        let mut tops = key >> 16;
        for c in bits(occ) {
            at[c] = (tops & 0xf) as u8;
            tops >>= 4;
        }
        Board { at, occ }
    }

    /// The packed key as a `u64`, for boards of at most 12 stacks.
    #[inline]
    pub fn pack64(&self) -> Option<u64> {
        (self.stacks() <= 12).then(|| self.pack() as u64)
    }
}

/// Which occupied cells' tops may meet, both ways: a bit for each pair of
/// cells in line whose tops flock. The legal moves are its pairs. Kept move
/// by move it costs a look along one cell's lines, where
/// [`Board::moves`] from scratch looks at every pair of cells.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Meets([u16; MAX_CELLS]);

impl Meets {
    /// The pairs of a board, from scratch.
    #[inline]
    pub fn of(board: &Board, lay: &Layout) -> Meets {
        // Both relations are symmetric, so each pair of cells is looked at
        // once, from its lower cell.
        let mut meets = [0u16; MAX_CELLS];
        for a in bits(board.occ) {
            let flock = lay.flock[board.at[a] as usize];
            let above = !((2u32 << a) - 1) as u16;
            for b in bits(lay.line[a] & board.occ & above) {
                let meet = flock >> board.at[b] & 1;
                meets[a] |= meet << b;
                meets[b] |= meet << a;
            }
        }
        Meets(meets)
    }

    /// The pairs of `child`, made from its parent's (these) by `mv`: the
    /// cell left is empty, and only the cell moved onto has a new top.
    #[inline]
    pub fn after(&self, child: &Board, lay: &Layout, mv: Move) -> Meets {
        let (from, to) = (mv.from as usize, mv.to as usize);
        let kept = !(1u16 << from | 1 << to);
        let mut meets = self.0.map(|m| m & kept);
        meets[from] = 0;
        meets[to] = 0;
        let flock = lay.flock[child.at[to] as usize];
        for c in bits(lay.line[to] & child.occ) {
            let meet = flock >> child.at[c] & 1;
            meets[to] |= meet << c;
            meets[c] |= meet << to;
        }
        Meets(meets)
    }

    /// The legal moves of `board` (whose pairs these are), ordered by
    /// (from, to).
    #[inline]
    pub fn moves(&self, board: &Board, out: &mut MoveList) {
        out.len = 0;
        for a in bits(board.occ) {
            for b in bits(self.0[a]) {
                out.push(Move {
                    from: a as u8,
                    to: b as u8,
                });
            }
        }
    }
}

/// Tells which children of one board pass the cheap tests (no stranded cards,
/// no separated flock). The board itself must pass them. A child fails exactly
/// when the cell it vacates is a cut vertex of the row/column graph, or the
/// card it buries is a cut vertex of the flock graph; the tables answer both
/// at once, and without a flock table each buried card is tested once.
pub struct LiveChildren {
    alive: u16,
    from_bad: u16,
    buried_seen: u16,
    buried_bad: u16,
}

impl LiveChildren {
    /// The filter for the children of `board`, which passes the cheap tests.
    #[inline]
    pub fn new(lay: &Layout, board: &Board) -> LiveChildren {
        let alive = board.alive();
        let (buried_seen, buried_bad) = match &lay.flock_table {
            Some(t) => (u16::MAX, t.cuts(alive)),
            None => (0, 0),
        };
        LiveChildren {
            alive,
            from_bad: lay.line_table.cuts(board.occ),
            buried_seen,
            buried_bad,
        }
    }

    /// The filter for the children of `board` when the flock graph's cut
    /// vertices among its tops (`flock_cuts`) are already known.
    #[inline]
    pub(crate) fn with_flock_cuts(lay: &Layout, board: &Board, flock_cuts: u16) -> LiveChildren {
        LiveChildren {
            alive: board.alive(),
            from_bad: lay.line_table.cuts(board.occ),
            buried_seen: u16::MAX,
            buried_bad: flock_cuts,
        }
    }

    /// The filter for the children of `board` if the board itself passes the
    /// cheap tests, else `None`: the same test as [`crate::engine::solver::classify`],
    /// sharing its table lookups with the filter's.
    #[inline]
    pub fn of_live(lay: &Layout, board: &Board) -> Option<LiveChildren> {
        let line = lay.line_table.get(board.occ);
        let alive = board.alive();
        let several = board.stacks() > 1;
        if several && line & CONNECTED == 0 {
            return None;
        }
        let (buried_seen, buried_bad) = match &lay.flock_table {
            Some(t) => {
                let flock = t.get(alive);
                if several && flock & CONNECTED == 0 {
                    return None;
                }
                (u16::MAX, flock as u16)
            }
            None if several && !connected(alive, &lay.flock) => return None,
            None => (0, 0),
        };
        Some(LiveChildren {
            alive,
            from_bad: line as u16,
            buried_seen,
            buried_bad,
        })
    }

    /// Mask of the card indices on top of the parent's stacks.
    #[inline]
    pub fn alive(&self) -> u16 {
        self.alive
    }

    /// Whether the child after `mv` passes both tests.
    #[inline]
    pub fn passes(&mut self, lay: &Layout, board: &Board, mv: Move) -> bool {
        let buried = board.at[mv.to as usize] as usize;
        if self.buried_seen >> buried & 1 == 0 {
            self.buried_seen |= 1 << buried;
            if !connected(self.alive & !(1 << buried), &lay.flock) {
                self.buried_bad |= 1 << buried;
            }
        }
        (self.from_bad >> mv.from | self.buried_bad >> buried) & 1 == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;

    #[test]
    fn each_cells_targets_are_its_legal_moves() {
        for n in 0..50 {
            let (lay, mut board) = Layout::new(&deal(n));
            let mut list = MoveList::default();
            loop {
                board.moves(&lay, &mut list);
                // The rule cell by cell: in line, occupied, flocking.
                let lay = &lay;
                let plain: Vec<Move> = bits(board.occupied())
                    .flat_map(|a| {
                        bits(lay.line[a] & board.occupied())
                            .filter(move |&b| board.flocks(lay, a, b))
                            .map(move |b| Move {
                                from: a as u8,
                                to: b as u8,
                            })
                    })
                    .collect();
                let from_targets: Vec<Move> = bits(board.occupied())
                    .flat_map(|from| {
                        bits(board.targets(lay, from)).map(move |to| Move {
                            from: from as u8,
                            to: to as u8,
                        })
                    })
                    .collect();
                assert_eq!(from_targets, plain);
                assert_eq!(from_targets, list.as_slice());
                // The pairs kept move by move are those from scratch, for
                // every child.
                let meets = Meets::of(&board, lay);
                for &mv in list.as_slice() {
                    let child = board.apply(mv);
                    assert_eq!(meets.after(&child, lay, mv), Meets::of(&child, lay));
                }
                let Some(&mv) = list.as_slice().last() else {
                    break;
                };
                board = board.apply(mv);
            }
        }
    }

    #[test]
    fn board_moves_match_the_rules() {
        for n in 0..50 {
            let mut state = deal(n);
            let (lay, mut board) = Layout::new(&state);
            let mut list = MoveList::default();
            // Walk down the first legal move each time, comparing both move generators.
            loop {
                board.moves(&lay, &mut list);
                let legal = state.legal_moves();
                assert_eq!(list.as_slice(), legal.as_slice());
                assert_eq!(board.mobility(&lay) as usize, legal.len());
                assert_eq!(Board::unpack(board.pack()), board);
                for &mv in list.as_slice() {
                    assert_eq!(Board::child_key(board.pack(), mv), board.apply(mv).pack());
                    if let Some(key) = board.pack64() {
                        assert_eq!(Board::child_key64(key, mv), board.apply(mv).pack() as u64);
                        assert_eq!(Board::unpack64(key), board);
                    }
                }
                assert_eq!(lay.to_state(&board).tops(), state.tops());
                let Some(&mv) = legal.first() else { break };
                state = state.apply(mv).unwrap();
                board = board.apply(mv);
            }
        }
    }
}
