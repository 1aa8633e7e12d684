//! redis-py's default `timeout=None` as a scenario says it: `ttl_ms = "never"` (the
//! default of the redis-py profile) is a key that never expires, refused where the lock
//! needs a TTL; and for every TTL and job length, a holder that dies leaves the lock free
//! within the TTL, while without a TTL it stays taken.

mod common;

use lockcheck::check::{check, Mode};
use lockcheck::scenario::file::scenario_from_toml;
use lockcheck::scenario::kit::{base, client, crash_for_good, node};
use lockcheck::scenario::{OracleSpec, ProtocolSpec, Scenario};
use proptest::prelude::*;
use serde_json::json;

/// One client of one node, with `protocol` as its protocol table.
fn file_with(protocol: &str) -> String {
    format!(
        "name = \"no-ttl\"\ndescription = \"x\"\n[[nodes]]\nname = \"redis\"\n\
         [[clients]]\nname = \"p1\"\n[clients.protocol]\n{protocol}\n\
         [clients.workload]\nlocks = [\"order_lock\"]\nwork_ms = [1000]\n\
         [[oracles]]\nkind = \"me-lock\"\n"
    )
}

fn ttl_of(text: &str) -> Option<u64> {
    let s = scenario_from_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    match s.clients[0].protocol.resolved().clone() {
        ProtocolSpec::SingleNode { ttl_ms, .. } => ttl_ms,
        other => panic!("not the single-node lock: {other:?}"),
    }
}

#[test]
fn never_is_a_key_without_expiry_and_redis_pys_default() {
    let single = "kind = \"single_node\"\nnode = \"redis\"";
    assert_eq!(
        ttl_of(&file_with(&format!("{single}\nttl_ms = \"never\""))),
        None
    );
    assert_eq!(
        ttl_of(&file_with(&format!("{single}\nttl_ms = \"5s\""))),
        Some(5_000)
    );
    let redis_py = "library = \"redis-py\"\nversion = \"8.2\"\nnode = \"redis\"";
    assert_eq!(ttl_of(&file_with(redis_py)), None);
    assert_eq!(
        ttl_of(&file_with(&format!("{redis_py}\nttl_ms = 3000"))),
        Some(3_000)
    );
    // The plain kind still asks for a TTL: leaving it out is a mistake, not "never".
    let e = scenario_from_toml(&file_with(single)).expect_err("no ttl_ms");
    assert!(e.message.contains("ttl_ms"), "{e}");
}

#[test]
fn a_fenced_lock_without_a_ttl_is_refused_naming_the_field() {
    let text = file_with(
        "kind = \"single_node\"\nnode = \"redis\"\nttl_ms = \"never\"\nfencing_counter = \"t\"",
    );
    let e = scenario_from_toml(&text).expect_err("refused");
    assert_eq!(
        e.field.as_deref(),
        Some("clients[0].protocol.ttl_ms"),
        "{e}"
    );
    assert!(e.message.contains("fenced acquire"), "{e}");
}

/// Two redis-py clients; `client-1` works `work_ms` and may die for good; the lock must be
/// free again within the TTL and a retry of its holder's death.
fn holder_dies(ttl_ms: Option<u64>, work_ms: u64) -> Scenario {
    let mut overrides = json!({ "node": "redis" });
    if let Some(ms) = ttl_ms {
        overrides["ttl_ms"] = json!(ms);
    }
    let protocol = ProtocolSpec::library("redis-py", "8.2", overrides);
    Scenario {
        name: "redis-py-holder-dies".into(),
        nodes: vec![node("redis")],
        clients: vec![
            client("client-1", protocol.clone(), &[work_ms], 0),
            client("client-2", protocol, &[100], 100),
        ],
        faults: crash_for_good("client-1"),
        oracles: vec![OracleSpec::Liveness {
            bound_ms: ttl_ms.unwrap_or(3_000) + 600,
        }],
        ..base()
    }
}

fn liveness_violated(s: &Scenario) -> bool {
    let checked = check(s, Mode::Exhaustive).unwrap_or_else(|e| panic!("{e}"));
    let violated = checked.violated() == Some("liveness");
    // Safe only on a complete search: a limit is neither answer.
    assert!(
        violated || common::verdicts::complete(&checked),
        "{:?}",
        checked.report.outcome
    );
    violated
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_dead_holders_lock_is_free_within_its_ttl_and_never_without_one(
        ttl_s in 1u64..=3,
        work_ms in (1u64..=6).prop_map(|k| k * 500),
    ) {
        prop_assert!(!liveness_violated(&holder_dies(Some(ttl_s * 1_000), work_ms)));
        prop_assert!(liveness_violated(&holder_dies(None, work_ms)));
    }
}
