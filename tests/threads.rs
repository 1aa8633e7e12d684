//! Threads of one process: a redis-py `Lock` shared by threads with `thread_local=False`
//! shares its token (a late release presents another thread's token and deletes its lock),
//! with the default thread-local token it never does, whatever the timing; Redisson's holder
//! is `process:thread`; and what threads cannot be is refused naming the file, line and
//! field.

mod common;

use common::{assert_bad_input, lockcheck_within, workdir};
use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck::scenario::Scenario;
use proptest::prelude::*;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// The deletes of `job_lock` a counterexample of `s` sends, as `(client, token)`.
fn deletes(s: &Scenario) -> Option<Vec<(String, String)>> {
    let checked = check(s, Mode::Exhaustive).unwrap_or_else(|e| panic!("{e}"));
    let (_, path) = checked.violations().into_iter().next()?;
    Some(
        path.steps
            .iter()
            .filter_map(|st| {
                let rest = st.label.strip_prefix("deliver ")?;
                let (from, cmd) =
                    rest.split_once(" -> redis: EVAL compare-and-delete job_lock ")?;
                Some((from.to_string(), cmd.to_string()))
            })
            .collect(),
    )
}

#[test]
fn a_shared_token_releases_the_lock_of_the_thread_that_took_it() {
    let shared = builtin::by_name("redis-py-shared-token-releases-another-thread-s-lock").unwrap();
    let d = deletes(&shared).expect("a counterexample");
    assert!(
        d.contains(&("thread-1".into(), "thread-2".into())),
        "thread-1 presents thread-2's token: {d:?}"
    );
    let own = builtin::by_name("redis-py-thread-local-token-keeps-the-lock").unwrap();
    assert_eq!(deletes(&own), None, "safe with the thread-local token");
}

/// The built-ins' three clients with thread-1 working `t1_work_ms` past its lock's 5 s
/// timeout or not, thread-2 from `t2_start_ms` for `t2_work_ms`, client-3 from
/// `c3_start_ms`; the account users' work is shorter than the timeout, so only a release
/// presenting another thread's token can let two of them hold at once.
fn timed(
    thread_local: bool,
    t1_work_ms: u64,
    t2_start_ms: u64,
    t2_work_ms: u64,
    c3_start_ms: u64,
) -> Scenario {
    let name = if thread_local {
        "redis-py-thread-local-token-keeps-the-lock"
    } else {
        "redis-py-shared-token-releases-another-thread-s-lock"
    };
    let mut s = builtin::by_name(name).unwrap();
    s.clients[0].workload.steps[1] = format!("work {t1_work_ms}ms");
    s.clients[1].workload.start_after_ms = t2_start_ms;
    s.clients[1].workload.steps[2] = format!("work {t2_work_ms}ms");
    s.clients[2].workload.start_after_ms = c3_start_ms;
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn only_a_shared_token_lets_another_thread_s_release_break_the_lock(
        t1_work_ms in 1_000u64..9_000,
        t2_start_ms in 100u64..4_000,
        t2_work_ms in 500u64..3_000,
        c3_after_ms in 0u64..4_000,
    ) {
        let c3_start_ms = t2_start_ms + c3_after_ms;
        let own = timed(true, t1_work_ms, t2_start_ms, t2_work_ms, c3_start_ms);
        prop_assert_eq!(deletes(&own), None);
        let shared = timed(false, t1_work_ms, t2_start_ms, t2_work_ms, c3_start_ms);
        if let Some(d) = deletes(&shared) {
            prop_assert!(d.iter().any(|(from, token)| from != token), "{:?}", d);
        }
    }
}

/// The shared-token built-in as a scenario file.
fn file_text() -> String {
    let s = builtin::by_name("redis-py-shared-token-releases-another-thread-s-lock").unwrap();
    lockcheck::scenario::to_toml::to_toml(&s)
}

fn refused(name: &str, text: &str, expected: &[&str]) {
    let dir = workdir(name);
    std::fs::write(dir.join("bad.toml"), text).unwrap();
    let out = lockcheck_within(&dir, &["check", "bad.toml"], LIMIT);
    assert_bad_input(&out, expected);
}

#[test]
fn what_threads_cannot_be_is_refused_with_its_field() {
    let text = file_text();
    assert!(text.contains("process = \"worker\""), "{text}");
    refused(
        "threads-no-process",
        &text.replacen("process = \"worker\"", "thread = \"t1\"", 1),
        &["clients[0].thread", "belongs to a process"],
    );
    refused(
        "threads-object-alone",
        &text.replacen("process = \"worker\"\nlock_object", "lock_object", 1),
        &["clients[0].lock_object", "give `process` too"],
    );
    let lone = text.replacen("lock_object = \"job_lock\"", "lock_object = \"other\"", 1);
    refused(
        "threads-lone-shared-token",
        &lone,
        &["clients[0].protocol.thread_local", "none does"],
    );
    refused(
        "threads-empty-process",
        &text.replacen("process = \"worker\"", "process = \" \"", 1),
        &["clients[0].process", "cannot be empty"],
    );
}

#[test]
fn threads_share_one_clock_and_no_partition_separates_them() {
    let mut s = builtin::by_name("redis-py-shared-token-releases-another-thread-s-lock").unwrap();
    s.clients[1].clock.drift_ppm = 1_000;
    let e = s.build().err().expect("refused");
    assert_eq!(e.field, "clients[0].clock");
    assert!(e.message.contains("read one clock"), "{}", e.message);

    let mut s = builtin::by_name("redis-py-shared-token-releases-another-thread-s-lock").unwrap();
    s.faults
        .partitions
        .push(lockcheck::scenario::PartitionSpec {
            name: "split".into(),
            side_a: vec!["thread-1".into(), "redis".into()],
            side_b: vec!["thread-2".into()],
            one_way: false,
            durations_ms: vec![Some(1_000)],
            when: Default::default(),
        });
    s.faults.max_partitions = 1;
    let e = s.build().err().expect("refused");
    assert_eq!(e.field, "faults.partitions[0]");
    assert!(e.message.contains("talk through memory"), "{}", e.message);
}

#[test]
fn a_lock_object_is_the_single_node_lock_s() {
    let mut s = builtin::by_name("redisson-shared-thread").unwrap();
    s.clients[0].lock_object = Some("job".into());
    let e = s.build().err().expect("refused");
    assert_eq!(e.field, "clients[0].lock_object");
}

#[test]
fn redisson_s_holder_is_the_process_and_the_thread() {
    let s = builtin::by_name("redisson-shared-thread").unwrap();
    let checked = check(&s, Mode::Exhaustive).unwrap();
    let (_, path) = checked
        .violations()
        .into_iter()
        .next()
        .expect("two holders");
    assert!(
        path.steps
            .iter()
            .any(|st| st.label.contains("app-1:pool-1")),
        "the field is process:thread"
    );
    let own = builtin::by_name("redisson-own-threads").unwrap();
    assert_eq!(check(&own, Mode::Exhaustive).unwrap().violated(), None);
}

#[test]
fn the_why_block_tells_the_token_story() {
    let dir = workdir("threads-why");
    let out = lockcheck_within(
        &dir,
        &[
            "check",
            "redis-py-shared-token-releases-another-thread-s-lock",
        ],
        LIMIT,
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let why = out.stdout.split("why (").nth(1).expect("a why block");
    let why = why.split("\n\n").next().unwrap();
    assert!(
        why.contains("deliver thread-2 -> thread-1: lock object: token of job_lock is thread-2"),
        "{why}"
    );
    assert!(
        !why.contains("token of job_lock is thread-1"),
        "a token nobody presented is no cause: {why}"
    );
    assert!(
        why.contains("thread-1's release at t=6.003 s presented thread-2's token and deleted thread-2's key job_lock on redis: thread-1 and thread-2 share one lock object"),
        "{why}"
    );
}

#[test]
fn a_pause_of_the_process_stops_its_renewer_thread_too() {
    let s = builtin::by_name("redis-py-renewer-thread-paused-with-its-process").unwrap();
    let checked = check(&s, Mode::Exhaustive).unwrap();
    assert_eq!(checked.violated(), Some("me-resource"));
    let (_, path) = checked.violations().into_iter().next().unwrap();
    assert!(path
        .steps
        .iter()
        .any(|st| st.label == "pause worker with renewer for 7000 ms"));

    // Paused alone, the worker keeps its lock: the renewer renews it through the pause.
    let mut world = s.build().unwrap();
    assert_eq!(world.faults.shared_fate.len(), 1);
    world.faults.shared_fate.clear();
    let options = lockcheck::sim::Options {
        stop: lockcheck::sim::Stop::Never,
        ..lockcheck::sim::Options::default()
    };
    let report = lockcheck::sim::explore(
        &world,
        &mut lockcheck::sim::BreadthFirst::default(),
        options,
    );
    assert!(report.first_violation().is_none(), "{report}");
    assert!(report.is_exhaustive());

    // Without a shared lock object, extending a lock the round does not hold is refused.
    let mut lone = s.clone();
    for c in 0..2 {
        lone.clients[c].protocol = lone.clients[2].protocol.clone(); // thread_local = true
    }
    let e = lone.build().err().expect("refused");
    assert_eq!(e.field, "clients[1].workload.steps[1]");
    assert!(
        e.message.contains("does not hold `job_lock` here"),
        "{}",
        e.message
    );
}
