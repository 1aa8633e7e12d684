//! How a command searches: the limit flags and the kernel options they become (the scenario's
//! bounds, the wall clock, the process's real memory under a limit, the interrupt flag and
//! a progress spinner), and the outcome and statistics as the commands print them.
//!
//! A search always has a memory limit: the one given, or the default of
//! [`memory::default_limit_bytes`], so that no search dies for want of memory without a
//! report. It always watches the interrupt flag, so that Ctrl-C or SIGTERM ends it with
//! outcome `interrupted` and its statistics (see [`lockcheck::interrupt`]).

use clap::Args;
use lockcheck::check::{check_with, Checked, Mode};
use lockcheck::oracles::RedisWorld;
use lockcheck::report::seconds;
use lockcheck::scenario::{duration, Scenario};
use lockcheck::InputError;
use lockcheck::{interrupt, memory, SystemWallClock};
use lockcheck_sim::WallClock;
use lockcheck_sim::{Limit, Outcome, Report};
use serde_json::{json, Value};
use std::io::IsTerminal;
use std::sync::Arc;

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
    /// Stop when the process's resident memory reaches this, e.g. `512MiB`, `2GB` (exit
    /// code 3). Default: three quarters of the memory available at the start.
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub memory_limit: Option<u64>,
    /// Explore the full state space: switch every reduction off.
    #[arg(long)]
    pub no_reduction: bool,
    /// Switch partial-order reduction off (same-instant events of different processes are
    /// then tried in every order).
    #[arg(long)]
    pub no_partial_order: bool,
    /// Switch symmetry reduction off (states that differ only by which of several
    /// interchangeable processes plays which role are then stored apart).
    #[arg(long)]
    pub no_symmetry: bool,
    /// Switch the dead-values reduction off (values a process declares dead, such as a finished
    /// client's bookkeeping, then tell states apart).
    #[arg(long)]
    pub no_dead_values: bool,
    /// Search on this many threads (default: the cores available). The results are the
    /// same for every number; with partial-order reduction or the dead-values reduction the
    /// threads compute successors and one deduplicates.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Compare this many bits of each state's fingerprint: 64 (the default) or 128. A
    /// complete search prints the probability that two of its states shared a fingerprint
    /// (one then went unexplored); 128 bits make it negligible at any state count, for 8
    /// more bytes a stored state.
    #[arg(long, value_name = "BITS", value_parser = parse_fingerprint_bits)]
    pub fingerprint_bits: Option<u32>,
    /// Hash compaction: keep 32 bits of each state's fingerprint in a table sized once for
    /// the state limit (`--max-states`, or the scenario's `explore.max_states`), 5 bytes a
    /// state of the limit. A complete search prints a bound on the probability that a state
    /// was taken for another and went unexplored (it grows with the states and the limit)
    #[arg(long, conflicts_with = "fingerprint_bits")]
    pub hash_compaction: bool,
}

/// `64` or `128`.
fn parse_fingerprint_bits(text: &str) -> Result<u32, String> {
    match text {
        "64" => Ok(64),
        "128" => Ok(128),
        _ => Err(format!("fingerprints have 64 or 128 bits, not {text:?}")),
    }
}

/// The threads a search uses under `limits`: the number given, or the cores available.
pub fn threads(limits: &Limits) -> usize {
    match limits.threads {
        Some(n) => n as usize,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

pub(super) fn parse_ms(text: &str) -> Result<u64, String> {
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

/// The memory limit of a search under `limits`, and whether it is the default.
pub fn memory_limit(limits: &Limits) -> (Option<u64>, bool) {
    match limits.memory_limit {
        Some(bytes) => (Some(bytes), false),
        None => (memory::default_limit_bytes(), true),
    }
}

/// Kernel options: the scenario's, overridden by the limits, with the system wall clock,
/// the process's memory and its limit, the interrupt flag and (on a terminal) a spinner.
pub(super) fn options(
    scenario: &Scenario,
    limits: &Limits,
    progress: Option<indicatif::ProgressBar>,
) -> lockcheck_sim::Options {
    let mut o = scenario.explore.options();
    if let Some(n) = limits.max_states {
        o.limits.max_states = Some(n);
    }
    if let Some(d) = limits.max_depth {
        o.limits.max_depth = Some(d);
    }
    if let Some(t) = limits.max_virtual_time {
        o.limits.max_virtual_time_ms = Some(t);
    }
    o.limits.time_limit_ms = limits.time_limit;
    o.limits.max_memory_bytes = memory_limit(limits).0;
    if limits.no_reduction || limits.no_partial_order {
        o.reductions.partial_order = false;
    }
    if limits.no_reduction || limits.no_symmetry {
        o.reductions.symmetry = false;
    }
    if limits.no_reduction || limits.no_dead_values {
        o.reductions.dead_values = false;
    }
    o.hooks.memory_gauge = Some(Arc::new(memory::ProcessMemory::default()));
    o.hooks.interrupt = Some(interrupt::flag());
    o.parallelism.threads = threads(limits);
    if let Some(bits) = limits.fingerprint_bits {
        o.storage.wide_fingerprints = bits == 128;
    }
    o.storage.hash_compaction = limits.hash_compaction;
    let clock = Arc::new(SystemWallClock::start());
    o.hooks.wall_clock = Some(clock.clone());
    if let Some(bar) = progress {
        let threads = o.parallelism.threads as u64;
        o.hooks.progress = Some(Box::new(move |s: &lockcheck_sim::Stats| {
            bar.set_message(progress_text(s, clock.elapsed_ms(), threads));
            bar.tick();
        }));
    }
    o
}

/// The spinner's line: states, states a second, the frontier (a share of it per thread),
/// depth and virtual time.
fn progress_text(s: &lockcheck_sim::Stats, elapsed_ms: u64, threads: u64) -> String {
    let per_thread = if threads > 1 {
        format!(
            " ({} a thread on {threads} threads)",
            s.frontier_states.div_ceil(threads)
        )
    } else {
        String::new()
    };
    format!(
        "{} states, {} unique, {} states/s, frontier {}{per_thread}, depth {}, virtual time {}",
        s.expanded_states,
        s.unique_states,
        per_second(s.unique_states, elapsed_ms),
        s.frontier_states,
        s.max_depth,
        seconds(s.max_virtual_time_ms)
    )
}

/// A spinner on stderr when stderr is a terminal and output is for people.
pub(super) fn spinner(json: bool) -> Option<indicatif::ProgressBar> {
    if json || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(bar)
}

/// Checks `scenario` under the command line's limits; with `all_oracles`, the search goes on
/// after the first violation.
pub fn run_check(
    scenario: &Scenario,
    mode: Mode,
    limits: &Limits,
    json: bool,
    all_oracles: bool,
) -> Result<Checked, InputError> {
    let bar = spinner(json);
    let mut o = options(scenario, limits, bar.clone());
    o.fault_coverage = true;
    o.stop = if all_oracles {
        lockcheck_sim::Stop::WhenAllSettled
    } else {
        lockcheck_sim::Stop::AtFirstViolation
    };
    let checked = check_with(scenario, mode, o).map_err(build_error)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(checked)
}

/// A scenario that does not build, as the error the commands report.
pub(super) fn build_error(e: lockcheck::scenario::build::ScenarioError) -> InputError {
    InputError {
        field: Some(e.field.clone()),
        ..InputError::new(e.message.clone())
    }
}

pub fn stats_json(report: &Report<RedisWorld>) -> Value {
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

pub fn per_second(n: u64, wall_ms: u64) -> u64 {
    n.saturating_mul(1_000) / wall_ms.max(1)
}

/// The outcome as the text output says it: which signal interrupted the search, and the
/// memory limit's size.
pub fn outcome_text(o: &Outcome, limits: &Limits) -> String {
    match o {
        Outcome::Interrupted => format!(
            "interrupted by {} before the search was done",
            interrupt::signal_name()
        ),
        Outcome::LimitReached(Limit::Memory) => {
            format!(
                "{} reached before the search was done",
                memory_limit_text(limits)
            )
        }
        o => o.to_string(),
    }
}

/// "memory limit (512.0 MB)", with "the default" when none was given.
pub fn memory_limit_text(limits: &Limits) -> String {
    match memory_limit(limits) {
        (Some(bytes), default) => format!(
            "memory limit ({:.1} MB{})",
            bytes as f64 / 1e6,
            if default {
                ", the default: 3/4 of the memory available at the start"
            } else {
                ""
            }
        ),
        (None, _) => Limit::Memory.to_string(),
    }
}
