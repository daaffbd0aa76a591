//! Puzzle features (seed 001, made exact in DESIGN.md), computed for any state.
//!
//! The card features (suits, ranks, rank clusters, flockability) are cheap.
//! The solvability ratios and the midgame tension are exact: from the sets of
//! cards that can become one stack ([`crate::engine::halfway`]), which is
//! what the generator uses, or from the full state-space analysis, which
//! also gives every other depth.

use crate::engine::analysis::{Analysis, AnalysisOptions, Depth, Progress, ratio};
use crate::engine::board::{Layout, bits};
use crate::engine::feature::{Feature, FeatureSet};
use crate::engine::full_table::analyze_fast;
use crate::engine::halfway::{Bounded, Merges, Solvable, WalkLists};
use crate::engine::limits::SearchError;
use crate::engine::shallow::shallow_counts;
use crate::engine::state::State;
use serde::{Deserialize, Serialize};

/// Every feature of a puzzle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Features {
    /// Cards (one-card stacks) in the puzzle.
    pub n: usize,
    /// Whether the puzzle can be solved.
    pub solvable: bool,
    /// Number of suits present.
    pub suit_diversity: u32,
    /// Number of ranks present.
    pub rank_diversity: u32,
    /// Count of the most frequent suit ÷ n.
    pub dominant_suit_ratio: f64,
    /// Connected components of the same-or-adjacent-rank graph.
    pub rank_clusters: u32,
    /// Flockability-graph edges ÷ n.
    pub avg_flockability: f64,
    /// Solvable ÷ distinct states after 1 move (`None` when n < 2).
    pub depth1_ratio: Option<f64>,
    /// The same after 2 moves (`None` when n < 3).
    pub depth2_ratio: Option<f64>,
    /// The same after 3 moves (`None` when n < 4).
    pub depth3_ratio: Option<f64>,
    /// The same at the halfway depth ⌊n/2⌋.
    pub halfway_ratio: Option<f64>,
    /// Mean Browne tension of the solvable states at the halfway depth
    /// (`None` when there are none with moves).
    pub midgame_tension: Option<f64>,
    /// Share of seeded random playouts that win (`None` unless asked for;
    /// see [`crate::agents::difficulty`]).
    #[serde(default)]
    pub playout_win_rate: Option<f64>,
    /// Whether the default greedy agent wins (`None` unless asked for).
    #[serde(default)]
    pub greedy_wins: Option<bool>,
    /// The smallest MCTS budget of a fixed ladder that wins most seeded
    /// games (`None` unless asked for, or for an unsolvable puzzle).
    #[serde(default)]
    pub mcts_budget: Option<u32>,
}

/// The features that are plain numbers of the cards, without any search.
#[derive(Clone, Debug, PartialEq)]
pub struct CardFeatures {
    /// Cards in the puzzle.
    pub n: usize,
    /// Number of suits present.
    pub suit_diversity: u32,
    /// Number of ranks present.
    pub rank_diversity: u32,
    /// Count of the most frequent suit ÷ n.
    pub dominant_suit_ratio: f64,
    /// Components of the same-or-adjacent-rank graph.
    pub rank_clusters: u32,
    /// Flockability-graph edges ÷ n.
    pub avg_flockability: f64,
}

/// The card features of a state's tops.
pub fn card_features(state: &State) -> CardFeatures {
    let (lay, _) = Layout::new(state);
    let cards = lay.cards();
    let n = cards.len();
    let mut suit_count = [0u32; 4];
    let mut ranks = 0u16;
    for c in cards {
        suit_count[c.suit() as usize] += 1;
        ranks |= 1 << c.rank();
    }
    let edges: u32 = lay.flock_masks()[..n]
        .iter()
        .map(|m| m.count_ones())
        .sum::<u32>()
        / 2;
    let all = if n == 0 { 0 } else { u16::MAX >> (16 - n) };
    let mut clusters = 0;
    let mut left = all;
    while left != 0 {
        // Grow one component of the rank graph from its lowest card.
        let mut comp = left & left.wrapping_neg();
        loop {
            let grown = bits(comp).fold(comp, |m, i| m | lay.rank_flock_masks()[i]);
            if grown == comp {
                break;
            }
            comp = grown;
        }
        left &= !comp;
        clusters += 1;
    }
    let per_card = |x: f64| if n == 0 { 0.0 } else { x / n as f64 };
    CardFeatures {
        n,
        suit_diversity: suit_count.iter().filter(|&&c| c > 0).count() as u32,
        rank_diversity: ranks.count_ones(),
        dominant_suit_ratio: per_card(*suit_count.iter().max().unwrap() as f64),
        rank_clusters: clusters,
        avg_flockability: per_card(edges as f64),
    }
}

impl Features {
    /// Combines the card features with an analysis that reaches the depths
    /// every feature reads ([`Depth::Features`] of them all).
    pub fn from_parts(cards: CardFeatures, analysis: &Analysis) -> Features {
        Features::assemble(
            cards,
            analysis.depths.first().is_some_and(|d| d.solvable > 0),
            |d| analysis.ratio(d),
            analysis.halfway_ratio(),
            analysis.midgame_tension(),
        )
    }

    /// The card features with solvability, the depth-d ratios by `ratio`,
    /// and the halfway features.
    fn assemble(
        cards: CardFeatures,
        solvable: bool,
        ratio: impl Fn(usize) -> Option<f64>,
        halfway_ratio: Option<f64>,
        midgame_tension: Option<f64>,
    ) -> Features {
        Features {
            n: cards.n,
            solvable,
            suit_diversity: cards.suit_diversity,
            rank_diversity: cards.rank_diversity,
            dominant_suit_ratio: cards.dominant_suit_ratio,
            rank_clusters: cards.rank_clusters,
            avg_flockability: cards.avg_flockability,
            depth1_ratio: ratio(1),
            depth2_ratio: ratio(2),
            depth3_ratio: ratio(3),
            halfway_ratio,
            midgame_tension,
            playout_win_rate: None,
            greedy_wins: None,
            mcts_budget: None,
        }
    }

    /// A feature's value; `None` for a feature this puzzle does not have
    /// (or that was not computed).
    pub fn get(&self, feature: Feature) -> Option<f64> {
        Some(match feature {
            Feature::N => self.n as f64,
            Feature::Solvable => self.solvable as u8 as f64,
            Feature::SuitDiversity => self.suit_diversity as f64,
            Feature::RankDiversity => self.rank_diversity as f64,
            Feature::DominantSuitRatio => self.dominant_suit_ratio,
            Feature::RankClusters => self.rank_clusters as f64,
            Feature::AvgFlockability => self.avg_flockability,
            Feature::Depth1Ratio => self.depth1_ratio?,
            Feature::Depth2Ratio => self.depth2_ratio?,
            Feature::Depth3Ratio => self.depth3_ratio?,
            Feature::HalfwayRatio => self.halfway_ratio?,
            Feature::MidgameTension => self.midgame_tension?,
            Feature::PlayoutWinRate => self.playout_win_rate?,
            Feature::GreedyWins => self.greedy_wins? as u8 as f64,
            Feature::MctsBudget => self.mcts_budget? as f64,
        })
    }

    /// A feature's value as people read it (see [`Feature::show`]).
    pub fn show(&self, feature: Feature) -> String {
        feature.show(self.get(feature))
    }
}

/// The features of `wanted` that the engine computes, and those that cost
/// no more: the card features and solvability always, the depth-1..d ratios
/// when `wanted` reads the depth-d ratio, everything when it reads the
/// halfway depth. The others are `None`, the difficulty features always
/// (the agents play for them: [`crate::agents::difficulty`]). This is what
/// the generator computes while it searches, so that an energy pays only for
/// the features it reads.
pub fn features_for(
    state: &State,
    wanted: FeatureSet,
    opts: &AnalysisOptions,
) -> Result<Features, SearchError> {
    if wanted.reads_halfway() {
        return halfway_features(state, opts);
    }
    let cards = card_features(state);
    let depth = wanted.deepest_ratio();
    let counts = shallow_counts(state, depth, &opts.limits)?;
    let shallow = |d: usize| {
        (d <= depth)
            .then(|| counts.get(d))
            .flatten()
            .map(|&(states, solvable)| ratio(solvable, states))
    };
    Ok(Features::assemble(
        cards,
        counts[0].1 > 0,
        shallow,
        None,
        None,
    ))
}

/// Every feature of a state, exact, without the state space: the distinct
/// states at each depth to the features' deepest by sets of pairs, and the
/// solvable ones by walking back from one stack (see
/// [`crate::engine::halfway`]). Equal to [`features`], much faster. Only the
/// limits and the progress hook of `opts` matter; its steps are each depth
/// of the walk back, then the count.
pub fn halfway_features(state: &State, opts: &AnalysisOptions) -> Result<Features, SearchError> {
    HalfwayParts::new(state, FeatureSet::ALL, opts, &mut WalkLists::default())?.finish(opts)
}

/// The first of the fast exact features' parts: the card features and the
/// table of merges, which tells solvability. The walk back comes next
/// ([`HalfwayStart::walk`], or [`HalfwayStart::walk_until`] for a search
/// that needs only to know the halfway numerator is past a bar).
pub struct HalfwayStart {
    cards: CardFeatures,
    merges: Merges,
    wanted: FeatureSet,
}

impl HalfwayStart {
    /// The card features and the table of merges of a state, for the
    /// features `wanted`.
    pub fn new(
        state: &State,
        wanted: FeatureSet,
        opts: &AnalysisOptions,
    ) -> Result<HalfwayStart, SearchError> {
        Ok(HalfwayStart {
            cards: card_features(state),
            merges: Merges::new(state, &opts.limits)?,
            wanted,
        })
    }

    /// Whether the puzzle can be solved.
    pub fn solvable(&self) -> bool {
        self.merges.can_merge(self.merges.all_cards()) || self.merges.cards() <= 1
    }

    /// The features known before the walk back: the cards' and
    /// solvability.
    pub fn features(&self) -> Features {
        Features::assemble(self.cards.clone(), self.solvable(), |_| None, None, None)
    }

    /// Progress steps of the walk back to `lowest` and the count after it.
    fn steps(&self, lowest: usize) -> usize {
        self.merges.cards().saturating_sub(1) - lowest + 1 + 1
    }

    /// The walk back and the shallow counts the features wanted read;
    /// `opts`' progress hook hears each depth of the walk back. The walk's
    /// lists come from `lists` (keep one for many states).
    pub fn walk(
        self,
        opts: &AnalysisOptions,
        lists: &mut WalkLists,
    ) -> Result<HalfwayParts, SearchError> {
        let limits = &opts.limits;
        let half = self.merges.cards() / 2;
        // Depth 1 is the shallowest ratio a feature reads.
        let shallow = self.wanted.deepest_ratio();
        let tension = self.wanted.contains(Feature::MidgameTension);
        let lowest = if shallow > 0 { 1.min(half) } else { half };
        let steps = self.steps(lowest);
        let mut told = 0;
        let merges = &self.merges;
        // The depths past the halfway one are walked, not counted, unless
        // a ratio reads one (a puzzle of five cards or fewer has its
        // halfway depth above depth 3).
        let deeper = shallow > half;
        let walk = merges.walk_back(1, lowest, half, tension, deeper, lists, limits, |states| {
            told += 1;
            tell(opts, told, steps, states.unwrap_or(0));
        })?;
        let shallow = if shallow > 0 {
            merges.count_states(shallow, limits)?
        } else {
            Vec::new()
        };
        let tension = if tension {
            merges.tension(&walk, limits)?
        } else {
            None
        };
        Ok(HalfwayParts {
            start: self,
            walk,
            shallow,
            tension,
            told,
            steps,
        })
    }

    /// [`HalfwayStart::walk`] that stops as soon as `enough` says yes to
    /// the solvable states found so far at the halfway depth (it hears each
    /// new total). Only when the features wanted read nothing else of the
    /// walk (no other depth's ratio, no tension): otherwise the walk goes
    /// to the end, as [`HalfwayStart::walk`]'s.
    pub fn walk_until(
        self,
        opts: &AnalysisOptions,
        lists: &mut WalkLists,
        enough: impl FnMut(u64) -> bool,
    ) -> Result<Walked, SearchError> {
        let reads_more =
            self.wanted.deepest_ratio() > 0 || self.wanted.contains(Feature::MidgameTension);
        if reads_more {
            return Ok(Walked::Whole(Box::new(self.walk(opts, lists)?)));
        }
        let half = self.merges.cards() / 2;
        let solvable = match self
            .merges
            .walk_in_order(half, lists, &opts.limits, enough)?
        {
            Bounded::Whole(solvable) => solvable,
            Bounded::AtLeast(found) => return Ok(Walked::AtLeast(found)),
        };
        let steps = self.steps(half);
        tell(opts, steps - 1, steps, solvable as usize);
        Ok(Walked::Whole(Box::new(HalfwayParts {
            walk: Solvable::counted(solvable, half),
            start: self,
            shallow: Vec::new(),
            tension: None,
            told: steps - 1,
            steps,
        })))
    }
}

/// How a walk back that may stop at a bar ended.
pub enum Walked {
    /// It went to the end.
    Whole(Box<HalfwayParts>),
    /// It stopped at the bar, having found this many solvable states at the
    /// halfway depth: a lower bound on the halfway ratio's numerator.
    AtLeast(u64),
}

/// The fast exact features in two parts. The first is every feature but
/// the halfway ratio, and that ratio's numerator; the second counts its
/// denominator (the distinct states at the halfway depth), which costs the
/// most. The search judges most steps on the first part alone.
pub struct HalfwayParts {
    start: HalfwayStart,
    walk: Solvable,
    /// Distinct states at depths 0 to the deepest depth-d ratio wanted
    /// (fewer for small puzzles).
    shallow: Vec<u64>,
    tension: Option<f64>,
    /// Progress steps told so far, and in all.
    told: usize,
    steps: usize,
}

impl HalfwayParts {
    /// The table, the walk back and the shallow counts of a state, for the
    /// features `wanted`; `opts`' progress hook hears each depth of the walk
    /// back. The walk's lists come from `lists` (keep one for many states).
    pub fn new(
        state: &State,
        wanted: FeatureSet,
        opts: &AnalysisOptions,
        lists: &mut WalkLists,
    ) -> Result<HalfwayParts, SearchError> {
        HalfwayStart::new(state, wanted, opts)?.walk(opts, lists)
    }

    /// Whether the puzzle can be solved.
    pub fn solvable(&self) -> bool {
        self.start.solvable()
    }

    /// Solvable states at the halfway depth: the halfway ratio's numerator.
    pub fn halfway_solvable(&self) -> u64 {
        self.walk.count(self.start.merges.cards() / 2).unwrap_or(0)
    }

    /// At least the distinct states at the halfway depth, bounded without
    /// counting them (see [`Merges::groupings`]).
    pub fn halfway_states_at_most(&self) -> u64 {
        let stacks = self.start.merges.cards();
        self.start.merges.groupings(stacks - stacks / 2)
    }

    /// Every feature, the halfway ratio taken as `halfway_ratio`.
    pub fn features_with(&self, halfway_ratio: Option<f64>) -> Features {
        let at = |d: usize| {
            let states = *self.shallow.get(d).filter(|_| d > 0)?;
            Some(ratio(self.walk.count(d)?, states))
        };
        Features::assemble(
            self.start.cards.clone(),
            self.solvable(),
            at,
            halfway_ratio,
            self.tension,
        )
    }

    /// Counts the distinct states to the halfway depth: every feature exact,
    /// and that count.
    pub fn finish_counted(self, opts: &AnalysisOptions) -> Result<(Features, u64), SearchError> {
        let stacks = self.start.merges.cards();
        let half = stacks / 2;
        let states = self.start.merges.count_states(
            Depth::Features(FeatureSet::ALL).deepest(stacks),
            &opts.limits,
        )?;
        let at_half = states.get(half).copied().unwrap_or(0);
        let deepest = states.last().copied().unwrap_or(0);
        tell(opts, self.told + 1, self.steps, deepest as usize);
        let halfway = Some(ratio(self.halfway_solvable(), at_half));
        Ok((self.features_with(halfway), at_half))
    }

    /// [`HalfwayParts::finish_counted`] without the count.
    pub fn finish(self, opts: &AnalysisOptions) -> Result<Features, SearchError> {
        Ok(self.finish_counted(opts)?.0)
    }
}

/// Tells `opts`' progress hook, if any, that `done` of `of` steps are done.
fn tell(opts: &AnalysisOptions, done: usize, of: usize, states: usize) {
    if let Some(hook) = &opts.progress {
        hook(Progress { done, of, states });
    }
}

/// Every feature of a state, with the analysis they came from: counted as
/// deep as `opts` asks, and never shallower than the features need.
pub fn features(
    state: &State,
    opts: &AnalysisOptions,
) -> Result<(Features, Analysis), SearchError> {
    let cards = card_features(state);
    let analysis = analyze_fast(
        state,
        &AnalysisOptions {
            depth: opts.depth.and_features(state.stack_count()),
            ..opts.clone()
        },
    )?;
    Ok((Features::from_parts(cards, &analysis), analysis))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::notation::parse_state;

    #[test]
    fn the_stores_fields_are_the_features_columns_and_values() {
        // Stores write `Features` with serde: its field names must be the
        // columns `Feature` names, and its values what `get` reads.
        let s = parse_state(
            "-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --",
            None,
        )
        .unwrap();
        let (mut f, _) = features(&s, &AnalysisOptions::default()).unwrap();
        f.greedy_wins = Some(true);
        f.mcts_budget = Some(50);
        f.playout_win_rate = Some(0.25);
        let json = serde_json::to_value(&f).unwrap();
        let object = json.as_object().unwrap();
        // serde_json's map sorts its keys: compare them as sets.
        let keys: std::collections::BTreeSet<&str> = object.keys().map(String::as_str).collect();
        assert_eq!(keys, Feature::ALL.map(Feature::column).into());
        for feature in Feature::ALL {
            let stored = &object[feature.column()];
            let value = stored
                .as_f64()
                .or_else(|| stored.as_bool().map(|b| b as u8 as f64));
            assert_eq!(value, f.get(feature), "{feature}");
        }
    }

    #[test]
    fn a_depth_ratio_past_the_halfway_depth_is_counted_without_the_tension() {
        // Five cards or fewer put depth 3 (or 2) past the halfway depth:
        // the walk back counts it when a ratio reads it, though it walks
        // through the depths past the halfway one otherwise.
        let wanted = FeatureSet::of(&[
            Feature::HalfwayRatio,
            Feature::Depth2Ratio,
            Feature::Depth3Ratio,
        ]);
        let opts = AnalysisOptions::default();
        let mut past = 0;
        for text in [
            "AS2S3S--------------------------",
            "AS2S3S4S------------------------",
            "AS2S--3S----4S--------5S--------",
            "AS2H--3S----4H--------5C--------",
        ] {
            let s = parse_state(text, None).unwrap();
            let half = s.stack_count() / 2;
            let (full, _) = features(&s, &opts).unwrap();
            let fast = HalfwayParts::new(&s, wanted, &opts, &mut WalkLists::default())
                .unwrap()
                .finish(&opts)
                .unwrap();
            for feature in [Feature::Depth2Ratio, Feature::Depth3Ratio] {
                assert_eq!(fast.get(feature), full.get(feature), "{text}: {feature}");
            }
            assert_eq!(fast.halfway_ratio, full.halfway_ratio, "{text}");
            past += (half < 3 && full.depth3_ratio.is_some()) as usize;
        }
        assert!(
            past >= 2,
            "{past} puzzles read a depth past the halfway one"
        );
    }

    #[test]
    fn seed_001_six_card_puzzle() {
        // "The dominant suit ratio of this puzzle would be 5/6" and it "only has one rank cluster".
        let s = parse_state("4D -- -- --\n-- 5D 2C 2D\n3D -- AD --\n-- -- -- --", None).unwrap();
        let f = card_features(&s);
        assert_eq!(f.n, 6);
        assert_eq!(f.dominant_suit_ratio, 5.0 / 6.0);
        assert_eq!(f.rank_clusters, 1);
        assert_eq!(f.suit_diversity, 2);
        assert_eq!(f.rank_diversity, 5); // A 2 3 4 5
    }

    #[test]
    fn seed_001_seven_card_puzzle() {
        // "This puzzle has 2 rank clusters and has a dominant suit ratio of 3/7."
        let s = parse_state(
            "-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --",
            None,
        )
        .unwrap();
        let f = card_features(&s);
        assert_eq!(f.rank_clusters, 2);
        assert_eq!(f.dominant_suit_ratio, 3.0 / 7.0);
        // Flockable pairs by hand: KH-QC, 2S-TS, 2S-JS, 2S-3C, JD-QC, JD-TS,
        // JD-JS, QC-JS, QC-3C, TS-JS.
        assert_eq!(f.avg_flockability, 10.0 / 7.0);
        let (all, a) = features(&s, &AnalysisOptions::default()).unwrap();
        assert!(all.solvable);
        assert_eq!(all.halfway_ratio, a.ratio(3));
        assert!(all.depth1_ratio.unwrap() > 0.0 && all.depth1_ratio.unwrap() <= 1.0);
    }
}
