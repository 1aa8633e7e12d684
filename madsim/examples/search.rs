//! Runs built-in scenarios under madsim and prints what each batch of runs found.
//!
//! `cargo run --release --example search -- [SCENARIO|all] [SEED] [RUNS]`
//! (defaults: all, 1, 64): a batch of up to RUNS runs per scenario under madsim seed SEED.
//! For each scenario: its expected verdict, the runs made, the first violation (with the run
//! that found it) and the witnesses no run saw; with one scenario it also prints the
//! violating run's report (and with `FULL_TIMELINE=1` its whole timeline). The last line
//! gives the runs and handler steps made, and how many per second.

use lockcheck::scenario::{builtin, ExpectedVerdict};
use lockcheck_madsim::scenario::batch_with_seed;
use lockcheck_madsim::Until;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().map(String::as_str).unwrap_or("all");
    let seed: u64 = args
        .get(1)
        .map_or(1, |s| s.parse().expect("SEED: a number"));
    let runs: u32 = args
        .get(2)
        .map_or(64, |s| s.parse().expect("RUNS: a number"));
    let scenarios: Vec<_> = builtin::all()
        .into_iter()
        .filter(|s| which == "all" || s.name == which)
        .collect();
    if scenarios.is_empty() {
        eprintln!("no built-in scenario is called `{which}`");
        std::process::exit(2);
    }
    let (mut total_runs, mut total_steps) = (0, 0);
    let all_started = Instant::now();
    for scenario in &scenarios {
        let started = Instant::now();
        let until = match &scenario.expect {
            ExpectedVerdict::Safe | ExpectedVerdict::Unstated => Until::AnyViolation,
            ExpectedVerdict::Violated { oracle } => Until::Violation(oracle.clone()),
        };
        let found = batch_with_seed(scenario, seed, runs, until).expect("built-ins build");
        let expected = match &scenario.expect {
            ExpectedVerdict::Safe => "safe".to_string(),
            ExpectedVerdict::Violated { oracle } => format!("violates {oracle}"),
            ExpectedVerdict::Unstated => "nothing stated".to_string(),
        };
        let verdict = match found.violations.last() {
            Some(r) => format!("violates {:?} (run {})", found.violated(), r.run),
            None => "safe".to_string(),
        };
        total_runs += u64::from(found.runs);
        total_steps += found.steps;
        println!(
            "{:<40} expected {:<22} madsim {:<32} runs {:>5}  {:>6.2} s  unwitnessed [{}]",
            scenario.name,
            expected,
            verdict,
            found.runs,
            started.elapsed().as_secs_f64(),
            found.not_witnessed.join(", ")
        );
        if scenarios.len() == 1 {
            if let Some(r) = found.violations.last() {
                println!("\n{r}");
                if std::env::var_os("FULL_TIMELINE").is_some() {
                    println!("whole timeline:\n  {}", r.timeline.join("\n  "));
                }
            }
        }
    }
    let seconds = all_started.elapsed().as_secs_f64();
    println!(
        "runs={total_runs} steps={total_steps} seconds={seconds:.2} runs_per_second={:.0} steps_per_second={:.0}",
        total_runs as f64 / seconds,
        total_steps as f64 / seconds
    );
}
