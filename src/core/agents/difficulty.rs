//! Difficulty features from the agents: how forgiving a puzzle is to a
//! careless player, whether a greedy one gets through, and how much search
//! a strong one needs.
//!
//! Each is seeded by the puzzle itself (its compact notation), so a puzzle
//! always gets the same value, whoever asks and whatever thread computes it.

use super::{Greedy, Mcts, Position, Rng, Weights, play, random_playout};
use crate::engine::feature::{Feature, FeatureSet};
use crate::engine::features::Features;
use crate::engine::limits::{Limits, SearchError};
use crate::engine::notation::to_compact;
use crate::engine::state::State;
use crate::hash::fnv1a;
use rand::SeedableRng;

/// Random playouts behind `playout_win_rate`.
pub const PLAYOUTS: u32 = 10_000;

// The ladder is part of `mcts_budget`'s definition, which the feature owns.
pub use crate::engine::feature::{BEYOND_LADDER, LADDER};

/// Seeded games MCTS plays at each budget of the ladder.
pub const GRADE_GAMES: u32 = 5;

/// Wins among [`GRADE_GAMES`] that pass a budget.
pub const GRADE_WINS: u32 = 4;

/// The seed a puzzle's plays start from: FNV-1a of its compact notation,
/// with the grid, so that the same puzzle always plays the same games.
pub fn plays_seed(state: &State) -> u64 {
    let grid = state.grid();
    let text = format!("{}x{} {}", grid.rows(), grid.cols(), to_compact(state));
    fnv1a(text.as_bytes())
}

/// The share of `playouts` seeded random playouts (seed 004's monkey) that
/// win; 1 for a puzzle of one card or none.
pub fn playout_win_rate(state: &State, playouts: u32) -> f64 {
    if playouts == 0 {
        return 0.0;
    }
    let (lay, pos) = Position::new(state);
    let mut rng = Rng::seed_from_u64(plays_seed(state));
    let wins = (0..playouts)
        .filter(|_| random_playout(&lay, &pos, &mut rng))
        .count();
    wins as f64 / playouts as f64
}

/// Whether the greedy agent with seed 000's weights wins (it is
/// deterministic, so one game says it).
pub fn greedy_wins(state: &State) -> bool {
    let mut rng = Rng::seed_from_u64(0);
    play(
        &mut Greedy {
            weights: Weights::default(),
        },
        state,
        &mut rng,
    )
    .won
}

/// The smallest budget of [`LADDER`] at which MCTS (playouts by seed 000's
/// weights, keeping a winning line once found) wins [`GRADE_WINS`] of
/// [`GRADE_GAMES`] seeded games; [`BEYOND_LADDER`] when none does, and
/// `None` for an unsolvable puzzle (`solvable` says which; agents never win
/// one). A grade by a solver, as Tatham's puzzles are graded.
pub fn mcts_budget(
    state: &State,
    solvable: bool,
    limits: &Limits,
) -> Result<Option<u32>, SearchError> {
    if !solvable {
        return Ok(None);
    }
    let seed = plays_seed(state);
    for budget in LADDER {
        let mut wins = 0;
        for game in 0..GRADE_GAMES {
            limits.check_cancel()?;
            let mut rng = super::game_rng(seed, budget as u64, game as u64);
            let mut agent = Mcts::new(budget, Weights::default());
            wins += u32::from(play(&mut agent, state, &mut rng).won);
            // Stop as soon as the budget has passed or cannot pass.
            let left = GRADE_GAMES - game - 1;
            if wins >= GRADE_WINS || wins + left < GRADE_WINS {
                break;
            }
        }
        if wins >= GRADE_WINS {
            return Ok(Some(budget));
        }
    }
    Ok(Some(BEYOND_LADDER))
}

/// Fills in the difficulty features of `plays` (`features.solvable` must
/// be known); the others are left as they are.
pub fn add_difficulty(
    features: &mut Features,
    state: &State,
    plays: FeatureSet,
    limits: &Limits,
) -> Result<(), SearchError> {
    let solvable = features.solvable;
    if plays.contains(Feature::PlayoutWinRate) {
        // An unsolvable puzzle has no winning line: no need to play.
        features.playout_win_rate = Some(if solvable {
            playout_win_rate(state, PLAYOUTS)
        } else {
            0.0
        });
    }
    if plays.contains(Feature::GreedyWins) {
        features.greedy_wins = Some(solvable && greedy_wins(state));
    }
    if plays.contains(Feature::MctsBudget) {
        features.mcts_budget = Some(mcts_budget(state, solvable, limits)?).flatten();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Grid;
    use crate::engine::analysis::AnalysisOptions;
    use crate::engine::deal::deal;
    use crate::engine::features::features_for;
    use crate::engine::notation::parse_state;
    use crate::engine::solver::solve;

    #[test]
    fn playouts_win_always_where_every_line_wins_and_never_where_none_does() {
        // One row of flocking cards: every move keeps a line that wins.
        let row = parse_state("AH2H3H4H", Some(Grid::new(1, 4).unwrap())).unwrap();
        assert_eq!(playout_win_rate(&row, 200), 1.0);
        // Deal 10 is unsolvable: no playout can win.
        let lost = deal(10);
        assert!(!solve(&lost).unwrap().is_solvable());
        assert_eq!(playout_win_rate(&lost, 200), 0.0);
    }

    #[test]
    fn the_playout_rate_is_the_share_an_independent_count_gives() {
        // Two suits in a 1×3 row: AH 2S 3H. AH–3H flock by suit (same row),
        // 2S flocks with both by rank. Independent count of the lines: from
        // three stacks, each move leaves two stacks; the game is won iff the
        // two tops then flock. Enumerate by the rules' own State.
        let s = parse_state("AH2S3H", Some(Grid::new(1, 3).unwrap())).unwrap();
        let moves = s.legal_moves();
        let winning = moves
            .iter()
            .filter(|&&m| {
                let next = s.apply(m).unwrap();
                next.legal_moves()
                    .iter()
                    .any(|&m2| next.apply(m2).unwrap().is_solved())
            })
            .count();
        let share = winning as f64 / moves.len() as f64;
        let rate = playout_win_rate(&s, 4000);
        assert!((rate - share).abs() < 0.03, "{rate} against {share}");
    }

    #[test]
    fn a_puzzle_always_gets_the_same_difficulty() {
        let s = deal(5);
        let mut a = features_for(&s, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
        let mut b = a.clone();
        let limits = Limits::default();
        add_difficulty(&mut a, &s, FeatureSet::DIFFICULTY, &limits).unwrap();
        add_difficulty(&mut b, &s, FeatureSet::DIFFICULTY, &limits).unwrap();
        assert_eq!(a, b);
        let rate = a.playout_win_rate.unwrap();
        assert!((0.0..=1.0).contains(&rate));
        let budget = a.mcts_budget.unwrap();
        assert!(LADDER.contains(&budget) || budget == BEYOND_LADDER);
        // The greedy feature is the greedy agent's own game.
        let game = play(&mut Greedy::default(), &s, &mut Rng::seed_from_u64(99));
        assert_eq!(a.greedy_wins, Some(game.won));
    }

    #[test]
    fn an_unsolvable_puzzle_has_no_budget_and_loses_every_play() {
        let s = deal(10);
        let mut f = features_for(&s, FeatureSet::EMPTY, &AnalysisOptions::default()).unwrap();
        assert!(!f.solvable);
        add_difficulty(&mut f, &s, FeatureSet::DIFFICULTY, &Limits::default()).unwrap();
        assert_eq!(f.playout_win_rate, Some(0.0));
        assert_eq!(f.greedy_wins, Some(false));
        assert_eq!(f.mcts_budget, None);
        assert_eq!(f.get(Feature::MctsBudget), None);
    }

    #[test]
    fn the_budget_is_the_first_rung_that_wins_enough_games() {
        // Checked against a direct replay of the ladder's games.
        for d in [0i32, 3, 7] {
            let s = deal(d);
            let budget = mcts_budget(&s, true, &Limits::default()).unwrap().unwrap();
            let seed = plays_seed(&s);
            let wins_at = |b: u32| {
                (0..GRADE_GAMES)
                    .filter(|&g| {
                        let mut rng = super::super::game_rng(seed, b as u64, g as u64);
                        play(&mut Mcts::new(b, Weights::default()), &s, &mut rng).won
                    })
                    .count() as u32
            };
            for &rung in LADDER.iter().take_while(|&&r| r < budget) {
                assert!(wins_at(rung) < GRADE_WINS, "deal {d} at {rung}");
            }
            if budget != BEYOND_LADDER {
                assert!(wins_at(budget) >= GRADE_WINS, "deal {d} at {budget}");
            }
        }
    }
}
