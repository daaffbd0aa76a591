//! State-space analysis: for every depth d (moves made), how many distinct
//! states are reachable in exactly d moves and how many of them are solvable
//! (seed 001's Figure 2), with the depth-d solvability ratios, the halfway
//! ratio and Browne's tension.
//!
//! A state at depth d has exactly k − d stacks, so states of different depths
//! never coincide and the space splits into layers. The forward pass builds
//! each layer as a sorted, deduplicated vector of packed boards (radix sort),
//! and records for each state its move count and an edge to each child that
//! passes the cheap tests (no stranded cards, no separated flock); a layer's
//! keys are dropped once the next layer exists. Past the deepest depth asked
//! for, only boards that pass the tests are kept, down to one stack.
//! Solvability then runs backward over the edges: a state is solvable iff an
//! edge leads to a solvable child, and the winning edges give the tension.
//! The backward pass is a sequential scan with no lookups.
//!
//! Memory is bounded by [`Limits::memory_cap`]; going over it is an error, not
//! an OOM kill. The cancel flag is checked every few thousand states.

use crate::board::{Board, Layout, LiveChildren, MoveList};
use crate::solver::{Limits, SearchError, classify};
use crate::state::{Move, State};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::Ordering;

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
        if self.states == 0 {
            0.0
        } else {
            self.solvable as f64 / self.states as f64
        }
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
#[derive(Copy, Clone, Debug)]
pub struct Progress {
    /// Layers finished so far (forward and backward passes both count).
    pub done: usize,
    /// Layers in all (two per depth, forward and backward).
    pub of: usize,
    /// Boards in the layer just finished.
    pub states: usize,
}

/// A callback that hears about progress (from the thread running the analysis).
pub type ProgressHook = Arc<dyn Fn(Progress) + Send + Sync>;

/// How deep and with what resources to analyse.
#[derive(Clone)]
pub struct AnalysisOptions {
    /// The deepest depth to count; `None` for the last (k − 1).
    pub max_depth: Option<usize>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Memory cap and cancel flag.
    pub limits: Limits,
    /// Told after each layer.
    pub progress: Option<ProgressHook>,
}

impl std::fmt::Debug for AnalysisOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnalysisOptions")
            .field("max_depth", &self.max_depth)
            .field("threads", &self.threads)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            max_depth: None,
            threads: 1,
            limits: Limits::default(),
            progress: None,
        }
    }
}

/// States between two looks at the cancel flag.
const CHECK_EVERY: usize = 4096;
/// Parents whose (child, parent) pairs are sorted and matched at a time; it
/// bounds the pair buffer, and a parent's place in it fits 16 bits.
const PAIR_CHUNK: usize = 1 << 16;
/// The move count recorded for a board that fails the cheap tests.
const DEAD: u8 = u8::MAX;

/// A packed board: `u64` for boards of at most 12 stacks, `u128` otherwise.
trait Key: Copy + Ord + Default + Send + Sync + 'static {
    fn from_packed(key: u128) -> Self;
    fn packed(self) -> u128;
    fn board(self) -> Board;
    /// The key of the child after `mv`, in this key's width.
    fn child(self, mv: Move) -> Self;
    /// Sorts and removes duplicates.
    fn sort_dedup(keys: &mut Vec<Self>);
    /// Sorts (key, parent) pairs by key.
    fn sort_pairs(pairs: &mut Vec<(Self, u32)>);
    /// Whether keys of at most 48 bits may be packed with a 16-bit parent.
    const PACKS_WITH_PARENT: bool;
}

impl Key for u64 {
    const PACKS_WITH_PARENT: bool = true;
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
    fn sort_dedup(keys: &mut Vec<u64>) {
        radix_sort_by(keys, |&k| k);
        keys.dedup();
    }
    fn sort_pairs(pairs: &mut Vec<(u64, u32)>) {
        radix_sort_by(pairs, |p| p.0);
    }
}

impl Key for u128 {
    const PACKS_WITH_PARENT: bool = false;
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
    fn sort_dedup(keys: &mut Vec<u128>) {
        keys.sort_unstable();
        keys.dedup();
    }
    fn sort_pairs(pairs: &mut Vec<(u128, u32)>) {
        pairs.sort_unstable_by_key(|p| p.0);
    }
}

/// LSD radix sort by a u64 key, 11 bits a pass. All digit counts come from
/// one read pass, and a pass whose digit is the same for every item is
/// skipped. Layers are tens of millions of keys, where this beats a comparison
/// sort several times over; 2048 buckets keep the scatter in cache.
fn radix_sort_by<T: Copy + Default>(items: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    const DIGIT: usize = 11;
    const PASSES: usize = 64usize.div_ceil(DIGIT);
    const MASK: u64 = (1 << DIGIT) - 1;
    if items.len() < 1 << 12 {
        items.sort_unstable_by_key(&key);
        return;
    }
    let mut counts = vec![[0usize; 1 << DIGIT]; PASSES];
    for x in items.iter() {
        let k = key(x);
        for (pass, c) in counts.iter_mut().enumerate() {
            c[(k >> (pass * DIGIT) & MASK) as usize] += 1;
        }
    }
    let mut scratch = vec![T::default(); items.len()];
    for (pass, starts) in counts.iter_mut().enumerate() {
        if starts.contains(&items.len()) {
            continue; // one digit value for all: this pass would move nothing
        }
        let mut sum = 0;
        for c in starts.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        let shift = pass * DIGIT;
        for x in items.iter() {
            let d = (key(x) >> shift & MASK) as usize;
            scratch[starts[d]] = *x;
            starts[d] += 1;
        }
        std::mem::swap(items, &mut scratch);
    }
}

/// Finds each pair's key in the sorted `layer` (every key is there) and
/// records the edge (parent, index). Pairs are sorted, so the search only
/// moves forward, galloping.
fn match_pairs<K: Ord + Copy>(
    layer: &[K],
    pairs: impl Iterator<Item = (K, u32)>,
    edges: &mut Vec<(u32, u32)>,
) {
    let mut pos = 0usize;
    for (k, parent) in pairs {
        if layer[pos] != k {
            let mut bound = 1;
            while pos + bound < layer.len() && layer[pos + bound] < k {
                bound *= 2;
            }
            let end = (pos + bound + 1).min(layer.len());
            pos += layer[pos..end].partition_point(|x| *x < k);
        }
        debug_assert!(layer[pos] == k, "a child missing from its layer");
        edges.push((parent, pos as u32));
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

/// What the backward pass needs of one depth: the move count of each of its
/// states (`DEAD` for one that fails the cheap tests) and the edges
/// (state, child index) to every child that passes them.
struct Step {
    moves: Vec<u8>,
    edges: Vec<(u32, u32)>,
}

impl Step {
    fn bytes(&self) -> usize {
        self.moves.capacity() + self.edges.capacity() * 8
    }
}

/// Shared context of one analysis.
struct Run<'a> {
    lay: &'a Layout,
    opts: &'a AnalysisOptions,
    /// Bytes held by layers and steps.
    held: usize,
    peak: usize,
}

impl Run<'_> {
    fn cancelled(&self) -> bool {
        self.opts
            .limits
            .cancel
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
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
        if total > self.opts.limits.memory_cap {
            return Err(SearchError::MemoryCap {
                cap: self.opts.limits.memory_cap,
            });
        }
        Ok(())
    }

    fn check(&self, i: usize, buffered: usize) -> Result<(), SearchError> {
        if i.is_multiple_of(CHECK_EVERY) {
            if self.cancelled() {
                return Err(SearchError::Cancelled);
            }
            let threads = self.opts.threads.max(1);
            if self.held + buffered * threads > self.opts.limits.memory_cap {
                return Err(SearchError::MemoryCap {
                    cap: self.opts.limits.memory_cap,
                });
            }
        }
        Ok(())
    }

    /// Runs `work` on `threads` contiguous chunks of `items` (with each chunk's
    /// offset) and returns the results in order.
    fn split<T: Sync, R: Send>(
        &self,
        items: &[T],
        work: impl Fn(usize, &[T]) -> Result<R, SearchError> + Sync,
    ) -> Result<Vec<R>, SearchError> {
        let threads = self.opts.threads.max(1);
        if threads == 1 || items.len() < 4 * CHECK_EVERY {
            return Ok(vec![work(0, items)?]);
        }
        let chunk = items.len().div_ceil(threads);
        std::thread::scope(|s| {
            let work = &work;
            let handles: Vec<_> = items
                .chunks(chunk)
                .enumerate()
                .map(|(i, c)| s.spawn(move || work(i * chunk, c)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("analysis worker panicked"))
                .collect()
        })
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
        let packable =
            C::PACKS_WITH_PARENT && parents.first().is_some_and(|p| p.board().stacks() <= 9);
        // One pass over the parents gives the next layer's keys, each parent's
        // move count, and, a chunk of parents at a time, the sorted (child,
        // parent) pairs of the children that pass the tests.
        let parts = self.split(parents, |offset, chunk| {
            let mut keys: Vec<C> = Vec::with_capacity(chunk.len() * 4);
            let mut moves = Vec::with_capacity(chunk.len());
            let mut runs = Vec::new();
            let mut pair_bytes = 0;
            let mut list = MoveList::default();
            for (c, block) in chunk.chunks(PAIR_CHUNK).enumerate() {
                let base = offset + c * PAIR_CHUNK;
                let (mut packed, mut plain): (Vec<u64>, Vec<(C, u32)>) = (Vec::new(), Vec::new());
                for (i, p) in block.iter().enumerate() {
                    self.check(i, 2 * keys.capacity() * size_of::<C>() + pair_bytes)?;
                    let board = p.board();
                    let live = classify(lay, &board).is_none();
                    board.moves(lay, &mut list);
                    moves.push(if live { list.len() as u8 } else { DEAD });
                    if !prune {
                        keys.extend(
                            list.as_slice()
                                .iter()
                                .map(|&mv| C::from_packed(p.child(mv).packed())),
                        );
                    }
                    if !live {
                        continue;
                    }
                    let mut filter = LiveChildren::new(lay, &board);
                    for &mv in list.as_slice() {
                        if !filter.passes(lay, &board, mv) {
                            continue;
                        }
                        let child = p.child(mv).packed();
                        if prune {
                            keys.push(C::from_packed(child));
                        }
                        if packable {
                            packed.push((child as u64) << 16 | i as u64);
                        } else {
                            plain.push((C::from_packed(child), (base + i) as u32));
                        }
                    }
                }
                runs.push(if packable {
                    radix_sort_by(&mut packed, |&x| x);
                    pair_bytes += packed.capacity() * 8;
                    PairRun::Packed {
                        base,
                        pairs: packed,
                    }
                } else {
                    C::sort_pairs(&mut plain);
                    pair_bytes += plain.capacity() * size_of::<(C, u32)>();
                    PairRun::Plain(plain)
                });
            }
            // The radix sort's scratch doubles the key buffer while it runs.
            let raw = 2 * keys.capacity() * size_of::<C>() + pair_bytes;
            C::sort_dedup(&mut keys);
            Ok((keys, moves, runs, raw))
        })?;
        let raw: usize = parts.iter().map(|r| r.3).sum();
        self.reserve(raw)?;
        let mut moves = Vec::with_capacity(parents.len());
        let mut layers = Vec::with_capacity(parts.len());
        let mut runs = Vec::new();
        for (keys, m, r, _) in parts {
            moves.extend(m);
            layers.push(keys);
            runs.extend(r);
        }
        // Merge the sorted key runs pairwise, dropping keys found in both.
        while layers.len() > 1 {
            let b = layers.pop().unwrap();
            let a = layers.pop().unwrap();
            layers.push(merge_dedup(&a, &b));
        }
        let mut next = layers.pop().unwrap_or_default();
        next.shrink_to_fit();
        // The edges: each run's children found in the next layer.
        let parts = self.split(&runs, |_, rs| {
            let mut edges = Vec::new();
            for run in rs {
                match run {
                    PairRun::Packed { base, pairs } => match_pairs(
                        &next,
                        pairs.iter().map(|&x| {
                            (
                                C::from_packed((x >> 16) as u128),
                                (base + (x & 0xffff) as usize) as u32,
                            )
                        }),
                        &mut edges,
                    ),
                    PairRun::Plain(pairs) => match_pairs(&next, pairs.iter().copied(), &mut edges),
                }
            }
            Ok(edges)
        })?;
        let mut edges = Vec::with_capacity(parts.iter().map(Vec::len).sum());
        for part in parts {
            edges.extend(part);
        }
        Ok((next, Step { moves, edges }))
    }
}

/// One chunk's (child, parent) pairs, sorted by child.
enum PairRun<C> {
    /// `child << 16 | parent − base`, for children of at most 48 bits.
    Packed { base: usize, pairs: Vec<u64> },
    /// Plain pairs, for wider children.
    Plain(Vec<(C, u32)>),
}

/// Merges two sorted, deduplicated vectors into one.
fn merge_dedup<K: Ord + Copy>(a: &[K], b: &[K]) -> Vec<K> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Counts distinct and solvable states at every depth from 0 to the deepest asked for.
pub fn analyze(state: &State, opts: &AnalysisOptions) -> Result<Analysis, SearchError> {
    let (lay, root) = Layout::new(state);
    let lay = lay.with_flock_table();
    let stacks = root.stacks() as usize;
    let last = stacks.saturating_sub(1);
    let deepest = opts.max_depth.unwrap_or(last).min(last);
    let mut run = Run {
        lay: &lay,
        opts,
        held: 0,
        peak: 0,
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
    let mut solvable_below = vec![true; sizes[last]];
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
        let mut wins = vec![0u8; sizes[depth]];
        for &(parent, child) in &step.edges {
            wins[parent as usize] += solvable_below[child as usize] as u8;
        }
        let (mut tension, mut counted) = (0.0, 0u64);
        let solvable: Vec<bool> = wins
            .iter()
            .zip(&step.moves)
            .map(|(&w, &m)| {
                if w > 0 {
                    tension += 1.0 - w as f64 / m as f64;
                    counted += 1;
                }
                w > 0
            })
            .collect();
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
    use crate::notation::parse_state;

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
        // Stopping at depth 1 settles that layer with the solver instead: same numbers.
        let opts = AnalysisOptions {
            max_depth: Some(1),
            ..Default::default()
        };
        let b = analyze(&s, &opts).unwrap();
        assert_eq!(b.depths, a.depths[..2]);
    }
}
