//! The pausable-lock benchmark (`bench/compare/README.md`): explores the whole reachable
//! state space of one configuration breadth-first and reports the unique-state count, whether
//! mutual exclusion is violated, wall time and peak memory.
//!
//! ```text
//! cargo run --release --example pausable_lock -- [--threads T] [--wide] [--hash-compaction S] N TTL C P B H R
//! ```
//!
//! With `--threads T` (default 1) the search runs on T threads (`explore_parallel`), with
//! the same results; with `--wide` it compares 128-bit fingerprints; with
//! `--hash-compaction S` it stores 32 bits a state in a table sized for S states (Spin's
//! `-DHC4 -w`), S being also its state limit.
//!
//! The last line is always `states=<unique> violation=<yes|no> seconds=<wall>`, the wall time
//! of the whole process.

#[allow(dead_code)] // The benchmark uses part of the model; its tests use the rest.
#[path = "../bench/compare/lockcheck/pausable_lock.rs"]
mod pausable_lock;

use lockcheck::sim::{explore_parallel, Options, Outcome, Report};
use lockcheck_sim::{Limits, Parallelism, Stop, Storage};
use pausable_lock::PausableLock;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str =
    "usage: pausable_lock [--threads T] [--wide] [--hash-compaction S] N TTL C P B H R

  N    clients (1..=8)          TTL  lease in ticks        C  longest critical section
  P    length of one pause      B    shared pause budget   H  time horizon
  R    rounds per client (>= 1)

  all are non-negative integers, with H + max(TTL, P) <= 255.
  example: pausable_lock 4 7 3 4 1 20 2   (medium-large: 11,511,070 states, violation)";

fn main() -> ExitCode {
    let start = Instant::now();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let wide = args.iter().any(|a| a == "--wide");
    args.retain(|a| a != "--wide");
    let parsed = take_threads(&mut args).and_then(|threads| {
        let planned = take_positive(&mut args, "--hash-compaction")?;
        Ok((threads, planned, parse(&args)?))
    });
    let (threads, planned, model) = match parsed {
        Ok((threads, planned, model)) if wide => (threads, planned, model.with_wide_fingerprints()),
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("pausable_lock: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    println!("{}", lockcheck::sim::Model::name(&model));

    let explore_start = Instant::now();
    let options = Options {
        stop: Stop::Never,
        limits: Limits {
            max_states: planned,
            ..Limits::default()
        },
        parallelism: Parallelism {
            threads,
            ..Parallelism::default()
        },
        storage: Storage {
            wide_fingerprints: wide,
            hash_compaction: planned.is_some(),
            ..Storage::default()
        },
        ..Options::default()
    };
    let report = explore_parallel(&model, options);
    let explore_secs = explore_start.elapsed().as_secs_f64();

    let stats = &report.stats;
    let states = stats.unique_states;
    print!("{report}");
    print_verdict(&report, &model);
    let violation = report.first_violation();
    if report.outcome != Outcome::Complete {
        println!("warning: the search did not complete: {}", report.outcome);
    }
    match peak_rss_bytes() {
        Some(peak) => println!(
            "peak memory {:.1} MB ({:.1} bytes/state), {:.2} M states/s, explorer estimate {:.1} MB",
            peak as f64 / 1e6,
            peak as f64 / states.max(1) as f64,
            states as f64 / explore_secs.max(1e-9) / 1e6,
            stats.peak_memory_bytes as f64 / 1e6,
        ),
        None => println!(
            "peak memory unknown (no VmHWM in /proc/self/status), {:.2} M states/s",
            states as f64 / explore_secs.max(1e-9) / 1e6
        ),
    }
    println!(
        "states={states} violation={} seconds={:.3}",
        yes_no(violation.is_some()),
        start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

/// The threads, the collision estimate, the counterexample and the spec rule's prediction.
fn print_verdict(report: &Report<PausableLock>, model: &PausableLock) {
    println!("threads: {}", report.ran());
    match (report.collision_probability(), report.compaction) {
        (Some(p), Some(c)) => println!(
            "hash compaction: {} fingerprints in {} slots of 4 bytes ({} whole), {} comparisons: \
             probability that a state was taken for another at most {p:.1e}",
            c.stored, c.slots, c.stored_whole, c.comparisons
        ),
        (Some(p), None) => println!(
            "probability that two states share a {}-bit fingerprint: {p:.1e}",
            report.plan.width.bits()
        ),
        (None, _) => {}
    }
    let violation = report.first_violation();
    if let Some((name, path)) = violation {
        println!(
            "{name}: shortest counterexample, {} steps: {}",
            path.steps.len(),
            path.labels().join(", ")
        );
    }
    if let Some(predicted) = model.predicted_violation() {
        let agrees = predicted == violation.is_some();
        println!(
            "spec rule (violation iff TTL <= C + B*P) predicts {}: {}",
            yes_no(predicted),
            if agrees { "agrees" } else { "DISAGREES" }
        );
    }
}

fn parse(args: &[String]) -> Result<PausableLock, String> {
    const NAMES: [&str; 7] = ["N", "TTL", "C", "P", "B", "H", "R"];
    if args.len() != NAMES.len() {
        return Err(format!("expected 7 arguments, got {}", args.len()));
    }
    let mut values = [0u64; 7];
    for ((value, arg), name) in values.iter_mut().zip(args).zip(NAMES) {
        *value = arg
            .parse()
            .map_err(|_| format!("{name} must be a non-negative integer, got {arg:?}"))?;
    }
    let [n, ttl, c, p, b, h, r] = values;
    PausableLock::try_new(n, ttl, c, p, b, h, r).map_err(|e| e.to_string())
}

/// Removes `--threads T` from `args`, if given, and returns T (default 1).
fn take_threads(args: &mut Vec<String>) -> Result<usize, String> {
    Ok(take_positive(args, "--threads")?.unwrap_or(1) as usize)
}

/// The positive integer after `flag`, taken out of `args` with it, if `flag` is there.
fn take_positive(args: &mut Vec<String>, flag: &str) -> Result<Option<u64>, String> {
    let Some(at) = args.iter().position(|a| a == flag) else {
        return Ok(None);
    };
    let value = args
        .get(at + 1)
        .ok_or_else(|| format!("{flag} needs a number"))?;
    let n = match value.parse::<u64>() {
        Ok(n) if n >= 1 => n,
        _ => return Err(format!("{flag} must be a positive integer, got {value:?}")),
    };
    args.drain(at..at + 2);
    Ok(Some(n))
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// The peak resident set size of this process (`VmHWM`), in bytes.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
