//! The generator pipeline: worker threads run hill descents and talk to their
//! client (a [`crate::generator::batch::Batch`]) only through one bounded
//! crossbeam channel.
//!
//! A [`Job`] asks for puzzles `indices` of a batch. Puzzle i of a batch is
//! searched from its own seed, derived from the batch seed and i, so the
//! puzzles do not depend on how many workers share the batch or on which
//! worker makes which, and a batch can be split into shards that simply
//! concatenate.

use crate::agents::difficulty::add_difficulty;
use crate::engine::analysis::AnalysisOptions;
use crate::engine::feature::{Feature, FeatureSet};
use crate::engine::features::{Features, halfway_features};
use crate::engine::limits::{Cancel, Limits, SearchError};
use crate::engine::notation::{ParseError, ParseErrorKind, parse_state, to_compact};
use crate::engine::state::{Grid, State};
use crate::generator::descent::{
    Descent, GenError, LayerHook, Phase, SearchParams, StepReport, WorkerProgress, layer_progress,
};
use crate::generator::energy::Energy;
use crate::hash::{GOLDEN, splitmix64};
use crossbeam_channel::{Receiver, SendTimeoutError, Sender, TrySendError, bounded};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{self, AtomicUsize};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One batch (or a shard of one) to generate.
#[derive(Clone, Debug)]
pub struct Job {
    /// Cards per puzzle.
    pub n: usize,
    /// What to minimize.
    pub energy: Energy,
    /// The batch seed.
    pub seed: u64,
    /// Search settings.
    pub params: SearchParams,
    /// Which puzzles of the batch to make (`0..count` for a whole batch).
    pub indices: Range<usize>,
    /// Memory each worker's analyses may use, in bytes.
    pub memory_cap: usize,
}

/// A generated puzzle with everything needed to reproduce and judge it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The puzzle in compact notation.
    pub puzzle: String,
    /// Cards in it.
    pub n: usize,
    /// Grid rows.
    pub rows: usize,
    /// Grid columns.
    pub cols: usize,
    /// The energy's name.
    pub energy_name: String,
    /// The energy's id (name and definition hash).
    pub energy_id: String,
    /// The puzzle's energy, from its exact features.
    pub energy: f64,
    /// The energy the search saw (an estimate when it estimated the halfway ratio).
    pub search_energy: f64,
    /// Every feature, exact.
    pub features: Features,
    /// The batch seed.
    pub seed: u64,
    /// The puzzle's place in its batch (its own seed derives from both).
    pub index: usize,
    /// The search settings.
    pub params: SearchParams,
    /// The current energy after each step.
    pub trace: Vec<f64>,
    /// Energies computed during the search.
    pub evaluations: usize,
    /// Wall time of the search and the final features, in seconds.
    pub seconds: f64,
    /// When it was made (UTC, ISO 8601).
    pub created: String,
    /// Where it came from; generated ones (every store written before
    /// puzzles could be entered) leave it out.
    #[serde(default, skip_serializing_if = "Source::is_generated")]
    pub source: Source,
}

/// Where a candidate came from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Made by a search (seed, index, params and trace say how).
    #[default]
    Generated,
    /// Entered by a designer (a state, a deal number or an id): no search,
    /// so no seed, trace or evaluations.
    Entered,
}

impl Source {
    /// Whether the candidate was generated (the stored default).
    pub fn is_generated(&self) -> bool {
        *self == Source::Generated
    }
}

impl Candidate {
    /// A candidate of `state` with these features, as if an energy named
    /// `test` had made it (no search ran): the tests' stand-in, shared by
    /// the app's and the server's tests.
    #[doc(hidden)]
    pub fn for_tests(state: &State, features: Features) -> Candidate {
        let grid = state.grid();
        let n = features.n;
        Candidate {
            puzzle: to_compact(state),
            n,
            rows: grid.rows(),
            cols: grid.cols(),
            energy_name: "test".into(),
            energy_id: "test-0".into(),
            energy: 0.5,
            search_energy: 0.5,
            features,
            seed: 1,
            index: 0,
            params: SearchParams::paper(n),
            evaluations: 0,
            trace: Vec::new(),
            seconds: 0.1,
            created: "2025-01-01T00:00:00Z".into(),
            source: Source::Generated,
        }
    }

    /// The value a sort key names: the energy, or a feature.
    pub fn value(&self, key: SortKey) -> Option<f64> {
        match key {
            SortKey::Energy => Some(self.energy),
            SortKey::Feature(f) => self.features.get(f),
            SortKey::Grade => self.grade().map(|g| g.index() as f64),
        }
    }

    /// The puzzle's grade by the default rule (`None`: unsolvable, or its
    /// difficulty features were not computed).
    pub fn grade(&self) -> Option<crate::agents::grade::Grade> {
        crate::agents::grade::grade(&self.features)
    }

    /// The puzzle as a state on its own grid.
    pub fn state(&self) -> Result<State, ParseError> {
        let grid = Grid::new(self.rows, self.cols).map_err(|_| ParseError {
            line: 1,
            column: 1,
            kind: ParseErrorKind::BadGrid,
        })?;
        parse_state(&self.puzzle, Some(grid))
    }

    /// The order of two candidates by a key (see [`Candidate::value`]),
    /// ascending or descending; those without the value come last either way.
    pub fn compare_by(a: &Candidate, b: &Candidate, key: SortKey, descending: bool) -> Ordering {
        match (a.value(key), b.value(key)) {
            (Some(x), Some(y)) if descending => y.total_cmp(&x),
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    }
}

/// What candidates are sorted by: their energy, or a feature.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// The energy of the energy that made each candidate.
    Energy,
    /// A feature.
    Feature(Feature),
    /// The grade by the default rule (ungraded puzzles last).
    Grade,
}

impl std::str::FromStr for SortKey {
    type Err = String;

    /// `energy`, `grade` or a feature's column name.
    fn from_str(s: &str) -> Result<SortKey, String> {
        match s {
            "energy" => Ok(SortKey::Energy),
            "grade" => Ok(SortKey::Grade),
            _ => Feature::from_column(s)
                .map(SortKey::Feature)
                .ok_or_else(|| {
                    format!(
                        "cannot sort by '{s}': use energy, grade or a feature ({})",
                        Feature::columns()
                    )
                }),
        }
    }
}

impl std::fmt::Display for SortKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SortKey::Energy => f.write_str("energy"),
            SortKey::Feature(feature) => write!(f, "{feature}"),
            SortKey::Grade => f.write_str("grade"),
        }
    }
}

/// What the workers tell the client.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A worker's search moved on (descent steps at most every 50 ms a
    /// worker; steps and analysis layers are dropped rather than waited for
    /// when the channel is full; the start of each phase is always sent).
    Progress {
        /// The worker, from 0.
        worker: usize,
        /// The puzzle and where its making is.
        progress: WorkerProgress,
    },
    /// A finished puzzle.
    Candidate(Box<Candidate>),
    /// A puzzle failed (the memory cap, say); the others go on.
    Error {
        /// The puzzle's index in the batch.
        index: usize,
        /// What went wrong.
        message: String,
    },
    /// Every worker has stopped: the last message of a job.
    Finished {
        /// Whether the job was cancelled.
        cancelled: bool,
    },
}

/// The seed of puzzle `index` of a batch: output `index + 1` of the
/// splitmix64 stream seeded with the batch's seed.
pub fn batch_puzzle_seed(batch: u64, index: usize) -> u64 {
    splitmix64(batch.wrapping_add((index as u64 + 1).wrapping_mul(GOLDEN)))
}

/// The batch seed after every one these candidates were made with (1 when
/// there are none): a batch from it repeats none of their searches.
pub fn seed_after<'a>(candidates: impl IntoIterator<Item = &'a Candidate>) -> u64 {
    candidates
        .into_iter()
        .map(|c| c.seed.saturating_add(1))
        .max()
        .unwrap_or(1)
}

/// Puzzles `i`-th of `of` shards take of a batch of `count`: contiguous, so
/// shard outputs concatenate in batch order.
pub fn shard(count: usize, i: usize, of: usize) -> Range<usize> {
    let of = of.max(1);
    count * i / of..count * (i + 1) / of
}

/// Makes one puzzle: the search, then its exact features. `report` hears
/// about each step and each phase (see [`Phase`]).
pub fn make_candidate(
    job: &Job,
    index: usize,
    limits: Limits,
    report: impl FnMut(StepReport),
) -> Result<Candidate, GenError> {
    make_candidate_with_layers(job, index, limits, report, None)
}

/// [`make_candidate`], with `layers` told about each layer of its long
/// exact analyses.
pub fn make_candidate_with_layers(
    job: &Job,
    index: usize,
    limits: Limits,
    mut report: impl FnMut(StepReport),
    layers: Option<LayerHook>,
) -> Result<Candidate, GenError> {
    let started = Instant::now();
    let found = Descent::new(
        job.n,
        &job.energy,
        &job.params,
        batch_puzzle_seed(job.seed, index),
        limits.clone(),
    )?
    .with_layers(layers.clone())
    .run(&mut report)?;
    // The confirmation may have analysed the best puzzle already.
    let mut features = match found.features {
        Some(f) => f,
        None => {
            let told = StepReport {
                phase: Phase::Features { layers: None },
                current: found.trace.last().copied().unwrap_or(found.energy),
                best: found.energy,
            };
            report(told);
            let opts = AnalysisOptions {
                limits: limits.clone(),
                progress: layers.map(|hook| layer_progress(hook, told)),
                ..AnalysisOptions::default()
            };
            halfway_features(&found.best, &opts)?
        }
    };
    add_difficulty(
        &mut features,
        &found.best,
        difficulty_plays(&job.energy, job.params.difficulty),
        &limits,
    )?;
    Ok(Candidate {
        puzzle: to_compact(&found.best),
        n: job.n,
        rows: job.params.rows,
        cols: job.params.cols,
        energy_name: job.energy.name.clone(),
        energy_id: job.energy.id(),
        energy: job.energy.eval(&features),
        search_energy: found.energy,
        features,
        seed: job.seed,
        index,
        params: job.params.clone(),
        trace: found.trace,
        evaluations: found.evaluations,
        seconds: started.elapsed().as_secs_f64(),
        created: utc_now(),
        source: Source::Generated,
    })
}

/// The agents' plays a candidate gets: all of them when `difficulty` is
/// asked for, otherwise those the energy reads.
fn difficulty_plays(energy: &Energy, difficulty: bool) -> FeatureSet {
    if difficulty {
        FeatureSet::DIFFICULTY
    } else {
        energy.reads().plays()
    }
}

/// A candidate of a puzzle a designer entered: its exact features (and the
/// agents' difficulty features when `difficulty`, or when `energy` reads
/// them), valued by `energy`. It has no search: seed and index 0, an empty
/// trace, boaf's default parameters on its grid, and [`Source::Entered`].
pub fn entered_candidate(
    state: &State,
    energy: &Energy,
    difficulty: bool,
    limits: Limits,
) -> Result<Candidate, GenError> {
    let started = Instant::now();
    let opts = AnalysisOptions {
        limits: limits.clone(),
        ..AnalysisOptions::default()
    };
    let mut features = halfway_features(state, &opts)?;
    add_difficulty(
        &mut features,
        state,
        difficulty_plays(energy, difficulty),
        &limits,
    )?;
    let grid = state.grid();
    let value = energy.eval(&features);
    Ok(Candidate {
        puzzle: to_compact(state),
        n: features.n,
        rows: grid.rows(),
        cols: grid.cols(),
        energy_name: energy.name.clone(),
        energy_id: energy.id(),
        energy: value,
        search_energy: value,
        seed: 0,
        index: 0,
        params: SearchParams {
            rows: grid.rows(),
            cols: grid.cols(),
            difficulty,
            ..SearchParams::for_cards(features.n)
        },
        features,
        trace: Vec::new(),
        evaluations: 0,
        seconds: started.elapsed().as_secs_f64(),
        created: utc_now(),
        source: Source::Entered,
    })
}

/// Called after each message is sent (the app passes `request_repaint`).
pub type Wake = Arc<dyn Fn() + Send + Sync>;

/// A running job: its workers, their messages and the cancel switch.
pub struct Generator {
    messages: Receiver<Message>,
    cancel: Cancel,
    workers: Vec<JoinHandle<()>>,
}

/// Messages the channel holds before workers wait (progress is dropped instead).
const CHANNEL: usize = 256;
/// Time between a worker's progress messages.
const PROGRESS_EVERY: Duration = Duration::from_millis(50);

impl Generator {
    /// Starts `workers` threads on a job.
    pub fn start(job: Job, workers: usize, wake: Option<Wake>) -> Generator {
        let (tx, rx) = bounded(CHANNEL);
        let cancel = Cancel::new();
        let next = Arc::new(AtomicUsize::new(job.indices.start));
        let running = Arc::new(AtomicUsize::new(workers.max(1)));
        let job = Arc::new(job);
        let handles = (0..workers.max(1))
            .map(|worker| {
                let ctx = Worker {
                    worker,
                    job: job.clone(),
                    tx: tx.clone(),
                    cancel: cancel.clone(),
                    next: next.clone(),
                    running: running.clone(),
                    wake: wake.clone(),
                };
                std::thread::Builder::new()
                    .name(format!("boaf-worker-{worker}"))
                    .spawn(move || ctx.run())
                    .expect("spawning a worker thread")
            })
            .collect();
        Generator {
            messages: rx,
            cancel,
            workers: handles,
        }
    }

    /// The message channel. It ends with [`Message::Finished`].
    pub fn messages(&self) -> &Receiver<Message> {
        &self.messages
    }

    /// Asks every worker to stop; they stop within a fraction of a second,
    /// mid-analysis too, and a `Finished { cancelled: true }` follows.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Whether cancel was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Waits for the workers to exit (after cancel, or once `Finished`
    /// arrived); false when one of them panicked.
    pub fn join(mut self) -> bool {
        let mut all_well = true;
        for h in self.workers.drain(..) {
            all_well &= h.join().is_ok();
        }
        all_well
    }
}

impl Drop for Generator {
    fn drop(&mut self) {
        // A client that goes away stops the work it started.
        self.cancel();
    }
}

/// One worker's share of the job.
struct Worker {
    worker: usize,
    job: Arc<Job>,
    tx: Sender<Message>,
    cancel: Cancel,
    next: Arc<AtomicUsize>,
    running: Arc<AtomicUsize>,
    wake: Option<Wake>,
}

impl Worker {
    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Sends a message that must arrive, waiting for room, unless cancelled
    /// or the client is gone. Returns whether it was sent.
    fn send(&self, mut msg: Message) -> bool {
        loop {
            match self.tx.send_timeout(msg, Duration::from_millis(20)) {
                Ok(()) => {
                    self.wake();
                    return true;
                }
                Err(SendTimeoutError::Timeout(m)) if !self.cancelled() => msg = m,
                Err(_) => return false,
            }
        }
    }

    /// Sends a message that may be dropped when the channel is full.
    fn try_send(&self, msg: Message) {
        match self.tx.try_send(msg) {
            Ok(()) => self.wake(),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {}
        }
    }

    fn wake(&self) {
        if let Some(w) = &self.wake {
            w();
        }
    }

    fn run(self) {
        let limits = Limits::with_cap(self.job.memory_cap).cancelled_by(&self.cancel);
        while !self.cancelled() {
            let index = self.next.fetch_add(1, atomic::Ordering::Relaxed);
            if index >= self.job.indices.end {
                break;
            }
            let mut last = Instant::now();
            let mut stage: Option<Phase> = None;
            let report = |r: StepReport| {
                // A new phase always gets through (a few a puzzle), and so
                // does the budget's last step; the steps between are sampled.
                let new_stage = stage.is_none_or(|s| !s.same_stage(&r.phase));
                let last_step = matches!(r.phase, Phase::Descent { step, of } if step == of);
                if !(new_stage || last_step || last.elapsed() >= PROGRESS_EVERY) {
                    return;
                }
                last = Instant::now();
                stage = Some(r.phase);
                let msg = Message::Progress {
                    worker: self.worker,
                    progress: WorkerProgress { index, report: r },
                };
                if new_stage {
                    self.send(msg);
                } else {
                    self.try_send(msg);
                }
            };
            let layers: LayerHook = {
                let (tx, wake, worker) = (self.tx.clone(), self.wake.clone(), self.worker);
                Arc::new(move |r: StepReport| {
                    let msg = Message::Progress {
                        worker,
                        progress: WorkerProgress { index, report: r },
                    };
                    // Dropped rather than waited for, as steps are.
                    if tx.try_send(msg).is_ok()
                        && let Some(w) = &wake
                    {
                        w();
                    }
                })
            };
            let made =
                make_candidate_with_layers(&self.job, index, limits.clone(), report, Some(layers));
            // Its tables are freed: their pages go back before the next.
            crate::memory::release_freed();
            let msg = match made {
                Ok(c) => Message::Candidate(Box::new(c)),
                Err(GenError::Search(SearchError::Cancelled)) => break,
                Err(e) => Message::Error {
                    index,
                    message: e.to_string(),
                },
            };
            if !self.send(msg) {
                break;
            }
        }
        // The last worker out says the job is over.
        if self.running.fetch_sub(1, atomic::Ordering::AcqRel) == 1 {
            let done = Message::Finished {
                cancelled: self.cancelled(),
            };
            // Room is not waited for forever: a client that is gone never reads it.
            let _ = self.tx.send_timeout(done, Duration::from_secs(1));
            self.wake();
        }
    }
}

/// Seconds since 1970 now (0 on a clock set before 1970).
pub fn unix_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The current time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    utc_text(unix_secs())
}

/// The year, month (1–12) and day of the month of a day counted from
/// 1970-01-01 (proleptic Gregorian; Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Seconds since 1970 as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian, UTC).
pub fn utc_text(secs: u64) -> String {
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}
