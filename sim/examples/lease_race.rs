//! The lease world from the kernel's tests, as a command: does a pause break the lease?
//!
//! `cargo run -p lockcheck-sim --example lease_race -- TTL_MS WORK_MS PAUSE_MS [DELAY_MS] [--random SEEDS]`
//!
//! Explores every interleaving (or SEEDS random walks), prints the verdict and statistics,
//! and for a violation the shortest counterexample, saved as a replayable trace that is then
//! replayed and shrunk to show the round trip.

#[path = "../tests/common/mod.rs"]
mod common;

use lockcheck_sim::world::World;
use lockcheck_sim::{
    explore, replay, shrink, BreadthFirst, Options, Path, ShrinkOptions, Trace, Walk,
};
use std::process::ExitCode;

const USAGE: &str = "usage: lease_race TTL_MS WORK_MS PAUSE_MS [DELAY_MS] [--random SEEDS]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<ExitCode, String> {
    let mut numbers = Vec::new();
    let mut seeds = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let number = |s: Option<String>, what: &str| {
            s.ok_or(format!("{what} needs a value"))?
                .parse::<u64>()
                .map_err(|e| format!("{what}: {e}"))
        };
        if arg == "--random" {
            seeds = Some(number(args.next(), "--random")?);
        } else {
            numbers.push(number(Some(arg), "argument")?);
        }
    }
    let (ttl_ms, work_ms, pause_ms, delay_ms) = match numbers[..] {
        [t, w, p] => (t, w, p, 0),
        [t, w, p, d] => (t, w, p, d),
        _ => return Err("expected three or four numbers".into()),
    };
    let mut lease = common::Lease::new(ttl_ms, work_ms, pause_ms);
    lease.delays_ms = vec![delay_ms];
    let world = lease.world();
    println!(
        "lease world: ttl {ttl_ms} ms, work {work_ms} ms, one pause of {pause_ms} ms, delay {delay_ms} ms"
    );
    let report = match seeds {
        Some(n) => explore(&world, &mut Walk::random(0..n), Options::default()),
        None => explore(&world, &mut BreadthFirst::default(), Options::default()),
    };
    print!("{report}");
    let Some((property, path)) = report.first_violation() else {
        println!("verdict: no violation found");
        return Ok(ExitCode::SUCCESS);
    };
    println!("verdict: {property} VIOLATED");
    print_timeline(path);
    let trace = Trace::from_path(&world, path, Some(property));
    let file = "lease-race.trace.json";
    std::fs::write(file, trace.to_json()).map_err(|e| format!("{file}: {e}"))?;
    let replayed = replay(&world, &trace).map_err(|e| e.to_string())?;
    let reproduced = replayed
        .report
        .property(property)
        .is_some_and(|p| p.status.is_violated());
    println!(
        "trace saved to {file}; replayed: {}",
        if reproduced {
            "violation reproduced"
        } else {
            "NOT reproduced"
        }
    );
    if let Some(small) = shrink(&world, path, property, ShrinkOptions::default()) {
        println!(
            "shrunk from {} to {} steps:",
            path.steps.len(),
            small.steps.len()
        );
        print_timeline(&small);
    }
    Ok(ExitCode::from(1))
}

fn print_timeline(path: &Path<World<common::Node>>) {
    for (step, state) in path.steps.iter().zip(&path.states[1..]) {
        println!(
            "  t={:>5} ms  {}  [holders: {}]",
            state.now_ms,
            step.label,
            common::holders(state)
        );
    }
}
