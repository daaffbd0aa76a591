//! `boaf bench serve`: the rating server under load and under faults, on
//! loopback only. It makes a study of random solvable puzzles in a temporary
//! database (through the store's own creation path), starts `boaf serve` as a
//! child process with the rate limits raised, and has simulated raters join,
//! fetch each puzzle and submit a real play log (the solver's solution, which
//! the server replays) with a rating and notes, a fixed number at a time. It
//! reports the submissions acknowledged, those stored (read back from the
//! database), lost and duplicated, the submit latency and the rate. With
//! `--kill-runs`, each run kills the server with SIGKILL after a seeded
//! random number of acknowledgements, restarts it and checks that every
//! acknowledged rating is there, the file is whole and no row is half-written.
//!
//! The raters are plain threads with blocking HTTP/1.1 over keep-alive
//! connections: a client of a few dozen lines, with no new dependency.

use super::input::median;
use anyhow::{Context, Result, anyhow, bail};
use boaf_core::engine::limits::Limits;
use boaf_core::engine::notation::to_compact;
use boaf_core::engine::solver::{Verdict, solve};
use boaf_core::engine::state::{Grid, Move};
use boaf_core::generator::descent::{SearchParams, random_puzzle};
use boaf_core::generator::energy::builtin;
use boaf_core::generator::pipeline::entered_candidate;
use boaf_core::study::play_log::PlayLog;
use boaf_server::answers::NewStudy;
use boaf_server::store::Store;
use clap::Args;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The study the benchmark makes.
const STUDY: &str = "bench";

/// Arguments of `boaf bench serve`.
#[derive(Args)]
pub struct BenchServeArgs {
    /// Simulated raters
    #[arg(long, default_value_t = 1000)]
    raters: usize,
    /// Ratings each rater submits
    #[arg(long, default_value_t = 8)]
    per_rater: u32,
    /// Raters at a time (each on its own connection)
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// Puzzles in the study
    #[arg(long, default_value_t = 40)]
    puzzles: usize,
    /// Cards per puzzle
    #[arg(long, default_value_t = 8)]
    cards: usize,
    /// Runs that kill -9 the server under the load, restart it and check
    /// the database (0: one load run, no kill)
    #[arg(long, default_value_t = 0)]
    kill_runs: usize,
    /// The seed of the puzzles and of the moments of the kills
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A bound on each run's time, in seconds: the raters stop then
    #[arg(long, default_value_t = 300)]
    max_seconds: u64,
    /// The study database to use (default: a new one in a temporary folder,
    /// removed at the end)
    #[arg(long)]
    db: Option<PathBuf>,
}

/// A temporary folder, removed when dropped.
struct TempFolder(PathBuf);

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `boaf bench serve`.
pub fn bench_serve(args: BenchServeArgs) -> Result<ExitCode> {
    if args.raters == 0 || args.per_rater == 0 || args.concurrency == 0 || args.puzzles == 0 {
        bail!("--raters, --per-rater, --concurrency and --puzzles are each at least 1");
    }
    let (_temp, db, load) = prepare(&args)?;
    println!(
        "boaf bench serve: {} raters × {} ratings, {} at a time, over {} puzzles of {} cards; {}",
        args.raters,
        args.per_rater,
        args.concurrency,
        args.puzzles,
        args.cards,
        db.display()
    );
    let ok = if args.kill_runs == 0 {
        load_run(&db, &load)?
    } else {
        kill_runs(&db, &load, args.kill_runs, args.seed)?.ok()
    };
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The database (a new one in a temporary folder unless `--db`) with the
/// study made in it, and the load.
fn prepare(args: &BenchServeArgs) -> Result<(Option<TempFolder>, PathBuf, Load)> {
    let (temp, db) = match &args.db {
        Some(db) => (None, db.clone()),
        None => {
            let dir = std::env::temp_dir().join(format!("boaf-bench-serve-{}", std::process::id()));
            std::fs::create_dir_all(&dir)?;
            let db = dir.join("studies.sqlite");
            (Some(TempFolder(dir)), db)
        }
    };
    let solutions = make_study(&db, args)?;
    let load = Load {
        raters: args.raters,
        per_rater: args.per_rater,
        concurrency: args.concurrency,
        deadline: Duration::from_secs(args.max_seconds),
        solutions: Arc::new(solutions),
    };
    Ok((temp, db, load))
}

/// `boaf bench kill --writer study`: `runs` kill runs under a load of 200
/// raters × 4 ratings, 16 at a time, over 10 puzzles of 8 cards.
pub fn study_kill_runs(runs: usize, seed: u64) -> Result<StudyKills> {
    let args = BenchServeArgs {
        raters: 200,
        per_rater: 4,
        concurrency: 16,
        puzzles: 10,
        cards: 8,
        kill_runs: runs,
        seed,
        max_seconds: 60,
        db: None,
    };
    let (_temp, db, load) = prepare(&args)?;
    kill_runs(&db, &load, runs, seed)
}

/// What the kill runs found.
pub struct StudyKills {
    /// Ratings acknowledged with a 2xx reply, over all runs.
    pub acknowledged: usize,
    /// Of those, not in the database after the restart.
    pub lost: usize,
    /// Half-written rows found, over all runs.
    pub half_written: u32,
    /// Runs whose database was damaged: an integrity check that failed, a
    /// half-written or duplicated row, or a server that did not serve again.
    pub corrupt: usize,
}

impl StudyKills {
    /// Whether every run passed.
    pub fn ok(&self) -> bool {
        self.lost == 0 && self.corrupt == 0
    }
}

/// Makes the study of random solvable puzzles; returns each puzzle's
/// solution by its compact text.
fn make_study(db: &Path, args: &BenchServeArgs) -> Result<HashMap<String, Vec<Move>>> {
    let mut rng = StdRng::seed_from_u64(args.seed);
    let params = SearchParams::paper(args.cards);
    let grid = Grid::new(params.rows, params.cols).map_err(|e| anyhow!("{e}"))?;
    let energy = builtin()
        .get("E5")
        .ok_or_else(|| anyhow!("the built-in energy E5"))?
        .clone();
    let mut solutions = HashMap::new();
    let mut candidates = Vec::new();
    for _ in 0..args.puzzles * 1000 {
        if candidates.len() == args.puzzles {
            break;
        }
        let state = random_puzzle(args.cards, grid, &mut rng);
        let text = to_compact(&state);
        if solutions.contains_key(&text) {
            continue;
        }
        if let Ok(Verdict::Solvable(path)) = solve(&state) {
            candidates.push(entered_candidate(
                &state,
                &energy,
                false,
                Limits::default(),
            )?);
            solutions.insert(text, path);
        }
    }
    if candidates.len() < args.puzzles {
        bail!(
            "found only {} solvable puzzles of {} cards",
            candidates.len(),
            args.cards
        );
    }
    let new = NewStudy {
        name: STUDY.into(),
        intro: "A load test.".into(),
        per_rater: args.per_rater,
        completion_code: None,
    };
    let mut store = Store::open(db).with_context(|| db.display().to_string())?;
    if store.study(STUDY).is_err() {
        store.create_study(&new, &candidates)?;
    }
    Ok(solutions)
}

/// The load's shape and the solutions the raters play.
struct Load {
    raters: usize,
    per_rater: u32,
    concurrency: usize,
    deadline: Duration,
    solutions: Arc<HashMap<String, Vec<Move>>>,
}

/// What the raters saw: the submissions acknowledged with 2xx, each submit's
/// latency, and the refusals and failures.
#[derive(Default)]
struct Seen {
    acknowledged: Vec<String>,
    latencies: Vec<f64>,
    refused: Vec<String>,
    failed: usize,
}

/// A running `boaf serve` and the address it listens on.
struct Served {
    child: Child,
    addr: SocketAddr,
}

impl Served {
    /// Starts `boaf serve` on a free loopback port over `db`, with the rate
    /// limits out of the way, and waits until it listens.
    fn start(db: &Path) -> Result<Served> {
        let exe = std::env::current_exe()?;
        let mut child = Command::new(exe)
            .args(["serve", "--port", "0", "--bind", "127.0.0.1"])
            .args(["--per-address", "1e9", "--per-rater", "1e9", "--db"])
            .arg(db)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting boaf serve")?;
        let stdout = child.stdout.take().expect("a piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let addr = loop {
            let Some(line) = lines.next().transpose()? else {
                let _ = child.kill();
                bail!("boaf serve stopped before it listened");
            };
            if let Some((_, url)) = line.split_once(" on http://") {
                break url.trim().parse::<SocketAddr>()?;
            }
        };
        // Drained so the server never waits on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Ok(Served { child, addr })
    }

    /// SIGKILL, and the process reaped.
    fn kill(mut self) -> Result<()> {
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }
}

impl Drop for Served {
    /// A benchmark that stops early (an error) leaves no server behind.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// An HTTP/1.1 reply: status, the cookie set, the body as JSON.
struct Reply {
    status: u16,
    cookie: Option<String>,
    json: Value,
}

/// A keep-alive connection to the server.
struct Conn {
    reader: BufReader<TcpStream>,
}

impl Conn {
    fn open(addr: SocketAddr) -> std::io::Result<Conn> {
        let stream = TcpStream::connect(addr)?;
        // Requests are small: Nagle's delay would be all of the latency.
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Conn {
            reader: BufReader::new(stream),
        })
    }

    /// One request and its reply (the body read by its Content-Length).
    fn call(
        &mut self,
        method: &str,
        path: &str,
        cookie: Option<&str>,
        body: &str,
    ) -> std::io::Result<Reply> {
        let cookie = cookie.map_or(String::new(), |c| format!("Cookie: {c}\r\n"));
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{cookie}\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        self.reader.get_mut().write_all(request.as_bytes())?;
        let bad =
            |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("no status line"))?;
        let (mut length, mut set_cookie) = (None, None);
        loop {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            let Some((name, value)) = line.trim_end().split_once(':') else {
                break;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("set-cookie") {
                set_cookie = value.split(';').next().map(str::to_string);
            }
        }
        let mut body = vec![0; length.ok_or_else(|| bad("no Content-Length"))?];
        self.reader.read_exact(&mut body)?;
        Ok(Reply {
            status,
            cookie: set_cookie,
            json: serde_json::from_slice(&body).unwrap_or(Value::Null),
        })
    }
}

/// How far the load got.
#[derive(Default)]
struct Shared {
    next_rater: AtomicUsize,
    acknowledged: AtomicUsize,
    stop: AtomicBool,
    seen: Mutex<Seen>,
}

impl Shared {
    /// Notes a refusal: what was asked, the status and the message.
    fn refused(&self, what: &str, reply: &Reply) {
        let line = format!("{what}: {} {}", reply.status, reply.json);
        self.seen.lock().unwrap().refused.push(line);
    }
}

/// One rater's round: join, then for each puzzle next and submit. Returns
/// early (an error) when the connection fails, as when the server is killed.
fn rate(
    conn: &mut Conn,
    load: &Load,
    shared: &Shared,
    tag: &str,
    rater: usize,
) -> std::io::Result<()> {
    let join = conn.call(
        "POST",
        &format!("/api/s/{STUDY}/join"),
        None,
        &json!({ "nickname": format!("{tag}{rater}") }).to_string(),
    )?;
    let Some(cookie) = join.cookie.clone().filter(|_| join.status == 201) else {
        shared.refused("join", &join);
        return Ok(());
    };
    for k in 0..load.per_rater {
        if shared.stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let next = conn.call("GET", &format!("/api/s/{STUDY}/next"), Some(&cookie), "")?;
        if next.json["status"] != "puzzle" {
            shared.refused("next", &next);
            return Ok(());
        }
        let path = next.json["puzzle"]
            .as_str()
            .and_then(|p| load.solutions.get(p))
            .cloned()
            .unwrap_or_default();
        let log = PlayLog::of_moves(&path, 2_000.0, 2_500.0, true);
        let id = format!("{}-{tag}-{rater}-{k}", std::process::id());
        let body = json!({
            "submission": id, "puzzle": next.json["id"], "log": log,
            "rating": (rater + k as usize) % 11, "notes": "a load test, \"quoted\"",
        });
        let started = Instant::now();
        let reply = conn.call(
            "POST",
            &format!("/api/s/{STUDY}/ratings"),
            Some(&cookie),
            &body.to_string(),
        )?;
        let seconds = started.elapsed().as_secs_f64();
        if (200..300).contains(&reply.status) {
            let mut seen = shared.seen.lock().unwrap();
            seen.acknowledged.push(id);
            seen.latencies.push(seconds);
            shared.acknowledged.fetch_add(1, Ordering::Relaxed);
        } else {
            shared.refused("submit", &reply);
        }
    }
    Ok(())
}

/// Drives the load against `addr` until done, the deadline, or a stop
/// (the connection failing, or `shared.stop`); returns what was seen and
/// the seconds taken.
fn drive(addr: SocketAddr, load: &Load, shared: &Arc<Shared>, tag: &str) -> (Seen, f64) {
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..load.concurrency {
            scope.spawn(|| {
                let mut conn = None;
                loop {
                    let rater = shared.next_rater.fetch_add(1, Ordering::Relaxed);
                    if rater >= load.raters
                        || shared.stop.load(Ordering::Relaxed)
                        || started.elapsed() > load.deadline
                    {
                        return;
                    }
                    let done = match conn.as_mut() {
                        Some(c) => rate(c, load, shared, tag, rater),
                        None => Conn::open(addr).and_then(|mut c| {
                            let r = rate(&mut c, load, shared, tag, rater);
                            conn = Some(c);
                            r
                        }),
                    };
                    if done.is_err() {
                        // The server is gone (killed): this rater stops here.
                        shared.seen.lock().unwrap().failed += 1;
                        shared.stop.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            });
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    let seen = std::mem::take(&mut *shared.seen.lock().unwrap());
    (seen, seconds)
}

/// What the database holds of the acknowledged submissions.
struct Check {
    stored: usize,
    lost: usize,
    duplicated: usize,
    half_written: u32,
    integrity: String,
}

impl Check {
    fn of(db: &Path, acknowledged: &[String]) -> Result<Check> {
        let audit = Store::open(db)?.audit(STUDY)?;
        let ids: HashSet<&str> = audit.ratings.iter().map(|r| r.0.as_str()).collect();
        let pairs: HashSet<(i64, i64)> = audit.ratings.iter().map(|r| (r.1, r.2)).collect();
        // Two rows of one submission, or of one rater and puzzle.
        let duplicated = 2 * audit.ratings.len() - ids.len() - pairs.len();
        let stored = acknowledged
            .iter()
            .filter(|id| ids.contains(id.as_str()))
            .count();
        Ok(Check {
            stored,
            lost: acknowledged.len() - stored,
            duplicated,
            half_written: audit.half_written,
            integrity: audit.integrity,
        })
    }

    fn ok(&self) -> bool {
        self.lost == 0 && self.duplicated == 0 && self.half_written == 0 && self.integrity == "ok"
    }
}

/// A sorted sample's p-th percentile (nearest rank), in milliseconds.
fn percentile_ms(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    1000.0 * sorted[rank.clamp(1, sorted.len()) - 1]
}

/// One run of the full load, then the database read back.
fn load_run(db: &Path, load: &Load) -> Result<bool> {
    let served = Served::start(db)?;
    let shared = Arc::new(Shared::default());
    let (mut seen, seconds) = drive(served.addr, load, &shared, "load");
    served.kill()?;
    let check = Check::of(db, &seen.acknowledged)?;
    seen.latencies.sort_by(f64::total_cmp);
    let expected = load.raters * load.per_rater as usize;
    println!(
        "submissions: {expected} sent for, {} acknowledged, {} stored, {} lost, {} duplicated, {} refused, {} connections failed",
        seen.acknowledged.len(),
        check.stored,
        check.lost,
        check.duplicated,
        seen.refused.len(),
        seen.failed
    );
    println!(
        "submit latency: median {:.1} ms, p99 {:.1} ms; {:.0} submissions/s ({:.2} s)",
        1000.0 * median(&seen.latencies),
        percentile_ms(&seen.latencies, 99.0),
        seen.acknowledged.len() as f64 / seconds,
        seconds
    );
    println!(
        "database: integrity {}, {} half-written rows",
        check.integrity, check.half_written
    );
    for r in seen.refused.iter().take(5) {
        println!("refused: {r}");
    }
    Ok(check.ok() && seen.acknowledged.len() == expected)
}

/// `runs` runs that kill the server at a seeded random moment under the load.
fn kill_runs(db: &Path, load: &Load, runs: usize, seed: u64) -> Result<StudyKills> {
    let mut rng = StdRng::seed_from_u64(seed);
    let total = load.raters * load.per_rater as usize;
    let mut all_ok = true;
    let (mut acknowledged, mut lost, mut half_written, mut corrupt) = (0, 0, 0, 0);
    for run in 1..=runs {
        // The moment: after a random number of acknowledgements.
        let kill_after = rng.random_range(1..total.max(2));
        let served = Served::start(db)?;
        let addr = served.addr;
        let shared = Arc::new(Shared::default());
        let tag = format!("k{run}");
        let seen = std::thread::scope(|scope| {
            let killer = scope.spawn(|| {
                while shared.acknowledged.load(Ordering::Relaxed) < kill_after
                    && !shared.stop.load(Ordering::Relaxed)
                {
                    std::thread::sleep(Duration::from_micros(200));
                }
                served.kill()
            });
            let (seen, _) = drive(addr, load, &shared, &tag);
            // A load that ended first (refusals, the deadline) frees the killer.
            shared.stop.store(true, Ordering::Relaxed);
            killer.join().expect("the killer thread").map(|()| seen)
        })?;
        // Restarted, the server opens the file again and serves.
        let restarted = Served::start(db)?;
        let mut conn = Conn::open(restarted.addr)?;
        let serves = conn
            .call("GET", &format!("/api/s/{STUDY}"), None, "")?
            .status
            == 200;
        let check = Check::of(db, &seen.acknowledged)?;
        restarted.kill()?;
        let ok = check.ok() && serves;
        all_ok &= ok;
        acknowledged += seen.acknowledged.len();
        lost += check.lost;
        half_written += check.half_written;
        corrupt += usize::from(
            check.integrity != "ok" || check.half_written > 0 || check.duplicated > 0 || !serves,
        );
        println!(
            "run {run}: killed after {} acknowledged (aimed at {kill_after}); {} present, {} lost, {} duplicated, integrity {}, {} half-written, restarted {}",
            seen.acknowledged.len(),
            check.stored,
            check.lost,
            check.duplicated,
            check.integrity,
            check.half_written,
            if serves { "and serving" } else { "NOT serving" }
        );
    }
    println!(
        "kill runs: {runs}, {acknowledged} acknowledged in all, {lost} lost; {}",
        if all_ok { "all passed" } else { "FAILED" }
    );
    Ok(StudyKills {
        acknowledged,
        lost,
        half_written,
        corrupt,
    })
}
