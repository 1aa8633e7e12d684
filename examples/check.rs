//! Checks a built-in scenario: `cargo run --release --example check -- NAME [--random SEEDS]`
//! (no NAME: list them). Prints the verdict, the statistics and, for a violation, the
//! shortest counterexample as a timeline; saves it as `NAME.trace.json` and replays it.
//! Exit code: 0 no violation, 1 violation found, 2 bad usage.

use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck_sim::{replay, Trace};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        for s in builtin::all() {
            println!("{:<40} {}", s.name, s.description);
        }
        return ExitCode::SUCCESS;
    };
    let Some(scenario) = builtin::by_name(name) else {
        eprintln!(
            "error: no built-in scenario named `{name}` (run without arguments to list them)"
        );
        return ExitCode::from(2);
    };
    let mode = match args.get(1).map(String::as_str) {
        None => Mode::Exhaustive,
        Some("--random") => match args.get(2).and_then(|n| n.parse().ok()) {
            Some(count) => Mode::Random { first: 0, count },
            None => {
                eprintln!("error: --random needs a number of seeds");
                return ExitCode::from(2);
            }
        },
        Some(other) => {
            eprintln!("error: unknown argument `{other}`");
            return ExitCode::from(2);
        }
    };
    let checked = check(&scenario, mode).expect("built-in scenarios build");
    println!(
        "{}: {}\n{}",
        scenario.name, scenario.description, checked.report
    );
    let Some((oracle, path)) = checked.report.first_violation() else {
        println!("verdict: no violation found");
        return ExitCode::SUCCESS;
    };
    println!(
        "verdict: {oracle} VIOLATED; counterexample ({} steps):",
        path.steps.len()
    );
    for (step, state) in path.steps.iter().zip(&path.states[1..]) {
        println!("  t={:>8} ms  {}", state.now_ms, step.label);
    }
    let trace = Trace::from_path(&checked.world, path, Some(oracle));
    let file = format!("{}.trace.json", scenario.name);
    std::fs::write(&file, trace.to_json()).expect("write the trace");
    let reproduced = replay(&checked.world, &trace).is_ok_and(|r| {
        r.report
            .property(oracle)
            .is_some_and(|p| p.status.is_violated())
    });
    println!(
        "trace saved to {file}; replay {}",
        if reproduced {
            "reproduces it"
        } else {
            "FAILED"
        }
    );
    ExitCode::from(1)
}
