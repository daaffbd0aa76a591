//! Work spread over a set number of threads: a rayon pool of exactly the
//! threads asked for (never the global pool, whose size is the machine's),
//! and a map over items that returns the results in the items' order, so a
//! seed gives the same results on any number of threads.

/// The pool the maps run on, named here so that callers need not name rayon.
pub use rayon::ThreadPool;
use rayon::iter::{IntoParallelIterator, ParallelIterator};
use std::sync::{Mutex, TryLockError};

/// Every core of the machine (1 when the system cannot tell): the default
/// thread count of the front ends' long work.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Most threads a piece of work spreads over, whatever it is asked for:
/// past this, threads only cost (and a system may refuse to start them).
pub const MAX_THREADS: usize = 64;

/// A pool of `threads` threads; `None` for one thread, or when the system
/// cannot start them (the work then runs on the caller's thread, to the
/// same results).
pub fn pool(threads: usize) -> Option<ThreadPool> {
    if threads <= 1 {
        return None;
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .ok()
}

/// `f` of every item, in the items' order, on `pool`'s threads (on the
/// caller's thread without one).
pub fn map<I, R>(
    pool: Option<&ThreadPool>,
    items: I,
    f: impl Fn(<I as IntoIterator>::Item) -> R + Sync + Send,
) -> Vec<R>
where
    I: IntoIterator + IntoParallelIterator<Item = <I as IntoIterator>::Item> + Send,
    R: Send,
{
    map_with(pool, items, || (), |_, item| f(item))
}

/// [`map`] with a state of each worker's, made by `init` the first time the
/// worker needs it (say, a solver whose tables are reused from one item to
/// the next). Made once per thread of the pool, not per piece of work:
/// rayon splits the items into many pieces, and a solver's tables are too
/// costly to make anew for each.
pub fn map_with<I, S, R>(
    pool: Option<&ThreadPool>,
    items: I,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, <I as IntoIterator>::Item) -> R + Sync + Send,
) -> Vec<R>
where
    I: IntoIterator + IntoParallelIterator<Item = <I as IntoIterator>::Item> + Send,
    S: Send,
    R: Send,
{
    match pool {
        Some(pool) => {
            // One slot a thread, taken only by its own thread: never waited on.
            let states: Vec<Mutex<Option<S>>> = (0..pool.current_num_threads())
                .map(|_| Mutex::new(None))
                .collect();
            pool.install(|| {
                items
                    .into_par_iter()
                    .map(|item| {
                        let at = rayon::current_thread_index().unwrap_or(0);
                        match states[at].try_lock() {
                            Ok(mut slot) => f(slot.get_or_insert_with(&init), item),
                            Err(TryLockError::Poisoned(e)) => {
                                f(e.into_inner().get_or_insert_with(&init), item)
                            }
                            // The thread's own state is in use further up its
                            // stack (`f` waited on rayon work and stole this
                            // item): a state of the item's own.
                            Err(TryLockError::WouldBlock) => f(&mut init(), item),
                        }
                    })
                    .collect()
            })
        }
        None => {
            let mut state = init();
            items.into_iter().map(|item| f(&mut state, item)).collect()
        }
    }
}

/// `f` of each item of `items` (with its index), each on a thread of its
/// own, all running at once: for work whose parts wait on one another (a
/// pool with fewer threads than parts could leave one waiting for a part
/// never started). A panic in a part is raised again here.
pub fn each<T: Send, R: Send>(items: &mut [T], f: impl Fn(usize, &mut T) -> R + Sync) -> Vec<R> {
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = items
            .iter_mut()
            .enumerate()
            .map(|(i, item)| scope.spawn(move || f(i, item)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// `a` and `b`, both results: with `threads` over one, `a` on a thread of
/// its own beside `b` on the caller's (a panic in `a` is raised again
/// here); with one, `a` then `b` on the caller's.
pub fn beside<A: Send, B>(
    threads: usize,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B,
) -> (A, B) {
    if threads <= 1 {
        let a = a();
        return (a, b());
    }
    std::thread::scope(|scope| {
        let a = scope.spawn(a);
        let b = b();
        let a = a
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (a, b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_order_on_any_number_of_threads() {
        let items: Vec<u64> = (0..1000).collect();
        let want: Vec<u64> = items.iter().map(|x| x * x).collect();
        for threads in [1, 2, 3] {
            let pool = pool(threads);
            assert_eq!(
                pool.as_ref().map(ThreadPool::current_num_threads),
                (threads > 1).then_some(threads)
            );
            assert_eq!(map(pool.as_ref(), &items, |x| x * x), want);
            let made = std::sync::atomic::AtomicUsize::new(0);
            let owned = map_with(
                pool.as_ref(),
                items.clone(),
                || made.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                |_, x| x * x,
            );
            assert_eq!(owned, want);
            // One state a thread at most, whatever rayon's pieces.
            let made = made.into_inner();
            assert!(
                (1..=threads).contains(&made),
                "{made} states on {threads} threads"
            );
        }
    }

    #[test]
    fn each_part_runs_at_once_and_beside_runs_both() {
        // Every part waits until all have started: on fewer threads than
        // parts this would never end.
        let started = std::sync::atomic::AtomicUsize::new(0);
        let mut parts = vec![10u64, 20, 30, 40];
        let got = each(&mut parts, |i, x| {
            started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            while started.load(std::sync::atomic::Ordering::SeqCst) < 4 {
                std::thread::yield_now();
            }
            *x += 1;
            (i, *x)
        });
        assert_eq!(got, vec![(0, 11), (1, 21), (2, 31), (3, 41)]);
        assert_eq!(parts, vec![11, 21, 31, 41]);
        let here = std::thread::current().id();
        let id = || std::thread::current().id();
        let (a, b) = beside(2, id, id);
        assert_ne!(a, here);
        assert_eq!(b, here);
        assert_eq!(beside(1, id, id), (here, here));
    }
}
