//! Work spread over a set number of threads: a rayon pool of exactly the
//! threads asked for (never the global pool, whose size is the machine's),
//! and a map over items that returns the results in the items' order, so a
//! seed gives the same results on any number of threads.

use rayon::ThreadPool;
use rayon::iter::{IntoParallelIterator, ParallelIterator};

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

/// [`map`] with a state of each worker's, made by `init` (say, a solver whose
/// tables are reused from one item to the next).
pub fn map_with<I, S, R>(
    pool: Option<&ThreadPool>,
    items: I,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, <I as IntoIterator>::Item) -> R + Sync + Send,
) -> Vec<R>
where
    I: IntoIterator + IntoParallelIterator<Item = <I as IntoIterator>::Item> + Send,
    R: Send,
{
    match pool {
        Some(pool) => pool.install(|| items.into_par_iter().map_init(&init, &f).collect()),
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
            let owned = map_with(
                pool.as_ref(),
                items.clone(),
                || 0u64,
                |seen, x| {
                    *seen += 1;
                    x * x
                },
            );
            assert_eq!(owned, want);
        }
    }
}
