//! The `why` block of a violation lists the events it depends on, in order, and names the
//! mechanism: for a Redisson 3.17 watchdog that stops after a GC-delayed renewal, a Redlock
//! node whose clock jumps, a plain `DEL` of another owner's key, a failover that loses an
//! unreplicated grant, a lock its crashed holder keeps past a liveness bound. Routine steps
//! the violation does not depend on (another holder's renewals, failed retries, Sentinel's
//! pings) and faults that came too late to matter are not in it.

use lockcheck::check::{check, Mode};
use lockcheck::report::why::{why, Why};
use lockcheck::scenario::builtin;

/// The `why` of the first violation `mode` finds in built-in `name`, with every label of
/// its counterexample.
fn why_of(name: &str, mode: Mode) -> (Why, Vec<String>) {
    let scenario = builtin::by_name(name).expect("a built-in");
    let checked = check(&scenario, mode).expect("builds");
    let (_, path) = checked.report.first_violation().expect("violates");
    let labels = path.steps.iter().map(|s| s.label.clone()).collect();
    (why(&checked.world, path, path.steps.len()), labels)
}

fn labels(why: &Why) -> Vec<&str> {
    why.events.iter().map(|e| e.label.as_str()).collect()
}

/// The `why` of the first violation of the scenario file `file` under `scenarios/`.
fn why_of_file(file: &str) -> Why {
    let path = format!("{}/scenarios/{file}", env!("CARGO_MANIFEST_DIR"));
    let scenario = lockcheck::scenario::file::load_scenario(&path).expect("loads");
    let checked = check(&scenario, Mode::Exhaustive).expect("builds");
    let (_, path) = checked.report.first_violation().expect("violates");
    why(&checked.world, path, path.steps.len())
}

/// `why` lists exactly `expected`, in order, in at most 15 lines with its mechanism; each
/// of `absent` is in the counterexample but not in the list.
fn assert_lists(why: &Why, run: &[String], expected: &[&str], absent: &[&str]) {
    assert_eq!(labels(why), expected, "{:#?}", why.lines(false));
    let lines = why.lines(false);
    assert!(lines.len() <= 15, "{} lines: {lines:#?}", lines.len());
    for label in absent {
        assert!(run.iter().any(|l| l == label), "{label} is not in the run");
        assert!(!labels(why).contains(label), "{label} is in {lines:#?}");
    }
}

#[test]
fn a_redisson_3_17_watchdog_stopped_by_a_gc_after_a_redis_stall() {
    let (why, run) = why_of("seed-003-incident", Mode::Exhaustive);
    let expected = [
        "deliver instance-a -> redis: EVAL redisson-acquire account:lock:10086 30000 instance-a:1",
        "deliver redis -> instance-a: nil",
        "pause redis for 200 ms",
        "deliver instance-a -> redis: EVAL redisson-renew account:lock:10086 30000 instance-a:1",
        "pause instance-a for 2900 ms",
        "timer instance-a: request 1025 timed out (lock 0)",
        "deliver instance-b -> redis: EVAL redisson-acquire account:lock:10086 30000 instance-b:1",
        "deliver redis -> instance-b: nil",
        "deliver instance-a -> account: debit 10 for op 0 (read balance 100)",
        "deliver instance-b -> account: debit 10 for op 0 (read balance 100)",
    ];
    // instance-b's own renewals while it works, and its answers while it waited.
    let absent = [
        "deliver instance-b -> redis: EVAL redisson-renew account:lock:10086 30000 instance-b:1",
        "deliver redis -> instance-b: (integer) 29900",
        "deliver account -> instance-a: debited",
    ];
    assert_lists(&why, &run, &expected, &absent);
    assert_eq!(why.mechanisms.len(), 1, "{:?}", why.mechanisms);
    let m = &why.mechanisms[0];
    assert!(
        m.starts_with("instance-a's renewal failed at t=13.102 s"),
        "{m}"
    );
    assert!(
        m.contains("stops the watchdog for good after a failed renewal"),
        "{m}"
    );
    assert!(
        m.contains("instance-b took account:lock:10086 at t=40.204 s"),
        "{m}"
    );
}

#[test]
fn a_redlock_node_whose_clock_jumps() {
    let (why, run) = why_of("seed-000-redlock-clock-drift", Mode::Exhaustive);
    let expected = [
        "partition p1-remote for 5000 ms",
        "deliver p1 -> redis-1: SET order_lock p1 NX PX 30000",
        "deliver p1 -> redis-2: SET order_lock p1 NX PX 30000",
        "deliver p1 -> redis-3: SET order_lock p1 NX PX 30000",
        "step clock of redis-3 by +30000 ms",
        "timer p1: requests timed out (lock 0)",
        "deliver p2 -> redis-3: SET order_lock p2 NX PX 30000",
        "deliver p2 -> redis-4: SET order_lock p2 NX PX 30000",
        "deliver p2 -> redis-5: SET order_lock p2 NX PX 30000",
        "deliver redis-5 -> p2: OK",
    ];
    // p2's refused votes, and the reads p1 made as holder.
    let absent = [
        "deliver redis-1 -> p2: nil",
        "deliver p1 -> account: read account for op 0",
    ];
    assert_lists(&why, &run, &expected, &absent);
    assert_eq!(
        why.mechanisms,
        ["the clock of redis-3 jumped +30.000 s at t=0.005 s: p1's key order_lock there expired \
          early by true time, and p2 took it at t=6.005 s while p1's validity, computed on its \
          own clock, still ran"]
    );
}

#[test]
fn a_plain_del_of_another_owners_key() {
    let (why, run) = why_of("single-node-plain-del-late-unlock", Mode::Exhaustive);
    let expected = [
        "deliver client-1 -> redis: SET order_lock client-1 NX PX 10000",
        "deliver redis -> client-1: OK",
        "timer client-1: work done",
        "delay client-1 -> redis: DEL order_lock by 12000 ms",
        "deliver client-2 -> redis: SET order_lock client-2 NX PX 10000",
        "deliver redis -> client-2: OK",
        "deliver client-1 -> redis: DEL order_lock",
        "deliver client-3 -> redis: SET order_lock client-3 NX PX 10000",
        "deliver redis -> client-3: OK",
    ];
    // The refused attempts of client-2 and client-3 before they got the lock.
    let absent = [
        "deliver redis -> client-2: nil",
        "deliver redis -> client-3: nil",
    ];
    assert_lists(&why, &run, &expected, &absent);
    assert_eq!(
        why.mechanisms,
        [
            "client-1's plain DEL order_lock at t=17.002 s deleted client-2's key on redis: a DEL \
          does not check who owns the lock"
        ]
    );
}

#[test]
fn a_failover_that_loses_an_unreplicated_grant() {
    let (why, run) = why_of("failover-loses-lock", Mode::Exhaustive);
    let expected = [
        "partition old-master for good",
        "deliver client-1 -> redis-1: SET order_lock client-1 NX PX 30000",
        "deliver redis-1 -> client-1: OK",
        "timer sentinel: sentinel check",
        "deliver sentinel -> redis-2: REPLICAOF NO ONE (epoch 1)",
        "deliver client-2 -> redis-2: SET order_lock client-2 NX PX 30000",
        "deliver redis-2 -> client-2: OK",
    ];
    let absent = [
        "deliver sentinel -> redis-2: ping",
        "deliver redis-2 -> sentinel: pong (replica, offset 0)",
        "timer client-2: request 1 timed out (lock 0)",
    ];
    assert_lists(&why, &run, &expected, &absent);
    assert_eq!(
        why.mechanisms,
        [
            "redis-2 was promoted to master at t=6.001 s without client-1's order_lock, which \
          redis-1 granted at t=0.003 s and never replicated: the failover lost the lock"
        ]
    );
}

#[test]
fn a_lease_that_ran_out_during_a_pause() {
    let (why, _) = why_of("kleppmann-pause-past-lease", Mode::Exhaustive);
    assert_eq!(
        why.mechanisms,
        [
            "client-1's lease on order_lock ran out at t=10.110 s during its pause (0.002 s to \
          15.002 s); client-2 took the lock at t=10.111 s, and client-1 went on as holder when \
          it woke"
        ]
    );
    assert!(labels(&why).contains(&"pause client-1 for 15000 ms"));
}

/// Seed 1's walk through seed 003's dense GC period stalls Redis after the renewal has
/// already timed out: that stall is in the run, and not in what the violation depends on.
#[test]
fn a_fault_after_the_cause_is_left_out() {
    let (why, run) = why_of("seed-003-dense-gc", Mode::Random { first: 1, count: 1 });
    assert!(
        run.iter().any(|l| l == "pause redis for 200 ms"),
        "{run:#?}"
    );
    let faults: Vec<&str> = why
        .events
        .iter()
        .filter(|e| e.fault)
        .map(|e| e.label.as_str())
        .collect();
    assert_eq!(
        faults,
        ["pause instance-a for 3600 ms"],
        "{:#?}",
        why.lines(false)
    );
    assert!(why.mechanisms[0].contains("stops the watchdog for good"));
}

/// A holder's renewals fold into one line with their count; in full, each is a line.
#[test]
fn renewals_fold_unless_asked_in_full() {
    let (why, _) = why_of("aof-stall-power-loss", Mode::Exhaustive);
    let renew = "deliver p1 -> redis: EVAL compare-and-pexpire order_lock p1 3000";
    let renewals = labels(&why).iter().filter(|l| **l == renew).count();
    assert!(renewals >= 3, "{:#?}", why.lines(true));
    let folded: Vec<String> = why.lines(false);
    let with_renew: Vec<&String> = folded.iter().filter(|l| l.contains(renew)).collect();
    assert_eq!(with_renew.len(), 1, "{folded:#?}");
    assert!(
        with_renew[0].ends_with(&format!(
            "({renewals} times from t={} ms; --full lists each)",
            why.events.iter().find(|e| e.label == renew).unwrap().at_ms
        )),
        "{}",
        with_renew[0]
    );
    let full = why.lines(true);
    assert_eq!(full.iter().filter(|l| l.ends_with(renew)).count(), renewals);
    assert_eq!(full.len(), folded.len() + renewals - 1);
}

/// A liveness bound that runs out depends on the key still held and on its holder's crash.
#[test]
fn a_lock_held_by_a_crashed_holder_until_the_bound_runs_out() {
    let (why, _) = why_of("redisson-five-minute-job-lease-crash", Mode::Exhaustive);
    assert_eq!(
        labels(&why),
        [
            "crash instance-a, no restart",
            "deliver instance-a -> redis: EVAL redisson-acquire order_lock 600000 instance-a:1",
            "advance to 600002 ms",
        ]
    );
}

/// node-redlock computes its validity on `Date.now()`: the holder's wall clock stepping back
/// after it acquired is in the list, with the mechanism.
#[test]
fn a_validity_computed_from_a_stepped_client_clock() {
    let why = why_of_file("node-redlock-wall-clock-step.toml");
    let step = why
        .events
        .iter()
        .position(|e| e.label == "step clock of p1 by -8000 ms");
    let acquired = why
        .events
        .iter()
        .position(|e| e.label == "deliver redis-3 -> p1: OK");
    assert!(
        step > acquired && acquired.is_some(),
        "{:#?}",
        why.lines(false)
    );
    assert_eq!(
        why.mechanisms,
        ["p1's clock stepped -8.000 s at t=0.002 s: the validity p1 computes from that clock no \
          longer matches the keys' TTLs on the nodes"]
    );
}
