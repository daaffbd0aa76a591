//! Difficulty grades from the solvers, on Tatham's principle: a puzzle's
//! grade is the weakest player that solves it.
//!
//! The players, weakest first, are the ones behind the difficulty features
//! ([`crate::agents::difficulty`]): random playouts, the greedy agent, and
//! MCTS at the budgets of its ladder. A puzzle is
//! - **Easy** when the greedy agent wins it, random playouts win at least
//!   [`GradeRule::easy_playouts`] of their games, or MCTS needs a budget of
//!   at most `budgets[0]`;
//! - **Medium** when MCTS needs at most `budgets[1]`;
//! - **Hard** when it needs at most `budgets[2]`;
//! - **Expert** otherwise (a larger budget, or beyond the ladder).
//!
//! A short puzzle cannot be hard however the agents fare: a grade needs at
//! least `min_moves` moves (one fewer than the cards), or it drops to the
//! highest grade its moves allow. Unsolvable puzzles, and puzzles whose
//! difficulty features were not computed, have no grade.

use crate::engine::feature::Feature;
use crate::engine::features::Features;
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// A puzzle's difficulty grade, easiest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Grade {
    /// A weak player (greedy, or MCTS on a tiny budget) solves it.
    Easy,
    /// MCTS on a small budget solves it.
    Medium,
    /// MCTS needs a large budget.
    Hard,
    /// MCTS needs a budget beyond the hard one, or beyond its ladder.
    Expert,
}

impl Grade {
    /// Every grade, easiest first.
    pub const ALL: [Grade; 4] = [Grade::Easy, Grade::Medium, Grade::Hard, Grade::Expert];

    /// The grade's name as shown and as written in files: `Easy` … `Expert`.
    pub fn name(self) -> &'static str {
        match self {
            Grade::Easy => "Easy",
            Grade::Medium => "Medium",
            Grade::Hard => "Hard",
            Grade::Expert => "Expert",
        }
    }

    /// The grade's place, 0 for Easy to 3 for Expert (a number for
    /// `--where` and the regression).
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Grade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// A word that names no grade.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("unknown grade {0:?}: use Easy, Medium, Hard or Expert")]
pub struct UnknownGrade(pub String);

impl FromStr for Grade {
    type Err = UnknownGrade;

    /// Reads a grade's name in any case.
    fn from_str(text: &str) -> Result<Grade, UnknownGrade> {
        Grade::ALL
            .into_iter()
            .find(|g| g.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| UnknownGrade(text.to_string()))
    }
}

/// The thresholds that turn the difficulty features into a grade.
#[derive(Clone, Debug, PartialEq)]
pub struct GradeRule {
    /// The largest MCTS budget of Easy, Medium and Hard puzzles.
    pub budgets: [u32; 3],
    /// The share of random playouts that wins makes a puzzle Easy.
    pub easy_playouts: f64,
    /// The fewest moves of a Medium, Hard and Expert puzzle.
    pub min_moves: [usize; 3],
}

impl Default for GradeRule {
    /// Budgets 5, 50 and 500 of the ladder; a quarter of random playouts;
    /// Hard from 5 moves (6 cards) and Expert from 9 moves (10 cards).
    fn default() -> GradeRule {
        GradeRule {
            budgets: [5, 50, 500],
            easy_playouts: 0.25,
            min_moves: [0, 5, 9],
        }
    }
}

impl GradeRule {
    /// The grade of a puzzle with these features, or `None` when it is
    /// unsolvable or its difficulty features are missing.
    pub fn grade(&self, f: &Features) -> Option<Grade> {
        self.grade_with(|feature| f.get(feature))
    }

    /// [`GradeRule::grade`] over any source of feature values (`None`:
    /// missing), as the `--where` conditions read them.
    pub fn grade_with(&self, value: impl Fn(Feature) -> Option<f64>) -> Option<Grade> {
        if value(Feature::Solvable)? < 0.5 {
            return None;
        }
        let by_agents = if value(Feature::GreedyWins).is_some_and(|w| w >= 0.5)
            || value(Feature::PlayoutWinRate).is_some_and(|r| r >= self.easy_playouts)
        {
            Grade::Easy
        } else {
            let budget = value(Feature::MctsBudget)?;
            match self.budgets.iter().position(|&b| budget <= f64::from(b)) {
                Some(i) => Grade::ALL[i],
                None => Grade::Expert,
            }
        };
        // Without the number of cards the moves are unknown: no grade, not
        // the Easy a count of 0 would cap it to.
        let cards = value(Feature::N)? as usize;
        Some(self.cap_by_moves(by_agents, cards.saturating_sub(1)))
    }

    /// The rule in words, one line a grade, as `boaf grades` prints it.
    pub fn describe(&self) -> Vec<String> {
        let [e, m, h] = self.budgets;
        let [_, hard, expert] = self.min_moves;
        vec![
            format!(
                "Easy    the greedy agent wins, random playouts win at least {:.0}% of their games, \
                 or MCTS wins at a budget of at most {e}",
                self.easy_playouts * 100.0
            ),
            format!("Medium  MCTS needs a budget of at most {m}"),
            format!(
                "Hard    MCTS needs a budget of at most {h}, and the puzzle has at least {hard} moves"
            ),
            format!(
                "Expert  MCTS needs more (or no budget of its ladder wins), and the puzzle has at least {expert} moves"
            ),
            "ungraded: unsolvable, or the difficulty features were not computed".to_string(),
        ]
    }

    /// The highest grade up to `grade` that `moves` moves allow.
    fn cap_by_moves(&self, grade: Grade, moves: usize) -> Grade {
        let mut g = grade;
        while g > Grade::Easy && moves < self.min_moves[g.index() - 1] {
            g = Grade::ALL[g.index() - 1];
        }
        g
    }
}

/// The features a grade reads: the agents' results, solvability and the
/// cards (for the cap by moves).
pub const READS: [Feature; 5] = [
    Feature::N,
    Feature::Solvable,
    Feature::PlayoutWinRate,
    Feature::GreedyWins,
    Feature::MctsBudget,
];

/// The grade of a puzzle by the default rule ([`GradeRule::default`]).
pub fn grade(features: &Features) -> Option<Grade> {
    GradeRule::default().grade(features)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(n: usize, greedy: bool, playouts: f64, budget: Option<u32>) -> Features {
        Features {
            n,
            solvable: true,
            suit_diversity: 4,
            rank_diversity: 8,
            dominant_suit_ratio: 0.25,
            rank_clusters: 1,
            avg_flockability: 2.0,
            depth1_ratio: Some(0.5),
            depth2_ratio: Some(0.2),
            depth3_ratio: Some(0.1),
            halfway_ratio: Some(0.01),
            midgame_tension: Some(0.5),
            playout_win_rate: Some(playouts),
            greedy_wins: Some(greedy),
            mcts_budget: budget,
        }
    }

    #[test]
    fn the_weakest_player_that_solves_it_sets_the_grade() {
        let rule = GradeRule::default();
        assert_eq!(
            rule.grade(&with(16, true, 0.0, Some(5000))),
            Some(Grade::Easy)
        );
        assert_eq!(
            rule.grade(&with(16, false, 0.3, Some(5000))),
            Some(Grade::Easy)
        );
        assert_eq!(
            rule.grade(&with(16, false, 0.0, Some(5))),
            Some(Grade::Easy)
        );
        assert_eq!(
            rule.grade(&with(16, false, 0.0, Some(10))),
            Some(Grade::Medium)
        );
        assert_eq!(
            rule.grade(&with(16, false, 0.0, Some(50))),
            Some(Grade::Medium)
        );
        assert_eq!(
            rule.grade(&with(16, false, 0.0, Some(500))),
            Some(Grade::Hard)
        );
        assert_eq!(
            rule.grade(&with(16, false, 0.0, Some(1000))),
            Some(Grade::Expert)
        );
        assert_eq!(
            rule.grade(&with(
                16,
                false,
                0.0,
                Some(crate::agents::difficulty::BEYOND_LADDER)
            )),
            Some(Grade::Expert)
        );
    }

    #[test]
    fn short_puzzles_and_missing_features_are_capped_or_ungraded() {
        let rule = GradeRule::default();
        // 8 cards, 7 moves: not enough for Expert.
        assert_eq!(
            rule.grade(&with(8, false, 0.0, Some(5000))),
            Some(Grade::Hard)
        );
        // 5 cards, 4 moves: not enough for Hard either.
        assert_eq!(
            rule.grade(&with(5, false, 0.0, Some(5000))),
            Some(Grade::Medium)
        );
        assert_eq!(rule.grade(&with(16, false, 0.0, None)), None);
        let mut lost = with(16, true, 0.0, Some(5));
        lost.solvable = false;
        assert_eq!(rule.grade(&lost), None);
        // A row without its number of cards (as a hand-edited ratings file
        // may be) is ungraded, not capped to Easy by a count of 0.
        let expert = with(16, false, 0.0, Some(5000));
        let without_n = |f: Feature| (f != Feature::N).then(|| expert.get(f)).flatten();
        assert_eq!(rule.grade_with(without_n), None);
        assert_eq!(rule.grade_with(|f| expert.get(f)), Some(Grade::Expert));
    }

    #[test]
    fn names_read_back_in_any_case() {
        for g in Grade::ALL {
            assert_eq!(g.name().to_lowercase().parse::<Grade>(), Ok(g));
            assert_eq!(g.to_string().parse::<Grade>(), Ok(g));
        }
        assert_eq!(
            "Tricky".parse::<Grade>(),
            Err(UnknownGrade("Tricky".to_string()))
        );
    }
}
