//! Players: agents that choose moves, for the difficulty a careless or a
//! strong player meets (seeds 000, 003 and 004). Pure: no I/O, no UI types.
//!
//! Every agent sits behind [`Agent`]: given a position, a seeded generator
//! and the budget it was built with, it chooses a legal move. [`Random`] is
//! seed 004's monkey; [`Greedy`] maximises seed 000's heuristic
//! ([`Weights`]); [`FlatMonteCarlo`] is seed 003's; [`Mcts`] is seed 000's
//! player; [`BestFirst`] plays what seed 000's heuristic best-first solver
//! ([`search`], its Table 1) finds. [`difficulty`] holds the features the
//! agents give, and [`tune`] the genetic algorithm for the weights (the
//! intervals and tests their experiments report are in [`crate::stats`]).

pub mod difficulty;
pub mod grade;
mod mcts;
pub mod search;
pub mod tune;

pub use mcts::Mcts;

use crate::engine::board::{Board, Layout, MoveList};
use crate::engine::solver::classify;
use crate::engine::state::{MAX_CELLS, Move, State};
use crate::hash::{GOLDEN, splitmix64};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// The generator every agent draws from: small, fast and the same on every
/// machine, so a seed names a game.
pub type Rng = Xoshiro256PlusPlus;

/// A generator for one game, from an experiment's seed, a deal and a game
/// number: the same game whatever thread plays it.
pub fn game_rng(seed: u64, deal: u64, game: u64) -> Rng {
    // splitmix64, so nearby inputs give unrelated streams.
    let x = seed ^ deal.wrapping_mul(GOLDEN) ^ game.rotate_left(32);
    Rng::seed_from_u64(splitmix64(x))
}

/// A position in play: the board (tops in cells) and the stack sizes, which
/// the score needs and the rules do not.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The tops in their cells.
    pub board: Board,
    sizes: [u8; MAX_CELLS],
}

impl Position {
    /// The layout of a state and the position it stands for.
    pub fn new(state: &State) -> (Layout, Position) {
        let (layout, board) = Layout::new(state);
        let mut sizes = [0u8; MAX_CELLS];
        for (cell, size) in sizes.iter_mut().enumerate().take(state.grid().cells()) {
            *size = state.size(cell) as u8;
        }
        (layout, Position { board, sizes })
    }

    /// Score: the sum of the squared stack sizes (seed 000).
    pub fn score(&self) -> u32 {
        self.sizes.iter().map(|&s| (s as u32).pow(2)).sum()
    }

    /// Stacks left.
    pub fn stacks(&self) -> u32 {
        self.board.stacks()
    }

    /// Won: one stack left (or none, for an empty puzzle).
    pub fn is_won(&self) -> bool {
        self.stacks() <= 1
    }

    /// The position after a legal move.
    pub fn apply(&self, mv: Move) -> Position {
        let mut sizes = self.sizes;
        sizes[mv.to as usize] += sizes[mv.from as usize];
        sizes[mv.from as usize] = 0;
        Position {
            board: self.board.apply(mv),
            sizes,
        }
    }

    /// Whether a cheap class (stranded cards, a separated flock) proves the
    /// position unsolvable.
    pub fn is_proven_lost(&self, lay: &Layout) -> bool {
        classify(lay, &self.board).is_some()
    }
}

/// The weights of the heuristic, h = score · Σ size² + moves · (legal
/// moves) + lost · (1 if the cheap classes prove the position lost). Higher
/// is better. Seed 000's heuristic is the first two terms; the third is
/// ours, 0 by default, for the genetic algorithm to weigh. A vector, so that
/// it can be tuned.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// Weight of the score (the sum of the squared stack sizes).
    pub score: f64,
    /// Weight of the number of legal moves.
    pub moves: f64,
    /// Weight of a position the stranded-card and separated-flock classes
    /// prove unsolvable (optional in a file; 0 when left out).
    #[serde(default)]
    pub lost: f64,
}

impl Default for Weights {
    /// Seed 000's tuned weights: 1.0 and 2.5 (and 0 for `lost`).
    fn default() -> Self {
        Weights {
            score: 1.0,
            moves: 2.5,
            lost: 0.0,
        }
    }
}

impl Weights {
    /// The heuristic value of a position.
    #[inline]
    pub fn value(&self, lay: &Layout, pos: &Position) -> f64 {
        let v = self.score * pos.score() as f64 + self.moves * pos.board.mobility(lay) as f64;
        // The classes cost more than the rest: only when weighed.
        if self.lost != 0.0 && pos.is_proven_lost(lay) {
            v + self.lost
        } else {
            v
        }
    }

    /// The genes' names, in [`Weights::to_vec`]'s order.
    pub const GENES: [&'static str; 3] = ["score", "moves", "lost"];

    /// Weights from TOML (`score = 1.0`, `moves = 2.5`, optionally
    /// `lost = …`); the error gives the line and column of a mistake.
    pub fn from_toml(text: &str) -> Result<Weights, toml::de::Error> {
        toml::from_str(text)
    }

    /// The weights as TOML, as [`Weights::from_toml`] reads them.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("three numbers are always TOML")
    }

    /// The weights as a vector, in a fixed order (score, moves, lost).
    pub fn to_vec(self) -> Vec<f64> {
        vec![self.score, self.moves, self.lost]
    }

    /// Weights from a vector in [`Weights::to_vec`]'s order (missing ones 0).
    pub fn from_slice(w: &[f64]) -> Weights {
        let gene = |i: usize| w.get(i).copied().unwrap_or(0.0);
        Weights {
            score: gene(0),
            moves: gene(1),
            lost: gene(2),
        }
    }
}

/// What an agent thought of one legal move when it chose (for the app).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Estimate {
    /// The move.
    pub mv: Move,
    /// Playouts or tree visits behind the figure.
    pub visits: u32,
    /// Wins among them.
    pub wins: u32,
}

/// Why an agent's last choice came with no estimates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unestimated {
    /// The agent never estimates moves (random, greedy).
    NotAnEstimator,
    /// It played on a winning line it had already found.
    WinningLine,
    /// It saw a win within two moves.
    WinInTwo,
    /// Only one move was not proven lost.
    OnlyMove,
    /// Every move was proven lost, so it took the first.
    AllLost,
    /// Its search found no solution within the budget: it made the greedy move.
    GreedyFallback,
}

/// A player: chooses a legal move in a position.
pub trait Agent {
    /// A short name with the budget, as reports print it (`mcts:300`).
    fn name(&self) -> String;

    /// A legal move of `pos`, or `None` when it has none. The budget is the
    /// agent's own; `rng` is the only source of chance.
    fn choose(&mut self, lay: &Layout, pos: &Position, rng: &mut Rng) -> Option<Move>;

    /// What the agent thought of each legal move at its last choice (empty
    /// for agents that do not estimate).
    fn estimates(&self) -> &[Estimate] {
        &[]
    }

    /// Why [`Agent::estimates`] is empty after the last choice; `None`
    /// when it is not.
    fn unestimated(&self) -> Option<Unestimated> {
        Some(Unestimated::NotAnEstimator)
    }
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    /// The moves made, in order.
    pub moves: Vec<Move>,
    /// Whether it ended with one stack.
    pub won: bool,
}

/// Plays `agent` from `start` until it wins or has no move. A game is at
/// most n − 1 moves, since each move removes a stack.
pub fn play(agent: &mut dyn Agent, start: &State, rng: &mut Rng) -> Played {
    let (lay, mut pos) = Position::new(start);
    let mut moves = Vec::new();
    while !pos.is_won() {
        let Some(mv) = agent.choose(&lay, &pos, rng) else {
            break;
        };
        pos = pos.apply(mv);
        moves.push(mv);
    }
    Played {
        won: pos.is_won(),
        moves,
    }
}

/// The legal moves of a position.
fn moves_of(lay: &Layout, pos: &Position) -> MoveList {
    let mut list = MoveList::default();
    pos.board.moves(lay, &mut list);
    list
}

/// Seed 004's monkey: a uniformly random legal move, never taken back.
#[derive(Clone, Debug, Default)]
pub struct Random;

impl Agent for Random {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, lay: &Layout, pos: &Position, rng: &mut Rng) -> Option<Move> {
        let list = moves_of(lay, pos);
        let moves = list.as_slice();
        (!moves.is_empty()).then(|| moves[rng.random_range(0..moves.len())])
    }
}

/// Plays random moves from `pos` to the end: whether it wins.
pub fn random_playout(lay: &Layout, pos: &Position, rng: &mut Rng) -> bool {
    let mut board = pos.board;
    let mut list = MoveList::default();
    while board.stacks() > 1 {
        board.moves(lay, &mut list);
        let moves = list.as_slice();
        if moves.is_empty() {
            return false;
        }
        board = board.apply(moves[rng.random_range(0..moves.len())]);
    }
    true
}

/// The move whose result the heuristic values most; ties go to the first
/// in (from, to) order, so the agent is deterministic.
pub fn best_by(lay: &Layout, pos: &Position, weights: &Weights, moves: &[Move]) -> Option<Move> {
    let mut best: Option<(f64, Move)> = None;
    for &mv in moves {
        let v = weights.value(lay, &pos.apply(mv));
        if best.is_none_or(|(b, _)| v > b) {
            best = Some((v, mv));
        }
    }
    best.map(|(_, mv)| mv)
}

/// Seed 000's greedy player: the move to the position of highest heuristic
/// value.
#[derive(Clone, Debug, Default)]
pub struct Greedy {
    /// The heuristic's weights.
    pub weights: Weights,
}

impl Agent for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn choose(&mut self, lay: &Layout, pos: &Position, _rng: &mut Rng) -> Option<Move> {
        best_by(lay, pos, &self.weights, moves_of(lay, pos).as_slice())
    }
}

/// Seed 003's flat Monte Carlo: `playouts` random playouts after each legal
/// move; the move with the most wins (the first on a tie).
#[derive(Clone, Debug)]
pub struct FlatMonteCarlo {
    /// Random playouts per legal move.
    pub playouts: u32,
    estimates: Vec<Estimate>,
}

impl FlatMonteCarlo {
    /// Flat Monte Carlo with `playouts` per legal move.
    pub fn new(playouts: u32) -> FlatMonteCarlo {
        FlatMonteCarlo {
            playouts,
            estimates: Vec::new(),
        }
    }
}

impl Agent for FlatMonteCarlo {
    fn name(&self) -> String {
        format!("flat-mc:{}", self.playouts)
    }

    fn choose(&mut self, lay: &Layout, pos: &Position, rng: &mut Rng) -> Option<Move> {
        self.estimates.clear();
        for &mv in moves_of(lay, pos).as_slice() {
            let child = pos.apply(mv);
            let wins = (0..self.playouts)
                .filter(|_| random_playout(lay, &child, rng))
                .count() as u32;
            self.estimates.push(Estimate {
                mv,
                visits: self.playouts,
                wins,
            });
        }
        let mut best: Option<&Estimate> = None;
        for e in &self.estimates {
            if best.is_none_or(|b| e.wins > b.wins) {
                best = Some(e);
            }
        }
        best.map(|e| e.mv)
    }

    fn estimates(&self) -> &[Estimate] {
        &self.estimates
    }

    fn unestimated(&self) -> Option<Unestimated> {
        None
    }
}

/// Seed 000's heuristic best-first search as a player: it searches for a
/// solution within its budget of expanded nodes and plays it out; without
/// one (over budget, or no solution), it makes the greedy move and searches
/// again from the next position.
#[derive(Clone, Debug)]
pub struct BestFirst {
    /// Nodes a search may expand.
    pub nodes: u64,
    /// The heuristic's weights.
    pub weights: Weights,
    /// The solution being played, and the position it goes on from (with
    /// the layout's cards, since a position names cards by index there).
    plan: Option<(Vec<crate::Card>, Position, Vec<Move>)>,
    /// Whether the last move came from a solution (else the greedy move).
    on_line: bool,
}

impl BestFirst {
    /// Best-first search within `nodes` expanded nodes a search.
    pub fn new(nodes: u64, weights: Weights) -> BestFirst {
        BestFirst {
            nodes,
            weights,
            plan: None,
            on_line: false,
        }
    }
}

impl Agent for BestFirst {
    fn name(&self) -> String {
        format!("best-first:{}", self.nodes)
    }

    fn choose(&mut self, lay: &Layout, pos: &Position, _rng: &mut Rng) -> Option<Move> {
        self.on_line = true;
        if let Some((cards, from, line)) = self.plan.take()
            && from == *pos
            && cards == lay.cards()
            && let Some((&mv, rest)) = line.split_first()
        {
            self.plan = Some((cards, pos.apply(mv), rest.to_vec()));
            return Some(mv);
        }
        // Memory is bounded by the node budget; a failed search is no move
        // lost: the greedy move stands in.
        let found = search::search_from(
            lay,
            *pos,
            search::Order::BestFirst(self.weights),
            &crate::engine::limits::Limits::default(),
            self.nodes,
        )
        .ok()
        .and_then(|s| s.solution);
        if let Some(line) = found
            && let Some((&mv, rest)) = line.split_first()
        {
            self.plan = Some((lay.cards().to_vec(), pos.apply(mv), rest.to_vec()));
            return Some(mv);
        }
        self.on_line = false;
        best_by(lay, pos, &self.weights, moves_of(lay, pos).as_slice())
    }

    fn unestimated(&self) -> Option<Unestimated> {
        Some(if self.on_line {
            Unestimated::WinningLine
        } else {
            Unestimated::GreedyFallback
        })
    }
}

/// Which agent, with its budget: what the command line and the app choose.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// [`Random`].
    Random,
    /// [`Greedy`] with these weights.
    Greedy(Weights),
    /// [`FlatMonteCarlo`] with this many playouts per move.
    FlatMonteCarlo(u32),
    /// [`Mcts`] with this many iterations per move and playout weights,
    /// keeping a winning line once found.
    Mcts(u32, Weights),
    /// [`Mcts::plain`]: a fresh search at every move.
    MctsPlain(u32, Weights),
    /// [`BestFirst`] with this many expanded nodes a search.
    BestFirst(u64, Weights),
}

impl AgentSpec {
    /// The agent.
    pub fn build(&self) -> Box<dyn Agent + Send> {
        match *self {
            AgentSpec::Random => Box::new(Random),
            AgentSpec::Greedy(weights) => Box::new(Greedy { weights }),
            AgentSpec::FlatMonteCarlo(n) => Box::new(FlatMonteCarlo::new(n)),
            AgentSpec::Mcts(n, weights) => Box::new(Mcts::new(n, weights)),
            AgentSpec::MctsPlain(n, weights) => Box::new(Mcts::plain(n, weights)),
            AgentSpec::BestFirst(n, weights) => Box::new(BestFirst::new(n, weights)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::notation::parse_state;
    use crate::engine::solver::solve;

    /// Replays a game with the rules' own checks: every move legal.
    fn replays(start: &State, played: &Played) -> State {
        start.replay(&played.moves).expect("every move is legal")
    }

    fn agents() -> Vec<AgentSpec> {
        vec![
            AgentSpec::Random,
            AgentSpec::Greedy(Weights::default()),
            AgentSpec::FlatMonteCarlo(5),
            AgentSpec::Mcts(30, Weights::default()),
            AgentSpec::MctsPlain(30, Weights::default()),
            AgentSpec::BestFirst(200, Weights::default()),
        ]
    }

    #[test]
    fn agents_make_only_legal_moves_and_a_seed_names_the_game() {
        for spec in agents() {
            for d in 0..4 {
                let start = deal(d);
                let a = play(&mut *spec.build(), &start, &mut game_rng(7, d as u64, 0));
                let b = play(&mut *spec.build(), &start, &mut game_rng(7, d as u64, 0));
                assert_eq!(a, b, "{spec:?} on deal {d}");
                let end = replays(&start, &a);
                assert_eq!(a.won, end.is_solved(), "{spec:?} on deal {d}");
                // A game stops only when won or stuck.
                assert!(a.won || end.legal_moves().is_empty());
                assert!(a.moves.len() < 16);
            }
        }
    }

    #[test]
    fn weights_read_back_and_name_their_mistakes() {
        let w = Weights {
            score: 0.75,
            moves: 3.0,
            lost: -50.0,
        };
        assert_eq!(Weights::from_toml(&w.to_toml()).unwrap(), w);
        // Every float comes back to the bit.
        let odd = Weights {
            score: 0.1 + 0.2,
            moves: 1e-7,
            lost: -0.0,
        };
        let bits = |w: Weights| w.to_vec().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let back = Weights::from_toml(&odd.to_toml()).unwrap();
        assert_eq!(bits(back), bits(odd));
        let err = Weights::from_toml("score = 1.0\nmovse = 2.5\n").unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        assert!(
            Weights::from_toml("score = 1.0\n").is_err(),
            "moves is needed"
        );
    }

    #[test]
    fn random_games_differ_with_the_seed() {
        let start = deal(0);
        let games: std::collections::HashSet<Vec<Move>> = (0..20)
            .map(|g| play(&mut Random, &start, &mut game_rng(1, 0, g)).moves)
            .collect();
        assert!(games.len() > 10, "{} distinct games of 20", games.len());
    }

    #[test]
    fn greedy_takes_the_highest_heuristic_value() {
        let start = deal(1);
        let (lay, pos) = Position::new(&start);
        let w = Weights::default();
        let mv = Greedy { weights: w }
            .choose(&lay, &pos, &mut game_rng(0, 0, 0))
            .unwrap();
        // Independently: the State's own moves, score and move count.
        let value = |s: &State| s.score() as f64 + 2.5 * s.legal_moves().len() as f64;
        let best = start
            .legal_moves()
            .into_iter()
            .map(|m| value(&start.apply(m).unwrap()))
            .fold(f64::MIN, f64::max);
        assert_eq!(value(&start.apply(mv).unwrap()), best);
    }

    #[test]
    fn agents_never_win_an_unsolvable_deal() {
        // Deal 10 is one of the 24 unsolvable deals in 0..9999.
        let start = deal(10);
        assert!(!solve(&start).unwrap().is_solvable());
        for spec in agents() {
            for g in 0..3 {
                let p = play(&mut *spec.build(), &start, &mut game_rng(3, 10, g));
                assert!(!p.won, "{spec:?}");
                replays(&start, &p);
            }
        }
    }

    #[test]
    fn a_random_playout_wins_where_every_line_wins() {
        // Two cards that flock in one row: the only move wins.
        let s = parse_state("AH2H", Some(crate::Grid::new(1, 2).unwrap())).unwrap();
        let (lay, pos) = Position::new(&s);
        assert!((0..10).all(|g| random_playout(&lay, &pos, &mut game_rng(0, 0, g))));
        let stuck = parse_state("AH5S", Some(crate::Grid::new(1, 2).unwrap())).unwrap();
        let (lay, pos) = Position::new(&stuck);
        assert!(!random_playout(&lay, &pos, &mut game_rng(0, 0, 0)));
    }

    #[test]
    fn best_first_plays_out_the_solution_it_finds() {
        for d in 0..10 {
            let start = deal(d);
            let p = play(
                &mut BestFirst::new(1_000_000, Weights::default()),
                &start,
                &mut game_rng(0, d as u64, 0),
            );
            // Deals 0..9 are solvable, and the budget is ample.
            assert!(p.won, "deal {d}");
            assert!(replays(&start, &p).is_solved());
        }
        // With a budget of one node it never finds a solution of 16 cards
        // and plays the greedy game.
        let start = deal(3);
        let starved = play(
            &mut BestFirst::new(1, Weights::default()),
            &start,
            &mut game_rng(0, 3, 0),
        );
        let greedy = play(&mut Greedy::default(), &start, &mut game_rng(0, 3, 0));
        assert_eq!(starved.moves[0], greedy.moves[0]);
    }

    #[test]
    fn flat_monte_carlo_counts_its_playouts() {
        let start = deal(2);
        let (lay, pos) = Position::new(&start);
        let mut agent = FlatMonteCarlo::new(7);
        let mv = agent.choose(&lay, &pos, &mut game_rng(0, 2, 0)).unwrap();
        let est = agent.estimates();
        assert_eq!(est.len(), start.legal_moves().len());
        assert!(est.iter().all(|e| e.visits == 7 && e.wins <= 7));
        let most = est.iter().map(|e| e.wins).max().unwrap();
        assert_eq!(est.iter().find(|e| e.mv == mv).unwrap().wins, most);
        assert_eq!(agent.unestimated(), None);
    }

    #[test]
    fn an_agent_says_why_a_move_has_no_estimates() {
        // Two cards that flock: MCTS sees the win without searching.
        let s = parse_state("AH2H", Some(crate::Grid::new(1, 2).unwrap())).unwrap();
        let (lay, pos) = Position::new(&s);
        let mut rng = game_rng(0, 0, 0);
        let mut mcts = Mcts::new(100, Weights::default());
        assert!(mcts.choose(&lay, &pos, &mut rng).is_some());
        assert!(mcts.estimates().is_empty());
        assert_eq!(mcts.unestimated(), Some(Unestimated::WinInTwo));
        Random.choose(&lay, &pos, &mut rng);
        assert_eq!(Random.unestimated(), Some(Unestimated::NotAnEstimator));
        let mut best = BestFirst::new(1_000, Weights::default());
        best.choose(&lay, &pos, &mut rng);
        assert_eq!(best.unestimated(), Some(Unestimated::WinningLine));
        // A 16-card deal takes more than one node: the greedy move stands in.
        let (lay, pos) = Position::new(&deal(3));
        let mut starved = BestFirst::new(1, Weights::default());
        starved.choose(&lay, &pos, &mut rng);
        assert_eq!(starved.unestimated(), Some(Unestimated::GreedyFallback));
    }
}
