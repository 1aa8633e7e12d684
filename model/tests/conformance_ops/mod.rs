//! The random conformance property's generators for lists, sorted sets and the fair
//! lock's scripts.

use super::{bytes, lits, with, Arg, COLLECTION_KEYS, KEYS};
use lockcheck_model::redis::FairScript;
use proptest::prelude::*;

/// List and sorted-set commands in the forms the fair lock's scripts use, and a few beyond
/// (refused by the model as unmodelled, so left out here).
pub fn collection_command() -> impl Strategy<Value = Vec<Arg>> {
    // Lists mostly at q1, sorted sets mostly at q2.
    let pick = |mostly: usize| {
        let picks = [mostly, mostly, mostly, mostly, 1 - mostly, 2];
        proptest::sample::select(picks.to_vec()).prop_map(|i| Arg::Lit(COLLECTION_KEYS[i]))
    };
    let key = || pick(0);
    let zkey = || pick(1);
    let element = || lits(&["a:1", "b:2", "c:3"]);
    let index = || lits(&["0", "1", "-1", "-3", "5", "x"]);
    let start = || lits(&["0", "1", "-3", "x"]);
    let stop = || lits(&["-1", "0", "5", "-5"]);
    let score = || lits(&["0", "5", "-7", "1733212345678", "abc", "9007199254740992"]);
    prop_oneof![
        (key(), proptest::collection::vec(element(), 1..4))
            .prop_map(|(k, es)| with(&["RPUSH"], [vec![k], es].concat())),
        key().prop_map(|k| with(&["LPOP"], vec![k])),
        (key(), index()).prop_map(|(k, i)| with(&["LINDEX"], vec![k, i])),
        (key(), lits(&["x", "1.0"])).prop_map(|(k, i)| with(&["LINDEX"], vec![k, i])),
        (key(), start(), stop()).prop_map(|(k, a, b)| with(&["LRANGE"], vec![k, a, b])),
        (key(), index(), element()).prop_map(|(k, n, e)| with(&["LREM"], vec![k, n, e])),
        (
            zkey(),
            proptest::collection::vec((score(), element()), 1..3)
        )
            .prop_map(|(k, ps)| {
                let pairs = ps.into_iter().flat_map(|(s, e)| [s, e]);
                with(&["ZADD"], [vec![k], pairs.collect()].concat())
            }),
        (zkey(), element()).prop_map(|(k, e)| with(&["ZSCORE"], vec![k, e])),
        (zkey(), proptest::collection::vec(element(), 1..3))
            .prop_map(|(k, es)| with(&["ZREM"], [vec![k], es].concat())),
        (zkey(), score(), element()).prop_map(|(k, s, e)| with(&["ZINCRBY"], vec![k, s, e])),
        (zkey(), start(), stop()).prop_map(|(k, a, b)| with(&["ZRANGE"], vec![k, a, b])),
    ]
}

/// Redisson's fair-lock scripts on lock `k1..3`, queue `q1` and timeouts `q2` (which raw
/// list and sorted-set commands also touch), at client times a few minutes apart.
pub fn fair_script() -> impl Strategy<Value = FairScript> {
    let key = || bytes(&KEYS);
    let lockholder = || bytes(&["a:1", "b:2", "c:3"]);
    let lease = || proptest::sample::select(&[100_000i64, 150_000][..]);
    let wait = || proptest::sample::select(&[300_000i64, 5_000][..]);
    let now = || proptest::sample::select(&[1_000_000i64, 1_004_000, 1_400_000][..]);
    let (queue, timeouts) = (b"q1".to_vec(), b"q2".to_vec());
    let (q, t) = (queue.clone(), timeouts.clone());
    let (q2, t2) = (queue.clone(), timeouts.clone());
    prop_oneof![
        3 => (key(), lockholder(), lease(), wait(), now()).prop_map(
            move |(key, field, lease_ms, wait_ms, now_ms)| FairScript::Acquire {
                key,
                queue: queue.clone(),
                timeouts: timeouts.clone(),
                field,
                lease_ms,
                wait_ms,
                now_ms,
            }
        ),
        2 => (key(), lockholder(), lease(), now()).prop_map(move |(key, field, lease_ms, now_ms)| {
            FairScript::Release {
                key: key.clone(),
                queue: q.clone(),
                timeouts: t.clone(),
                channel: [b"redisson_lock__channel:{".as_slice(), &key, b"}"].concat(),
                field,
                lease_ms,
                now_ms,
            }
        }),
        1 => (lockholder(), wait()).prop_map(move |(field, wait_ms)| FairScript::AcquireFailed {
            queue: q2.clone(),
            timeouts: t2.clone(),
            field,
            wait_ms,
        }),
    ]
}
