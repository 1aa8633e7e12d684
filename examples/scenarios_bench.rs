//! Cost of checking every built-in scenario exhaustively: unique states, states per second,
//! the explorer's peak memory and wall time, one line per scenario. The whole bounded space
//! is explored (no stop at the first violation), so the figures are the full cost.
//!
//! `cargo run --release --example scenarios_bench [NAME...]`

use lockcheck::check::{check_with, Mode};
use lockcheck::scenario::builtin;
use lockcheck::SystemWallClock;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let only: Vec<String> = std::env::args().skip(1).collect();
    println!(
        "{:<40} {:>10} {:>12} {:>10} {:>9}  verdict",
        "scenario", "states", "states/s", "peak MB", "seconds"
    );
    for scenario in builtin::all() {
        if !only.is_empty() && !only.contains(&scenario.name) {
            continue;
        }
        let options = lockcheck_sim::Options {
            wall_clock: Some(Arc::new(SystemWallClock::start())),
            stop_at_first_violation: false,
            ..scenario.explore.options()
        };
        let started = Instant::now();
        let checked = check_with(&scenario, Mode::Exhaustive, options).expect("built-ins build");
        let seconds = started.elapsed().as_secs_f64();
        let stats = checked.report.stats;
        let verdict = match (checked.violated(), checked.report.outcome) {
            (Some(oracle), lockcheck_sim::Outcome::LimitReached(limit)) => {
                format!("{oracle} violated; {limit} reached before the space was covered")
            }
            (Some(oracle), _) => format!("{oracle} violated"),
            (None, outcome) => format!("safe ({outcome})"),
        };
        println!(
            "{:<40} {:>10} {:>12.0} {:>10.1} {:>9.3}  {verdict}",
            scenario.name,
            stats.unique_states,
            stats.unique_states as f64 / seconds.max(1e-9),
            stats.peak_memory_bytes as f64 / 1e6,
            seconds,
        );
    }
}
