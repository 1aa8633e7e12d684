//! Runs built-in scenarios under madsim for a range of seeds and prints what each found.
//!
//! `cargo run --release --example search -- [SCENARIO|all] [FIRST_SEED] [SEEDS]`
//! (defaults: all, 1, 64). For each scenario: its expected verdict, the seeds run, the first
//! violation (with the seed that replays it) and the witnesses no run saw; with one scenario
//! it also prints the violating run's report.

use lockcheck::scenario::{builtin, Expected};
use lockcheck_madsim::scenario::{run_seed, search};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().map(String::as_str).unwrap_or("all");
    let first: u64 = args.get(1).map_or(1, |s| s.parse().expect("FIRST_SEED: a number"));
    let count: u64 = args.get(2).map_or(64, |s| s.parse().expect("SEEDS: a number"));
    let scenarios: Vec<_> = builtin::all()
        .into_iter()
        .filter(|s| which == "all" || s.name == which)
        .collect();
    if scenarios.is_empty() {
        eprintln!("no built-in scenario is called `{which}`");
        std::process::exit(2);
    }
    for scenario in &scenarios {
        let started = Instant::now();
        let found = search(scenario, first..first + count).expect("built-ins build");
        let expected = match &scenario.expect {
            Expected::Safe => "safe".to_string(),
            Expected::Violated { oracle } => format!("violates {oracle}"),
        };
        let verdict = match &found.violation {
            Some(r) => format!("violates {} (seed {})", r.violated().unwrap_or("?"), r.seed),
            None => "safe".to_string(),
        };
        println!(
            "{:<40} expected {:<22} madsim {:<32} runs {:>4}  {:>6.2} s  unwitnessed [{}]",
            scenario.name,
            expected,
            verdict,
            found.runs,
            started.elapsed().as_secs_f64(),
            found.not_witnessed.join(", ")
        );
        if scenarios.len() == 1 {
            match &found.violation {
                Some(r) => println!("\n{r}"),
                None => {
                    let r = run_seed(scenario, first).expect("built-ins build");
                    println!("\nthe first seed's run:\n{r}");
                }
            }
        }
    }
}
