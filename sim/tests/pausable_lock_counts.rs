//! The pausable-lock benchmark model reproduces the reference state counts of the spec
//! (`bench/compare/README.md`) and its analytic violation rule.

#[allow(dead_code)] // The tests use part of the model; the benchmark uses the rest.
#[path = "../../bench/compare/lockcheck/pausable_lock.rs"]
mod pausable_lock;

use lockcheck_sim::{
    explore, BreadthFirst, DepthFirst, Frontier, Limit, Model, Options, Outcome, Pending, Report,
    RunStart,
};
use lockcheck_sim::{Limits, Stop};
use pausable_lock::{Action, LockState, PausableLock, Pc};
use proptest::prelude::*;
use std::collections::VecDeque;

fn exhaustive() -> Options {
    Options {
        stop: Stop::Never,
        ..Options::default()
    }
}

fn bfs(model: &PausableLock) -> Report<PausableLock> {
    let report = explore(model, &mut BreadthFirst::default(), exhaustive());
    assert_eq!(report.outcome, Outcome::Complete);
    report
}

fn dfs(model: &PausableLock) -> Report<PausableLock> {
    let report = explore(model, &mut DepthFirst::default(), exhaustive());
    assert_eq!(report.outcome, Outcome::Complete);
    report
}

fn violated(report: &Report<PausableLock>) -> bool {
    report
        .property("mutual-exclusion")
        .expect("the model has a mutual-exclusion property")
        .status
        .is_violated()
}

fn small() -> PausableLock {
    PausableLock::new(2, 5, 2, 3, 1, 12, 1)
}

fn medium() -> PausableLock {
    PausableLock::new(3, 6, 2, 3, 1, 16, 2)
}

fn safe_large() -> PausableLock {
    PausableLock::new(4, 8, 3, 4, 0, 24, 2)
}

#[test]
fn small_has_6402_states_and_violates_mutual_exclusion() {
    let report = bfs(&small());
    assert_eq!(report.stats.unique_states, 6_402);
    assert!(violated(&report));
}

#[test]
fn medium_has_481927_states_and_keeps_mutual_exclusion() {
    let report = bfs(&medium());
    assert_eq!(report.stats.unique_states, 481_927);
    assert!(!violated(&report));
}

#[test]
fn safe_large_has_974097_states_and_keeps_mutual_exclusion() {
    let report = bfs(&safe_large());
    assert_eq!(report.stats.unique_states, 974_097);
    assert!(!violated(&report));
}

#[test]
fn depth_first_and_breadth_first_reach_the_same_states() {
    for model in [small(), medium()] {
        let (b, d) = (bfs(&model), dfs(&model));
        assert_eq!(
            b.stats.unique_states,
            d.stats.unique_states,
            "{}",
            model.name()
        );
        assert_eq!(violated(&b), violated(&d), "{}", model.name());
    }
}

#[test]
fn the_breadth_first_counterexample_is_the_shortest_and_ends_with_two_holders() {
    let report = bfs(&small());
    let (name, path) = report.first_violation().expect("small violates");
    assert_eq!(name, "mutual-exclusion");
    assert_eq!(path.last_state().holders(), 2);
    assert_eq!(
        path.labels(),
        [
            "request c1",
            "grant c1 until 5",
            "receive c1 ok",
            "tick -> 1",
            "tick -> 2",
            "pause c1 until 5",
            "tick -> 3",
            "tick -> 4",
            "tick -> 5",
            "request c2",
            "grant c2 until 10",
            "receive c2 ok",
        ]
    );
}

#[test]
fn breadth_first_search_stopping_at_the_first_violation_returns_the_same_shortest_path() {
    let model = small();
    let full = bfs(&model);
    let stopped = explore(&model, &mut BreadthFirst::default(), Options::default());
    assert_eq!(stopped.outcome, Outcome::StoppedAtViolation);
    assert!(stopped.stats.unique_states < full.stats.unique_states);
    let labels = |r: &Report<PausableLock>| r.first_violation().expect("violated").1.labels();
    assert_eq!(labels(&stopped), labels(&full));
}

#[test]
fn a_state_limit_ends_breadth_first_search_as_a_named_outcome() {
    let model = medium();
    let options = Options {
        limits: Limits {
            max_states: Some(10_000),
            ..exhaustive().limits
        },
        ..exhaustive()
    };
    let report = explore(&model, &mut BreadthFirst::default(), options);
    assert_eq!(report.outcome, Outcome::LimitReached(Limit::States));
    assert!(report.stats.unique_states >= 10_000);
    assert!(report.stats.unique_states < 10_100);
}

/// A queue that does not let the explorer look ahead: the reference for breadth-first search.
struct PlainQueue(VecDeque<Pending<LockState>>, bool);

impl Frontier<PausableLock> for PlainQueue {
    type Error = std::convert::Infallible;

    fn next_run(&mut self) -> Option<RunStart> {
        (!std::mem::replace(&mut self.1, true)).then_some(RunStart { seed: None })
    }
    fn push(&mut self, entry: Pending<LockState>) {
        self.0.push_back(entry);
    }
    fn pop(&mut self) -> Option<Pending<LockState>> {
        self.0.pop_front()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

#[test]
fn looking_ahead_in_breadth_first_search_changes_no_statistic_and_no_path() {
    for model in [small(), medium()] {
        for stop in [false, true] {
            let options = || Options {
                stop: if stop {
                    Stop::AtFirstViolation
                } else {
                    Stop::Never
                },
                ..Options::default()
            };
            let ahead = explore(&model, &mut BreadthFirst::default(), options());
            let plain = explore(&model, &mut PlainQueue(VecDeque::new(), false), options());
            assert_eq!(ahead.outcome, plain.outcome);
            assert_eq!(ahead.stats, plain.stats, "{} stop={stop}", model.name());
            let labels = |r: &Report<PausableLock>| r.first_violation().map(|(_, p)| p.labels());
            assert_eq!(labels(&ahead), labels(&plain));
        }
    }
}

/// The spec: with N >= 2, R >= 1, P >= 1 and H >= TTL a violation exists iff
/// TTL <= C + B*P; with B = 0 iff TTL <= C.
fn rule(ttl: u64, c: u64, p: u64, b: u64) -> bool {
    ttl <= c + b * p
}

#[test]
fn the_analytic_rule_decides_a_violation_on_small_configurations() {
    // (N, TTL, C, P, B, H, R)
    let configs = [
        (2, 5, 2, 3, 1, 12, 1),
        (2, 6, 2, 3, 1, 8, 1),
        (2, 5, 1, 2, 2, 6, 1),
        (2, 6, 1, 2, 2, 7, 1),
        (2, 4, 4, 3, 0, 5, 1),
        (2, 4, 3, 3, 0, 6, 2),
        (2, 3, 0, 1, 3, 3, 1),
        (2, 4, 0, 1, 3, 5, 1),
        (3, 4, 1, 3, 1, 4, 1),
        (3, 5, 1, 3, 1, 6, 1),
    ];
    for (n, ttl, c, p, b, h, r) in configs {
        let model = PausableLock::new(n, ttl, c, p, b, h, r);
        let expected = rule(ttl, c, p, b);
        assert_eq!(model.predicted_violation(), Some(expected));
        assert_eq!(violated(&bfs(&model)), expected, "{}", model.name());
    }
}

#[test]
fn a_violation_needs_the_horizon_to_reach_the_expiry() {
    // TTL <= C + B*P, but time stops before the lease can run out.
    let model = PausableLock::new(2, 5, 2, 3, 1, 4, 1);
    assert_eq!(model.predicted_violation(), None);
    assert!(!violated(&bfs(&model)));
}

#[test]
fn one_client_never_violates_mutual_exclusion() {
    let report = bfs(&PausableLock::new(1, 1, 3, 2, 2, 8, 2));
    assert!(!violated(&report));
}

fn step(model: &PausableLock, state: &LockState, action: Action) -> LockState {
    let mut enabled = Vec::new();
    model.actions(state, &mut enabled);
    assert!(
        enabled.contains(&action),
        "{action:?} not enabled in {state:?}"
    );
    model
        .next_state(state, &action)
        .expect("every action changes the state")
}

fn enabled(model: &PausableLock, state: &LockState) -> Vec<Action> {
    let mut out = Vec::new();
    model.actions(state, &mut out);
    out
}

#[test]
fn a_zero_length_pause_at_time_zero_only_spends_budget() {
    let model = PausableLock::new(2, 5, 2, 0, 2, 6, 1);
    let s0 = model.init_states()[0];
    let s1 = step(&model, &s0, Action::Pause(1));
    assert_eq!(s1.pauses_left, 1);
    assert!(s1.client(1).running());
    assert!(enabled(&model, &s1).contains(&Action::Request(1)));
}

#[test]
fn a_zero_length_pause_later_lasts_until_the_next_tick() {
    let model = PausableLock::new(2, 5, 2, 0, 2, 6, 1);
    let s = step(&model, &model.init_states()[0], Action::Tick);
    let paused = step(&model, &s, Action::Pause(1));
    assert!(!paused.client(1).running());
    assert!(!enabled(&model, &paused).contains(&Action::Request(1)));
    let resumed = step(&model, &paused, Action::Tick);
    assert_eq!(resumed.now, 2);
    assert!(resumed.client(1).running());
}

#[test]
fn a_pause_that_ends_after_the_horizon_never_ends() {
    let model = PausableLock::new(2, 5, 2, 4, 1, 3, 1);
    let mut s = model.init_states()[0];
    s = step(&model, &s, Action::Tick);
    s = step(&model, &s, Action::Pause(1));
    assert_eq!(s.client(1).resume, 5);
    while s.now < model.horizon {
        s = step(&model, &s, Action::Tick);
    }
    assert!(!enabled(&model, &s).contains(&Action::Tick));
    assert!(!s.client(1).running());
    assert!(enabled(&model, &s).iter().all(|a| *a != Action::Request(1)));
}

#[test]
fn a_running_holder_past_its_critical_section_blocks_the_tick() {
    let model = PausableLock::new(2, 9, 1, 2, 1, 8, 1);
    let mut s = model.init_states()[0];
    for a in [Action::Request(1), Action::Grant(1), Action::Receive(1)] {
        s = step(&model, &s, a);
    }
    assert_eq!(s.client(1).pc(), Pc::Holding);
    s = step(&model, &s, Action::Tick);
    assert!(!enabled(&model, &s).contains(&Action::Tick));
    // A paused holder does not block time.
    s = step(&model, &s, Action::Pause(1));
    assert!(enabled(&model, &s).contains(&Action::Tick));
}

#[test]
fn the_lease_expires_at_the_tick_that_reaches_it() {
    let model = PausableLock::new(2, 2, 5, 1, 0, 6, 1);
    let mut s = model.init_states()[0];
    for a in [Action::Request(1), Action::Grant(1), Action::Receive(1)] {
        s = step(&model, &s, a);
    }
    assert_eq!((s.owner, s.expiry), (1, 2));
    s = step(&model, &s, Action::Tick);
    assert_eq!(s.owner, 1);
    s = step(&model, &s, Action::Tick);
    assert_eq!((s.owner, s.expiry), (0, 0));
}

#[test]
fn labels_of_one_state_are_distinct_and_readable() {
    let model = small();
    let report = bfs(&model);
    let (_, path) = report.first_violation().expect("small violates");
    for state in &path.states {
        let actions = enabled(&model, state);
        let mut labels: Vec<String> = actions.iter().map(|a| model.label(state, a)).collect();
        labels.sort();
        labels.dedup();
        assert_eq!(labels.len(), actions.len());
    }
    assert_eq!(
        model.label(&model.init_states()[0], &Action::Tick),
        "tick -> 1"
    );
}

#[test]
fn configurations_that_do_not_fit_in_bytes_are_refused() {
    assert!(PausableLock::try_new(0, 5, 2, 3, 1, 12, 1).is_err());
    assert!(PausableLock::try_new(9, 5, 2, 3, 1, 12, 1).is_err());
    assert!(PausableLock::try_new(2, 5, 2, 3, 1, 12, 0).is_err());
    assert!(PausableLock::try_new(2, 200, 2, 3, 1, 56, 1).is_err());
    assert!(PausableLock::try_new(2, 200, 2, 3, 1, 55, 1).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_analytic_rule_holds_on_random_small_configurations(
        ttl in 1u64..=6,
        c in 0u64..=4,
        p in 1u64..=3,
        b in 0u64..=2,
        extra in 0u64..=2,
        r in 1u64..=2,
    ) {
        let model = PausableLock::new(2, ttl, c, p, b, ttl + extra, r);
        let expected = rule(ttl, c, p, b);
        prop_assert_eq!(model.predicted_violation(), Some(expected));
        prop_assert_eq!(violated(&bfs(&model)), expected, "{}", model.name());
    }
}
