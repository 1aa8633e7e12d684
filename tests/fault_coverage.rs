//! Fault coverage on `check`: for each rule of the envelope, whether an explored run used it
//! and at how many distinct instants; a rule no run used makes a safe verdict warn, in text
//! and in `--json`. The coverage is a union of sets, the same on any number of threads and
//! with or without reductions.

mod common;

use common::{json, lockcheck_within, workdir};
use lockcheck::check::{check, check_with, Checked, Mode};
use lockcheck::scenario::{builtin, to_toml::to_toml, ClockStepSpec, CrashSpec, FaultWhen};
use lockcheck::scenario::{ExpectedVerdict, Scenario};
use lockcheck_sim::{Options, Reductions};
use std::time::Duration;

/// `fencing-prevents-damage` (one pause of the holder, every run over by 18 s of virtual
/// time) searched up to 30 s, with a 5 s clock step of the node at `at_ms` and a crash of
/// the node that has no budget.
fn with_clock_step_at(at_ms: u64) -> Scenario {
    let mut s = builtin::by_name("fencing-prevents-damage").expect("a built-in");
    s.name = "coverage".into();
    s.expect = ExpectedVerdict::Safe;
    s.explore.max_virtual_time_ms = Some(30_000);
    s.faults.clock_steps.push(ClockStepSpec {
        process: "redis".into(),
        deltas_ms: vec![5_000],
        when: FaultWhen {
            at_ms: Some(at_ms),
            ..FaultWhen::default()
        },
    });
    s.faults.max_clock_steps = 1;
    s.faults.crashes.push(CrashSpec {
        process: "redis".into(),
        power_loss: false,
        restart_after_ms: vec![Some(1_000)],
        when: FaultWhen::default(),
    });
    s.faults.max_crashes = 0;
    s
}

fn checked(s: &Scenario) -> Checked {
    check(s, Mode::Exhaustive).expect("the scenario builds")
}

/// Each rule's field and instants.
fn instants(c: &Checked) -> Vec<(String, u64)> {
    let rules = c.fault_coverage().expect("check keeps the coverage");
    rules.into_iter().map(|r| (r.rule, r.instants)).collect()
}

#[test]
fn a_clock_step_past_the_horizon_is_never_used_and_the_safe_verdict_says_so() {
    let c = checked(&with_clock_step_at(60_000));
    assert!(c.violations().is_empty(), "the scenario is safe");
    let rules = instants(&c);
    assert_eq!(rules.len(), 3, "{rules:?}");
    assert_eq!(rules[0].0, "faults.pauses[0]");
    assert!(rules[0].1 > 0, "the pause is taken: {rules:?}");
    assert_eq!(rules[1], ("faults.crashes[0]".to_string(), 0));
    assert_eq!(rules[2], ("faults.clock_steps[0]".to_string(), 0));
    assert_eq!(
        c.unused_fault_rules(),
        ["faults.crashes[0]", "faults.clock_steps[0]"]
    );
}

#[test]
fn a_clock_step_within_reach_is_used_at_its_instant() {
    let c = checked(&with_clock_step_at(2_000));
    let step = c.fault_coverage().unwrap()[2].clone();
    assert_eq!(step.rule, "faults.clock_steps[0]");
    assert_eq!((step.instants, step.first_ms), (1, Some(2_000)));
    assert_eq!(c.unused_fault_rules(), ["faults.crashes[0]"]);
}

#[test]
fn a_free_clock_step_is_used_at_many_instants() {
    let mut s = with_clock_step_at(0);
    s.faults.clock_steps[0].when = FaultWhen::default();
    let c = checked(&s);
    let step = &c.fault_coverage().unwrap()[2];
    assert!(step.instants > 10, "{step:?}");
    assert_eq!(step.first_ms, Some(0));
}

/// The coverage of `s` searched with `threads` threads and `reductions`.
fn coverage_with(
    s: &Scenario,
    mode: Mode,
    threads: usize,
    reductions: Reductions,
) -> lockcheck_sim::FaultCoverage {
    let mut options = Options {
        fault_coverage: true,
        reductions,
        ..s.explore.options()
    };
    options.parallelism.threads = threads;
    // The threads take every batch, however small the search.
    options.parallelism.worker_trials = None;
    let c = check_with(s, mode, options).expect("the scenario builds");
    c.report.fault_coverage.expect("coverage was asked for")
}

#[test]
fn coverage_is_the_same_on_one_and_two_threads_and_without_reductions() {
    let mut free_step = with_clock_step_at(0);
    free_step.faults.clock_steps[0].when = FaultWhen::default();
    let clock_step = builtin::by_name("redsync-wall-clock-step").expect("a built-in");
    // Losses are chosen in transient states, which partial-order reduction settles at once.
    let mut lossy = builtin::by_name("fencing-prevents-damage").expect("a built-in");
    (lossy.faults.max_losses, lossy.network.lossy) = (1, true);
    for s in [free_step, clock_step, lossy] {
        let one = coverage_with(&s, Mode::Exhaustive, 1, Reductions::all());
        assert!(one.rules().iter().any(|r| r.instants > 1), "{one:?}");
        let two = coverage_with(&s, Mode::Exhaustive, 2, Reductions::all());
        assert_eq!(one, two, "{}: 1 and 2 threads", s.name);
        let none = coverage_with(&s, Mode::Exhaustive, 2, Reductions::none());
        assert_eq!(one, none, "{}: with and without reductions", s.name);
        let walks = Mode::Random {
            first: 0,
            count: 64,
        };
        let walks_one = coverage_with(&s, walks, 1, Reductions::all());
        let walks_two = coverage_with(&s, walks, 2, Reductions::all());
        assert_eq!(walks_one, walks_two, "{}: walks on 1 and 2 threads", s.name);
        for (w, e) in walks_one.rules().iter().zip(one.rules()) {
            assert!(w.instants <= e.instants, "walks take fewer: {w:?} {e:?}");
        }
    }
}

#[test]
fn check_prints_the_coverage_and_warns_in_text_and_json() {
    let dir = workdir("fault_coverage_cli");
    let file = dir.join("coverage.toml");
    std::fs::write(&file, to_toml(&with_clock_step_at(60_000))).unwrap();
    let path = file.to_str().unwrap();
    let limit = Duration::from_secs(60);
    let text = lockcheck_within(&dir, &["check", path, "--threads", "1"], limit);
    assert_eq!(text.code, 0, "{}{}", text.stdout, text.stderr);
    assert!(text.stdout.contains("fault coverage"), "{}", text.stdout);
    assert!(
        text.stdout
            .contains("  faults.clock_steps[0]: NEVER USED\n"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains(
            "warning: no explored run used faults.crashes[0], faults.clock_steps[0] (the safe verdict says nothing about them)"
        ),
        "{}",
        text.stdout
    );
    let out = lockcheck_within(&dir, &["--json", "check", path, "--threads", "2"], limit);
    let j = json(&out);
    assert_eq!(j["verdict"], "no_violation");
    let rules = j["fault_coverage"].as_array().expect("a list");
    assert_eq!(rules.len(), 3);
    assert_eq!(rules[2]["rule"], "faults.clock_steps[0]");
    assert_eq!(rules[2]["runs_used"], false);
    assert_eq!(rules[2]["instants"], 0);
    assert_eq!(rules[0]["runs_used"], true);
    assert!(rules[0]["instants"].as_u64().unwrap() > 0);
    assert_eq!(
        j["unused_fault_rules"],
        serde_json::json!(["faults.crashes[0]", "faults.clock_steps[0]"])
    );
}

#[test]
fn a_check_whose_rules_were_all_used_does_not_warn() {
    let dir = workdir("fault_coverage_cli_used");
    let out = lockcheck_within(
        &dir,
        &["check", "fencing-prevents-damage", "--threads", "1"],
        Duration::from_secs(60),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("  faults.pauses[0]: "),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("no explored run used"),
        "{}",
        out.stdout
    );
}

#[test]
fn losses_are_one_rule_used_only_on_lossy_links() {
    let mut s = builtin::by_name("fencing-prevents-damage").expect("a built-in");
    s.faults.max_losses = 1;
    let rule = |c: &Checked| {
        let rules = c.fault_coverage().unwrap();
        let losses = rules.iter().find(|r| r.rule == "faults.max_losses");
        losses.expect("the losses are a rule").clone()
    };
    let reliable = checked(&s);
    assert!(!rule(&reliable).used(), "no link is lossy");
    assert_eq!(reliable.unused_fault_rules(), ["faults.max_losses"]);
    s.network.lossy = true;
    let lossy = checked(&s);
    assert!(rule(&lossy).instants > 0, "{:?}", rule(&lossy));
}
