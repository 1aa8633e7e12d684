//! redsync's `WithSetNXOnExtend` (`[clients.protocol.extend] sets_nx = true`): the extension
//! sets a missing key again. After a pause past the lock, the plain extension fails whatever
//! happened meanwhile; the `SET NX` one succeeds, and breaks the account exactly when the
//! other client has read and debited in between (not while it still holds the keys, nor
//! before it came).

use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck::scenario::Scenario;
use proptest::prelude::*;

/// The built-in world, with or without the option, `p1` paused `pause_ms` at 500 ms.
fn paused(sets_nx: bool, pause_ms: u64) -> Scenario {
    let name = if sets_nx {
        "redsync-set-nx-on-extend-after-pause"
    } else {
        "redsync-extend-after-pause"
    };
    let mut s = builtin::by_name(name).unwrap();
    s.faults.pauses[0].durations_ms = vec![pause_ms];
    s
}

fn damaged(s: &Scenario) -> bool {
    let checked = check(s, Mode::Exhaustive).unwrap_or_else(|e| panic!("{e}"));
    checked.violated() == Some("me-resource")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn set_nx_breaks_the_account_exactly_when_the_other_client_wrote_in_between(
        halves in 1u64..=40,
    ) {
        let pause_ms = halves * 500;
        prop_assert!(!damaged(&paused(false, pause_ms)), "plain, pause {} ms", pause_ms);
        // The other client takes the lock at 9 s and has debited and released by 10.01 s;
        // the job resumes at 500 ms + the pause.
        let wrote_in_between = 500 + pause_ms > 10_010;
        prop_assert_eq!(damaged(&paused(true, pause_ms)), wrote_in_between, "set nx, pause {} ms", pause_ms);
    }
}

/// A world's model hash names its extension rules (a saved trace of one does not replay on
/// the other as if it were its own): redsync's with and without `sets_nx`, and node-redlock
/// 4's in the same world, all differ; a world with redsync's default rules keeps the hash it
/// had before the rules were named.
#[test]
fn the_model_hash_names_the_extension_rules() {
    use lockcheck_sim::Model;
    let hash = |s: &Scenario| s.build().unwrap().model_hash();
    let plain = paused(false, 12_000);
    let set_nx = paused(true, 12_000);
    let mut node_redlock_4 = plain.clone();
    let mut protocol = plain.clients[0].protocol.resolved().clone();
    if let lockcheck::scenario::ProtocolSpec::Redlock { extend, .. } = &mut protocol {
        *extend = lockcheck_model::lock::redlock::ExtendRules::NODE_REDLOCK_4;
    }
    node_redlock_4.clients[0].protocol = protocol;
    let hashes = [hash(&plain), hash(&set_nx), hash(&node_redlock_4)];
    assert_ne!(hashes[0], hashes[1]);
    assert_ne!(hashes[0], hashes[2]);
    assert_ne!(hashes[1], hashes[2]);
}
