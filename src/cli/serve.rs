//! Rating studies on the command line: `boaf study` makes, lists, opens,
//! closes and exports studies in the study database (`boaf-server`'s
//! store), and `boaf serve` (with the default feature `serve`) serves them
//! to raters over HTTP until Ctrl+C.

use super::select::Selection;
use anyhow::{Context, Result};
use boaf_core::engine::feature::Feature;
use boaf_core::folder::Folder;
use boaf_core::read::{TEXT_CAP, read_text};
use boaf_server::answers::{NewStudy, Study};
use boaf_server::export;
use boaf_server::store::Store;
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The study database of the working folder, unless `--db` names one.
#[derive(Args)]
pub struct DbArg {
    /// The study database (default: ratings/studies.sqlite)
    #[arg(long, global = true)]
    db: Option<PathBuf>,
}

impl DbArg {
    /// The database's path.
    pub(super) fn path(&self) -> PathBuf {
        self.db
            .clone()
            .unwrap_or_else(|| Folder::new(".").studies_db())
    }

    /// The database, open.
    pub(super) fn open(&self) -> Result<Store> {
        let path = self.path();
        Store::open(&path).with_context(|| path.display().to_string())
    }
}

/// `boaf study`: the rating studies.
#[derive(Args)]
pub struct StudyArgs {
    #[command(subcommand)]
    command: StudyCommand,
    #[command(flatten)]
    db: DbArg,
}

#[derive(Subcommand)]
enum StudyCommand {
    /// Make a study from the puzzles of stores (all, or those where a condition holds)
    #[command(after_help = Feature::help())]
    Create(CreateArgs),
    /// List the studies with their puzzles, raters and ratings
    List,
    /// Open a study to raters
    Open {
        /// The study
        name: String,
    },
    /// Close a study to raters (its ratings stay)
    Close {
        /// The study
        name: String,
    },
    /// Write a study's ratings as a ratings CSV (the app's format; the rater's id in `rater`)
    Export {
        /// The study
        name: String,
        /// The CSV file (default: ratings/study-NAME.csv)
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

/// Arguments of `boaf study create`.
#[derive(Args)]
struct CreateArgs {
    /// The study's name (letters, digits, '-' and '_'; it goes in the raters' link)
    name: String,
    /// Store files to take puzzles from
    #[arg(long, required = true, num_args = 1..)]
    from: Vec<PathBuf>,
    /// Which puzzles to take
    #[command(flatten)]
    selection: Selection,
    /// Puzzles each rater gets
    #[arg(long)]
    per_rater: u32,
    /// A text file raters read first
    #[arg(long)]
    intro: PathBuf,
    /// A code shown to raters at the end (for crowdsourcing sites)
    #[arg(long)]
    completion_code: Option<String>,
}

/// One study as a line of `boaf study list`.
fn study_line(s: &Study) -> String {
    format!(
        "{}  {}  {} puzzles, {} per rater  {} raters  {} ratings",
        s.name,
        if s.open { "open  " } else { "closed" },
        s.puzzles,
        s.per_rater,
        s.raters,
        s.ratings
    )
}

/// Runs `boaf study`.
pub fn study(args: StudyArgs) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match args.command {
        StudyCommand::Create(c) => {
            let intro = read_text(&c.intro, TEXT_CAP, "a study's intro")
                .with_context(|| format!("reading the intro {}", c.intro.display()))?;
            let puzzles = c.selection.select(&c.from)?;
            let new = NewStudy {
                name: c.name,
                intro,
                per_rater: c.per_rater,
                completion_code: c.completion_code,
            };
            let s = args.db.open()?.create_study(&new, &puzzles)?;
            writeln!(out, "created {}", study_line(&s))?;
            if s.puzzles < s.per_rater {
                eprintln!(
                    "warning: each rater gets the study's {} puzzles, fewer than --per-rater {}",
                    s.puzzles, s.per_rater
                );
            }
        }
        StudyCommand::List => {
            let studies = args.db.open()?.studies()?;
            if studies.is_empty() {
                writeln!(out, "no studies in {}", args.db.path().display())?;
            }
            for s in &studies {
                writeln!(out, "{}", study_line(s))?;
            }
        }
        StudyCommand::Open { name } => {
            writeln!(
                out,
                "{}",
                study_line(&args.db.open()?.set_open(&name, true)?)
            )?;
        }
        StudyCommand::Close { name } => {
            writeln!(
                out,
                "{}",
                study_line(&args.db.open()?.set_open(&name, false)?)
            )?;
        }
        StudyCommand::Export { name, output } => {
            let path = output.unwrap_or_else(|| export::default_path(&Folder::new("."), &name));
            let written = export::export(&args.db.open()?, &name, &path)?;
            writeln!(out, "{written} ratings written to {}", path.display())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `boaf serve`.
#[cfg(feature = "serve")]
#[derive(Args)]
pub struct ServeArgs {
    /// The port to listen on (0: any free port)
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on; only this machine by default. Use 0.0.0.0
    /// for a LAN, or, for the internet, a TLS reverse proxy on this machine
    /// with --trusted-proxy
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// Requests a second allowed from one address, on average (bursts of
    /// three seconds' worth)
    #[arg(long, default_value_t = 100.0)]
    per_address: f64,
    /// Requests a second allowed per rater, on average (bursts of six seconds' worth)
    #[arg(long, default_value_t = 5.0)]
    per_rater: f64,
    /// Joins (new raters) a minute allowed from one address, on average
    /// (bursts of three minutes' worth)
    #[arg(long, default_value_t = 10.0)]
    joins_per_minute: f64,
    /// Behind a reverse proxy (Caddy): take a request's client address from
    /// the last X-Forwarded-For entry when it comes from the proxy, and mark
    /// the rater's cookie Secure when X-Forwarded-Proto is https. Alone, the
    /// proxy is on this machine (loopback); else it is at the addresses or
    /// networks listed (10.0.0.0/8,192.168.1.5). Without it the headers are
    /// ignored and every proxied request counts as the proxy's address
    #[arg(long, value_name = "ADDRESSES", num_args = 0..=1, default_missing_value = "")]
    trusted_proxy: Option<String>,
    #[command(flatten)]
    db: DbArg,
}

/// Runs `boaf serve`: prints the raters' links and a new admin secret, then
/// serves until Ctrl+C.
#[cfg(feature = "serve")]
pub fn serve(args: ServeArgs) -> Result<ExitCode> {
    use boaf_server::http::{Limits, Net, Rate, Server, run_until_interrupted};
    for (flag, rate) in [
        ("--per-address", args.per_address),
        ("--per-rater", args.per_rater),
        ("--joins-per-minute", args.joins_per_minute),
    ] {
        if !(rate.is_finite() && rate > 0.0) {
            anyhow::bail!("{flag} is a number of requests above 0, not {rate}");
        }
    }
    let trusted_proxies = match args.trusted_proxy.as_deref() {
        None => Vec::new(),
        Some("") => Net::loopback(),
        Some(list) => list
            .split(',')
            .map(str::parse)
            .collect::<Result<Vec<Net>, String>>()
            .map_err(|e| anyhow::anyhow!("--trusted-proxy: {e}"))?,
    };
    let limits = Limits {
        joins_per_address: Rate::over(args.joins_per_minute / 60.0, 180.0),
        trusted_proxies,
        ..Limits::with_rates(args.per_address, args.per_rater)
    };
    let mut store = args.db.open()?;
    let studies = store.studies()?;
    let secret = store.new_admin_secret()?;
    let db = args.db.path();
    let server = Server::new(store, limits, None);
    let addr = std::net::SocketAddr::new(args.bind, args.port);
    run_until_interrupted(addr, server, |bound| {
        print_ready(&db, bound, &studies, &secret);
    })
    .with_context(|| format!("serving on {addr}"))?;
    println!("boaf serve: stopped");
    Ok(ExitCode::SUCCESS)
}

/// What `boaf serve` says once it listens.
#[cfg(feature = "serve")]
fn print_ready(db: &std::path::Path, bound: std::net::SocketAddr, studies: &[Study], secret: &str) {
    println!("boaf serve: {} on http://{bound}", db.display());
    if studies.is_empty() {
        println!("no studies yet: make one with `boaf study create`");
    }
    if bound.ip().is_unspecified() {
        println!(
            "listening on every address of this machine: in the links, put its LAN address for {}",
            bound.ip()
        );
    }
    for s in studies {
        let state = if s.open { "" } else { " (closed)" };
        println!(
            "raters' link for {}{state}: http://{bound}/s/{}",
            s.name, s.name
        );
    }
    println!("admin secret (shown once; only its hash is kept): {secret}");
    println!("Ctrl+C stops the server");
}
