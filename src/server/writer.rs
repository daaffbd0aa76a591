//! Group commit: one thread owns the store and runs the server's work in
//! batches, each batch one transaction with a savepoint per request, so a
//! request that fails undoes only its own changes. Every answer waits for
//! the batch's commit (one fsync for the batch, not one per request), so a
//! rating is acknowledged only once it is on disk: under load, the fsyncs are
//! shared, and none is skipped.

use crate::store::{Store, StoreError};
use rand::rngs::StdRng;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, Sender, channel};
use tokio::sync::oneshot;

/// The most requests one transaction takes: a bound on the wait of the
/// first for the last.
pub const MAX_BATCH: usize = 256;

/// A request's work: whether it succeeded (else its savepoint is rolled
/// back), and where its answer goes.
type Job = Box<dyn FnOnce(&mut Store, &mut StdRng) -> (bool, Answer) + Send>;

/// A job's outcome before the commit: its answer's sender, called with
/// whether the batch committed.
type Answer = Box<dyn FnOnce(Result<(), String>) + Send>;

/// Why a request's work did not happen.
#[derive(Debug)]
pub enum WriteError {
    /// The store refused or failed.
    Store(StoreError),
    /// The batch's transaction failed, or the work panicked: the detail.
    Failed(String),
}

/// The handle the server sends work through.
pub struct Writer {
    jobs: Sender<Job>,
}

impl Writer {
    /// Starts the thread that owns `store`.
    pub fn start(store: Store, rng: StdRng) -> std::io::Result<Writer> {
        let (jobs, receive) = channel();
        std::thread::Builder::new()
            .name("boaf-store".into())
            .spawn(move || run(store, rng, receive))?;
        Ok(Writer { jobs })
    }

    /// Runs `f` on the store in the next batch; answers after its commit.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Store, &mut StdRng) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, WriteError> {
        let (send, receive) = oneshot::channel();
        let job: Job = Box::new(move |store, rng| {
            let done = catch_unwind(AssertUnwindSafe(|| f(store, rng)))
                .map_err(|_| WriteError::Failed("a request's work panicked".into()));
            let ok = matches!(done, Ok(Ok(_)));
            let answer: Answer = Box::new(move |committed: Result<(), String>| {
                let answer = match (done, committed) {
                    (Ok(Ok(value)), Ok(())) => Ok(value),
                    (Ok(Err(e)), _) => Err(WriteError::Store(e)),
                    (Err(e), _) => Err(e),
                    (Ok(Ok(_)), Err(e)) => Err(WriteError::Failed(e)),
                };
                let _ = send.send(answer);
            });
            (ok, answer)
        });
        self.jobs
            .send(job)
            .map_err(|_| WriteError::Failed("the store's thread has stopped".into()))?;
        receive
            .await
            .map_err(|_| WriteError::Failed("the store's thread dropped a request".into()))?
    }
}

/// The thread: waits for work, takes what else is waiting (up to
/// [`MAX_BATCH`]), runs it in one transaction and answers after the commit.
fn run(mut store: Store, mut rng: StdRng, jobs: Receiver<Job>) {
    while let Ok(first) = jobs.recv() {
        let batch: Vec<Job> = std::iter::once(first)
            .chain(jobs.try_iter().take(MAX_BATCH - 1))
            .collect();
        if let Err(e) = store.begin_batch() {
            // With no transaction there is no commit to answer after, so no
            // request of the batch runs: their answers are dropped, which
            // each client gets as a failure to retry (retries are
            // idempotent), and nothing is acknowledged that was not stored.
            eprintln!("boaf serve: a batch did not begin in {}: {e}", store.file());
            store.abandon_batch();
            drop(batch);
            continue;
        }
        let mut answers = Vec::with_capacity(batch.len());
        for job in batch {
            answers.push(store.in_savepoint(|s| job(s, &mut rng)));
        }
        let committed = store.commit_batch().map_err(|e| {
            eprintln!(
                "boaf serve: a batch did not commit to {}: {e}",
                store.file()
            );
            "the server failed to store that; try again".to_string()
        });
        for answer in answers {
            answer(committed.clone());
        }
    }
}
