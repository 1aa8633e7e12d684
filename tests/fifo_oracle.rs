//! The `fifo` oracle (first come, first served): on Redisson's fair lock waiters are served
//! in the order they came, whenever they come; on the plain `RLock` a later waiter may win;
//! a waiter that gave up keeps no place; and a scenario file asks for it as `kind = "fifo"`.

use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck::scenario::file::scenario_from_toml;
use lockcheck::scenario::{OracleSpec, ProtocolSpec, Scenario};
use proptest::prelude::*;

/// The built-in queue of three (`a` holds 2 s, then `b` and `c` wait) on the fair lock or
/// the plain one, with `b` and `c` starting at `b_ms` and `c_ms`.
fn queue(fair: bool, b_ms: u64, c_ms: u64) -> Scenario {
    let name = if fair {
        "redisson-fair-lock-first-come-first-served"
    } else {
        "redisson-lock-not-first-come-first-served"
    };
    let mut s = builtin::by_name(name).unwrap();
    s.clients[1].workload.start_after_ms = b_ms;
    s.clients[2].workload.start_after_ms = c_ms;
    s.oracles = vec![OracleSpec::Fifo];
    s
}

fn fifo_violated(s: &Scenario) -> bool {
    let checked = check(s, Mode::Exhaustive).unwrap_or_else(|e| panic!("{e}"));
    checked.violated() == Some("fifo")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_fair_lock_serves_waiters_in_the_order_they_came(
        b_ms in 10u64..1_500,
        gap_ms in 1u64..400,
    ) {
        prop_assert!(!fifo_violated(&queue(true, b_ms, b_ms + gap_ms)));
        prop_assert!(fifo_violated(&queue(false, b_ms, b_ms + gap_ms)));
    }
}

#[test]
fn a_waiter_that_gave_up_keeps_no_place() {
    // `b` tries for 300 ms only (tryLock), long before `a` releases: `c` is then first.
    let mut s = queue(false, 100, 200);
    if let ProtocolSpec::Redisson { wait_ms, .. } = &mut s.clients[1].protocol {
        *wait_ms = Some(300);
    }
    assert!(!fifo_violated(&s));
}

#[test]
fn a_scenario_file_asks_for_it_by_name() {
    let text = lockcheck::scenario::to_toml::to_toml(&queue(false, 100, 200));
    assert!(text.contains("kind = \"fifo\""), "{text}");
    let back = scenario_from_toml(&text).unwrap();
    assert_eq!(back.oracles, vec![OracleSpec::Fifo]);
}
