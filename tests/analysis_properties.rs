//! Model verdicts against analysis, over random parameters (proptest).
//!
//! Single node, one pause P of the first holder at the worst moment (just before its work of
//! W ms ends), TTL on the node, message delay d, the rival retrying every R ms. The node
//! grants the key at `d`; Redis keeps a key through its deadline millisecond, so the rival's
//! `SET NX` can succeed from node time `d + TTL + 1` and it believes from `2d + TTL + 1`
//! at the earliest; the holder believes until `2d + W + P`. So mutual exclusion breaks iff
//! `P + W >= TTL + 1`, up to the rival's retry period `2d + R` (it only asks that often).
//! The property checks both sides of that band exhaustively.

use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck::scenario::{Expected, FaultsSpec, NetworkSpec, OracleSpec, PauseSpec, ProtocolSpec};
use proptest::prelude::*;

fn single_node_pause(
    ttl_ms: u64,
    work_ms: u64,
    pause_ms: u64,
    delay_ms: u64,
    retry_ms: u64,
) -> bool {
    let mut s = builtin::seed_000_single_node();
    s.network = NetworkSpec {
        delays_ms: vec![delay_ms],
        ..NetworkSpec::default()
    };
    for c in &mut s.clients {
        c.workload.work_ms = vec![work_ms];
        c.workload.start_after_ms = 0;
        let ProtocolSpec::SingleNode {
            ttl_ms: ttl,
            retry_ms: retry,
            ..
        } = &mut c.protocol
        else {
            unreachable!("the seed scenario is single-node")
        };
        (*ttl, *retry) = (ttl_ms, retry_ms);
    }
    s.faults = FaultsSpec {
        pauses: vec![PauseSpec {
            process: "service-a".into(),
            durations_ms: vec![pause_ms],
        }],
        max_pauses: 1,
        ..FaultsSpec::default()
    };
    s.oracles = vec![OracleSpec::MeLock];
    s.expect = Expected::Safe;
    let checked = check(&s, Mode::Exhaustive).unwrap();
    assert!(checked.report.is_exhaustive() || checked.violated().is_some());
    checked.violated() == Some("me-lock")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn single_node_breaks_exactly_when_pause_plus_work_outlasts_the_ttl(
        ttl_ms in 5u64..60,
        work_ms in 1u64..30,
        pause_ms in 1u64..80,
        delay_ms in 0u64..3,
        retry_ms in 1u64..4,
    ) {
        prop_assume!(work_ms < ttl_ms);
        let violated = single_node_pause(ttl_ms, work_ms, pause_ms, delay_ms, retry_ms);
        let period = 2 * delay_ms + retry_ms;
        if pause_ms + work_ms <= ttl_ms {
            prop_assert!(!violated, "P + W <= TTL must be safe");
        }
        if pause_ms + work_ms >= ttl_ms + 1 + period {
            prop_assert!(violated, "P + W >= TTL + 1 + retry period must break");
        }
    }
}

#[test]
fn single_node_boundary_is_exact_with_instant_messages_and_millisecond_retries() {
    // d = 0, R = 1: the rival asks every millisecond: safe at P + W = TTL, broken at
    // P + W = TTL + 1 (the key lives through its deadline millisecond, as in Redis).
    assert!(!single_node_pause(20, 5, 15, 0, 1));
    assert!(single_node_pause(20, 5, 16, 0, 1));
}
