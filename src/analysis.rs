//! State-space analysis: for every depth d (moves made), how many distinct
//! states are reachable in exactly d moves and how many of them are solvable
//! (seed 001's Figure 2), with the depth-d solvability ratios, the halfway
//! ratio and Browne's tension.
//!
//! A state at depth d has exactly k − d stacks, so states of different depths
//! never coincide and the space splits into layers. The forward pass builds
//! each layer as a sorted, deduplicated vector of packed boards. Solvability
//! then runs backward: a state is solvable iff one of its children is in the
//! solvable set of the next layer. The deepest layer asked for is settled by
//! the solver (or is solved outright when it is the last one).
//!
//! Memory is bounded by [`Limits::memory_cap`]; going over it is an error, not
//! an OOM kill. The cancel flag is checked every few thousand states.

use crate::board::{Board, Layout, LiveChildren, MoveList};
use crate::solver::{KeyHasher, Limits, SearchError, Solver, classify};
use crate::state::State;
use serde::Serialize;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash};
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

/// A packed board: `u64` for boards of at most 12 stacks, `u128` otherwise.
trait Key: Copy + Ord + Hash + Send + Sync + 'static {
    fn from_packed(key: u128) -> Self;
    fn packed(self) -> u128;
    fn board(self) -> Board;
    /// The key of the child after `mv`, in this key's width.
    fn child(self, mv: crate::state::Move) -> Self;
    /// Sorts and removes duplicates.
    fn sort_dedup(keys: &mut Vec<Self>);
}

impl Key for u64 {
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
    fn child(self, mv: crate::state::Move) -> u64 {
        Board::child_key64(self, mv)
    }
    fn sort_dedup(keys: &mut Vec<u64>) {
        radix_sort(keys);
        keys.dedup();
    }
}

impl Key for u128 {
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
    fn child(self, mv: crate::state::Move) -> u128 {
        Board::child_key(self, mv)
    }
    fn sort_dedup(keys: &mut Vec<u128>) {
        // Wide layers (more than 12 stacks) are the first few and small.
        keys.sort_unstable();
        keys.dedup();
    }
}

/// LSD radix sort of u64 keys, 11 bits a pass, skipping passes over bits that
/// no key uses. Layers are tens of millions of keys, where this beats a
/// comparison sort several times over.
fn radix_sort(keys: &mut Vec<u64>) {
    // 11-bit digits: 2048 buckets keep the scatter's write positions in cache.
    const DIGIT: usize = 11;
    const MASK: usize = (1 << DIGIT) - 1;
    if keys.len() < 1 << 12 {
        keys.sort_unstable();
        return;
    }
    let used = keys.iter().fold(0u64, |m, &k| m | k);
    let mut scratch = vec![0u64; keys.len()];
    let mut shift = 0;
    while shift < 64 && used >> shift != 0 {
        let mut counts = vec![0usize; 1 << DIGIT];
        for &k in keys.iter() {
            counts[(k >> shift) as usize & MASK] += 1;
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for &k in keys.iter() {
            let d = (k >> shift) as usize & MASK;
            scratch[counts[d]] = k;
            counts[d] += 1;
        }
        std::mem::swap(keys, &mut scratch);
        shift += DIGIT;
    }
}

type KeySet<K> = HashSet<K, BuildHasherDefault<KeyHasher>>;

/// The solvable boards of one layer, for membership tests. Most children are
/// not solvable, and a set of millions of keys misses the cache on every
/// probe, so a bit filter of 16 bits a key (one hash, about 6% false
/// positives) answers most of them from a far smaller array first.
struct SolvableSet<K> {
    filter: Vec<u64>,
    shift: u32,
    set: KeySet<K>,
}

impl<K: Key> SolvableSet<K> {
    fn new(keys: &[K]) -> SolvableSet<K> {
        let bits = (keys.len() * 16).next_power_of_two().max(64);
        let mut filter = vec![0u64; bits / 64];
        let shift = 64 - bits.trailing_zeros();
        for &k in keys {
            let b = Self::bit(k, shift);
            filter[b >> 6] |= 1 << (b & 63);
        }
        let mut set = KeySet::with_capacity_and_hasher(keys.len(), Default::default());
        set.extend(keys.iter().copied());
        SolvableSet { filter, shift, set }
    }

    #[inline]
    fn bit(k: K, shift: u32) -> usize {
        let p = k.packed();
        let h = ((p as u64) ^ (p >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> shift) as usize
    }

    #[inline]
    fn contains(&self, k: K) -> bool {
        let b = Self::bit(k, self.shift);
        self.filter[b >> 6] >> (b & 63) & 1 == 1 && self.set.contains(&k)
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

/// Shared context of one analysis.
struct Run<'a> {
    lay: &'a Layout,
    opts: &'a AnalysisOptions,
    /// Bytes held by finished layers.
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

    /// Fails when `more` bytes on top of the held layers would pass the cap.
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

    /// Runs `work` on `threads` contiguous chunks of `items` and returns the results in order.
    fn split<T: Sync, R: Send>(
        &self,
        items: &[T],
        work: impl Fn(&[T]) -> Result<R, SearchError> + Sync,
    ) -> Result<Vec<R>, SearchError> {
        let threads = self.opts.threads.max(1);
        if threads == 1 || items.len() < 4 * CHECK_EVERY {
            return Ok(vec![work(items)?]);
        }
        let chunk = items.len().div_ceil(threads);
        std::thread::scope(|s| {
            let handles: Vec<_> = items.chunks(chunk).map(|c| s.spawn(|| work(c))).collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("analysis worker panicked"))
                .collect()
        })
    }

    /// The next layer: every child of every parent, sorted and deduplicated.
    fn expand<P: Key, C: Key>(
        &mut self,
        parents: &[P],
        prune: bool,
    ) -> Result<Vec<C>, SearchError> {
        let cap = self.opts.limits.memory_cap.saturating_sub(self.held);
        let threads = self.opts.threads.max(1);
        let lay = self.lay;
        let runs = self.split(parents, |chunk| {
            let mut out: Vec<C> = Vec::with_capacity(chunk.len() * 4);
            let mut list = MoveList::default();
            for (i, p) in chunk.iter().enumerate() {
                if i % CHECK_EVERY == 0 {
                    if self.cancelled() {
                        return Err(SearchError::Cancelled);
                    }
                    if out.capacity() * size_of::<C>() * threads > cap {
                        return Err(SearchError::MemoryCap {
                            cap: self.opts.limits.memory_cap,
                        });
                    }
                }
                let key = *p;
                let board = key.board();
                if prune && classify(lay, &board).is_some() {
                    // Every descendant of a board that fails the tests fails them too.
                    continue;
                }
                board.moves(lay, &mut list);
                if prune {
                    let mut live = LiveChildren::new(lay, &board);
                    for &mv in list.as_slice() {
                        if live.passes(lay, &board, mv) {
                            out.push(C::from_packed(key.child(mv).packed()));
                        }
                    }
                } else {
                    out.extend(
                        list.as_slice()
                            .iter()
                            .map(|&mv| C::from_packed(key.child(mv).packed())),
                    );
                }
            }
            // The radix sort's scratch doubles the buffer while it runs.
            let raw = 2 * out.capacity() * size_of::<C>();
            C::sort_dedup(&mut out);
            Ok((out, raw))
        })?;
        let raw: usize = runs.iter().map(|r| r.1).sum();
        self.reserve(raw)?;
        let mut runs: Vec<Vec<C>> = runs.into_iter().map(|r| r.0).collect();
        // Merge the sorted runs pairwise, dropping keys found in both.
        while runs.len() > 1 {
            let b = runs.pop().unwrap();
            let a = runs.pop().unwrap();
            runs.push(merge_dedup(&a, &b));
        }
        let mut layer = runs.pop().unwrap_or_default();
        layer.shrink_to_fit();
        Ok(layer)
    }

    /// Settles the deepest layer with the solver; returns the solvable boards
    /// (sorted) and the tension sum and count over them.
    fn solve_layer<K: Key>(&self, layer: &[K]) -> Result<(Vec<K>, f64, u64), SearchError> {
        let threads = self.opts.threads.max(1);
        let lay = self.lay;
        let limits = Limits {
            memory_cap: self.opts.limits.memory_cap.saturating_sub(self.held) / threads,
            cancel: self.opts.limits.cancel.clone(),
        };
        let parts = self.split(layer, |chunk| {
            let mut solver = Solver::new(limits.clone());
            let mut list = MoveList::default();
            let (mut solvable, mut tension, mut counted) = (Vec::new(), 0.0, 0u64);
            for (i, &k) in chunk.iter().enumerate() {
                if i % CHECK_EVERY == 0 && self.cancelled() {
                    return Err(SearchError::Cancelled);
                }
                let board = k.board();
                if !solver.is_solvable(lay, board)? {
                    continue;
                }
                solvable.push(k);
                board.moves(lay, &mut list);
                if !list.is_empty() {
                    let mut wins = 0;
                    for &mv in list.as_slice() {
                        wins += solver.is_solvable(lay, board.apply(mv))? as usize;
                    }
                    tension += 1.0 - wins as f64 / list.len() as f64;
                    counted += 1;
                }
            }
            Ok((solvable, tension, counted))
        })?;
        Ok(join_parts(parts))
    }

    /// Marks a layer's solvable boards from the next layer's solvable set.
    fn mark<P: Key, C: Key>(
        &self,
        layer: &[P],
        next: &SolvableSet<C>,
    ) -> Result<(Vec<P>, f64, u64), SearchError> {
        let lay = self.lay;
        let parts = self.split(layer, |chunk| {
            let mut list = MoveList::default();
            let (mut solvable, mut tension, mut counted) = (Vec::new(), 0.0, 0u64);
            for (i, &k) in chunk.iter().enumerate() {
                if i % CHECK_EVERY == 0 && self.cancelled() {
                    return Err(SearchError::Cancelled);
                }
                // A board or child that fails the cheap tests is never solvable;
                // the tests are table lookups, far cheaper than a set lookup.
                let board = k.board();
                if classify(lay, &board).is_some() {
                    continue;
                }
                board.moves(lay, &mut list);
                let mut live = LiveChildren::new(lay, &board);
                let wins = list
                    .as_slice()
                    .iter()
                    .filter(|&&mv| {
                        live.passes(lay, &board, mv)
                            && next.contains(C::from_packed(k.child(mv).packed()))
                    })
                    .count();
                if wins > 0 {
                    solvable.push(k);
                    tension += 1.0 - wins as f64 / list.len() as f64;
                    counted += 1;
                }
            }
            Ok((solvable, tension, counted))
        })?;
        Ok(join_parts(parts))
    }
}

/// Concatenates per-thread results, in order.
fn join_parts<K>(parts: Vec<(Vec<K>, f64, u64)>) -> (Vec<K>, f64, u64) {
    let mut all = (Vec::new(), 0.0, 0);
    for (v, t, c) in parts {
        all.0.extend(v);
        all.1 += t;
        all.2 += c;
    }
    all
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

/// The solvable boards of one layer, in either key width.
enum Solvable {
    Narrow(Vec<u64>),
    Wide(Vec<u128>),
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

    // Forward: the layers.
    // Past the deepest counted depth only boards that pass the cheap tests
    // are kept: they are the only ones that can be solvable, and these layers
    // down to the end then settle the counted layers by marking backward.
    let mut layers: Vec<Layer> = Vec::with_capacity(last + 1);
    layers.push(if narrow(0) {
        Layer::Narrow(vec![u64::from_packed(root.pack())])
    } else {
        Layer::Wide(vec![root.pack()])
    });
    run.held += layers[0].bytes();
    for depth in 1..=last {
        if run.cancelled() {
            return Err(SearchError::Cancelled);
        }
        let prune = depth > deepest;
        let next = match (layers.last().unwrap(), narrow(depth)) {
            (Layer::Narrow(p), _) => Layer::Narrow(run.expand(p, prune)?),
            (Layer::Wide(p), true) => Layer::Narrow(run.expand(p, prune)?),
            (Layer::Wide(p), false) => Layer::Wide(run.expand(p, prune)?),
        };
        run.held += next.bytes();
        run.reserve(0)?;
        run.report(depth, next.len());
        layers.push(next);
    }

    // Backward: the solvable sets.
    let mut depths = vec![
        DepthCount {
            depth: 0,
            states: 0,
            solvable: 0,
            tension: None,
        };
        last + 1
    ];
    let mean = |sum: f64, count: u64| (count > 0).then(|| sum / count as f64);
    let mut below: Option<Solvable> = None;
    for depth in (0..=last).rev() {
        let layer = layers.pop().expect("one layer per depth");
        let (solvable, tension, counted) = match (&layer, &below) {
            // The last depth has one stack: solved, and no moves left.
            (Layer::Narrow(l), None) if depth == last => (Solvable::Narrow(l.clone()), 0.0, 0),
            (Layer::Wide(l), None) if depth == last => (Solvable::Wide(l.clone()), 0.0, 0),
            (Layer::Narrow(l), None) => wrap_narrow(run.solve_layer(l)?),
            (Layer::Wide(l), None) => wrap_wide(run.solve_layer(l)?),
            (Layer::Narrow(l), Some(Solvable::Narrow(s))) => {
                wrap_narrow(run.mark(l, &SolvableSet::new(s))?)
            }
            (Layer::Wide(l), Some(Solvable::Narrow(s))) => {
                wrap_wide(run.mark(l, &SolvableSet::new(s))?)
            }
            (Layer::Wide(l), Some(Solvable::Wide(s))) => {
                wrap_wide(run.mark(l, &SolvableSet::new(s))?)
            }
            (Layer::Narrow(_), Some(Solvable::Wide(_))) => {
                unreachable!("deeper layers are never wider")
            }
        };
        let count = match &solvable {
            Solvable::Narrow(v) => v.len(),
            Solvable::Wide(v) => v.len(),
        };
        depths[depth] = DepthCount {
            depth,
            states: layer.len() as u64,
            solvable: count as u64,
            tension: mean(tension, counted),
        };
        run.held -= layer.bytes();
        run.report(2 * last + 1 - depth, layer.len());
        below = Some(solvable);
    }
    depths.truncate(deepest + 1);
    Ok(Analysis {
        stacks,
        depths,
        peak_bytes: run.peak,
    })
}

fn wrap_narrow((v, t, c): (Vec<u64>, f64, u64)) -> (Solvable, f64, u64) {
    (Solvable::Narrow(v), t, c)
}

fn wrap_wide((v, t, c): (Vec<u128>, f64, u64)) -> (Solvable, f64, u64) {
    (Solvable::Wide(v), t, c)
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
