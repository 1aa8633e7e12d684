//! Replays madsim runs of every built-in scenario in lockcheck's kernel and counts the runs
//! the kernel refuses (a step it does not offer) or judges differently.
//!
//! `cargo run --release --example agreement -- [SEED] [RUNS]` (defaults: 7, 100): a batch of
//! RUNS runs per scenario under madsim seed SEED. For the first refused or differently
//! judged run of a scenario it prints why, naming the step.

use lockcheck::scenario::builtin;
use lockcheck_madsim::scenario::runs_with_seed;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed: u64 = args
        .first()
        .map_or(7, |s| s.parse().expect("SEED: a number"));
    let runs: u32 = args
        .get(1)
        .map_or(100, |s| s.parse().expect("RUNS: a number"));
    let mut total_refused = 0;
    let mut total_differ = 0;
    for scenario in builtin::all() {
        let world = scenario.build().expect("built-ins build");
        let reports = runs_with_seed(&scenario, seed, runs).expect("built-ins build");
        let (mut refused, mut differ) = (0, 0);
        for r in &reports {
            match lockcheck_sim::replay(&world, &r.trace) {
                Ok(replayed) => {
                    let kernel = replayed.report.first_violation().map(|(n, _)| n);
                    if kernel != r.violated() {
                        differ += 1;
                        if differ == 1 {
                            println!(
                                "  run {}: madsim ends in {:?}, the kernel in {kernel:?}",
                                r.run,
                                r.violated()
                            );
                        }
                    }
                }
                Err(e) => {
                    refused += 1;
                    if refused == 1 {
                        println!("  run {}: {e}", r.run);
                    }
                }
            }
        }
        println!(
            "{:<40} runs {:>5}  refused {refused:>3}  judged differently {differ:>3}",
            scenario.name,
            reports.len()
        );
        total_refused += refused;
        total_differ += differ;
    }
    println!("refused {total_refused}, judged differently {total_differ}");
}
