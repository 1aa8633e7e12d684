//! The `lockcheck` command line: `scenarios`, `check`, `replay`, `shrink`, `sweep`,
//! `boundary` and `explain`. Every command prints text, or one JSON object with `--json`,
//! and exits with a documented code ([`EXIT_CODES`]). Bad input is one clear error naming the
//! file, line and field (exit 2), never a panic.

mod check;
mod grid;
pub mod input;
pub mod search;
mod stats;
pub mod sweep;

use crate::oracles::RedisWorld;
use crate::report::{swimlane, timeline};
use crate::scenario::{builtin, duration};
use clap::{Args, Parser, Subcommand, ValueEnum};
use input::{load_scenario, load_trace, InputError, SavedTrace};
use lockcheck_sim::{
    replay, replay_checked, shrink, Model, Path, Report, ShrinkOptions, Trace, TraceError,
};
use search::parse_ms;
pub use search::Limits;
use serde_json::{json, Value};
use std::path::PathBuf;

/// The exit codes, as `--help` prints them.
pub const EXIT_CODES: &str = "Exit codes:
  0  no violation found (or the command did its job: scenarios, explain)
  1  a violation was found (check, sweep, boundary) or the trace violates (replay, shrink)
  2  bad input or usage: a malformed or inconsistent scenario or trace, unknown option
  3  a limit (states, time, memory) was reached before a verdict
  130  interrupted by SIGINT (Ctrl-C): the search stopped and reported what it had
  143  interrupted by SIGTERM, likewise";

pub const EXIT_OK: u8 = 0;
pub const EXIT_VIOLATION: u8 = 1;
pub const EXIT_BAD_INPUT: u8 = 2;
pub const EXIT_LIMIT: u8 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "lockcheck",
    version,
    about = "A deterministic simulation model checker for distributed locks on Redis",
    long_about = "A deterministic simulation model checker for distributed locks on Redis.\n\n\
        Scenarios are built-in names (`lockcheck scenarios`) or TOML files. `check` explores \
        every interleaving of a scenario's faults (or seeded random walks) and saves a \
        violation as a trace that `replay`, `shrink` and `explain` read.",
    after_help = EXIT_CODES
)]
pub struct Cli {
    /// Print one JSON object on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the built-in scenarios with a one-line description.
    Scenarios,
    /// Check a scenario: exhaustively (breadth-first, shortest counterexample) or by seeded
    /// random walks.
    Check(CheckArgs),
    /// Replay a saved trace exactly and print its timeline.
    Replay(ReplayArgs),
    /// Write a smaller trace that still violates the same oracle.
    Shrink(ShrinkArgs),
    /// Check a scenario over a grid of parameter values: a table and a heat map.
    Sweep(SweepArgs),
    /// Bisect one parameter to the exact value where the verdict flips.
    Boundary(BoundaryArgs),
    /// Draw a saved trace as a swimlane chart (self-contained HTML, or SVG).
    Explain(ExplainArgs),
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// A built-in scenario name or a scenario file (.toml or .json).
    pub scenario: String,
    /// Seeded random walks instead of the exhaustive search.
    #[arg(long)]
    pub random: bool,
    /// Number of random walks (default: the scenario's `explore.random_seeds`).
    #[arg(long, value_name = "N", requires = "random")]
    pub seeds: Option<u64>,
    /// First seed of the random walks.
    #[arg(long, value_name = "SEED", default_value_t = 0, requires = "random")]
    pub first_seed: u64,
    #[command(flatten)]
    pub limits: Limits,
    /// Where to save the trace of a violation (default: `<scenario>.trace.json`).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also print where the branching came from (by kind of choice) and what the reductions
    /// saved.
    #[arg(long)]
    pub stats: bool,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A trace saved by `lockcheck check` or `lockcheck shrink`.
    pub trace: String,
    /// Replay against this scenario instead of the one saved with the trace (refused if
    /// the trace was recorded on another configuration).
    #[arg(long, value_name = "NAME|FILE")]
    pub scenario: Option<String>,
}

#[derive(Args, Debug)]
pub struct ShrinkArgs {
    /// A trace saved by `lockcheck check`.
    pub trace: String,
    /// Where to write the smaller trace (default: `<trace>.shrunk.json`).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Candidates to try at most.
    #[arg(long, value_name = "N", default_value_t = 5_000)]
    pub max_attempts: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Html,
    Svg,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A trace saved by `lockcheck check` or `lockcheck shrink`.
    pub trace: String,
    /// Output file (default: `<trace>.html`, or `.svg` with `--format svg`); its extension
    /// `.svg` selects SVG.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[arg(long, value_enum)]
    pub format: Option<Format>,
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// A built-in scenario name or a scenario file.
    pub scenario: String,
    /// A parameter and its values: `ttl=1s..40s:1s`, `pause=0s..60s:5s`, `work=100ms,1s`.
    /// Short names: ttl, pause, work, delay; or a field path like
    /// `clients[*].protocol.retry_ms`. Give one or two (the heat map uses the first two).
    #[arg(long, value_name = "NAME=RANGE", required = true, value_parser = sweep::parse_vary)]
    pub vary: Vec<sweep::Vary>,
    /// Write the heat map as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write the heat map and the table as a self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Random walks instead of the exhaustive search at each point.
    #[arg(long)]
    pub random: bool,
    #[arg(long, value_name = "N", requires = "random")]
    pub seeds: Option<u64>,
    #[command(flatten)]
    pub limits: Limits,
}

#[derive(Args, Debug)]
pub struct BoundaryArgs {
    /// A built-in scenario name or a scenario file.
    pub scenario: String,
    /// The parameter and the range to bisect: `pause=0s..60s`.
    #[arg(long, value_name = "NAME=FROM..TO", value_parser = sweep::parse_vary)]
    pub vary: sweep::Vary,
    /// Stop bisecting at this precision.
    #[arg(long, value_name = "DURATION", default_value = "1ms", value_parser = parse_ms)]
    pub resolution: u64,
    #[command(flatten)]
    pub limits: Limits,
}

/// What a command produced: text for people, JSON for programs, an exit code.
pub struct Output {
    pub text: String,
    pub json: Value,
    pub code: u8,
}

/// Runs the parsed command line.
/// Errors come back clipped (see [`InputError::clipped`]).
pub fn run(cli: &Cli) -> Result<Output, InputError> {
    run_command(cli).map_err(InputError::clipped)
}

fn run_command(cli: &Cli) -> Result<Output, InputError> {
    match &cli.command {
        Command::Scenarios => Ok(scenarios()),
        Command::Check(a) => check::cmd_check(a, cli.json),
        Command::Replay(a) => cmd_replay(a),
        Command::Shrink(a) => cmd_shrink(a),
        Command::Sweep(a) => grid::cmd_sweep(a, cli.json),
        Command::Boundary(a) => grid::cmd_boundary(a),
        Command::Explain(a) => cmd_explain(a),
    }
}

fn scenarios() -> Output {
    let all = builtin::all();
    let width = all.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for s in &all {
        text.push_str(&format!("{:<width$}  {}\n", s.name, s.description));
    }
    let json = Value::Array(
        all.iter()
            .map(|s| json!({"name": s.name, "description": s.description}))
            .collect(),
    );
    Output {
        text,
        json,
        code: EXIT_OK,
    }
}

/// A short explanation of an oracle.
pub fn oracle_meaning(name: &str) -> &'static str {
    match name {
        "me-lock" => "two clients believed they held the same lock at the same time",
        "me-resource" => "the protected account accepted a stale holder's write (lost update or duplicate debit)",
        "liveness" => "a lock stayed unavailable longer than the bound after its holder crashed or was cut off",
        "detector-false-positive" => "a detector reported a deadlock cycle that did not exist in the true wait-for graph at report time",
        "detector-false-negative" => "a real deadlock cycle persisted longer than the bound without being reported",
        "deadlock-liveness" => "a real deadlock was not resolved within the bound",
        _ => "the oracle's condition failed",
    }
}

/// `20001` -> `20.001 s`, `200` -> `200 ms`.
pub fn human(ms: u64) -> String {
    let d = duration::format(ms as i64);
    match d.strip_suffix("ms") {
        Some(n) => format!("{n} ms"),
        None => match d.strip_suffix('s') {
            Some(n) => format!("{n} s"),
            None => d,
        },
    }
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn faults_in(world: &RedisWorld, path: &Path<RedisWorld>) -> usize {
    path.steps
        .iter()
        .filter(|s| world.is_fault(&s.action))
        .count()
}

fn quote(path: &std::path::Path) -> String {
    let s = path.display().to_string();
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A saved trace, its scenario's world and the path it follows.
/// A saved trace that `replay`, `shrink` and `explain` all accept: its scenario builds, it
/// belongs to that configuration, every step replays at its recorded time, and the recorded
/// oracle is violated (see [`lockcheck_sim::replay_checked`]).
struct Loaded {
    saved: SavedTrace,
    world: RedisWorld,
    path: Path<RedisWorld>,
    report: Report<RedisWorld>,
}

fn load_run(file: &str, scenario: Option<&str>) -> Result<Loaded, InputError> {
    let mut saved = load_trace(file)?;
    if let Some(s) = scenario {
        saved.scenario = load_scenario(s)?;
    }
    let world = saved.scenario.build().map_err(|e| InputError {
        file: Some(file.to_string()),
        field: Some(format!("scenario.{}", e.field)),
        ..InputError::new(e.message.clone())
    })?;
    let with_file = |e: InputError| InputError {
        file: Some(file.to_string()),
        ..e
    };
    let replayed = replay_checked(&world, &saved.trace).map_err(|e| {
        with_file(InputError::new(match e {
            TraceError::OtherModel { .. } => format!(
                "{e} (the trace belongs to another scenario or another configuration of it)"
            ),
            TraceError::Mismatch(_) => format!("the trace does not replay: {e}"),
            _ => e.to_string(),
        }))
    })?;
    Ok(Loaded {
        saved,
        world,
        path: replayed.path,
        report: replayed.report,
    })
}

fn cmd_replay(a: &ReplayArgs) -> Result<Output, InputError> {
    let Loaded {
        saved,
        world,
        path,
        report,
    } = load_run(&a.trace, a.scenario.as_deref())?;
    let violated: Vec<&str> = report
        .properties
        .iter()
        .filter(|p| p.status.is_violated())
        .map(|p| p.name.as_str())
        .collect();
    let first = violated.first().copied();
    let entries = timeline::entries(&world, &path);
    let mut text = format!(
        "replay of {} (scenario {}, {} steps{})\n{}",
        a.trace,
        saved.scenario.name,
        path.steps.len(),
        saved
            .trace
            .seed
            .map(|s| format!(", seed {s}"))
            .unwrap_or_default(),
        timeline::text(&entries, first)
    );
    let recorded = saved.trace.property.as_deref();
    let reproduced = recorded.is_some_and(|p| violated.contains(&p));
    text.push_str(&match (first, recorded) {
        (Some(_), Some(p)) if reproduced => format!(
            "verdict: VIOLATION of {p} reproduced: {}\n",
            oracle_meaning(p)
        ),
        (Some(o), _) => format!("verdict: VIOLATION of {o}\n"),
        (None, Some(p)) => {
            format!("verdict: no violation: the recorded violation of {p} does NOT reproduce\n")
        }
        (None, None) => "verdict: no violation\n".to_string(),
    });
    let j = json!({
        "command": "replay",
        "trace_file": a.trace,
        "scenario": saved.scenario.name,
        "steps": path.steps.len(),
        "recorded_oracle": recorded,
        "violated": violated,
        "reproduced": reproduced,
        "verdict": if first.is_some() { "violated" } else { "no_violation" },
        "timeline": entries,
    });
    Ok(Output {
        text,
        json: j,
        code: if first.is_some() {
            EXIT_VIOLATION
        } else {
            EXIT_OK
        },
    })
}

fn stem(file: &str) -> String {
    let f = file.strip_suffix(".json").unwrap_or(file);
    f.strip_suffix(".trace").unwrap_or(f).to_string()
}

fn cmd_shrink(a: &ShrinkArgs) -> Result<Output, InputError> {
    let Loaded {
        saved, world, path, ..
    } = load_run(&a.trace, None)?;
    let Some(property) = saved.trace.property.clone() else {
        return Err(InputError {
            file: Some(a.trace.clone()),
            field: Some("trace.property".into()),
            ..InputError::new(
                "the trace records no violated oracle, so there is nothing to keep while shrinking",
            )
        });
    };
    let options = ShrinkOptions {
        max_attempts: a.max_attempts,
        ..ShrinkOptions::default()
    };
    let Some(small) = shrink(&world, &path, &property, options) else {
        return Err(InputError {
            file: Some(a.trace.clone()),
            ..InputError::new(format!(
                "the trace does not violate {property}: nothing to shrink"
            ))
        });
    };
    let trace = Trace::from_path(&world, &small, Some(&property));
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.shrunk.json", stem(&a.trace))));
    SavedTrace::new(&saved.scenario, trace).save(&out)?;
    let entries = timeline::entries(&world, &small);
    let text = format!(
        "shrunk {} ({}, {}) to {}, {}; still violates {property}\n{}\nsmaller trace saved to {}\nreplay it with: lockcheck replay {}\n",
        a.trace,
        plural(path.steps.len(), "step"),
        plural(faults_in(&world, &path), "fault"),
        plural(small.steps.len(), "step"),
        plural(faults_in(&world, &small), "fault"),
        timeline::text(&entries, Some(&property)),
        out.display(),
        quote(&out),
    );
    let j = json!({
        "command": "shrink",
        "trace_file": a.trace,
        "oracle": property,
        "steps_before": path.steps.len(),
        "faults_before": faults_in(&world, &path),
        "steps_after": small.steps.len(),
        "faults_after": faults_in(&world, &small),
        "output": out.display().to_string(),
        "timeline": entries,
    });
    Ok(Output {
        text,
        json: j,
        code: EXIT_VIOLATION,
    })
}

fn cmd_explain(a: &ExplainArgs) -> Result<Output, InputError> {
    let Loaded {
        saved, world, path, ..
    } = load_run(&a.trace, None)?;
    let format = match (a.format, &a.output) {
        (Some(f), _) => f,
        (None, Some(o)) if o.extension().is_some_and(|e| e == "svg") => Format::Svg,
        _ => Format::Html,
    };
    let out = a.output.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "{}.{}",
            stem(&a.trace),
            if format == Format::Svg { "svg" } else { "html" }
        ))
    });
    let violated = saved.trace.property.as_deref();
    let subtitle = format!(
        "{}{}",
        saved.scenario.description,
        violated
            .map(|o| format!(" | {o} violated: {}", oracle_meaning(o)))
            .unwrap_or_default()
    );
    let chart = swimlane::chart(&world, &path, &saved.scenario.name, &subtitle, violated);
    let entries = timeline::entries(&world, &path);
    let doc = match format {
        Format::Svg => chart.svg(),
        Format::Html => chart.html(&entries, violated),
    };
    std::fs::write(&out, doc).map_err(|e| InputError {
        file: Some(out.display().to_string()),
        ..InputError::new(format!("cannot write: {e}"))
    })?;
    let text = format!(
        "wrote {} ({}, {}, {}, {} of two holders)\n",
        out.display(),
        plural(chart.lanes.len(), "lane"),
        plural(chart.arrows.len(), "message"),
        plural(chart.pauses.len(), "pause"),
        plural(chart.overlaps.len(), "stretch").replace("stretchs", "stretches")
    );
    let j = json!({
        "command": "explain",
        "trace_file": a.trace,
        "output": out.display().to_string(),
        "format": if format == Format::Svg { "svg" } else { "html" },
        "lanes": chart.lanes.iter().map(|l| l.0.clone()).collect::<Vec<_>>(),
        "messages": chart.arrows.len(),
        "pauses": chart.pauses.len(),
        "overlaps": chart.overlaps.iter().map(|o| json!({"from_ms": o.0, "to_ms": o.1})).collect::<Vec<_>>(),
    });
    Ok(Output {
        text,
        json: j,
        code: EXIT_OK,
    })
}

/// Replays `path` from its scenario to check a freshly saved trace (used by tests).
pub fn trace_reproduces(saved: &SavedTrace) -> bool {
    let Ok(world) = saved.scenario.build() else {
        return false;
    };
    let Some(p) = saved.trace.property.as_deref() else {
        return false;
    };
    replay(&world, &saved.trace)
        .is_ok_and(|r| r.report.property(p).is_some_and(|s| s.status.is_violated()))
}
