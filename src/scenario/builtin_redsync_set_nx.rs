//! Built-ins of redsync's `WithSetNXOnExtend`: an extension that sets the key again where it
//! is gone (`touchWithSetNXScript`), meant for nodes that restart and lose their keys.
//!
//! The job holds an 8 s lock (redsync's default expiry) on three nodes: it reads the
//! account, works 1 s, extends and debits. Its process pauses 12 s at 500 ms: the keys expire
//! at 8 s, a second client takes the lock at 9 s, reads, debits and releases. When the job
//! resumes its work is over and it extends: the plain extension finds no key of its own and
//! fails, and the job does not debit; the `SET NX` extension sets all three keys again,
//! reports the lock extended, and the job debits from the balance it read before the other
//! client's debit.

use super::kit::{account, base, client, node, pause_at, stepper};
use super::*;
use serde_json::json;

/// The world, with or without `WithSetNXOnExtend`.
fn extend_after_pause(sets_nx: bool) -> Scenario {
    let nodes = ["redis-1", "redis-2", "redis-3"];
    let protocol = ProtocolSpec::library(
        "redsync",
        "4.17",
        json!({ "nodes": nodes, "retry_ms": [200], "extend": { "sets_nx": sets_nx } }),
    );
    let p1 = stepper(
        "p1",
        protocol.clone(),
        0,
        &[
            "acquire order_lock",
            "read",
            "work 1s",
            "extend order_lock",
            "debit",
            "release order_lock",
        ],
    );
    let mut p2 = client("p2", protocol, &[1_000], 9_000);
    p2.workload.uses_account = true;
    Scenario {
        nodes: nodes.iter().map(|n| node(n)).collect(),
        clients: vec![p1, p2],
        network: NetworkSpec {
            delays_ms: vec![1],
            ..NetworkSpec::default()
        },
        faults: pause_at("p1", 12_000, 500),
        account: Some(account(false, false, false)),
        oracles: vec![OracleSpec::MeResource],
        ..base()
    }
}

/// redsync's plain `Extend`: no key of the job's is left, the extension fails.
pub fn redsync_extend_after_pause() -> Scenario {
    Scenario {
        name: "redsync-extend-after-pause".into(),
        description: "redsync's Extend after a 12 s pause past an 8 s lock that another client took, used and released meanwhile: the job's keys are gone, the extension fails, and the job ends without its debit".into(),
        expect: ExpectedVerdict::Safe,
        ..extend_after_pause(false)
    }
}

/// `WithSetNXOnExtend`: the extension sets the expired keys again and succeeds.
pub fn redsync_set_nx_on_extend_after_pause() -> Scenario {
    Scenario {
        name: "redsync-set-nx-on-extend-after-pause".into(),
        description: "the same with WithSetNXOnExtend: the extension sets the three expired keys again with SET NX, reports the lock extended, and the job debits from a balance read before the other client's debit (a lost update)".into(),
        expect: ExpectedVerdict::Violated {
            oracle: "me-resource".into(),
        },
        ..extend_after_pause(true)
    }
}

/// Every built-in of this file.
pub fn all() -> Vec<Scenario> {
    vec![
        redsync_extend_after_pause(),
        redsync_set_nx_on_extend_after_pause(),
    ]
}
