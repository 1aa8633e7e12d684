//! Redisson's fair lock as a scenario field (`fair = {}`): the table builds the model's fair
//! lock with `threadWaitTime`, a profile takes it as an override, bad values are refused
//! naming the field, and a waiter that dies in the queue holds the free lock up for its
//! whole timeout where the plain `RLock` hands it on (the scenario file is compared with
//! its built-in in `scenario_files.rs`).

mod common;

use common::verdicts::exhaustive;
use lockcheck::model::lock::redisson::FairLock;
use lockcheck::model::lock::Protocol;
use lockcheck::model::process::Process;
use lockcheck::scenario::file::scenario_from_toml;
use lockcheck_sim::Outcome;

/// One Redisson client on one node whose protocol table is `protocol`.
fn file_with(protocol: &str) -> String {
    format!(
        r#"name = "fair"
description = "a fair lock"

[[nodes]]
name = "redis"

[[clients]]
name = "c"
[clients.protocol]
node = "redis"
{protocol}
[clients.workload]
locks = ["order_lock"]
work_ms = [1000]

[[oracles]]
kind = "me-lock"
"#
    )
}

/// The built client's fair lock, or the error as `field: message`.
fn fair_of(protocol: &str) -> Result<Option<FairLock>, String> {
    let world = scenario_from_toml(&file_with(protocol))
        .map_err(|e| format!("{}: {}", e.field.clone().unwrap_or_default(), e.message))?
        .build()
        .map_err(|e| format!("{}: {}", e.field, e.message))?;
    let client = world.processes.iter().find(|p| p.name == "c").unwrap();
    match &client.actor {
        Process::Client(c) => match &c.protocol {
            Protocol::Redisson(r) => Ok(r.fair),
            other => Err(format!("not Redisson: {other:?}")),
        },
        _ => Err("not a client".into()),
    }
}

#[test]
fn fair_builds_the_fair_lock_with_its_thread_wait_time() {
    assert_eq!(fair_of("kind = \"redisson\""), Ok(None));
    assert_eq!(
        fair_of("kind = \"redisson\"\nfair = {}"),
        Ok(Some(FairLock::REDISSON))
    );
    assert_eq!(
        fair_of("kind = \"redisson\"\nfair = { thread_wait_ms = \"10s\" }"),
        Ok(Some(FairLock {
            thread_wait_ms: 10_000
        }))
    );
    assert_eq!(
        fair_of("library = \"redisson\"\nversion = \"3.17\"\nfair = {}"),
        Ok(Some(FairLock::REDISSON)),
        "a profile takes it as an override"
    );
}

#[test]
fn bad_fair_tables_are_refused_naming_the_field() {
    let zero = fair_of("kind = \"redisson\"\nfair = { thread_wait_ms = 0 }").unwrap_err();
    assert!(
        zero.starts_with("clients[0].protocol.fair.thread_wait_ms"),
        "{zero}"
    );
    let unknown = fair_of("kind = \"redisson\"\nfair = { wait_ms = 5 }").unwrap_err();
    assert!(unknown.contains("fair"), "{unknown}");
    assert!(unknown.contains("thread_wait_ms"), "{unknown}");
}

#[test]
fn a_dead_waiter_holds_up_a_fair_lock_for_its_whole_timeout_and_not_an_rlock() {
    let fair = exhaustive("redisson-fair-lock-dead-waiter");
    assert_eq!(fair.violated(), Some("progress"));
    // The live waiter takes the lock only once the dead one's place timed out: its queue
    // timeout was the lock's PTTL (29.9 s) + threadWaitTime (300 s) after it queued.
    let (_, path) = fair.violations()[0];
    let end_ms = path.states.last().unwrap().now_ms;
    assert!((329_000..331_000).contains(&end_ms), "{end_ms}");
    let plain = exhaustive("redisson-lock-dead-waiter");
    assert_eq!(plain.violated(), None);
    assert_eq!(plain.report.outcome, Outcome::Complete);
}
