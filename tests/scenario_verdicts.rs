//! Every built-in scenario gets its pinned verdict, exhaustively and by random search; every
//! violation's trace replays and shrinks.

use lockcheck::check::{check, Mode};
use lockcheck::scenario::{builtin, Expected};
use lockcheck_sim::{replay, shrink, ShrinkOptions, Trace};

fn describe(c: &lockcheck::check::Checked) -> String {
    format!("{}", c.report)
}

#[test]
fn every_builtin_scenario_gets_its_expected_verdict_exhaustively() {
    for scenario in builtin::all() {
        let checked = check(&scenario, Mode::Exhaustive).expect("built-ins build");
        assert!(
            checked.as_expected(&scenario.expect),
            "{}: expected {:?}\n{}",
            scenario.name,
            scenario.expect,
            describe(&checked)
        );
        if scenario.expect == Expected::Safe {
            assert!(
                checked.report.is_exhaustive(),
                "{}: a safe verdict must cover the whole bounded space\n{}",
                scenario.name,
                describe(&checked)
            );
        }
    }
}

#[test]
fn every_builtin_scenario_gets_its_expected_verdict_by_random_search() {
    for scenario in builtin::all() {
        let seeds = scenario.explore.random_seeds;
        let checked = check(
            &scenario,
            Mode::Random {
                first: 0,
                count: seeds,
            },
        )
        .unwrap();
        match &scenario.expect {
            Expected::Violated { oracle } => assert_eq!(
                checked.violated(),
                Some(oracle.as_str()),
                "{}: random search should find it in {seeds} seeds\n{}",
                scenario.name,
                describe(&checked)
            ),
            Expected::Safe => assert_eq!(
                checked.violated(),
                None,
                "{}\n{}",
                scenario.name,
                describe(&checked)
            ),
        }
    }
}

#[test]
fn every_violation_replays_from_its_trace_and_shrinks() {
    for scenario in builtin::all() {
        let Expected::Violated { oracle } = &scenario.expect else {
            continue;
        };
        let checked = check(&scenario, Mode::Exhaustive).unwrap();
        let (_, path) = checked.report.first_violation().unwrap();
        let trace = Trace::from_path(&checked.world, path, Some(oracle));
        let parsed = Trace::from_json(&trace.to_json()).unwrap();
        let replayed =
            replay(&checked.world, &parsed).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
        assert!(
            replayed
                .report
                .property(oracle)
                .unwrap()
                .status
                .is_violated(),
            "{}: replay reproduces the violation",
            scenario.name
        );
        let small = shrink(&checked.world, path, oracle, ShrinkOptions::default())
            .unwrap_or_else(|| panic!("{}: the path violates {oracle}", scenario.name));
        assert!(small.steps.len() <= path.steps.len(), "{}", scenario.name);
        let small_trace = Trace::from_path(&checked.world, &small, Some(oracle));
        let again = replay(&checked.world, &small_trace).unwrap();
        assert!(again.report.property(oracle).unwrap().status.is_violated());
    }
}

#[test]
fn builtin_scenario_names_are_unique_and_stable() {
    let names: Vec<String> = builtin::all().into_iter().map(|s| s.name).collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len());
    for name in [
        "seed-000-single-node",
        "kleppmann-pause-past-lease",
        "fencing-prevents-damage",
    ] {
        assert!(builtin::by_name(name).is_some(), "{name}");
    }
}
