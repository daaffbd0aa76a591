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

use crate::generator::pipeline::{Candidate, Generator, Job, Message, Wake};
use crate::generator::store::PuzzleStore;
use crossbeam_channel::{RecvTimeoutError, TryRecvError};
use std::collections::BTreeMap;
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

/// A worker's latest report.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WorkerProgress {
    /// The puzzle's index in the batch.
    pub index: usize,
    /// Steps done.
    pub iteration: usize,
    /// Steps in all.
    pub of: usize,
    /// The current puzzle's energy.
    pub current: f64,
    /// The best energy so far.
    pub best: f64,
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
        text
    }
}

/// A batch under way.
pub struct Batch {
    generator: Option<Generator>,
    store: Option<PuzzleStore>,
    order: Order,
    /// The next index to store in batch order.
    next: usize,
    /// Finished puzzles waiting for an earlier one (`None`: it failed).
    waiting: BTreeMap<usize, Option<Box<Candidate>>>,
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
        };
        let next = job.indices.start;
        Batch {
            generator: Some(Generator::start(job, workers, wake)),
            store,
            order,
            next,
            waiting: BTreeMap::new(),
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
            Message::Progress {
                worker,
                index,
                iteration,
                of,
                current,
                best,
            } => {
                let progress = WorkerProgress {
                    index,
                    iteration,
                    of,
                    current,
                    best,
                };
                if let Some(line) = self.workers.get_mut(worker) {
                    *line = Some(progress);
                }
                events.push(Event::Progress { worker, progress });
            }
            Message::Candidate(c) => match self.order {
                Order::Arrival => self.store(c, events),
                Order::Batch => {
                    self.waiting.insert(c.index, Some(c));
                    self.release(events);
                }
            },
            Message::Error { index, message } => {
                self.summary.failed += 1;
                events.push(Event::Failed { index, message });
                if self.order == Order::Batch {
                    self.waiting.insert(index, None);
                    self.release(events);
                }
            }
            Message::Finished { cancelled, .. } => self.finish(cancelled, events),
        }
    }

    /// Stores the candidates whose turn has come in batch order.
    fn release(&mut self, events: &mut Vec<Event>) {
        while let Some(c) = self.waiting.remove(&self.next) {
            self.next += 1;
            if let Some(c) = c {
                self.store(c, events);
            }
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
    /// workers and gives the summary.
    fn finish(&mut self, cancelled: bool, events: &mut Vec<Event>) {
        let rest = std::mem::take(&mut self.waiting);
        for c in rest.into_values().flatten() {
            self.store(c, events);
        }
        if let Some(g) = self.generator.take() {
            g.join();
        }
        self.summary.cancelled = cancelled;
        self.summary.seconds = self.started.elapsed().as_secs_f64();
        self.finished = true;
        events.push(Event::Finished(self.summary.clone()));
    }
}
