//! Cost of checking every built-in scenario exhaustively, with every reduction and without:
//! unique states, states per second, the explorer's peak memory and wall time, the verdict,
//! and how many times fewer states the reductions stored; the last column says whether
//! symmetry reduction ran or was refused. The whole bounded space is explored (no stop at
//! the first violation), so the figures are the full cost.
//!
//! `cargo run --release --example scenarios_bench [--reduced-only|--unreduced-only] [--no-symmetry] [--threads N] [--max-states N] [--branching] [NAME|FILE...]`
//! (one thread unless `--threads` says more; the results are the same for every number;
//! `--no-symmetry` leaves symmetry reduction out of the reduced column; `--max-states`
//! replaces the scenarios' own state limit; `--branching` prints each run's branching by
//! kind of choice on stderr, as `check --stats` does, for the whole space)

use lockcheck::check::{check_with, Mode};
use lockcheck::scenario::file::load_scenario;
use lockcheck::scenario::{builtin, Scenario};
use lockcheck::SystemWallClock;
use lockcheck_sim::{Outcome, Reductions, Symmetry};
use std::sync::Arc;
use std::time::Instant;

/// The allocator the `lockcheck` binary uses (see `src/main.rs`), so that the figures are
/// the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One exhaustive run's figures.
struct Figures {
    states: u64,
    complete: bool,
    line: String,
    /// What symmetry reduction did.
    symmetry: String,
}

/// How every run is made.
struct Settings {
    threads: usize,
    max_states: Option<u64>,
    branching: bool,
}

fn run(scenario: &Scenario, reductions: Reductions, settings: &Settings) -> Figures {
    let defaults = scenario.explore.options();
    let options = lockcheck_sim::Options {
        stop: lockcheck_sim::Stop::Never,
        reductions,
        limits: lockcheck_sim::Limits {
            max_states: settings.max_states.or(defaults.limits.max_states),
            ..defaults.limits
        },
        parallelism: lockcheck_sim::Parallelism {
            threads: settings.threads,
            ..defaults.parallelism
        },
        hooks: lockcheck_sim::Hooks {
            wall_clock: Some(Arc::new(SystemWallClock::start())),
            ..defaults.hooks
        },
        ..defaults
    };
    let started = Instant::now();
    let checked = check_with(scenario, Mode::Exhaustive, options).expect("built-ins build");
    let seconds = started.elapsed().as_secs_f64();
    let stats = checked.report.stats;
    if settings.branching {
        for (kind, c) in stats.branching.nonzero() {
            eprintln!(
                "{}: {kind}: {} choice points, {} offered, {} expanded",
                scenario.name, c.choice_points, c.offered, c.expanded
            );
        }
    }
    let outcome = checked.report.outcome;
    let symmetry = match &checked.report.plan.symmetry {
        Symmetry::On(_) => "on".to_string(),
        Symmetry::Off => "off".to_string(),
        Symmetry::Unavailable(_) => "refused".to_string(),
    };
    let verdict = match (checked.violated(), outcome) {
        (Some(oracle), Outcome::LimitReached(limit)) => {
            format!("{oracle} violated; {limit} reached")
        }
        (Some(oracle), _) => format!("{oracle} violated"),
        (None, Outcome::LimitReached(limit)) => format!("no verdict: {limit} reached"),
        (None, _) => "safe".to_string(),
    };
    Figures {
        states: stats.unique_states,
        complete: !matches!(outcome, Outcome::LimitReached(_)),
        line: format!(
            "{:>10} {:>10.0} {:>8.1} {:>8.2}  {:<28}",
            stats.unique_states,
            stats.unique_states as f64 / seconds.max(1e-9),
            stats.peak_memory_bytes as f64 / 1e6,
            seconds,
            verdict,
        ),
        symmetry,
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let reduced_only = take_flag(&mut args, "--reduced-only");
    let unreduced_only = take_flag(&mut args, "--unreduced-only");
    let reductions = Reductions {
        symmetry: !take_flag(&mut args, "--no-symmetry"),
        ..Reductions::all()
    };
    let threads = take_value(&mut args, "--threads").map_or(1, |t| {
        t.parse()
            .unwrap_or_else(|_| panic!("--threads takes a number, not {t}"))
    });
    println!(
        "{:<38} | {:>10} {:>10} {:>8} {:>8}  {:<28} | {:>10} {:>10} {:>8} {:>8}  {:<28} | factor | symmetry",
        "scenario",
        "states",
        "states/s",
        "peak MB",
        "seconds",
        "verdict (reduced)",
        "states",
        "states/s",
        "peak MB",
        "seconds",
        "verdict (unreduced)",
    );
    let max_states = take_value(&mut args, "--max-states").map(|n| {
        n.parse()
            .unwrap_or_else(|_| panic!("--max-states takes a number, not {n}"))
    });
    let settings = Settings {
        threads,
        max_states,
        branching: take_flag(&mut args, "--branching"),
    };
    let (files, names): (Vec<String>, Vec<String>) = args
        .into_iter()
        .partition(|a| a.ends_with(".toml") || a.ends_with(".json"));
    let builtins = builtin::all()
        .into_iter()
        .filter(|s| (names.is_empty() && files.is_empty()) || names.contains(&s.name));
    let from_files = files
        .iter()
        .map(|f| load_scenario(f).unwrap_or_else(|e| panic!("{f}: {}", e.message)));
    for scenario in builtins.chain(from_files) {
        let reduced = (!unreduced_only).then(|| run(&scenario, reductions, &settings));
        let unreduced = (!reduced_only).then(|| run(&scenario, Reductions::none(), &settings));
        let factor = match (&reduced, &unreduced) {
            (Some(r), Some(u)) if r.complete && u.complete => {
                format!("{:.1}x", u.states as f64 / r.states.max(1) as f64)
            }
            (Some(r), Some(u)) if r.complete => {
                format!(">{:.1}x", u.states as f64 / r.states.max(1) as f64)
            }
            _ => "-".to_string(),
        };
        let blank = format!("{:>10} {:>10} {:>8} {:>8}  {:<28}", "", "", "", "", "");
        let symmetry = reduced
            .as_ref()
            .map_or("-".to_string(), |r| r.symmetry.clone());
        println!(
            "{:<38} | {} | {} | {factor} | {symmetry}",
            scenario.name,
            reduced.map_or(blank.clone(), |r| r.line),
            unreduced.map_or(blank, |u| u.line),
        );
    }
}

fn take_flag(args: &mut Vec<String>, flag: &str) -> bool {
    let before = args.len();
    args.retain(|a| a != flag);
    args.len() != before
}

/// Removes `flag VALUE` from `args`, giving the value.
fn take_value(args: &mut Vec<String>, flag: &str) -> Option<String> {
    let at = args.iter().position(|a| a == flag)?;
    assert!(at + 1 < args.len(), "{flag} needs a value");
    let value = args.remove(at + 1);
    args.remove(at);
    Some(value)
}
