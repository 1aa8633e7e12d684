//! The library API for property tests: scenarios built in code, checked, asserted on; a
//! failed assertion carries the timeline and the replay command.

use lockcheck::scenario::ProtocolSpec;
use lockcheck::testing::{self, fault_envelope, single_node_lock, single_node_scenario};
use proptest::prelude::*;

fn fenced(mut s: lockcheck::scenario::Scenario) -> lockcheck::scenario::Scenario {
    s.account.as_mut().unwrap().fencing = true;
    for c in &mut s.clients {
        if let ProtocolSpec::SingleNode {
            fencing_counter, ..
        } = &mut c.protocol
        {
            *fencing_counter = Some("order_lock:token".into());
        }
    }
    s.oracles
        .retain(|o| *o != lockcheck::scenario::OracleSpec::MeLock);
    s
}

#[test]
fn a_scenario_built_in_code_is_checked() {
    testing::check(&single_node_lock("short-pause", 10_000, 1_000, 2_000)).assert_no_violation();
    testing::check(&single_node_lock("long-pause", 10_000, 1_000, 15_000))
        .assert_violated("me-resource");
}

#[test]
fn a_scenario_file_is_checked() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/pause-past-lease.toml"
    );
    let s = testing::load_scenario(path).unwrap();
    testing::check(&s).assert_expected();
}

#[test]
fn a_failed_assertion_shows_the_timeline_and_the_replay_command() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("api-traces");
    std::env::set_var("LOCKCHECK_TRACE_DIR", &dir);
    let s = single_node_lock("api-long-pause", 10_000, 1_000, 15_000);
    let run = testing::check(&s);
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run.assert_no_violation();
    }))
    .expect_err("the assertion fails");
    let msg = panic.downcast_ref::<String>().unwrap();
    assert!(msg.contains("me-resource VIOLATED"), "{msg}");
    assert!(msg.contains("FAULT pause client-1 for 15000 ms"), "{msg}");
    assert!(msg.contains("replay it with: lockcheck replay "), "{msg}");
    let file = msg
        .lines()
        .find_map(|l| l.strip_prefix("trace saved to "))
        .unwrap();
    // The saved trace replays with the binary.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lockcheck"))
        .args(["replay", file])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    /// Fencing protects the account whatever the TTL, work and pause.
    #[test]
    fn fencing_keeps_the_account_safe((_p, s) in single_node_scenario()) {
        let run = testing::check(&fenced(s));
        prop_assert!(run.violated().is_none(), "{}", run.timeline().unwrap_or_default());
    }

    /// A pause past the TTL plus the rival's 2 s retry period always breaks the account
    /// (pause + work >= TTL + 1 ms + retry period + two delays; `tests/analysis_properties.rs`).
    #[test]
    fn a_pause_longer_than_the_ttl_breaks_the_account((p, _s) in single_node_scenario()) {
        let s = single_node_lock("prop-long-pause", p.ttl_ms, p.work_ms, p.ttl_ms + 2_500);
        testing::check(&s).assert_violated("me-resource");
    }

    /// Any fault envelope over the scenario's processes builds, and a check gives a verdict.
    #[test]
    fn fault_envelopes_build(faults in fault_envelope(
        vec!["redis".into(), "client-1".into(), "client-2".into()], 20_000)) {
        let mut s = single_node_lock("prop-envelope", 5_000, 500, 0);
        s.faults = faults;
        s.explore.max_states = 20_000;
        prop_assert!(s.build().is_ok());
        let run = testing::check_random(&s, 5);
        prop_assert!(!run.limit_reached());
    }
}
