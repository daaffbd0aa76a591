//! What each feature of a puzzle is: its name in files, its label, its
//! definition, its range and which part of boaf computes it. Every place
//! that chooses, prints, stores or parses a feature goes through [`Feature`]
//! and [`FeatureSet`], so a feature is defined once (the values themselves
//! are in [`crate::engine::features::Features`]).

use std::fmt;

/// Budgets of the MCTS ladder that grades a puzzle's `mcts_budget`: a rough
/// doubling, so a grade costs a few seconds at most. The ladder is part of
/// the feature's definition, so it lives here; the agents climb it.
pub const LADDER: [u32; 13] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

/// `mcts_budget` of a solvable puzzle that no budget of the ladder passes:
/// twice the top rung, so that the grade stays a number a regression reads.
pub const BEYOND_LADDER: u32 = 20_000;

/// One feature of a puzzle (seed 001's, made exact here, and the agents'
/// difficulty features).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    /// Cards in the puzzle.
    N,
    /// Whether the puzzle can be solved.
    Solvable,
    /// Suits present.
    SuitDiversity,
    /// Ranks present.
    RankDiversity,
    /// The most frequent suit's share of the cards.
    DominantSuitRatio,
    /// Groups of cards joined by same or adjacent ranks.
    RankClusters,
    /// Pairs of cards that flock, per card.
    AvgFlockability,
    /// Solvable share of the states after one move.
    Depth1Ratio,
    /// Solvable share of the states after two moves.
    Depth2Ratio,
    /// Solvable share of the states after three moves.
    Depth3Ratio,
    /// Solvable share of the states at the halfway depth.
    HalfwayRatio,
    /// Mean Browne tension of the solvable states at the halfway depth.
    MidgameTension,
    /// Share of seeded random playouts that win.
    PlayoutWinRate,
    /// Whether the greedy agent wins.
    GreedyWins,
    /// The smallest MCTS budget of the ladder that wins most seeded games.
    MctsBudget,
}

/// Which part of boaf computes a feature, cheapest first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// The cards alone, without any search.
    Cards,
    /// The solver, from the deal.
    Solver,
    /// The distinct and solvable states down to this depth (1, 2 or 3).
    Shallow(usize),
    /// The exact state space to the halfway depth.
    Halfway,
    /// The agents, playing seeded games from the deal.
    Agents,
}

/// Everything boaf says about a feature.
struct About {
    column: &'static str,
    label: &'static str,
    title: &'static str,
    definition: &'static str,
    range: &'static str,
    part: Part,
}

impl Feature {
    /// Every feature, in the order of the files' columns.
    pub const ALL: [Feature; 15] = [
        Feature::N,
        Feature::Solvable,
        Feature::SuitDiversity,
        Feature::RankDiversity,
        Feature::DominantSuitRatio,
        Feature::RankClusters,
        Feature::AvgFlockability,
        Feature::Depth1Ratio,
        Feature::Depth2Ratio,
        Feature::Depth3Ratio,
        Feature::HalfwayRatio,
        Feature::MidgameTension,
        Feature::PlayoutWinRate,
        Feature::GreedyWins,
        Feature::MctsBudget,
    ];

    fn about(self) -> About {
        let (column, label, title, definition, range, part) = match self {
            Feature::N => (
                "n",
                "cards",
                "Cards",
                "The number of cards in the puzzle, each a one-card stack at the start.",
                "1 to 16",
                Part::Cards,
            ),
            Feature::Solvable => (
                "solvable",
                "solvable",
                "Solvable",
                "1 when some sequence of moves leaves a single stack, else 0.",
                "0 or 1",
                Part::Solver,
            ),
            Feature::SuitDiversity => (
                "suit_diversity",
                "suits",
                "Suit diversity",
                "The number of suits among the cards.",
                "1 to 4",
                Part::Cards,
            ),
            Feature::RankDiversity => (
                "rank_diversity",
                "ranks",
                "Rank diversity",
                "The number of ranks among the cards.",
                "1 to 13",
                Part::Cards,
            ),
            Feature::DominantSuitRatio => (
                "dominant_suit_ratio",
                "dom. suit",
                "Dominant suit ratio",
                "The count of the most frequent suit divided by the number of cards.",
                "0.25 to 1",
                Part::Cards,
            ),
            Feature::RankClusters => (
                "rank_clusters",
                "clusters",
                "Rank clusters",
                "The number of groups of cards joined by chains of same or adjacent ranks.",
                "1 to 7",
                Part::Cards,
            ),
            Feature::AvgFlockability => (
                "avg_flockability",
                "flock.",
                "Average flockability",
                "The number of pairs of cards that can flock (same suit, or same or adjacent \
                 rank) divided by the number of cards.",
                "0 to 7.5 ((n - 1) / 2 at most)",
                Part::Cards,
            ),
            Feature::Depth1Ratio => (
                "depth1_ratio",
                "depth 1",
                "Depth-1 solvability ratio",
                "The share of the distinct states one move from the deal that can still be solved.",
                "0 to 1 (none under 2 cards)",
                Part::Shallow(1),
            ),
            Feature::Depth2Ratio => (
                "depth2_ratio",
                "depth 2",
                "Depth-2 solvability ratio",
                "The share of the distinct states two moves from the deal that can still be solved.",
                "0 to 1 (none under 3 cards)",
                Part::Shallow(2),
            ),
            Feature::Depth3Ratio => (
                "depth3_ratio",
                "depth 3",
                "Depth-3 solvability ratio",
                "The share of the distinct states three moves from the deal that can still be \
                 solved.",
                "0 to 1 (none under 4 cards)",
                Part::Shallow(3),
            ),
            Feature::HalfwayRatio => (
                "halfway_ratio",
                "halfway",
                "Halfway ratio",
                "The share of the distinct states at the halfway depth (n/2 moves from the deal, \
                 rounded down) that can still be solved; small means few ways through the middle.",
                "0 to 1",
                Part::Halfway,
            ),
            Feature::MidgameTension => (
                "midgame_tension",
                "tension",
                "Midgame tension",
                "The mean, over the solvable states at the halfway depth, of the share of their \
                 moves that lose (Browne's tension).",
                "0 to 1 (none when no such state has a move)",
                Part::Halfway,
            ),
            Feature::PlayoutWinRate => (
                "playout_win_rate",
                "playouts",
                "Playout win rate",
                "The share of 10 000 seeded random playouts from the deal that win.",
                "0 to 1",
                Part::Agents,
            ),
            Feature::GreedyWins => (
                "greedy_wins",
                "greedy",
                "Greedy wins",
                "1 when the greedy agent, with seed 000's weights, wins from the deal, else 0.",
                "0 or 1",
                Part::Agents,
            ),
            Feature::MctsBudget => (
                "mcts_budget",
                "MCTS",
                "MCTS budget",
                "The smallest budget of the ladder 1, 2, 5 … 10 000 iterations at which MCTS \
                 wins 4 of 5 seeded games (20 000 when no budget does; none when unsolvable).",
                "1 to 10 000, or 20 000",
                Part::Agents,
            ),
        };
        About {
            column,
            label,
            title,
            definition,
            range,
            part,
        }
    }

    /// The name in files, energies and on the command line: `halfway_ratio`.
    pub fn column(self) -> &'static str {
        self.about().column
    }

    /// A short label for a table heading: `halfway`.
    pub fn label(self) -> &'static str {
        self.about().label
    }

    /// The full name: `Halfway ratio`.
    pub fn title(self) -> &'static str {
        self.about().title
    }

    /// What it is, in one sentence.
    pub fn definition(self) -> &'static str {
        self.about().definition
    }

    /// The values it takes, in words.
    pub fn range(self) -> &'static str {
        self.about().range
    }

    /// Which part of boaf computes it.
    pub fn part(self) -> Part {
        self.about().part
    }

    /// The full name, the definition and the range, for a tooltip or `--help`
    /// (plain characters only: the app's font has no `⌊` or `÷`).
    pub fn explain(self) -> String {
        format!(
            "{}: {} Range: {}.",
            self.title(),
            self.definition(),
            self.range()
        )
    }

    /// The feature whose column name is `name`.
    pub fn from_column(name: &str) -> Option<Feature> {
        Feature::ALL.into_iter().find(|f| f.column() == name)
    }

    /// The depth-d solvability ratio, for d = 1, 2 or 3.
    pub fn depth_ratio(d: usize) -> Option<Feature> {
        [
            Feature::Depth1Ratio,
            Feature::Depth2Ratio,
            Feature::Depth3Ratio,
        ]
        .get(d.checked_sub(1)?)
        .copied()
    }

    /// Every feature as a Markdown table (column, name, definition, range):
    /// what `boaf features` prints and the README's table holds, so both read
    /// this one definition.
    pub fn table() -> String {
        let mut t = String::from("| column | feature | definition | range |\n|---|---|---|---|\n");
        for f in Feature::ALL {
            t += &format!(
                "| `{}` | {} | {} | {} |\n",
                f.column(),
                f.title(),
                f.definition(),
                f.range()
            );
        }
        t
    }

    /// Every feature on its own line, `column: definition`, for `--help`.
    pub fn help() -> String {
        let lines: Vec<String> = Feature::ALL
            .map(|f| format!("  {}: {}", f.column(), f.definition()))
            .to_vec();
        format!(
            "Features (`boaf features` has their ranges too):\n{}",
            lines.join("\n")
        )
    }

    /// Every column name, comma-separated, for an error that lists them.
    pub fn columns() -> String {
        Feature::ALL.map(Feature::column).join(", ")
    }

    /// A value of this feature as people read it: as
    /// [`crate::format::number`], except an MCTS budget beyond the ladder,
    /// which reads `> 10000` rather than its stand-in value.
    pub fn show(self, v: Option<f64>) -> String {
        match v {
            Some(b) if self == Feature::MctsBudget && b == BEYOND_LADDER as f64 => {
                format!("> {}", LADDER[LADDER.len() - 1])
            }
            _ => crate::format::number(v),
        }
    }
}

impl fmt::Display for Feature {
    /// The column name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.column())
    }
}

/// A name that is no feature's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown feature '{0}' (features are {all})", all = Feature::columns())]
pub struct UnknownFeature(pub String);

impl std::str::FromStr for Feature {
    type Err = UnknownFeature;

    /// A column name, spaces around it aside.
    fn from_str(s: &str) -> Result<Feature, UnknownFeature> {
        Feature::from_column(s.trim()).ok_or_else(|| UnknownFeature(s.trim().to_string()))
    }
}

/// A set of features, one bit each: what an energy reads, what a search
/// computes, which difficulty features the agents play for.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct FeatureSet(u16);

impl FeatureSet {
    /// No feature.
    pub const EMPTY: FeatureSet = FeatureSet(0);

    /// Every feature.
    pub const ALL: FeatureSet = FeatureSet::of(&Feature::ALL);

    /// The features the agents compute by playing (see
    /// [`crate::agents::difficulty`]): only when asked for.
    pub const DIFFICULTY: FeatureSet = FeatureSet::of(&[
        Feature::PlayoutWinRate,
        Feature::GreedyWins,
        Feature::MctsBudget,
    ]);

    /// The features of the halfway depth: the halfway ratio and the
    /// midgame tension.
    pub const HALFWAY_DEPTH: FeatureSet =
        FeatureSet::of(&[Feature::HalfwayRatio, Feature::MidgameTension]);

    /// The set of these features.
    pub const fn of(features: &[Feature]) -> FeatureSet {
        let mut bits = 0;
        let mut i = 0;
        while i < features.len() {
            bits |= 1 << features[i] as u16;
            i += 1;
        }
        FeatureSet(bits)
    }

    /// Whether `f` is in the set.
    pub fn contains(self, f: Feature) -> bool {
        self.0 & (1 << f as u16) != 0
    }

    /// The set with `f` too.
    pub fn with(self, f: Feature) -> FeatureSet {
        FeatureSet(self.0 | 1 << f as u16)
    }

    /// The features in either set.
    pub fn union(self, other: FeatureSet) -> FeatureSet {
        FeatureSet(self.0 | other.0)
    }

    /// The features in both sets.
    pub fn intersection(self, other: FeatureSet) -> FeatureSet {
        FeatureSet(self.0 & other.0)
    }

    /// The features of this set that are not in `other`.
    pub fn difference(self, other: FeatureSet) -> FeatureSet {
        FeatureSet(self.0 & !other.0)
    }

    /// Whether the set has no feature.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The features in the set, in [`Feature::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.into_iter().filter(move |&f| self.contains(f))
    }

    /// The deepest depth-d ratio in the set (1 to 3), or 0 for none.
    pub fn deepest_ratio(self) -> usize {
        self.iter()
            .filter_map(|f| match f.part() {
                Part::Shallow(d) => Some(d),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// Whether the set has a feature of the halfway depth (the halfway ratio
    /// or the midgame tension).
    pub fn reads_halfway(self) -> bool {
        !self.intersection(FeatureSet::HALFWAY_DEPTH).is_empty()
    }

    /// The costliest part that computes a feature of the set, not counting
    /// the agents ([`Part::Cards`] for none).
    pub fn deepest_search(self) -> Part {
        self.iter()
            .map(Feature::part)
            .filter(|&p| p != Part::Agents)
            .max()
            .unwrap_or(Part::Cards)
    }

    /// The difficulty features of the set.
    pub fn plays(self) -> FeatureSet {
        self.intersection(FeatureSet::DIFFICULTY)
    }
}

impl FromIterator<Feature> for FeatureSet {
    fn from_iter<I: IntoIterator<Item = Feature>>(iter: I) -> FeatureSet {
        iter.into_iter().fold(FeatureSet::EMPTY, FeatureSet::with)
    }
}

impl fmt::Debug for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(Feature::column))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_columns_are_the_files_names_in_their_order() {
        // The stores' and the ratings' column names, as they have always been.
        let want = [
            "n",
            "solvable",
            "suit_diversity",
            "rank_diversity",
            "dominant_suit_ratio",
            "rank_clusters",
            "avg_flockability",
            "depth1_ratio",
            "depth2_ratio",
            "depth3_ratio",
            "halfway_ratio",
            "midgame_tension",
            "playout_win_rate",
            "greedy_wins",
            "mcts_budget",
        ];
        assert_eq!(Feature::ALL.map(Feature::column), want);
        for (i, f) in Feature::ALL.into_iter().enumerate() {
            assert_eq!(f as usize, i);
            assert_eq!(want[i].parse::<Feature>(), Ok(f));
            assert_eq!(f.to_string(), want[i]);
        }
        let err = "flock".parse::<Feature>().unwrap_err().to_string();
        assert!(
            err.contains("'flock'") && err.contains("avg_flockability"),
            "{err}"
        );
    }

    #[test]
    fn every_feature_explains_itself() {
        let mut labels = std::collections::HashSet::new();
        for f in Feature::ALL {
            assert!(
                labels.insert(f.label()),
                "two features labelled {}",
                f.label()
            );
            assert!(f.definition().ends_with('.'), "{f}: {}", f.definition());
            assert!(!f.title().is_empty() && !f.range().is_empty());
            assert!(f.explain().starts_with(f.title()));
        }
        assert!(Feature::MctsBudget.definition().contains("4 of 5"));
    }

    #[test]
    fn sets_know_what_they_cost() {
        use Feature::*;
        let set: FeatureSet = [N, Depth2Ratio, Depth1Ratio, GreedyWins]
            .into_iter()
            .collect();
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            [N, Depth1Ratio, Depth2Ratio, GreedyWins]
        );
        assert_eq!(set.deepest_ratio(), 2);
        assert!(!set.reads_halfway());
        assert_eq!(set.deepest_search(), Part::Shallow(2));
        assert_eq!(set.plays(), FeatureSet::of(&[GreedyWins]));
        let half = FeatureSet::of(&[MidgameTension]);
        assert!(half.reads_halfway() && half.deepest_ratio() == 0);
        assert_eq!(half.deepest_search(), Part::Halfway);
        assert_eq!(FeatureSet::EMPTY.deepest_search(), Part::Cards);
        assert_eq!(FeatureSet::DIFFICULTY.deepest_search(), Part::Cards);
        assert_eq!(FeatureSet::ALL.iter().count(), 15);
        // The named sets are what the parts say.
        let by_part = |p: fn(Part) -> bool| -> FeatureSet {
            Feature::ALL.into_iter().filter(|f| p(f.part())).collect()
        };
        assert_eq!(by_part(|p| p == Part::Halfway), FeatureSet::HALFWAY_DEPTH);
        assert_eq!(by_part(|p| p == Part::Agents), FeatureSet::DIFFICULTY);
        for d in 1..=3 {
            let f = Feature::depth_ratio(d).unwrap();
            assert_eq!(f.part(), Part::Shallow(d));
            assert_eq!(f.column(), format!("depth{d}_ratio"));
        }
        assert_eq!(Feature::depth_ratio(0), None);
        assert_eq!(Feature::depth_ratio(4), None);
        assert_eq!(
            format!("{:?}", FeatureSet::DIFFICULTY),
            r#"{"playout_win_rate", "greedy_wins", "mcts_budget"}"#
        );
    }

    #[test]
    fn a_budget_beyond_the_ladder_reads_as_such() {
        assert_eq!(
            Feature::MctsBudget.show(Some(BEYOND_LADDER as f64)),
            "> 10000"
        );
        assert_eq!(Feature::MctsBudget.show(Some(500.0)), "500");
        assert_eq!(Feature::MctsBudget.show(None), crate::format::number(None));
        assert_eq!(Feature::HalfwayRatio.show(Some(0.25)), "0.2500");
    }
}
