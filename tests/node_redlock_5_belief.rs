//! What the business code believes (`belief`): node-redlock 5's `using()` routine sees only
//! its abort signal and believes until it is aborted; a caller that holds the lock believes
//! until its validity passes. The profile picks `until_aborted` with `auto_extension`, the
//! field is refused where there is no signal, and for every pause the signal's belief lasts
//! at least as long as the validity's, so it breaks mutual exclusion wherever the validity's
//! does.

use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck::scenario::file::scenario_from_toml;
use lockcheck::scenario::{OracleSpec, ProtocolSpec, Scenario};
use lockcheck_model::lock::engine::Belief;
use proptest::prelude::*;
use serde_json::json;

/// The built-in's world with `p1` paused `pause_ms` at 5 s, asking about the lock, with
/// `belief` set (`None`: the profile's).
fn paused(pause_ms: u64, belief: Option<&str>) -> Scenario {
    let mut s = builtin::by_name("node-redlock-5-using-believes-through-pause").unwrap();
    s.faults.pauses[0].durations_ms = vec![pause_ms];
    for c in &mut s.clients {
        let mut table = json!({
            "nodes": ["redis-1", "redis-2", "redis-3"],
            "ttl_ms": 5_000,
            "retry_ms": [200],
            "auto_extension": {}
        });
        if let Some(b) = belief {
            table["belief"] = json!(b);
        }
        c.protocol = ProtocolSpec::library("node-redlock", "5.0.0-beta.2", table);
    }
    s.oracles = vec![OracleSpec::MeLock];
    s
}

fn me_lock_violated(s: &Scenario) -> bool {
    let checked = check(s, Mode::Exhaustive).unwrap_or_else(|e| panic!("{e}"));
    checked.violated() == Some("me-lock")
}

#[test]
fn using_believes_until_aborted_and_acquire_until_the_validity() {
    let belief_of = |s: &Scenario| match s.clients[0].protocol.resolved() {
        ProtocolSpec::Redlock { belief, .. } => *belief,
        other => panic!("not Redlock: {other:?}"),
    };
    assert_eq!(belief_of(&paused(6_000, None)), Belief::UntilAborted);
    assert_eq!(
        belief_of(&paused(6_000, Some("validity"))),
        Belief::Validity
    );
    let acquire = builtin::by_name("node-redlock-5-pause-during-acquire").unwrap();
    assert_eq!(
        belief_of(&acquire),
        Belief::Validity,
        "acquire() has no signal"
    );
}

#[test]
fn until_aborted_without_a_signal_is_refused_naming_the_field() {
    let text = r#"name = "b"
description = "x"
[[nodes]]
name = "redis-1"
[[clients]]
name = "p1"
[clients.protocol]
library = "node-redlock"
version = "5.0.0-beta.2"
nodes = ["redis-1"]
ttl_ms = 5000
belief = "until_aborted"
[clients.workload]
locks = ["l"]
work_ms = [100]
[[oracles]]
kind = "me-lock"
"#;
    let e = scenario_from_toml(text).expect_err("refused");
    assert_eq!(
        e.field.as_deref(),
        Some("clients[0].protocol.belief"),
        "{e}"
    );
    assert!(e.message.contains("auto_extension"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_signals_belief_breaks_mutual_exclusion_wherever_the_validitys_does(
        pause_ms in (1u64..=32).prop_map(|k| k * 250),
    ) {
        let by_validity = me_lock_violated(&paused(pause_ms, Some("validity")));
        let by_signal = me_lock_violated(&paused(pause_ms, None));
        prop_assert!(by_signal || !by_validity, "pause {} ms", pause_ms);
        // A pause too short to let the keys expire breaks neither.
        if pause_ms <= 1_000 {
            prop_assert!(!by_signal, "pause {} ms", pause_ms);
        }
    }
}
