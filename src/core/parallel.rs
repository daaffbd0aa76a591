//! Work spread over a set number of threads: a rayon pool of exactly the
//! threads asked for (never the global pool, whose size is the machine's),
//! and a map over items that returns the results in the items' order, so a
//! seed gives the same results on any number of threads.

/// The pool the maps run on, named here so that callers need not name rayon.
pub use rayon::ThreadPool;
use rayon::iter::{IntoParallelIterator, ParallelIterator};
use std::sync::{Mutex, TryLockError};

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
}
