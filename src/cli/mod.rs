//! The `lockcheck` command line: `scenarios`, `check`, `replay`, `shrink`, `sweep`,
//! `boundary` and `explain`. Every command prints text, or one JSON object with `--json`,
//! and exits with a documented code ([`EXIT_CODES`]). Bad input is one clear error naming the
//! file, line and field (exit 2), never a panic.

pub mod input;
mod stats;
pub mod sweep;

use crate::check::{check_with, Checked, Mode};
use crate::oracles::RedisWorld;
use crate::report::heatmap::{Cell, Sweep, Verdict};
use crate::report::{seconds, swimlane, timeline};
use crate::scenario::{builtin, duration, Scenario};
use crate::SystemWallClock;
use clap::{Args, Parser, Subcommand, ValueEnum};
use input::{load_scenario, load_trace, InputError, SavedTrace};
use lockcheck_sim::{
    replay, replay_checked, shrink, Model, Outcome, Path, Report, ShrinkOptions, Trace, TraceError,
};
use serde_json::{json, Value};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

/// The exit codes, as `--help` prints them.
pub const EXIT_CODES: &str = "Exit codes:
  0  no violation found (or the command did its job: scenarios, explain)
  1  a violation was found (check, sweep, boundary) or the trace violates (replay, shrink)
  2  bad input or usage: a malformed or inconsistent scenario or trace, unknown option
  3  a limit (states, time, memory) was reached before a verdict";

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

/// Search limits (they override the scenario's `[explore]` section).
#[derive(Args, Debug, Clone, Default)]
pub struct Limits {
    /// Stop after this many unique states (exit code 3 if no verdict by then).
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Do not expand states deeper than this many steps (a bounded search).
    #[arg(long, value_name = "STEPS")]
    pub max_depth: Option<u32>,
    /// Do not expand states past this virtual time, e.g. `60s` (a bounded search).
    #[arg(long, value_name = "DURATION", value_parser = parse_ms)]
    pub max_virtual_time: Option<u64>,
    /// Stop after this much wall time, e.g. `30s`, `5m` (exit code 3 if no verdict by then).
    #[arg(long, value_name = "DURATION", value_parser = parse_ms)]
    pub time_limit: Option<u64>,
    /// Stop when the search holds this much memory, e.g. `512MiB`, `2GB` (exit code 3).
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub memory_limit: Option<u64>,
    /// Explore the full state space: switch every reduction off.
    #[arg(long)]
    pub no_reduction: bool,
    /// Switch partial-order reduction off (same-instant events of different processes are
    /// then tried in every order).
    #[arg(long)]
    pub no_partial_order: bool,
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

fn parse_ms(text: &str) -> Result<u64, String> {
    match duration::parse(text)? {
        Some(v) if v >= 0 => Ok(v as u64),
        _ => Err(format!(
            "`{text}` is not a non-negative duration (e.g. 30s, 200ms)"
        )),
    }
}

fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let n: u64 = n
        .parse()
        .map_err(|_| format!("`{text}` is not a size (e.g. 512MiB, 2GB)"))?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "kib" => 1 << 10,
        "m" | "mb" => 1_000_000,
        "mib" => 1 << 20,
        "g" | "gb" => 1_000_000_000,
        "gib" => 1 << 30,
        _ => {
            return Err(format!(
                "`{text}`: unknown unit (use B, KB, MB, GB, KiB, MiB, GiB)"
            ))
        }
    };
    n.checked_mul(factor)
        .ok_or_else(|| format!("`{text}` is too large"))
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
        Command::Check(a) => cmd_check(a, cli.json),
        Command::Replay(a) => cmd_replay(a),
        Command::Shrink(a) => cmd_shrink(a),
        Command::Sweep(a) => cmd_sweep(a, cli.json),
        Command::Boundary(a) => cmd_boundary(a, cli.json),
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

/// Kernel options: the scenario's, overridden by the limits, with the system wall clock
/// and (on a terminal) a progress spinner.
fn options(
    scenario: &Scenario,
    limits: &Limits,
    progress: Option<indicatif::ProgressBar>,
) -> lockcheck_sim::Options {
    let mut o = scenario.explore.options();
    if let Some(n) = limits.max_states {
        o.max_states = Some(n);
    }
    if let Some(d) = limits.max_depth {
        o.max_depth = Some(d);
    }
    if let Some(t) = limits.max_virtual_time {
        o.max_virtual_time_ms = Some(t);
    }
    o.time_limit_ms = limits.time_limit;
    o.max_memory_bytes = limits.memory_limit;
    if limits.no_reduction || limits.no_partial_order {
        o.reductions.partial_order = false;
    }
    o.wall_clock = Some(Arc::new(SystemWallClock::start()));
    if let Some(bar) = progress {
        o.progress = Some(Box::new(move |s: &lockcheck_sim::Stats| {
            bar.set_message(format!(
                "{} states, {} unique, depth {}, virtual time {}",
                s.expanded_states,
                s.unique_states,
                s.max_depth,
                seconds(s.max_virtual_time_ms)
            ));
            bar.tick();
        }));
    }
    o
}

/// A spinner on stderr when stderr is a terminal and output is for people.
fn spinner(json: bool) -> Option<indicatif::ProgressBar> {
    if json || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(bar)
}

fn run_check(
    scenario: &Scenario,
    mode: Mode,
    limits: &Limits,
    json: bool,
) -> Result<Checked, InputError> {
    let bar = spinner(json);
    let o = options(scenario, limits, bar.clone());
    let checked = check_with(scenario, mode, o).map_err(|e| InputError {
        field: Some(e.field.clone()),
        ..InputError::new(e.message.clone())
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(checked)
}

fn stats_json(report: &Report<RedisWorld>) -> Value {
    let s = &report.stats;
    let wall = s.wall_ms.unwrap_or(0);
    json!({
        "states": s.expanded_states,
        "unique_states": s.unique_states,
        "transitions": s.transitions,
        "max_depth": s.max_depth,
        "runs": s.runs,
        "virtual_time_ms": s.max_virtual_time_ms,
        "wall_ms": wall,
        "states_per_second": per_second(s.unique_states, wall),
        "peak_memory_bytes": s.peak_memory_bytes,
    })
}

fn per_second(n: u64, wall_ms: u64) -> u64 {
    n.saturating_mul(1_000) / wall_ms.max(1)
}

fn outcome_word(o: &Outcome) -> &'static str {
    match o {
        Outcome::Complete => "complete",
        Outcome::Bounded { .. } => "bounded",
        Outcome::RunsDone { .. } => "runs_done",
        Outcome::StoppedAtViolation => "stopped_at_violation",
        Outcome::LimitReached(_) => "limit_reached",
    }
}

fn default_trace_path(scenario: &Scenario) -> PathBuf {
    let safe: String = scenario
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    PathBuf::from(format!("{safe}.trace.json"))
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

fn cmd_check(a: &CheckArgs, json_out: bool) -> Result<Output, InputError> {
    let scenario = load_scenario(&a.scenario)?;
    let mode = if a.random {
        Mode::Random {
            first: a.first_seed,
            count: a.seeds.unwrap_or(scenario.explore.random_seeds),
        }
    } else {
        Mode::Exhaustive
    };
    let checked = run_check(&scenario, mode, &a.limits, json_out)?;
    let report = &checked.report;
    let s = &report.stats;
    let wall = s.wall_ms.unwrap_or(0);
    let mut text = format!(
        "scenario: {}\n  {}\nmode: {}\noutcome: {}\nstatistics: {} states, {} unique, depth {}, {} states/s, virtual time covered {}, wall time {}{}\noracles:\n",
        scenario.name,
        scenario.description,
        match mode {
            Mode::Exhaustive => "exhaustive (breadth-first: a counterexample is a shortest one)".to_string(),
            Mode::Random { first, count } => format!("random walks, seeds {first}..{}", first + count),
        },
        report.outcome,
        s.expanded_states,
        s.unique_states,
        s.max_depth,
        per_second(s.unique_states, wall),
        seconds(s.max_virtual_time_ms),
        seconds(wall),
        if s.runs > 1 { format!(", {} runs", s.runs) } else { String::new() },
    );
    let mut props = Vec::new();
    for p in &report.properties {
        text.push_str(&format!("  {} {}: {}\n", p.kind, p.name, p.status.word()));
        props.push(json!({"name": p.name, "kind": p.kind.to_string(), "status": p.status.word().to_lowercase()}));
    }
    let mut j = json!({
        "command": "check",
        "scenario": scenario.name,
        "mode": if a.random { "random" } else { "exhaustive" },
        "outcome": outcome_word(&report.outcome),
        "statistics": stats_json(report),
        "reductions": stats::reductions_json(report),
        "oracles": props,
    });
    if a.stats {
        j["branching"] = stats::branching_json(&report.stats);
        text.push_str(&stats::branching_text(&report.stats));
    }
    text.push_str(&stats::reductions_text(report));
    if let Outcome::LimitReached(l) = report.outcome {
        j["limit"] = json!(l.to_string());
    }
    let Some((oracle, path)) = report.first_violation() else {
        let hollow = report.hollow();
        let (verdict, code) = match report.outcome {
            Outcome::LimitReached(l) => {
                text.push_str(&format!(
                    "verdict: NO VERDICT: the {l} was reached before the search was done (no violation among the states explored)\n"
                ));
                ("limit_reached", EXIT_LIMIT)
            }
            _ => {
                text.push_str(if report.is_exhaustive() {
                    "verdict: no violation found (every state within the bounds explored)\n"
                } else {
                    "verdict: no violation found by the random walks\n"
                });
                ("no_violation", EXIT_OK)
            }
        };
        if !hollow.is_empty() {
            text.push_str(&format!(
                "warning: never witnessed: {} (the fault this scenario is about never mattered; the green verdict is hollow)\n",
                hollow.join(", ")
            ));
        }
        j["verdict"] = json!(verdict);
        j["never_witnessed"] = json!(hollow);
        return Ok(Output {
            text,
            json: j,
            code,
        });
    };
    let entries = timeline::entries(&checked.world, path);
    let trace = Trace::from_path(&checked.world, path, Some(oracle));
    let file = a
        .output
        .clone()
        .unwrap_or_else(|| default_trace_path(&scenario));
    SavedTrace::new(&scenario, trace).save(&file)?;
    let replay_cmd = format!("lockcheck replay {}", quote(&file));
    text.push_str(&format!(
        "verdict: VIOLATION of {oracle}: {}\n\ncounterexample ({}, {}):\n{}\ntrace saved to {}\nreplay it with: {replay_cmd}\n",
        oracle_meaning(oracle),
        plural(path.steps.len(), "step"),
        plural(faults_in(&checked.world, path), "fault"),
        timeline::text(&entries, Some(oracle)),
        file.display(),
    ));
    j["verdict"] = json!("violated");
    j["oracle"] = json!(oracle);
    j["steps"] = json!(path.steps.len());
    j["timeline"] = json!(entries);
    j["trace_file"] = json!(file.display().to_string());
    j["replay_command"] = json!(replay_cmd);
    Ok(Output {
        text,
        json: j,
        code: EXIT_VIOLATION,
    })
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

/// The verdict of `scenario` at one point.
fn point(
    scenario: &Scenario,
    mode: Mode,
    limits: &Limits,
) -> Result<(Verdict, Option<String>, u64), InputError> {
    let checked = run_check(scenario, mode, limits, true)?;
    let states = checked.report.stats.unique_states;
    Ok(match checked.violated() {
        Some(o) => (Verdict::Violated, Some(o.to_string()), states),
        None if matches!(checked.report.outcome, Outcome::LimitReached(_)) => {
            (Verdict::Unknown, None, states)
        }
        None => (Verdict::Safe, None, states),
    })
}

fn with_values(
    base: &Scenario,
    vary: &[sweep::Vary],
    values: &[u64],
) -> Result<Scenario, InputError> {
    let mut s = base.clone();
    for (v, x) in vary.iter().zip(values) {
        s = sweep::apply(&s, &v.name, *x)?;
    }
    Ok(s)
}

fn write_file(path: &PathBuf, text: &str) -> Result<(), InputError> {
    std::fs::write(path, text).map_err(|e| InputError {
        file: Some(path.display().to_string()),
        ..InputError::new(format!("cannot write: {e}"))
    })
}

fn cmd_sweep(a: &SweepArgs, json_out: bool) -> Result<Output, InputError> {
    let base = load_scenario(&a.scenario)?;
    if a.vary.len() > 3 {
        return Err(InputError::new("give at most three --vary parameters"));
    }
    let mode = if a.random {
        Mode::Random {
            first: 0,
            count: a.seeds.unwrap_or(base.explore.random_seeds),
        }
    } else {
        Mode::Exhaustive
    };
    let points = sweep::grid(&a.vary);
    // Every point is checked once its scenario is known to build.
    let scenarios: Vec<Scenario> = points
        .iter()
        .map(|p| with_values(&base, &a.vary, p))
        .collect::<Result<_, _>>()?;
    let bar = (!json_out && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(points.len() as u64);
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar
    });
    let mut cells = Vec::new();
    for (values, s) in points.iter().zip(&scenarios) {
        let (verdict, oracle, states) = point(s, mode, &a.limits)?;
        cells.push(Cell {
            values_ms: values.clone(),
            verdict,
            oracle,
            states,
        });
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let sw = Sweep {
        scenario: base.name.clone(),
        params: a
            .vary
            .iter()
            .map(|v| (v.name.clone(), v.values.clone()))
            .collect(),
        cells,
    };
    if let Some(p) = &a.svg {
        write_file(p, &sw.svg())?;
    }
    if let Some(p) = &a.html {
        write_file(p, &sw.html())?;
    }
    let count = |v: Verdict| sw.cells.iter().filter(|c| c.verdict == v).count();
    let (safe, bad, unknown) = (
        count(Verdict::Safe),
        count(Verdict::Violated),
        count(Verdict::Unknown),
    );
    let mut text = format!(
        "sweep of {} over {} points\n{}",
        base.name,
        sw.cells.len(),
        sw.table()
    );
    text.push_str(&format!(
        "{safe} safe, {bad} violated, {unknown} without a verdict (limit)\n"
    ));
    for p in [&a.svg, &a.html].into_iter().flatten() {
        text.push_str(&format!("heat map written to {}\n", p.display()));
    }
    let code = if bad > 0 {
        EXIT_VIOLATION
    } else if unknown > 0 {
        EXIT_LIMIT
    } else {
        EXIT_OK
    };
    let mut j = serde_json::to_value(&sw).expect("a sweep serialises");
    j["command"] = json!("sweep");
    j["safe"] = json!(safe);
    j["violated"] = json!(bad);
    j["limit_reached"] = json!(unknown);
    Ok(Output {
        text,
        json: j,
        code,
    })
}

fn cmd_boundary(a: &BoundaryArgs, _json_out: bool) -> Result<Output, InputError> {
    let base = load_scenario(&a.scenario)?;
    let name = &a.vary.name;
    let (mut lo, mut hi) = match (a.vary.values.iter().min(), a.vary.values.iter().max()) {
        (Some(&lo), Some(&hi)) if lo < hi => (lo, hi),
        _ => {
            return Err(InputError {
                field: Some(name.clone()),
                ..InputError::new(
                    "bisecting needs a range of two different values, e.g. pause=0s..60s",
                )
            })
        }
    };
    let mut checks = 0;
    let mut verdict_at = |x: u64| -> Result<(Verdict, Option<String>), InputError> {
        checks += 1;
        let s = sweep::apply(&base, name, x)?;
        let (v, o, _) = point(&s, Mode::Exhaustive, &a.limits)?;
        if v == Verdict::Unknown {
            return Err(InputError::new(format!(
                "a limit was reached at {name} = {} before a verdict",
                duration::format(x as i64)
            )));
        }
        Ok((v, o))
    };
    let limit_output = |e: InputError| Output {
        text: format!("no verdict: {}\n", e.message),
        json: json!({"command": "boundary", "verdict": "limit_reached", "message": e.message}),
        code: EXIT_LIMIT,
    };
    let at_lo = match verdict_at(lo) {
        Ok(v) => v,
        Err(e) if e.message.starts_with("a limit") => return Ok(limit_output(e)),
        Err(e) => return Err(e),
    };
    let at_hi = match verdict_at(hi) {
        Ok(v) => v,
        Err(e) if e.message.starts_with("a limit") => return Ok(limit_output(e)),
        Err(e) => return Err(e),
    };
    let f = human;
    if at_lo.0 == at_hi.0 {
        let text = format!(
            "the verdict does not flip between {name} = {} and {}: {} at both ends\n",
            f(lo),
            f(hi),
            at_lo.0.word()
        );
        let code = if at_lo.0 == Verdict::Violated {
            EXIT_VIOLATION
        } else {
            EXIT_OK
        };
        let j = json!({"command": "boundary", "scenario": base.name, "parameter": name, "flip": null,
            "verdict_at_from": at_lo.0, "verdict_at_to": at_hi.0, "checks": checks});
        return Ok(Output {
            text,
            json: j,
            code,
        });
    }
    let res = a.resolution.max(1);
    let lo_verdict = at_lo.0;
    while hi - lo > res {
        let mid = lo + (hi - lo) / 2;
        let v = match verdict_at(mid) {
            Ok(v) => v,
            Err(e) if e.message.starts_with("a limit") => return Ok(limit_output(e)),
            Err(e) => return Err(e),
        };
        if v.0 == lo_verdict {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let oracle = if lo_verdict == Verdict::Violated {
        at_lo.1.clone()
    } else {
        at_hi.1.clone()
    };
    let sentence = if lo_verdict == Verdict::Safe {
        format!(
            "the smallest {name} that breaks this configuration is {} ({} violated); at {} it is safe",
            f(hi),
            oracle.as_deref().unwrap_or("?"),
            f(lo)
        )
    } else {
        format!(
            "the smallest {name} that makes this configuration safe is {}; at {} it breaks ({} violated)",
            f(hi),
            f(lo),
            oracle.as_deref().unwrap_or("?")
        )
    };
    let text = format!("{}: {sentence} ({checks} checks)\n", base.name);
    let j = json!({
        "command": "boundary",
        "scenario": base.name,
        "parameter": name,
        "flip": {"below_ms": lo, "at_ms": hi, "below": lo_verdict, "at": if lo_verdict == Verdict::Safe { Verdict::Violated } else { Verdict::Safe }},
        "oracle": oracle,
        "resolution_ms": res,
        "checks": checks,
        "sentence": sentence,
    });
    Ok(Output {
        text,
        json: j,
        code: EXIT_VIOLATION,
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
