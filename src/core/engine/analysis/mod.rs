//! State-space analysis: for every depth d (moves made), how many distinct
//! states are reachable in exactly d moves and how many of them are solvable
//! (seed 001's Figure 2), with the depth-d solvability ratios, the halfway
//! ratio and Browne's tension.
//!
//! A state at depth d has exactly k − d stacks, so states of different depths
//! never coincide and the space splits into layers. The forward pass builds
//! each layer as a sorted, deduplicated vector of packed boards (radix sort,
//! in `sort.rs`), and records for each state its move count and an edge to
//! each child that passes the cheap tests (no stranded cards, no separated
//! flock); a layer's keys are dropped once the next layer exists. Past the
//! deepest depth asked for, only boards that pass the tests are kept, down to
//! one stack. Solvability then runs backward over the edges: a state is
//! solvable iff an edge leads to a solvable child, and the winning edges give
//! the tension. The backward pass is a sequential scan with no lookups.
//!
//! Memory is bounded by the [`Limits`]' cap; going over it is an error, not
//! an OOM kill. The cancel switch is looked at every few thousand states.

mod sort;

use crate::engine::board::{Board, Layout, LiveChildren, MAX_MOVES, bits};
use crate::engine::feature::FeatureSet;
use crate::engine::limits::{Limits, SearchError};
use crate::engine::state::{Move, State};
use crate::hash::fibonacci;
use crate::parallel;
use rayon::ThreadPool;
use serde::Serialize;
use sort::{make_room, match_pairs, merge_runs, push_run, radix_sort_by};
use std::sync::Arc;

/// Counts at one depth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DepthCount {
    /// Moves made.
    pub depth: usize,
    /// Distinct states reachable in exactly `depth` moves.
    pub states: u64,
    /// How many of them are solvable.
    pub solvable: u64,
    /// Browne tension, 1 − winning moves ÷ moves, averaged over the solvable
    /// states that have moves; `None` when there are none.
    pub tension: Option<f64>,
}

impl DepthCount {
    /// Solvable ÷ states.
    pub fn ratio(&self) -> f64 {
        ratio(self.solvable, self.states)
    }
}

/// Solvable ÷ states, and 0 when there are no states (no moves at all).
pub fn ratio(solvable: u64, states: u64) -> f64 {
    if states == 0 {
        0.0
    } else {
        solvable as f64 / states as f64
    }
}

/// The per-depth table of a state.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Analysis {
    /// Stacks in the analysed state.
    pub stacks: usize,
    /// One row per depth from 0 to the deepest analysed.
    pub depths: Vec<DepthCount>,
    /// The most memory the layers and tables held at once, in bytes (an estimate).
    pub peak_bytes: usize,
}

impl Analysis {
    /// The halfway depth ⌊k/2⌋ for k stacks.
    pub fn halfway_depth(&self) -> usize {
        self.stacks / 2
    }

    /// The depth-d solvability ratio, if depth d was analysed.
    pub fn ratio(&self, depth: usize) -> Option<f64> {
        self.depths.get(depth).map(DepthCount::ratio)
    }

    /// The halfway solvability ratio, if the analysis went that deep.
    pub fn halfway_ratio(&self) -> Option<f64> {
        self.ratio(self.halfway_depth())
    }

    /// Mean tension of the solvable states at the halfway depth.
    pub fn midgame_tension(&self) -> Option<f64> {
        self.depths
            .get(self.halfway_depth())
            .and_then(|d| d.tension)
    }
}

/// A report on a long analysis: `layer` of `of` layers is done, with `states` boards.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Layers finished so far (forward and backward passes both count).
    pub done: usize,
    /// Layers in all (two per depth, forward and backward).
    pub of: usize,
    /// Boards in the layer just finished (0 for a depth past the halfway
    /// one that the walk back of the halfway features did not count).
    pub states: usize,
}

/// A callback that hears about progress (from the thread running the analysis).
pub type ProgressHook = Arc<dyn Fn(Progress) + Send + Sync>;

/// How deep an analysis counts states.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Depth {
    /// Every depth, down to one stack.
    #[default]
    Last,
    /// Depths 0 to d (all of them, if the state has fewer).
    To(usize),
    /// The deepest depth these features read: d for the depth-d ratio, the
    /// halfway depth ⌊k/2⌋ for the halfway ratio and the midgame tension;
    /// 3 and ⌊k/2⌋, whichever is deeper, for them all (see
    /// [`crate::engine::feature`]).
    Features(FeatureSet),
}

impl Depth {
    /// The deepest depth counted for a state of `stacks` stacks.
    pub fn deepest(self, stacks: usize) -> usize {
        let last = stacks.saturating_sub(1);
        match self {
            Depth::Last => last,
            Depth::To(d) => d.min(last),
            Depth::Features(set) => {
                let halfway = if set.reads_halfway() { stacks / 2 } else { 0 };
                halfway.max(set.deepest_ratio()).min(last)
            }
        }
    }

    /// As deep as this, and never shallower than the features need.
    pub fn and_features(self, stacks: usize) -> Depth {
        match self {
            Depth::Last => Depth::Last,
            d => Depth::To(
                d.deepest(stacks)
                    .max(Depth::Features(FeatureSet::ALL).deepest(stacks)),
            ),
        }
    }
}

/// How deep and with what resources to analyse.
#[derive(Clone)]
pub struct AnalysisOptions {
    /// The deepest depth to count.
    pub depth: Depth,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Memory cap and cancel switch.
    pub limits: Limits,
    /// Told after each layer.
    pub progress: Option<ProgressHook>,
}

impl std::fmt::Debug for AnalysisOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnalysisOptions")
            .field("depth", &self.depth)
            .field("threads", &self.threads)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Default for AnalysisOptions {
    /// Every depth, on one thread, within the default limits.
    fn default() -> Self {
        AnalysisOptions {
            depth: Depth::Last,
            threads: 1,
            limits: Limits::default(),
            progress: None,
        }
    }
}

/// States between two looks at the cancel switch.
const CHECK_EVERY: usize = 4096;
/// Parents whose (child, parent) pairs are sorted and matched at a time; it
/// bounds the pair buffer, and a parent's place in it fits 16 bits.
const PAIR_CHUNK: usize = 1 << 16;
/// Child keys sorted and deduplicated at a time, bounding the key buffer.
const KEY_RUN: usize = 1 << 22;
/// Bits of the slot in the table of recently generated child keys; a child
/// found there is a duplicate and skips the sort. 2^14 keys fit the L2 cache.
const SEEN_BITS: u32 = 14;
/// The move count recorded for a board that fails the cheap tests.
const DEAD: u8 = u8::MAX;

/// A packed board: `u64` for boards of at most 12 stacks, `u128` otherwise.
trait Key: Copy + Ord + Default + Send + Sync + 'static {
    fn from_packed(key: u128) -> Self;
    fn packed(self) -> u128;
    fn board(self) -> Board;
    /// The key of the child after `mv`, in this key's width.
    fn child(self, mv: Move) -> Self;
    /// Sorts and removes duplicates (`scratch` is reused between calls).
    fn sort_dedup(keys: &mut Vec<Self>, scratch: &mut Vec<Self>);
    /// Sorts (key, parent) pairs by key.
    fn sort_pairs(pairs: &mut [(Self, u16)], scratch: &mut Vec<(Self, u16)>);
    /// Whether keys of at most 48 bits may be packed with a 16-bit parent.
    const PACKS_WITH_PARENT: bool;
    /// A slot in a [`SEEN`]-entry table of recent keys.
    fn slot(self) -> usize;
}

impl Key for u64 {
    const PACKS_WITH_PARENT: bool = true;
    #[inline]
    fn slot(self) -> usize {
        fibonacci(self, SEEN_BITS)
    }
    #[inline]
    fn from_packed(key: u128) -> u64 {
        debug_assert!(key >> 64 == 0, "a board of more than 12 stacks");
        key as u64
    }
    #[inline]
    fn packed(self) -> u128 {
        self as u128
    }
    #[inline]
    fn board(self) -> Board {
        Board::unpack64(self)
    }
    #[inline]
    fn child(self, mv: Move) -> u64 {
        Board::child_key64(self, mv)
    }
    fn sort_dedup(keys: &mut Vec<u64>, scratch: &mut Vec<u64>) {
        radix_sort_by(keys, scratch, |&k| k);
        keys.dedup();
    }
    fn sort_pairs(pairs: &mut [(u64, u16)], scratch: &mut Vec<(u64, u16)>) {
        radix_sort_by(pairs, scratch, |p| p.0);
    }
}

impl Key for u128 {
    const PACKS_WITH_PARENT: bool = false;
    #[inline]
    fn slot(self) -> usize {
        fibonacci(self as u64 ^ (self >> 64) as u64, SEEN_BITS)
    }
    #[inline]
    fn from_packed(key: u128) -> u128 {
        key
    }
    #[inline]
    fn packed(self) -> u128 {
        self
    }
    #[inline]
    fn board(self) -> Board {
        Board::unpack(self)
    }
    #[inline]
    fn child(self, mv: Move) -> u128 {
        Board::child_key(self, mv)
    }
    // Wide layers (more than 12 stacks) are the first few and small.
    fn sort_dedup(keys: &mut Vec<u128>, _: &mut Vec<u128>) {
        keys.sort_unstable();
        keys.dedup();
    }
    fn sort_pairs(pairs: &mut [(u128, u16)], _: &mut Vec<(u128, u16)>) {
        pairs.sort_unstable_by_key(|p| p.0);
    }
}

/// One layer of distinct states, sorted.
enum Layer {
    Narrow(Vec<u64>),
    Wide(Vec<u128>),
}

impl Layer {
    fn len(&self) -> usize {
        match self {
            Layer::Narrow(v) => v.len(),
            Layer::Wide(v) => v.len(),
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Layer::Narrow(v) => v.capacity() * 8,
            Layer::Wide(v) => v.capacity() * 16,
        }
    }
}

/// What the backward pass needs of one depth, for each of its states in
/// order: its move count (`DEAD` for one that fails the cheap tests), how many
/// of its children pass the tests, and those children's indices in the next
/// layer, all states' lists laid end to end.
struct Step {
    moves: Vec<u8>,
    /// Per run of parents, in order: live-child counts and child indices
    /// (kept as built, so they are never copied into one vector).
    edges: Vec<(Vec<u8>, Vec<u32>)>,
}

impl Step {
    fn bytes(&self) -> usize {
        self.moves.capacity()
            + self
                .edges
                .iter()
                .map(|(l, c)| l.capacity() + c.capacity() * 4)
                .sum::<usize>()
    }
}

/// Shared context of one analysis.
struct Run<'a> {
    lay: &'a Layout,
    opts: &'a AnalysisOptions,
    /// Bytes held by layers and steps.
    held: usize,
    peak: usize,
    /// The workers of `opts.threads` (none for one thread).
    pool: Option<ThreadPool>,
}

impl Run<'_> {
    fn cancelled(&self) -> bool {
        self.opts.limits.is_cancelled()
    }

    fn report(&self, done: usize, states: usize) {
        if let Some(hook) = &self.opts.progress {
            let last = self.lay.cards().len().saturating_sub(1);
            hook(Progress {
                done,
                of: 2 * last + 1,
                states,
            });
        }
    }

    /// Fails when `more` bytes on top of what is held would pass the cap.
    fn reserve(&mut self, more: usize) -> Result<(), SearchError> {
        let total = self.held + more;
        self.peak = self.peak.max(total);
        self.opts.limits.check_memory(total)
    }

    /// Every few thousand states: stops on cancel, and when the held data
    /// plus each thread's buffers (`buffered()` bytes) would pass the cap.
    fn check(&self, i: usize, buffered: impl Fn() -> usize) -> Result<(), SearchError> {
        if i.is_multiple_of(CHECK_EVERY) {
            let threads = self.opts.threads.max(1);
            self.opts.limits.check(self.held + buffered() * threads)?;
        }
        Ok(())
    }

    /// Runs `work` on `threads` contiguous chunks of `items` in the pool,
    /// unless there are fewer than `min` items, and returns the results in order.
    fn split<T: Sync, R: Send>(
        &self,
        items: &[T],
        min: usize,
        work: impl Fn(&[T]) -> Result<R, SearchError> + Sync,
    ) -> Result<Vec<R>, SearchError> {
        if self.pool.is_none() || items.len() < min.max(2) {
            return Ok(vec![work(items)?]);
        }
        // As many chunks as threads: each thread's buffers are what
        // `check` counts, `threads` times.
        let chunks: Vec<&[T]> = items
            .chunks(items.len().div_ceil(self.opts.threads.max(1)))
            .collect();
        parallel::map(self.pool.as_ref(), chunks, &work)
            .into_iter()
            .collect()
    }

    /// The next layer and this layer's step. With `prune`, children that fail
    /// the cheap tests (and all children of a parent that fails them) are left
    /// out of the next layer.
    fn expand<P: Key, C: Key>(
        &mut self,
        parents: &[P],
        prune: bool,
    ) -> Result<(Vec<C>, Step), SearchError> {
        let lay = self.lay;
        // A child of at most 8 stacks has a key of at most 48 bits, which packs
        // with its parent's place in a chunk of 2^16 parents into one u64.
        let cancel = &self.opts.limits.cancel;
        let packable =
            C::PACKS_WITH_PARENT && parents.first().is_some_and(|p| p.board().stacks() <= 9);
        // One pass over the parents gives the next layer's keys, each parent's
        // move count, and, a chunk of parents at a time, the sorted (child,
        // parent) pairs of the children that pass the tests.
        let parts = self.split(parents, 4 * CHECK_EVERY, |chunk| {
            // Child keys are sorted and deduplicated a few million at a time;
            // the runs are merged afterwards.
            let mut keys: Vec<C> = Vec::new();
            let mut key_runs: Vec<Vec<C>> = Vec::new();
            let mut moves = Vec::with_capacity(chunk.len());
            let mut runs = Vec::new();
            let mut run_bytes = 0;
            let (mut key_scratch, mut pair_scratch) = (Vec::new(), Vec::new());
            let mut packed_scratch = Vec::new();
            // On the heap: worker threads have small stacks.
            let mut seen: Vec<C> = std::iter::repeat_n(C::default(), 1 << SEEN_BITS).collect();
            // Most children are generated several times, often by parents
            // close together in sorted order: a child seen recently is not
            // pushed again (a miss only costs a sort slot).
            let mut fresh = |key: C| {
                let slot = &mut seen[key.slot()];
                let new = *slot != key;
                *slot = key;
                new
            };
            for block in chunk.chunks(PAIR_CHUNK) {
                let (mut packed, mut plain): (Vec<u64>, Vec<(C, u16)>) = (Vec::new(), Vec::new());
                for (i, p) in block.iter().enumerate() {
                    self.check(i, || {
                        let held_runs: usize = key_runs.iter().map(Vec::len).sum();
                        (keys.capacity() + key_scratch.capacity() + held_runs) * size_of::<C>()
                            + run_bytes
                    })?;
                    let board = p.board();
                    let mut filter = LiveChildren::of_live(lay, &board);
                    if filter.is_none() && prune {
                        moves.push(DEAD);
                        continue;
                    }
                    // Moves are made straight from each cell's targets (no
                    // move list), and the pushes are undone rather than
                    // branched around: whether a child is fresh or passes
                    // is a coin toss to the branch predictor.
                    make_room(&mut keys, MAX_MOVES);
                    let mut count = 0;
                    for from in bits(board.occupied()) {
                        let targets = board.targets(lay, from);
                        count += targets.count_ones();
                        for to in bits(targets) {
                            let mv = Move {
                                from: from as u8,
                                to: to as u8,
                            };
                            let child = C::from_packed(p.child(mv).packed());
                            let passes = filter.as_mut().is_some_and(|f| f.passes(lay, &board, mv));
                            if passes || !prune {
                                keys.push(child);
                                let stale = !fresh(child) as usize;
                                keys.truncate(keys.len() - stale);
                            }
                            if packable {
                                make_room(&mut packed, 1);
                                packed.push((child.packed() as u64) << 16 | i as u64);
                                packed.truncate(packed.len() - !passes as usize);
                            } else if passes {
                                plain.push((child, i as u16));
                            }
                        }
                    }
                    moves.push(if filter.is_some() { count as u8 } else { DEAD });
                }
                let pairs = if packable {
                    radix_sort_by(&mut packed, &mut packed_scratch, |&x| x);
                    Pairs::Packed(packed)
                } else {
                    C::sort_pairs(&mut plain, &mut pair_scratch);
                    Pairs::Plain(plain)
                };
                let run = PairRun {
                    len: block.len(),
                    pairs,
                };
                run_bytes += run.bytes();
                runs.push(run);
                if keys.len() >= KEY_RUN {
                    C::sort_dedup(&mut keys, &mut key_scratch);
                    push_run(&mut key_runs, keys.clone(), cancel);
                    keys.clear();
                }
            }
            C::sort_dedup(&mut keys, &mut key_scratch);
            push_run(&mut key_runs, keys, cancel);
            let key_bytes: usize = key_runs.iter().map(|r| r.capacity() * size_of::<C>()).sum();
            Ok((key_runs, moves, runs, run_bytes + key_bytes))
        })?;
        let raw: usize = parts.iter().map(|r| r.3).sum();
        self.reserve(raw)?;
        let mut moves = Vec::with_capacity(parents.len());
        let mut key_runs = Vec::new();
        let mut runs = Vec::new();
        for (k, m, r, _) in parts {
            moves.extend(m);
            key_runs.extend(k);
            runs.extend(r);
        }
        // Merging holds its inputs and its output at once.
        let key_bytes: usize = key_runs.iter().map(|r| r.len() * size_of::<C>()).sum();
        self.reserve(raw + key_bytes)?;
        let mut next = merge_runs(key_runs, self.pool.as_ref(), cancel);
        if self.cancelled() {
            return Err(SearchError::Cancelled);
        }
        next.shrink_to_fit();
        // The edges: each run's children found in the next layer.
        let parts = self.split(&runs, 2, |rs| {
            Ok(rs.iter().map(|r| r.edges(&next)).collect::<Vec<_>>())
        })?;
        let edges = parts.into_iter().flatten().collect();
        Ok((next, Step { moves, edges }))
    }
}

/// One chunk's (child, parent) pairs, sorted by child; parents are numbered
/// from the chunk's first.
struct PairRun<C> {
    /// Parents in the chunk.
    len: usize,
    pairs: Pairs<C>,
}

enum Pairs<C> {
    /// `child << 16 | parent`, for children of at most 48 bits.
    Packed(Vec<u64>),
    /// Plain pairs, for wider children.
    Plain(Vec<(C, u16)>),
}

impl<C: Key> PairRun<C> {
    fn bytes(&self) -> usize {
        match &self.pairs {
            Pairs::Packed(v) => v.capacity() * 8,
            Pairs::Plain(v) => v.capacity() * size_of::<(C, u16)>(),
        }
    }

    /// The run's part of a step: live-child counts and child indices, in parent order.
    fn edges(&self, next: &[C]) -> (Vec<u8>, Vec<u32>) {
        let mut found: Vec<(u32, u16)> = Vec::new();
        let push = |child, parent| found.push((child, parent));
        match &self.pairs {
            Pairs::Packed(v) => match_pairs(
                next,
                v.iter()
                    .map(|&x| (C::from_packed((x >> 16) as u128), x as u16)),
                push,
            ),
            Pairs::Plain(v) => match_pairs(next, v.iter().copied(), push),
        }
        // Counting sort by parent.
        let mut starts = vec![0u32; self.len + 1];
        for &(_, p) in &found {
            starts[p as usize + 1] += 1;
        }
        let live: Vec<u8> = starts[1..].iter().map(|&c| c as u8).collect();
        for i in 0..self.len {
            starts[i + 1] += starts[i];
        }
        let mut children = vec![0u32; found.len()];
        for &(c, p) in &found {
            children[starts[p as usize] as usize] = c;
            starts[p as usize] += 1;
        }
        (live, children)
    }
}

/// Counts distinct and solvable states at every depth from 0 to the deepest asked for.
pub fn analyze(state: &State, opts: &AnalysisOptions) -> Result<Analysis, SearchError> {
    let (lay, root) = Layout::new(state);
    let lay = lay.with_flock_table();
    let stacks = root.stacks() as usize;
    let last = stacks.saturating_sub(1);
    let deepest = opts.depth.deepest(stacks);
    let mut run = Run {
        lay: &lay,
        opts,
        held: 0,
        peak: 0,
        pool: parallel::pool(opts.threads),
    };
    let narrow = |depth: usize| stacks - depth <= 12;

    // Forward: each layer from the one before, keeping only its size, the
    // move counts and the edges once the next layer exists. Past the deepest
    // counted depth only boards that pass the cheap tests are kept: they are
    // the only ones that can be solvable, and with them the layers down to
    // one stack settle the counted layers.
    let mut layer = if narrow(0) {
        Layer::Narrow(vec![u64::from_packed(root.pack())])
    } else {
        Layer::Wide(vec![root.pack()])
    };
    run.held += layer.bytes();
    let mut sizes = vec![1usize];
    let mut steps: Vec<Step> = Vec::with_capacity(last);
    for depth in 1..=last {
        if run.cancelled() {
            return Err(SearchError::Cancelled);
        }
        let prune = depth > deepest;
        let (next, step) = match (&layer, narrow(depth)) {
            (Layer::Narrow(p), _) => {
                let (n, s) = run.expand(p, prune)?;
                (Layer::Narrow(n), s)
            }
            (Layer::Wide(p), true) => {
                let (n, s) = run.expand(p, prune)?;
                (Layer::Narrow(n), s)
            }
            (Layer::Wide(p), false) => {
                let (n, s) = run.expand(p, prune)?;
                (Layer::Wide(n), s)
            }
        };
        run.held = run.held - layer.bytes() + next.bytes() + step.bytes();
        run.reserve(0)?;
        run.report(depth, next.len());
        sizes.push(next.len());
        steps.push(step);
        layer = next;
    }
    run.held -= layer.bytes();
    drop(layer);

    // Backward: a state is solvable iff an edge leads to a solvable child;
    // the winning edges also give Browne's tension.
    let mut depths: Vec<DepthCount> = Vec::with_capacity(last + 1);
    let bit = |set: &[u64], i: usize| set[i >> 6] >> (i & 63) & 1 == 1;
    let mut solvable_below = vec![u64::MAX; sizes[last].div_ceil(64)];
    depths.push(DepthCount {
        depth: last,
        states: sizes[last] as u64,
        solvable: sizes[last] as u64,
        tension: None,
    });
    for depth in (0..last).rev() {
        if run.cancelled() {
            return Err(SearchError::Cancelled);
        }
        let step = steps.pop().expect("one step per depth");
        let mut solvable = vec![0u64; sizes[depth].div_ceil(64)];
        let (mut tension, mut counted) = (0.0, 0u64);
        let lists = step.edges.iter().flat_map(|(live, children)| {
            let mut at = 0;
            live.iter().map(move |&n| {
                at += n as usize;
                &children[at - n as usize..at]
            })
        });
        for (p, (kids, &moves)) in lists.zip(&step.moves).enumerate() {
            let wins = kids
                .iter()
                .filter(|&&c| bit(&solvable_below, c as usize))
                .count();
            if wins > 0 {
                solvable[p >> 6] |= 1 << (p & 63);
                tension += 1.0 - wins as f64 / moves as f64;
                counted += 1;
            }
        }
        depths.push(DepthCount {
            depth,
            states: sizes[depth] as u64,
            solvable: counted,
            tension: (counted > 0).then(|| tension / counted as f64),
        });
        run.held -= step.bytes();
        run.report(2 * last + 1 - depth, sizes[depth]);
        solvable_below = solvable;
    }
    depths.reverse();
    depths.truncate(deepest + 1);
    Ok(Analysis {
        stacks,
        depths,
        peak_bytes: run.peak,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::notation::parse_state;

    #[test]
    fn the_features_depth_is_the_deepest_they_read() {
        use crate::engine::feature::Feature;
        let all = Depth::Features(FeatureSet::ALL);
        // 3 and the halfway depth, whichever is deeper, never past the last.
        assert_eq!([16, 8, 6, 3, 1].map(|k| all.deepest(k)), [8, 4, 3, 2, 0]);
        let of = |fs: &[Feature]| Depth::Features(FeatureSet::of(fs)).deepest(16);
        assert_eq!(of(&[]), 0);
        assert_eq!(of(&[Feature::Depth2Ratio, Feature::RankClusters]), 2);
        assert_eq!(of(&[Feature::MidgameTension]), 8);
        assert_eq!(of(&[Feature::Depth3Ratio, Feature::HalfwayRatio]), 8);
        assert_eq!(Depth::To(2).and_features(16), Depth::To(8));
        assert_eq!(Depth::To(12).and_features(16), Depth::To(12));
    }

    #[test]
    fn tiny_puzzle_by_hand() {
        // AS 2S / 3S --: all three share a suit; cells 1 and 2 are diagonal.
        // Depth 1: 2S→AS and 3S→AS leave two stacks in line (solvable);
        // AS→2S and AS→3S leave them on the diagonal (stranded).
        // Depth 2: each solvable state has two moves, all to distinct one-stack states.
        let s = parse_state("AS 2S / 3S --", None).unwrap();
        let a = analyze(&s, &AnalysisOptions::default()).unwrap();
        let counts: Vec<(u64, u64)> = a.depths.iter().map(|d| (d.states, d.solvable)).collect();
        assert_eq!(counts, [(1, 1), (4, 2), (4, 4)]);
        assert_eq!(a.depths[0].tension, Some(0.5));
        assert_eq!(a.depths[1].tension, Some(0.0));
        assert_eq!(a.depths[2].tension, None);
        // Stopping the count at depth 1 settles that layer through the pruned
        // layers below it instead: the same numbers.
        let opts = AnalysisOptions {
            depth: Depth::To(1),
            ..Default::default()
        };
        let b = analyze(&s, &opts).unwrap();
        assert_eq!(b.depths, a.depths[..2]);
    }
}
