//! The players' command: `agents` (win rates over deals, and a paired
//! comparison of two agents), and the deals' split into solvable and
//! unsolvable that the players' commands share.

use super::input::{all_cores, parallel_map, range_arg};
use anyhow::{Context, Result, bail};
use boaf_core::agents::{AgentSpec, Weights, game_rng, play};
use boaf_core::engine::deal::deal;
use boaf_core::engine::solver::solve;
use boaf_core::format;
use boaf_core::read::{TEXT_CAP, read_text};
use boaf_core::stats::{mcnemar_exact, wilson};
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How agents are written, for `--help`.
pub const AGENTS_HELP: &str = "\
AGENTS are written NAME or NAME:BUDGET:
  random         a uniformly random legal move (seed 004's monkey)
  greedy         the move to the best heuristic value, score + 2.5 · moves (seed 000)
  flat-mc:N      N random playouts after each legal move; the most wins (seed 003)
  mcts:N         seed 000's MCTS player with N iterations per move at most; it
                 keeps the first winning line a playout finds and plays it out
  mcts-plain:N   the same, searching afresh with all N iterations at every move
  best-first:N   seed 000's heuristic best-first search for a solution, expanding
                 at most N nodes (default 100000), played out; the greedy move
                 when it finds none, then a new search
Without :N, flat-mc takes --playouts and mcts --iterations.
Unsolvable deals are skipped (the exact solver decides). Each game's seed comes
from --seed, the deal and the game number, so both agents of --compare play
the same games, and the thread count never changes a result.
The comparison's p-value is McNemar's exact test on the games only one agent won.";

/// Arguments of `boaf agents`.
#[derive(Args)]
pub struct AgentsArgs {
    /// The agent (see below)
    #[arg(long, default_value = "mcts")]
    agent: String,
    /// A second agent to play the same games, with a test of the difference
    #[arg(long)]
    compare: Option<String>,
    /// MCTS iterations per move, for an agent written without a budget
    #[arg(long, default_value_t = 300)]
    iterations: u32,
    /// Flat Monte Carlo playouts per legal move, for an agent written without a budget
    #[arg(long, default_value_t = 100)]
    playouts: u32,
    /// The heuristic's weights for greedy, best-first and MCTS's playouts: a
    /// TOML file with `score = …`, `moves = …` and optionally `lost = …`
    /// (default 1.0, 2.5 and 0)
    #[arg(long, value_name = "FILE")]
    weights: Option<String>,
    /// Weights for the --compare agent alone (default: --weights), to test
    /// two weight vectors against each other
    #[arg(long, value_name = "FILE", requires = "compare")]
    compare_weights: Option<String>,
    /// Deal numbers A..B (B excluded)
    #[arg(long, value_parser = range_arg, default_value = "0..1000")]
    deals: (i64, i64),
    /// Games per solvable deal
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// Worker threads (default: every core)
    #[arg(long)]
    threads: Option<usize>,
    /// The experiment's seed
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

/// Reads a weights file, with the line and column of any error.
pub fn read_weights(path: &str) -> Result<Weights> {
    let text = read_text(path.as_ref(), TEXT_CAP, "a weights file")
        .with_context(|| format!("reading {path}"))?;
    Weights::from_toml(&text).with_context(|| format!("{path}: not a weights file"))
}

/// Parses `NAME` or `NAME:BUDGET`.
fn parse_agent(text: &str, args: &AgentsArgs, weights: Weights) -> Result<AgentSpec> {
    let (name, budget) =
        match text.split_once(':') {
            Some((n, b)) => {
                let b: u32 =
                    b.trim().parse().ok().filter(|&b| b > 0).with_context(|| {
                        format!("'{text}': the budget must be a whole number ≥ 1")
                    })?;
                (n.trim(), Some(b))
            }
            None => (text.trim(), None),
        };
    let no_budget = |spec: AgentSpec| {
        if budget.is_some() {
            bail!("'{text}': {name} takes no budget")
        }
        Ok(spec)
    };
    match name {
        "random" => no_budget(AgentSpec::Random),
        "greedy" => no_budget(AgentSpec::Greedy(weights)),
        "flat-mc" => Ok(AgentSpec::FlatMonteCarlo(budget.unwrap_or(args.playouts))),
        "mcts" => Ok(AgentSpec::Mcts(budget.unwrap_or(args.iterations), weights)),
        "mcts-plain" => Ok(AgentSpec::MctsPlain(
            budget.unwrap_or(args.iterations),
            weights,
        )),
        "best-first" => Ok(AgentSpec::BestFirst(
            budget.map_or(100_000, u64::from),
            weights,
        )),
        _ => bail!(
            "unknown agent '{name}': expected random, greedy, flat-mc[:N], mcts[:N], mcts-plain[:N] or best-first[:N]"
        ),
    }
}

/// One agent's figures.
#[derive(Serialize)]
struct AgentReport {
    agent: String,
    games: u64,
    wins: u64,
    /// Wins ÷ games, as a fraction.
    win_rate: f64,
    /// The 95 % Wilson interval of the win rate.
    wilson_low: f64,
    wilson_high: f64,
    moves_per_game: f64,
    ms_per_move: f64,
}

/// The paired comparison of two agents.
#[derive(Serialize)]
struct Comparison {
    test: &'static str,
    only_first: u64,
    only_second: u64,
    p_value: f64,
}

/// The whole experiment.
#[derive(Serialize)]
struct AgentsReport {
    deals: String,
    solvable_deals: usize,
    skipped_unsolvable: Vec<i64>,
    games_per_deal: u32,
    seed: u64,
    threads: usize,
    agents: Vec<AgentReport>,
    compare: Option<Comparison>,
    wall_seconds: f64,
}

/// One game of every agent: won, moves, time spent choosing.
type Outcome = Vec<(bool, usize, Duration)>;

pub fn agents(args: AgentsArgs) -> Result<ExitCode> {
    let weights = match &args.weights {
        Some(path) => read_weights(path)?,
        None => Weights::default(),
    };
    let mut specs = vec![parse_agent(&args.agent, &args, weights)?];
    if let Some(other) = &args.compare {
        let theirs = match &args.compare_weights {
            Some(path) => read_weights(path)?,
            None => weights,
        };
        specs.push(parse_agent(other, &args, theirs)?);
    }
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let threads = args.threads.unwrap_or_else(all_cores).max(1);
    let wall = Instant::now();
    let (start, end) = args.deals;
    let (solvable, skipped) = split_deals(args.deals, threads)?;
    let games: Vec<(i64, u64)> = solvable
        .iter()
        .flat_map(|&d| (0..u64::from(args.games)).map(move |g| (d, g)))
        .collect();
    // Every agent plays each game from the same seed.
    let outcomes: Vec<Outcome> = parallel_map(&games, threads, "games", |&(d, g)| {
        let start = deal(d as i32);
        Ok(specs
            .iter()
            .map(|spec| {
                let mut rng = game_rng(args.seed, d as u64, g);
                let t = Instant::now();
                let p = play(&mut *spec.build(), &start, &mut rng);
                (p.won, p.moves.len(), t.elapsed())
            })
            .collect())
    })?;
    let reports: Vec<AgentReport> = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            // With two weight files, each agent is named with its own.
            let file = match (&args.compare_weights, i) {
                (None, _) => None,
                (Some(_), 0) => Some(args.weights.as_deref().unwrap_or("default")),
                (Some(theirs), _) => Some(theirs.as_str()),
            };
            let stem = file.map(|f| {
                std::path::Path::new(f)
                    .file_stem()
                    .map_or(f.to_string(), |s| s.to_string_lossy().into_owned())
            });
            let games = outcomes.len() as u64;
            let wins = outcomes.iter().filter(|o| o[i].0).count() as u64;
            let moves: usize = outcomes.iter().map(|o| o[i].1).sum();
            let time: Duration = outcomes.iter().map(|o| o[i].2).sum();
            let (lo, hi) = wilson(wins, games, 0.95);
            AgentReport {
                agent: match stem {
                    Some(stem) => format!("{} [{stem}]", spec.build().name()),
                    None => spec.build().name(),
                },
                games,
                wins,
                win_rate: if games > 0 {
                    wins as f64 / games as f64
                } else {
                    0.0
                },
                wilson_low: lo,
                wilson_high: hi,
                moves_per_game: moves as f64 / games.max(1) as f64,
                ms_per_move: time.as_secs_f64() * 1e3 / moves.max(1) as f64,
            }
        })
        .collect();
    let compare = (specs.len() == 2).then(|| {
        let only =
            |a: usize, b: usize| outcomes.iter().filter(|o| o[a].0 && !o[b].0).count() as u64;
        let (only_first, only_second) = (only(0, 1), only(1, 0));
        Comparison {
            test: "McNemar exact (paired by deal and game seed), two-sided",
            only_first,
            only_second,
            p_value: mcnemar_exact(only_first, only_second),
        }
    });
    let report = AgentsReport {
        deals: format!("{start}..{end}"),
        solvable_deals: solvable.len(),
        skipped_unsolvable: skipped,
        games_per_deal: args.games,
        seed: args.seed,
        threads,
        agents: reports,
        compare,
        wall_seconds: wall.elapsed().as_secs_f64(),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
    } else {
        print_agents(&mut out, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_agents(out: &mut impl Write, r: &AgentsReport) -> Result<()> {
    let w = r
        .agents
        .iter()
        .map(|a| a.agent.chars().count())
        .fold(12, usize::max);
    writeln!(
        out,
        "deals {}: {} solvable ({} skipped as unsolvable), {} a deal, seed {}, {}, {:.1} s wall",
        r.deals,
        r.solvable_deals,
        r.skipped_unsolvable.len(),
        format::plural(r.games_per_deal as usize, "game"),
        r.seed,
        format::plural(r.threads, "thread"),
        r.wall_seconds
    )?;
    writeln!(
        out,
        "{:<w$} {:>8} {:>8} {:>9}  {:<18} {:>10} {:>9}",
        "agent", "games", "won", "win rate", "95% Wilson", "moves/game", "ms/move"
    )?;
    for a in &r.agents {
        writeln!(
            out,
            "{:<w$} {:>8} {:>8} {:>8.2}%  [{:>6.2}, {:>6.2}]   {:>10.2} {:>9.3}",
            a.agent,
            a.games,
            a.wins,
            100.0 * a.win_rate,
            100.0 * a.wilson_low,
            100.0 * a.wilson_high,
            a.moves_per_game,
            a.ms_per_move
        )?;
    }
    if let Some(c) = &r.compare {
        writeln!(
            out,
            "games won by {} alone: {}; by {} alone: {}; {}: p = {:.3e}",
            r.agents[0].agent, c.only_first, r.agents[1].agent, c.only_second, c.test, c.p_value
        )?;
    }
    Ok(())
}

/// The deals of `start..end` split by the exact solver into the solvable
/// and the unsolvable ones.
pub(super) fn split_deals(
    (start, end): (i64, i64),
    threads: usize,
) -> Result<(Vec<i64>, Vec<i64>)> {
    let deals: Vec<i64> = (start..end).collect();
    let solvable = parallel_map(&deals, threads, "solving the deals", |&d| {
        Ok(solve(&deal(d as i32))?.is_solvable())
    })?;
    Ok(deals.iter().partition(|&&d| solvable[(d - start) as usize]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        a: AgentsArgs,
    }

    fn args(extra: &[&str]) -> AgentsArgs {
        T::parse_from(std::iter::once("t").chain(extra.iter().copied())).a
    }

    #[test]
    fn agents_are_written_with_or_without_a_budget() {
        let a = args(&["--iterations", "500", "--playouts", "20"]);
        let w = Weights::default();
        assert_eq!(parse_agent("mcts", &a, w).unwrap(), AgentSpec::Mcts(500, w));
        assert_eq!(
            parse_agent("mcts:300", &a, w).unwrap(),
            AgentSpec::Mcts(300, w)
        );
        assert_eq!(
            parse_agent("mcts-plain:30", &a, w).unwrap(),
            AgentSpec::MctsPlain(30, w)
        );
        assert_eq!(
            parse_agent("flat-mc", &a, w).unwrap(),
            AgentSpec::FlatMonteCarlo(20)
        );
        assert_eq!(parse_agent("greedy", &a, w).unwrap(), AgentSpec::Greedy(w));
        assert_eq!(parse_agent("random", &a, w).unwrap(), AgentSpec::Random);
        let err = |t: &str| parse_agent(t, &a, w).unwrap_err().to_string();
        assert!(err("mcts:0").contains("whole number ≥ 1"));
        assert!(err("mcts:x").contains("whole number ≥ 1"));
        assert!(err("greedy:5").contains("takes no budget"));
        assert!(err("uct").contains("unknown agent 'uct'"));
    }
}
