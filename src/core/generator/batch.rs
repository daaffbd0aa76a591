//! A generation batch session: it starts the workers of a [`Job`], stores
//! each candidate as it is made (dropping those isomorphic to one already
//! stored), keeps every worker's latest progress and the tally, and turns the
//! pipeline's messages into [`Event`]s that end with a [`Summary`].
//!
//! The command line, the app, the benchmark and the tests all generate
//! through it, so they store, order, count and sum up alike. Two orders:
//! [`Order::Batch`] stores candidates in batch order, so a store file does
//! not depend on which worker finished first (a candidate waits only for the
//! puzzles before it that are still being searched); [`Order::Arrival`]
//! stores each one the moment it arrives, so a crash loses none that came.

use crate::generator::descent::WorkerProgress;
use crate::generator::pipeline::{Candidate, Generator, Job, Message, Wake, seed_after};
use crate::generator::store::{PuzzleStore, read_store};
use crossbeam_channel::{RecvTimeoutError, TryRecvError};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// In which order candidates are stored and reported.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// By their place in the batch, whatever the workers' speed.
    Batch,
    /// As they arrive.
    Arrival,
}

/// What happened in a batch since the last look.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A worker moved on.
    Progress {
        /// The worker, from 0.
        worker: usize,
        /// Where it is.
        progress: WorkerProgress,
    },
    /// A new candidate, stored when the batch has a store.
    Candidate(Box<Candidate>),
    /// A candidate isomorphic to one already stored, dropped.
    Duplicate {
        /// Its index in the batch.
        index: usize,
    },
    /// A candidate the store could not write; it is handed over all the
    /// same, so that it is not lost.
    Unstored {
        /// The candidate.
        candidate: Box<Candidate>,
        /// Why it was not written.
        message: String,
    },
    /// A puzzle failed (the memory cap, say); the others go on.
    Failed {
        /// Its index in the batch.
        index: usize,
        /// What went wrong.
        message: String,
    },
    /// The batch is over: the last event.
    Finished(Summary),
}

/// What a batch made, for its last line.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Puzzles asked for.
    pub count: usize,
    /// New candidates (stored, when there is a store).
    pub new: usize,
    /// Candidates dropped as duplicates.
    pub duplicates: usize,
    /// Candidates the store could not write.
    pub unstored: usize,
    /// Puzzles that failed.
    pub failed: usize,
    /// Whether the batch was stopped before the end.
    pub cancelled: bool,
    /// Wall time, in seconds.
    pub seconds: f64,
    /// The store, if the batch had one.
    pub store: Option<PathBuf>,
    /// The batch seed.
    pub seed: u64,
    /// What the store says of the seeds, looked up when every candidate
    /// made was already in it (`None` otherwise, or when it could not be read).
    pub seeds: Option<StoredSeeds>,
}

/// What a store says of the batch seeds it holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StoredSeeds {
    /// Whether the batch's seed made puzzles in the store before.
    pub seed_used: bool,
    /// A seed after every one in the store and the batch's: unused.
    pub next_unused: u64,
}

/// "1 thing" or "2 things".
fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

impl Summary {
    /// Whether every puzzle asked for was made and stored (duplicates aside).
    pub fn is_success(&self) -> bool {
        !self.cancelled && self.failed == 0 && self.unstored == 0
    }

    /// The batch in one line, with the store named by `show`.
    pub fn text(&self, show: impl Fn(&Path) -> String) -> String {
        let how = if self.cancelled {
            "Stopped"
        } else {
            "Finished"
        };
        let made = match &self.store {
            Some(p) => format!(
                "{} of {} stored in {}",
                count(self.new, "new puzzle"),
                self.count,
                show(p)
            ),
            None => format!("{} of {} made", count(self.new, "new puzzle"), self.count),
        };
        let mut text = format!(
            "{how} after {:.1} s: {made}; {} dropped; {} failed",
            self.seconds,
            count(self.duplicates, "duplicate"),
            self.failed
        );
        if self.unstored > 0 {
            text.push_str(&format!("; {} could not be stored", self.unstored));
        }
        text.push('.');
        if let Some(hint) = self.all_duplicates_hint() {
            text.push(' ');
            text.push_str(&hint);
        }
        text
    }

    /// When every candidate made was already in the store, why, and what to
    /// change: another seed, or other settings when the seed was new.
    fn all_duplicates_hint(&self) -> Option<String> {
        if self.new > 0 || self.duplicates == 0 || self.unstored > 0 {
            return None;
        }
        let all = match self.duplicates {
            1 if self.count == 1 => "The candidate was".to_string(),
            1 => "The one candidate made was".to_string(),
            d if d == self.count => format!("All {d} candidates were"),
            d => format!("All {d} candidates made were"),
        };
        let seed = self.seed;
        Some(match self.seeds {
            Some(StoredSeeds {
                seed_used: true,
                next_unused,
            }) => format!(
                "{all} already in the store (seed {seed} was used before): choose another seed — the next unused one is {next_unused}."
            ),
            Some(StoredSeeds {
                seed_used: false,
                next_unused,
            }) => format!(
                "{all} already in the store, though seed {seed} was new: these settings find few distinct puzzles; try more cards, more steps or another energy (the next unused seed is {next_unused})."
            ),
            None => format!("{all} already in the store: choose another seed."),
        })
    }
}

/// Puts finished puzzles back in batch order: each waits only for the
/// puzzles before it that are not finished yet.
#[derive(Debug)]
struct InOrder<T> {
    /// The next index whose turn it is.
    next: usize,
    /// Finished puzzles waiting for an earlier one (`None`: it failed).
    waiting: BTreeMap<usize, Option<T>>,
}

impl<T> InOrder<T> {
    fn new(first: usize) -> InOrder<T> {
        InOrder {
            next: first,
            waiting: BTreeMap::new(),
        }
    }

    /// Puzzle `index` is finished (`None`: it failed); returns the puzzles
    /// whose turn has come, in order.
    fn arrived(&mut self, index: usize, item: Option<T>) -> Vec<T> {
        self.waiting.insert(index, item);
        let mut ready = Vec::new();
        while let Some(item) = self.waiting.remove(&self.next) {
            self.next += 1;
            ready.extend(item);
        }
        ready
    }

    /// Everything still waiting (behind a gap a cancel left), in order.
    fn rest(&mut self) -> Vec<T> {
        std::mem::take(&mut self.waiting)
            .into_values()
            .flatten()
            .collect()
    }
}

/// A batch under way.
pub struct Batch {
    generator: Option<Generator>,
    store: Option<PuzzleStore>,
    order: Order,
    in_order: InOrder<Box<Candidate>>,
    /// The puzzles asked for, and those that came back (made or failed).
    indices: Range<usize>,
    answered: BTreeSet<usize>,
    workers: Vec<Option<WorkerProgress>>,
    summary: Summary,
    started: Instant,
    finished: bool,
}

impl Batch {
    /// Starts `workers` threads on a job. Candidates go into `store` if
    /// there is one; `wake` is called after each message (the app passes
    /// its repaint).
    pub fn start(
        job: Job,
        workers: usize,
        store: Option<PuzzleStore>,
        order: Order,
        wake: Option<Wake>,
    ) -> Batch {
        let workers = workers.max(1);
        let summary = Summary {
            count: job.indices.len(),
            new: 0,
            duplicates: 0,
            unstored: 0,
            failed: 0,
            cancelled: false,
            seconds: 0.0,
            store: store.as_ref().map(|s| s.path().to_path_buf()),
            seed: job.seed,
            seeds: None,
        };
        let indices = job.indices.clone();
        Batch {
            in_order: InOrder::new(indices.start),
            indices,
            answered: BTreeSet::new(),
            generator: Some(Generator::start(job, workers, wake)),
            store,
            order,
            workers: vec![None; workers],
            summary,
            started: Instant::now(),
            finished: false,
        }
    }

    /// Asks the workers to stop; a `Finished` event follows within a
    /// fraction of a second, after what had finished is stored.
    pub fn cancel(&self) {
        if let Some(g) = &self.generator {
            g.cancel();
        }
    }

    /// Whether the `Finished` event was given.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Each worker's latest progress (`None` before its first report).
    pub fn workers(&self) -> &[Option<WorkerProgress>] {
        &self.workers
    }

    /// The tally so far (its time is the time so far).
    pub fn summary(&self) -> Summary {
        Summary {
            seconds: self.started.elapsed().as_secs_f64(),
            ..self.summary.clone()
        }
    }

    /// The events since the last look, without waiting. At most a few
    /// thousand messages are taken, so a frame of the app stays short.
    pub fn poll(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        for _ in 0..4096 {
            let Some(g) = &self.generator else { break };
            match g.messages().try_recv() {
                Ok(msg) => self.take(msg, &mut events),
                Err(TryRecvError::Empty) => break,
                // The workers are gone: over, even if their last word was lost.
                Err(TryRecvError::Disconnected) => {
                    let cancelled = g.is_cancelled();
                    self.finish(cancelled, &mut events);
                }
            }
        }
        events
    }

    /// Waits up to `timeout` for something to happen, then gives the events
    /// so far (none when the batch is over).
    pub fn wait(&mut self, timeout: Duration) -> Vec<Event> {
        let mut events = Vec::new();
        let Some(g) = &self.generator else {
            return events;
        };
        match g.messages().recv_timeout(timeout) {
            Ok(msg) => self.take(msg, &mut events),
            Err(RecvTimeoutError::Timeout) => return events,
            Err(RecvTimeoutError::Disconnected) => {
                let cancelled = g.is_cancelled();
                self.finish(cancelled, &mut events);
            }
        }
        events.extend(self.poll());
        events
    }

    /// Runs the batch to its end, handing every event to `each`; returns the summary.
    pub fn run(mut self, mut each: impl FnMut(&Event)) -> Summary {
        loop {
            for e in self.wait(Duration::from_millis(200)) {
                each(&e);
                if let Event::Finished(summary) = e {
                    return summary;
                }
            }
        }
    }

    /// Turns one message into events.
    fn take(&mut self, msg: Message, events: &mut Vec<Event>) {
        match msg {
            Message::Progress { worker, progress } => {
                if let Some(line) = self.workers.get_mut(worker) {
                    *line = Some(progress);
                }
                events.push(Event::Progress { worker, progress });
            }
            Message::Candidate(c) => {
                self.answered.insert(c.index);
                match self.order {
                    Order::Arrival => self.store(c, events),
                    Order::Batch => {
                        for c in self.in_order.arrived(c.index, Some(c)) {
                            self.store(c, events);
                        }
                    }
                }
            }
            Message::Error { index, message } => {
                self.answered.insert(index);
                self.summary.failed += 1;
                events.push(Event::Failed { index, message });
                if self.order == Order::Batch {
                    for c in self.in_order.arrived(index, None) {
                        self.store(c, events);
                    }
                }
            }
            Message::Finished { cancelled, .. } => self.finish(cancelled, events),
        }
    }

    fn store(&mut self, c: Box<Candidate>, events: &mut Vec<Event>) {
        let Some(store) = &mut self.store else {
            self.summary.new += 1;
            events.push(Event::Candidate(c));
            return;
        };
        match store.add(&c) {
            Ok(true) => {
                self.summary.new += 1;
                events.push(Event::Candidate(c));
            }
            Ok(false) => {
                self.summary.duplicates += 1;
                events.push(Event::Duplicate { index: c.index });
            }
            Err(e) => {
                self.summary.unstored += 1;
                let message = format!("could not store it in {}: {e}", store.path().display());
                events.push(Event::Unstored {
                    candidate: c,
                    message,
                });
            }
        }
    }

    /// Stores what still waits (a cancelled batch leaves gaps), joins the
    /// workers and gives the summary. A puzzle that never came back from a
    /// batch that was not cancelled (its worker died) counts as failed.
    fn finish(&mut self, cancelled: bool, events: &mut Vec<Event>) {
        for c in self.in_order.rest() {
            self.store(c, events);
        }
        let died = self.generator.take().is_some_and(|g| !g.join());
        if !cancelled {
            let lost: Vec<usize> = self
                .indices
                .clone()
                .filter(|i| !self.answered.contains(i))
                .collect();
            for index in lost {
                self.summary.failed += 1;
                let message = if died {
                    "its worker stopped (a panic) before finishing it".to_string()
                } else {
                    "no worker finished it".to_string()
                };
                events.push(Event::Failed { index, message });
            }
        }
        self.summary.cancelled = cancelled;
        if self.summary.new == 0 && self.summary.duplicates > 0 {
            // Only now, and only then: the store is read again to say why.
            self.summary.seeds = self.store.as_ref().and_then(|store| {
                let (stored, _) = read_store(store.path()).ok()?;
                let seed = self.summary.seed;
                Some(StoredSeeds {
                    seed_used: stored.iter().any(|c| c.seed == seed),
                    next_unused: seed_after(&stored).max(seed.saturating_add(1)),
                })
            });
        }
        self.summary.seconds = self.started.elapsed().as_secs_f64();
        self.finished = true;
        events.push(Event::Finished(self.summary.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn puzzles_wait_only_for_unfinished_ones_before_them() {
        let mut order = InOrder::new(3);
        assert_eq!(order.arrived(5, Some('f')), Vec::<char>::new());
        assert_eq!(order.arrived(3, Some('d')), ['d']);
        // A failure takes its turn and lets the next through.
        assert_eq!(order.arrived(4, None), ['f']);
        assert_eq!(order.arrived(7, Some('h')), Vec::<char>::new());
        assert_eq!(order.arrived(9, Some('j')), Vec::<char>::new());
        // A cancel leaves 6 and 8 unfinished: the rest comes in order.
        assert_eq!(order.rest(), ['h', 'j']);
        assert_eq!(order.rest(), Vec::<char>::new());
    }

    #[test]
    fn the_summary_reads_as_english() {
        let mut s = Summary {
            count: 4,
            new: 1,
            duplicates: 1,
            unstored: 0,
            failed: 2,
            cancelled: true,
            seconds: 2.04,
            store: None,
            seed: 1,
            seeds: None,
        };
        assert_eq!(
            s.text(|_| String::new()),
            "Stopped after 2.0 s: 1 new puzzle of 4 made; 1 duplicate dropped; 2 failed."
        );
        s.store = Some("p/n8.jsonl".into());
        (s.cancelled, s.unstored) = (false, 1);
        assert_eq!(
            s.text(|p| p.display().to_string()),
            "Finished after 2.0 s: 1 new puzzle of 4 stored in p/n8.jsonl; 1 duplicate dropped; 2 failed; 1 could not be stored."
        );
        assert!(!s.is_success());
    }

    #[test]
    fn an_all_duplicate_batch_says_what_to_change() {
        let mut s = Summary {
            count: 10,
            new: 0,
            duplicates: 10,
            unstored: 0,
            failed: 0,
            cancelled: false,
            seconds: 1.0,
            store: Some("n8-E5.jsonl".into()),
            seed: 1,
            seeds: Some(StoredSeeds {
                seed_used: true,
                next_unused: 7,
            }),
        };
        let show = |p: &Path| p.display().to_string();
        assert_eq!(
            s.text(show),
            "Finished after 1.0 s: 0 new puzzles of 10 stored in n8-E5.jsonl; 10 duplicates dropped; 0 failed. \
             All 10 candidates were already in the store (seed 1 was used before): choose another seed — the next unused one is 7."
        );
        // A new seed whose puzzles were all found before: other settings.
        s.seeds = Some(StoredSeeds {
            seed_used: false,
            next_unused: 7,
        });
        assert!(
            s.text(show).ends_with(
                "0 failed. All 10 candidates were already in the store, though seed 1 was new: \
                 these settings find few distinct puzzles; try more cards, more steps or another energy (the next unused seed is 7)."
            ),
            "{}",
            s.text(show)
        );
        // Some failed, the rest were duplicates; the store could not be read again.
        (s.duplicates, s.failed, s.seeds) = (8, 2, None);
        assert!(
            s.text(show)
                .ends_with("All 8 candidates made were already in the store: choose another seed."),
            "{}",
            s.text(show)
        );
        // One new puzzle: no hint.
        s.new = 1;
        assert!(s.text(show).ends_with("2 failed."), "{}", s.text(show));
    }
}
