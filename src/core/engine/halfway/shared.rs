//! One depth of the walk back split by several threads. Each thread takes
//! the depth's next set of bottoms as it gets free (the deepest depths,
//! whose large stacks each thread asks for first, deal the sets out in
//! turn), so each grouping is split by one thread and none waits long for
//! the others at the depth's end. A set of the next
//! depth gathers words from every thread, each in a list of its own, and
//! is finished by one thread, its owner ([`owner`]), once every thread is
//! past the last set that can lead to it: the same order of work as on one
//! thread, so the same memory, and the same counts.

use super::level::{Finish, LOOK_EVERY, Level, Sink, WalkLists};
use super::merges::Merges;
use super::split::SplitCache;
use super::wins::Grouping;
use crate::engine::limits::{Limits, SearchError};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// The thread of `threads` that finishes a set of bottoms: a hash of the
/// set, so each thread finishes about as many.
#[inline]
fn owner(bottoms: u16, threads: usize) -> usize {
    ((bottoms as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize % threads
}

/// A lock whose holder never panics while holding it; taken even so.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A thread's own part of a walk back, kept from one depth to the next.
pub(super) struct Worker {
    /// The splits of the stacks it met.
    pub(super) splits: SplitCache,
    /// For each set of bottoms, its own words after their last compaction.
    kept: Vec<u32>,
    /// The sets of bottoms it finishes, by the last set that can lead to
    /// them, soonest first.
    pending: BinaryHeap<Reverse<(u16, u16)>>,
    finish: Finish,
    /// Its lists, from one depth to the next.
    lists: WalkLists,
}

impl Worker {
    /// A worker for the walk back over `n` cards.
    pub(super) fn new(n: usize) -> Worker {
        Worker {
            splits: SplitCache::new(n),
            kept: vec![0; 1 << n],
            pending: BinaryHeap::new(),
            finish: Finish::new(),
            lists: WalkLists::default(),
        }
    }
}

/// The lists every thread fills, kept for the whole walk: for each thread,
/// one list per set of bottoms of the next depth.
pub(super) struct Gathered {
    raw: Vec<Vec<Mutex<Vec<Grouping>>>>,
    /// Whether a set of bottoms has words from some thread, so that its
    /// owner has heard of it.
    touched: Vec<AtomicBool>,
}

impl Gathered {
    /// Lists for `threads` threads over `n` cards.
    pub(super) fn new(threads: usize, n: usize) -> Gathered {
        Gathered {
            raw: (0..threads)
                .map(|_| (0..1 << n).map(|_| Mutex::new(Vec::new())).collect())
                .collect(),
            touched: (0..1 << n).map(|_| AtomicBool::new(false)).collect(),
        }
    }
}

/// How one depth is split (see the walk back).
#[derive(Clone, Copy)]
pub(super) struct Depth {
    /// Only the next depth's boards are counted, not its groupings kept.
    pub(super) only_tops: bool,
    /// The next depth's boards are counted.
    pub(super) counted: bool,
    /// Large sets' stacks are asked for first and split together.
    pub(super) ask_first: bool,
    /// Bytes held besides the walk.
    pub(super) fixed: usize,
}

/// What the threads share while they split one depth.
struct Shared<'a> {
    /// The depth's sets of bottoms, in numeric order.
    bottoms: Vec<u16>,
    /// Each set's groupings, until its thread takes them.
    words: Vec<Mutex<Vec<Grouping>>>,
    /// The next of `bottoms` no thread has taken, when the threads take
    /// them as they get free.
    next: AtomicUsize,
    gathered: &'a Gathered,
    /// For each thread, the sets of bottoms it finishes that it has not
    /// heard of yet.
    inbox: Vec<Mutex<Vec<u16>>>,
    /// For each thread, the set it splits now: it is past every set of its
    /// own below that (`u32::MAX` once it is done).
    at: Vec<AtomicU32>,
    /// Bytes of the depth's groupings not yet split, of the words gathered,
    /// and, for each thread, of what it finished and its cache.
    held: AtomicUsize,
    raw_bytes: AtomicUsize,
    own_bytes: Vec<AtomicUsize>,
    stop: AtomicBool,
    error: Mutex<Option<SearchError>>,
}

impl Shared<'_> {
    /// Records `error` (the first one wins) and stops every thread.
    fn fail(&self, error: SearchError) {
        lock(&self.error).get_or_insert(error);
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Every thread is past every set below this.
    fn passed(&self) -> u32 {
        self.at
            .iter()
            .map(|a| a.load(Ordering::Acquire))
            .min()
            .unwrap_or(u32::MAX)
    }

    /// Bytes held by the walk now, roughly.
    fn bytes(&self) -> usize {
        self.held.load(Ordering::Relaxed)
            + self.raw_bytes.load(Ordering::Relaxed)
            + self
                .own_bytes
                .iter()
                .map(|b| b.load(Ordering::Relaxed))
                .sum::<usize>()
    }
}

/// A thread's lists while it splits a set: its own list of each set of
/// bottoms, compacted as it grows, and the owner told of each new set.
struct ThreadSink<'a, 'b> {
    me: usize,
    shared: &'a Shared<'b>,
    kept: &'a mut [u32],
    finish: &'a mut Finish,
    /// The sets taken and the capacity their lists had in the shared
    /// slot, which the bytes gathered count until they are put back.
    taken: Vec<(u16, usize)>,
}

impl Sink for ThreadSink<'_, '_> {
    fn take(&mut self, bottoms: u16) -> Vec<Grouping> {
        let slot = &self.shared.gathered.raw[self.me][bottoms as usize];
        let words = std::mem::take(&mut *lock(slot));
        self.taken.push((bottoms, words.capacity()));
        self.finish.list(words)
    }

    fn put(&mut self, bottoms: u16, mut words: Vec<Grouping>, _: bool) {
        let at = self.taken.iter().position(|&(b, _)| b == bottoms);
        let counted = at.map_or(0, |at| self.taken.swap_remove(at).1);
        let shared = self.shared;
        if words.is_empty() {
            // Nothing was in the slot: an empty list came from the spares.
            self.finish.recycle(words);
            return;
        }
        self.finish
            .compact(&mut words, &mut self.kept[bottoms as usize]);
        let now = words.capacity();
        *lock(&shared.gathered.raw[self.me][bottoms as usize]) = words;
        if now >= counted {
            shared
                .raw_bytes
                .fetch_add((now - counted) * size_of::<Grouping>(), Ordering::Relaxed);
        } else {
            shared
                .raw_bytes
                .fetch_sub((counted - now) * size_of::<Grouping>(), Ordering::Relaxed);
        }
        if !shared.gathered.touched[bottoms as usize].swap(true, Ordering::AcqRel) {
            let threads = shared.at.len();
            lock(&shared.inbox[owner(bottoms, threads)]).push(bottoms);
        }
    }
}

impl Merges {
    /// The groupings one move before those of `level` (freed as they are
    /// split), or their boards' count only, split by the threads of
    /// `workers` into the lists of `gathered`. The lists `spare` (one per
    /// set of bottoms, empty) hold the first worker's finished sets.
    pub(super) fn split_level_shared(
        &self,
        level: &mut Level,
        spare: Vec<Vec<Grouping>>,
        workers: &mut [Worker],
        gathered: &Gathered,
        depth: Depth,
        limits: &Limits,
    ) -> Result<Level, SearchError> {
        let n = self.n;
        let mut spare = Some(spare);
        for w in workers.iter_mut() {
            let sets = spare.take().unwrap_or_default();
            w.finish
                .begin(n, depth.only_tops, depth.counted, sets, &mut w.lists);
        }
        let threads = workers.len();
        let bottoms = std::mem::take(&mut level.used);
        let mut held = 0;
        let words = bottoms
            .iter()
            .map(|&b| {
                let words = std::mem::take(&mut level.sets[b as usize]);
                held += words.capacity() * size_of::<Grouping>();
                Mutex::new(words)
            })
            .collect();
        let shared = Shared {
            bottoms,
            words,
            next: AtomicUsize::new(0),
            gathered,
            inbox: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
            at: (0..threads).map(|_| AtomicU32::new(0)).collect(),
            held: AtomicUsize::new(held),
            raw_bytes: AtomicUsize::new(0),
            own_bytes: (0..threads).map(|_| AtomicUsize::new(0)).collect(),
            stop: AtomicBool::new(false),
            error: Mutex::new(None),
        };
        let made = crate::parallel::each(workers, |me, w| {
            self.split_share(&shared, w, me, depth, limits)
        });
        if let Some(error) = lock(&shared.error).take() {
            // The lists are left for the walk's end; a failed walk drops them.
            return Err(error);
        }
        // The threads finished disjoint sets of bottoms: put them together.
        let mut made = made.into_iter();
        let mut whole = made.next().expect("at least one worker");
        for (w, mut part) in workers[1..].iter_mut().zip(made) {
            whole.boards += part.boards;
            for &b in &part.used {
                whole.sets[b as usize] = std::mem::take(&mut part.sets[b as usize]);
            }
            whole.used.extend_from_slice(&part.used);
            w.lists.keep(part.sets, &[]);
        }
        whole.used.sort_unstable();
        Ok(whole)
    }

    /// Thread `me`'s share of a depth: every `threads`-th set of the
    /// depth's sets split, and the sets of the next depth it owns finished
    /// as soon as every thread is past their sources.
    fn split_share(
        &self,
        shared: &Shared,
        w: &mut Worker,
        me: usize,
        depth: Depth,
        limits: &Limits,
    ) -> Level {
        let threads = shared.at.len();
        let mine = || (me..shared.bottoms.len()).step_by(threads);
        if depth.ask_first {
            for i in mine() {
                self.ask_splits(shared.bottoms[i], &lock(&shared.words[i]), &mut w.splits);
            }
            w.splits.split_asked(self);
        }
        let mut until_look = 0usize;
        // Where each thread asked for its own sets' large stacks, it
        // splits those sets; elsewhere each takes the next set as it gets
        // free, so that none waits long for the others at the depth's end.
        let mut dealt = mine();
        let mut take = || {
            if depth.ask_first {
                dealt.next()
            } else {
                Some(shared.next.fetch_add(1, Ordering::Relaxed))
                    .filter(|&i| i < shared.bottoms.len())
            }
        };
        while let Some(i) = take() {
            let bottoms = shared.bottoms[i];
            shared.at[me].store(bottoms as u32, Ordering::Release);
            if shared.stop.load(Ordering::Relaxed) {
                break;
            }
            self.finish_passed(shared, w, me);
            if until_look == 0 {
                let own = w.finish.bytes() + w.splits.bytes();
                shared.own_bytes[me].store(own, Ordering::Relaxed);
                if let Err(error) = limits.check(depth.fixed + shared.bytes()) {
                    shared.fail(error);
                    break;
                }
                until_look = LOOK_EVERY;
            }
            let words = std::mem::take(&mut *lock(&shared.words[i]));
            let mut sink = ThreadSink {
                me,
                shared,
                kept: &mut w.kept,
                finish: &mut w.finish,
                taken: Vec::new(),
            };
            let made = self.split_words(bottoms, &words, depth.only_tops, &mut w.splits, &mut sink);
            until_look = until_look.saturating_sub(made);
            shared
                .held
                .fetch_sub(words.capacity() * size_of::<Grouping>(), Ordering::Relaxed);
        }
        shared.at[me].store(u32::MAX, Ordering::Release);
        // Finish the rest as the other threads get past their sources.
        loop {
            self.finish_passed(shared, w, me);
            let done = shared.passed() == u32::MAX && lock(&shared.inbox[me]).is_empty();
            if (done && w.pending.is_empty()) || shared.stop.load(Ordering::Relaxed) {
                break;
            }
            if !done {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
        w.pending.clear();
        w.finish.result()
    }

    /// Finishes `me`'s sets of bottoms that every thread is past the
    /// sources of: their words from every thread's lists, without repeats.
    fn finish_passed(&self, shared: &Shared, w: &mut Worker, me: usize) {
        // Sets heard of before the threads' places are read, so that a set
        // none has heard of cannot be passed by all of them.
        for bottoms in lock(&shared.inbox[me]).drain(..) {
            // Its sources are the sets one bottom smaller, the last of
            // them the set without its lowest bottom.
            w.pending.push(Reverse((bottoms & (bottoms - 1), bottoms)));
        }
        let passed = shared.passed();
        while let Some(&Reverse((last, bottoms))) = w.pending.peek() {
            if last as u32 >= passed {
                break;
            }
            w.pending.pop();
            let mut words = Vec::new();
            let mut bytes = 0;
            for raw in &shared.gathered.raw {
                let mut part = std::mem::take(&mut *lock(&raw[bottoms as usize]));
                bytes += part.capacity() * size_of::<Grouping>();
                if words.is_empty() {
                    std::mem::swap(&mut words, &mut part);
                } else {
                    words.append(&mut part);
                }
                w.finish.recycle(part);
            }
            shared.raw_bytes.fetch_sub(bytes, Ordering::Relaxed);
            shared.gathered.touched[bottoms as usize].store(false, Ordering::Release);
            w.finish.finish(bottoms, words);
        }
    }
}
