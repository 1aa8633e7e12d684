//! What the resume order costs and changes: every built-in scenario checked exhaustively as
//! `check` checks it (every reduction, the whole bounded space), once with a resumed
//! process's overdue timers in due order (`resume_order = "due"`, the kernel's order before
//! the choice existed) and once in any order (`"any"`, the default): unique states and the
//! verdict of each, how many expanded states offered a resume-order choice and how many such
//! actions they offered, and the growth in states.
//!
//! `cargo run --release --example resume_order_bench [NAME...]`

use lockcheck::check::{check_with, Mode};
use lockcheck::scenario::{builtin, Scenario};
use lockcheck_sim::world::ResumeOrder;
use lockcheck_sim::{ChoiceKind, Outcome};

/// The allocator the `lockcheck` binary uses (see `src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One exhaustive check's figures: states, verdict, resume-order choice points and offers.
fn run(scenario: &Scenario, order: ResumeOrder) -> (u64, String, u64, u64) {
    let mut scenario = scenario.clone();
    scenario.faults.resume_order = order;
    let defaults = scenario.explore.options();
    let options = lockcheck_sim::Options {
        stop: lockcheck_sim::Stop::Never,
        ..defaults
    };
    let checked = check_with(&scenario, Mode::Exhaustive, options).expect("built-ins build");
    let stats = &checked.report.stats;
    let verdict = match (checked.violated(), checked.report.outcome) {
        (Some(oracle), Outcome::LimitReached(_)) => format!("{oracle} (limit)"),
        (Some(oracle), _) => oracle.to_string(),
        (None, Outcome::LimitReached(_)) => "no verdict (limit)".to_string(),
        (None, _) => "safe".to_string(),
    };
    let resume = stats.branching.get(ChoiceKind::ResumeOrder);
    (
        stats.unique_states,
        verdict,
        resume.choice_points,
        resume.offered,
    )
}

fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    println!(
        "| scenario | states (due) | verdict (due) | states (any) | verdict (any) | resume-order states | offered | growth |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for scenario in builtin::all() {
        if !names.is_empty() && !names.contains(&scenario.name) {
            continue;
        }
        let (due, due_verdict, _, _) = run(&scenario, ResumeOrder::Due);
        let (any, any_verdict, points, offered) = run(&scenario, ResumeOrder::Any);
        let growth = any as f64 / due.max(1) as f64;
        let changed = if due_verdict == any_verdict {
            ""
        } else {
            " **changed**"
        };
        println!(
            "| {} | {due} | {due_verdict} | {any} | {any_verdict}{changed} | {points} | {offered} | {growth:.2}x |",
            scenario.name
        );
    }
}
