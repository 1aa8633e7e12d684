//! Cross-validation: lockcheck's kernel and madsim, two independent simulators of the same
//! actors, must agree on every built-in scenario.
//!
//! For each scenario, with the same budget for both (its kernel random-mode walk count,
//! `explore.random_seeds`: 2,000 runs, or 100 for the four safe detector scenarios):
//!
//! - **Verdicts.** The kernel's random walks (seeds `0..random_seeds`) find a violation of an
//!   oracle exactly when madsim's runs (one batch under madsim seed 1) do. A safe verdict
//!   is not hollow in either: every `sometimes` witness happened in some run.
//! - **Runs.** Every run madsim makes is also a kernel trace; the kernel must accept each of
//!   its steps and reach the same verdict. This is checked for every violation madsim finds
//!   and for the first 50 runs of each scenario under madsim seed 2, violating or not.
//!
//! The built-ins of `lockcheck_madsim::scenario::NOT_REACHED` are the known exception to the
//! first point: madsim's runs do not reach their violation, which the kernel finds.
//!
//! Which oracle a search trips *first* may differ, since the two search differently: in
//! `seed-000-redlock-process-pause` madsim may first find the stale debit (`me-resource`,
//! with the pause landing before a renewal's answer is read) and later the overlapping
//! beliefs (`me-lock`) the kernel finds first. Both are real: each replays in the kernel.
//! So verdicts are compared per oracle: the kernel's first violated oracle must be found
//! by madsim too.

use lockcheck::check::{check, Mode};
use lockcheck::scenario::{builtin, Scenario};
use lockcheck_madsim::scenario::{batch_with_seed, runs_with_seed, NOT_REACHED};
use lockcheck_madsim::{RunReport, Until};

/// Runs of each scenario whose every step the kernel must accept.
const STEP_CHECKED_RUNS: u32 = 50;

/// Replays `run` in the kernel; describes any disagreement.
fn kernel_disagrees(scenario: &Scenario, run: &RunReport) -> Option<String> {
    let world = scenario.build().expect("built-ins build");
    // A run that violates must also pass the integrity checks `lockcheck replay` applies.
    let replayed = if run.violated().is_some() {
        lockcheck_sim::replay_checked(&world, &run.trace)
    } else {
        lockcheck_sim::replay(&world, &run.trace)
    };
    match replayed {
        Err(e) => Some(format!(
            "{}: the kernel refuses madsim's run {} of seed {}: {e}\n{run}",
            scenario.name, run.run, run.seed
        )),
        Ok(replayed) => {
            let kernel = replayed.report.first_violation().map(|(name, _)| name);
            (kernel != run.violated()).then(|| {
                format!(
                    "{}: madsim's run {} of seed {} ends in {:?}, its replay in the kernel in {kernel:?}\n{run}",
                    scenario.name,
                    run.run,
                    run.seed,
                    run.violated()
                )
            })
        }
    }
}

/// What is wrong between the two simulators on `scenario`, if anything.
fn disagreements(scenario: &Scenario) -> Vec<String> {
    let mut wrong = Vec::new();
    let budget = scenario.explore.random_seeds;
    let kernel = check(
        scenario,
        Mode::Random {
            first: 0,
            count: budget,
        },
    )
    .expect("built-ins build");
    let kernel_verdict = kernel.violated().map(str::to_string);
    let runs = u32::try_from(budget).expect("a budget madsim can batch");
    let until = match &kernel_verdict {
        Some(oracle) => Until::Violation(oracle.clone()),
        None => Until::AnyViolation,
    };
    let madsim = batch_with_seed(scenario, 1, runs, until).expect("built-ins build");
    match &kernel_verdict {
        Some(oracle)
            if madsim.violation_of(oracle).is_none()
                && !NOT_REACHED
                    .iter()
                    .any(|&(n, o, _why)| n == scenario.name && o == oracle) =>
        {
            wrong.push(format!(
            "{}: the kernel finds `{oracle}` in {budget} walks, madsim not in {runs} runs (it finds {:?})",
            scenario.name,
            madsim.violated()
            ))
        }
        None if !madsim.violations.is_empty() => wrong.push(format!(
            "{}: the kernel finds no violation in {budget} walks, madsim finds {:?}\n{}",
            scenario.name,
            madsim.violated(),
            madsim.violations[0]
        )),
        None => {
            let hollow = kernel.report.hollow();
            if !hollow.is_empty() || !madsim.not_witnessed.is_empty() {
                wrong.push(format!(
                    "{}: a hollow safe verdict: never witnessed by the kernel {hollow:?}, by madsim {:?}",
                    scenario.name, madsim.not_witnessed
                ));
            }
        }
        Some(_) => {}
    }
    wrong.extend(
        madsim
            .violations
            .iter()
            .filter_map(|run| kernel_disagrees(scenario, run)),
    );
    let sample = runs_with_seed(scenario, 2, STEP_CHECKED_RUNS).expect("built-ins build");
    wrong.extend(
        sample
            .iter()
            .filter_map(|run| kernel_disagrees(scenario, run)),
    );
    wrong
}

#[test]
fn kernel_and_madsim_agree_on_every_built_in_scenario() {
    let scenarios = builtin::all();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = scenarios.len().div_ceil(threads);
    let wrong: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = scenarios
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || part.iter().flat_map(disagreements).collect::<Vec<_>>())
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker finishes"))
            .collect()
    });
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// The one difference left between the two searches is which oracle they trip first, and it
/// is the search's, not the simulators': on `seed-000-redlock-process-pause` each finds both
/// oracles, and each run of either simulator replays in the kernel with its own verdict.
#[test]
fn both_searches_find_both_oracles_of_the_redlock_pause_scenario() {
    let scenario = builtin::by_name("seed-000-redlock-process-pause").unwrap();
    let options = lockcheck_sim::Options {
        stop: lockcheck_sim::Stop::Never,
        ..scenario.explore.options()
    };
    let kernel = lockcheck::check::check_with(
        &scenario,
        Mode::Random {
            first: 0,
            count: scenario.explore.random_seeds,
        },
        options,
    )
    .unwrap();
    let kernel_found: Vec<&str> = ["me-lock", "me-resource"]
        .into_iter()
        .filter(|o| {
            kernel
                .report
                .property(o)
                .is_some_and(|p| p.status.is_violated())
        })
        .collect();
    assert_eq!(kernel_found, ["me-lock", "me-resource"]);
    let madsim = batch_with_seed(&scenario, 1, 2_000, Until::Violation("me-lock".into())).unwrap();
    let mut madsim_found = madsim.violated();
    madsim_found.sort_unstable();
    assert_eq!(madsim_found, ["me-lock", "me-resource"], "{madsim:?}");
    for run in &madsim.violations {
        assert_eq!(kernel_disagrees(&scenario, run), None);
    }
}

/// No built-in scenario loses or reorders messages; a variant of seed 000 does both (every
/// link lossy within a budget of two losses, delays of 1 to 20 ms in any order), and its
/// runs replay step for step in the kernel too.
#[test]
fn lossy_reordering_links_agree_too() {
    let mut scenario = builtin::by_name("seed-000-single-node").unwrap();
    scenario.network.lossy = true;
    scenario.network.reordering = true;
    scenario.faults.max_losses = 2;
    let runs = runs_with_seed(&scenario, 3, 100).expect("the variant builds");
    let lost = runs
        .iter()
        .filter(|r| r.timeline.iter().any(|l| l.contains("FAULT lose")))
        .count();
    assert!(lost > 10, "messages were lost in {lost} of 100 runs");
    let wrong: Vec<String> = runs
        .iter()
        .filter_map(|run| kernel_disagrees(&scenario, run))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// A violation madsim finds is saved as a file the `lockcheck` command line loads; the file
/// replays in the kernel to the same verdict (what `lockcheck replay <file>` does).
#[test]
fn a_saved_madsim_trace_loads_and_replays_in_the_kernel() {
    let scenario = builtin::by_name("failover-loses-lock").unwrap();
    let batch = batch_with_seed(&scenario, 4, 2_000, Until::Violation("me-lock".into())).unwrap();
    let run = batch.violation_of("me-lock").expect("madsim finds it");
    let dir = std::env::temp_dir().join(format!("lockcheck-madsim-{}", std::process::id()));
    let file = lockcheck_madsim::scenario::save_trace_in(&dir, &scenario, run).unwrap();
    let saved = lockcheck::saved::load_trace(file.to_str().unwrap()).unwrap();
    assert_eq!(saved.scenario, scenario);
    let world = saved.scenario.build().unwrap();
    let replayed = lockcheck_sim::replay(&world, &saved.trace).unwrap();
    assert_eq!(
        replayed.report.first_violation().map(|(name, _)| name),
        Some("me-lock")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
