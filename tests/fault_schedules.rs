//! Timed fault schedules in scenarios (`when`, `min_gap_ms`, `max_per_process`): a window
//! decides the verdict and bounds every fault of the counterexample, a pinned fault happens at
//! its instant, the cap per process changes the verdict, and bad timing is refused at load
//! naming the file's line and the field.

use lockcheck::check::{check, Mode};
use lockcheck::oracles::RedisWorld;
use lockcheck::scenario::builtin;
use lockcheck::scenario::file::scenario_from_toml;
use lockcheck::scenario::{FaultWhen, Scenario};
use lockcheck_sim::world::WorldAction;
use lockcheck_sim::Path;

/// Seed 003's incident with instance-a's Full GC allowed only `when`.
fn incident_with_gc(when: FaultWhen) -> Scenario {
    let mut s = builtin::seed_003_incident();
    let gc = s
        .faults
        .pauses
        .iter_mut()
        .find(|p| p.process == "instance-a");
    gc.expect("seed 003 has a GC of instance-a").when = when;
    s
}

fn after_grant(from_ms: u64, to_ms: u64) -> FaultWhen {
    FaultWhen {
        after: Some("instance-a acquires".into()),
        from_ms: Some(from_ms),
        to_ms: Some(to_ms),
        ..FaultWhen::default()
    }
}

/// Each pause of `path`: the process's name and the true time it began.
fn pauses(world: &RedisWorld, path: &Path<RedisWorld>) -> Vec<(String, u64)> {
    let pause = |(i, step): (usize, &lockcheck_sim::Step<RedisWorld>)| match step.action {
        WorldAction::Pause { process, .. } => Some((
            world.process_name(process).to_string(),
            path.states[i].now_ms,
        )),
        _ => None,
    };
    path.steps.iter().enumerate().filter_map(pause).collect()
}

/// The true time at which instance-a first believes it holds the lock on `path`.
fn first_grant_ms(world: &RedisWorld, path: &Path<RedisWorld>) -> u64 {
    let a = world.process_id("instance-a").unwrap();
    let holds = |s: &&lockcheck::oracles::RedisState| {
        s.actor(a)
            .and_then(|p| p.as_client())
            .is_some_and(|c| c.held.iter().any(Option::is_some))
    };
    path.states
        .iter()
        .find(holds)
        .expect("instance-a held the lock")
        .now_ms
}

#[test]
fn a_gc_window_that_misses_the_renewal_keeps_the_debit_safe_and_one_around_it_does_not() {
    let early = check(&incident_with_gc(after_grant(0, 5_000)), Mode::Exhaustive).unwrap();
    assert_eq!(early.violated(), None, "{}", early.report);
    assert!(early.report.is_exhaustive(), "{}", early.report);

    let around = check(
        &incident_with_gc(after_grant(9_000, 11_000)),
        Mode::Exhaustive,
    )
    .unwrap();
    let (oracle, path) = around.violations()[0];
    assert_eq!(oracle, "me-resource");
    let grant = first_grant_ms(&around.world, path);
    let gcs: Vec<u64> = pauses(&around.world, path)
        .into_iter()
        .filter(|(p, _)| p == "instance-a")
        .map(|(_, at)| at)
        .collect();
    assert!(!gcs.is_empty(), "the counterexample needs the GC");
    for at in gcs {
        assert!(
            (grant + 9_000..=grant + 11_000).contains(&at),
            "a GC at {at} ms, the grant at {grant} ms"
        );
    }
}

#[test]
fn a_fault_pinned_to_an_instant_happens_at_that_instant() {
    let mut s = builtin::seed_003_incident();
    let stall = s.faults.pauses.iter_mut().find(|p| p.process == "redis");
    stall.unwrap().when = FaultWhen {
        at_ms: Some(10_002),
        ..FaultWhen::default()
    };
    let checked = check(&s, Mode::Exhaustive).unwrap();
    let (oracle, path) = checked.violations()[0];
    assert_eq!(oracle, "me-resource");
    let stalls: Vec<u64> = pauses(&checked.world, path)
        .into_iter()
        .filter(|(p, _)| p == "redis")
        .map(|(_, at)| at)
        .collect();
    assert_eq!(stalls, [10_002]);
}

#[test]
fn a_cap_of_one_fault_per_process_keeps_back_to_back_gcs_from_happening() {
    let mut s = builtin::seed_003_dense_gc_back_to_back();
    assert_eq!(
        check(&s, Mode::Exhaustive).unwrap().violated(),
        Some("me-resource")
    );
    s.faults.max_per_process = Some(1);
    s.oracles
        .retain(|o| o.definition().name != "renewal-failed");
    let capped = check(&s, Mode::Exhaustive).unwrap();
    assert_eq!(capped.violated(), None, "{}", capped.report);
    assert!(capped.report.is_exhaustive());
}

fn dense_file() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/seed-003-dense-gc.toml"
    );
    std::fs::read_to_string(path).unwrap()
}

/// The dense-GC file with its GC's `when` replaced: refused at `field`, with `words` in the
/// message and a line number.
fn refused_when(when: &str, field: &str, words: &[&str]) {
    let from = r#"durations_ms = ["2.5s", "3.6s"]
when = { after = "instance-a acquires", from_ms = "5s", to_ms = "25s" }"#;
    let text = dense_file();
    assert!(text.contains(from));
    let text = text.replacen(
        from,
        &format!("durations_ms = [\"2.5s\"]\nwhen = {when}"),
        1,
    );
    let e = scenario_from_toml(&text).expect_err("refused");
    assert_eq!(e.field.as_deref(), Some(field), "{e}");
    assert!(e.line.is_some(), "{e}");
    for w in words {
        assert!(e.message.contains(w), "`{w}` not in: {e}");
    }
}

#[test]
fn bad_fault_timing_is_refused_naming_the_field() {
    let field = "faults.pauses[1].when";
    refused_when(
        r#"{ after = "instance-z acquires" }"#,
        &format!("{field}.after"),
        &[
            "does not begin with a client's name",
            "instance-a, instance-b",
        ],
    );
    refused_when(
        r#"{ after = "instance-a eats" }"#,
        &format!("{field}.after"),
        &["`eats` is not an event", "acquires", "gives up"],
    );
    refused_when(
        r#"{ at_ms = "9s", to_ms = "11s" }"#,
        &format!("{field}.at_ms"),
        &["either it or `from_ms`/`to_ms`"],
    );
    refused_when(
        r#"{ from_ms = "12s", to_ms = "11s" }"#,
        &format!("{field}.to_ms"),
        &["ends (11s) before it begins (12s)"],
    );
    refused_when(
        r#"{ form_ms = "12s" }"#,
        &format!("{field}.form_ms"),
        &["unknown field", "from_ms"],
    );
    let text = dense_file().replacen("max_per_process = 4", "max_per_process = 0", 1);
    let e = scenario_from_toml(&text).expect_err("refused");
    assert_eq!(e.field.as_deref(), Some("faults.max_per_process"), "{e}");
    assert!(e.message.contains("allows no fault"), "{e}");
}

#[test]
fn a_window_counted_from_an_event_names_that_event_in_the_model_hash() {
    // Two scenarios that differ only in the event their window counts from are different
    // models: a trace of one does not replay on the other.
    let a = incident_with_gc(after_grant(9_000, 11_000))
        .build()
        .unwrap();
    let mut started = after_grant(9_000, 11_000);
    started.after = Some("instance-a starts".into());
    let b = incident_with_gc(started).build().unwrap();
    use lockcheck_sim::Model;
    assert_ne!(a.model_hash(), b.model_hash());
}

/// `--set` reaches a fault's `when` although the written form leaves it out: "B tries at
/// least 10 s after the partition" on Redlock as documented is the partition pinned to the
/// start and B starting 10 s later; a typo is still refused.
#[test]
fn set_pins_a_fault_that_the_written_form_leaves_free() {
    use lockcheck::scenario::set::{apply_sets, parse_set};
    let sets: Vec<_> = [
        "faults.partitions[0].when.at_ms=0s",
        "clients[1].workload.start_after_ms=10s",
    ]
    .iter()
    .map(|s| parse_set(s).unwrap())
    .collect();
    let s = apply_sets(builtin::kleppmann_clock_jump(), &sets).unwrap();
    assert_eq!(s.faults.partitions[0].when.at_ms, Some(0));
    let checked = check(&s, Mode::Exhaustive).unwrap();
    let (oracle, path) = checked.violations()[0];
    assert_eq!(oracle, "me-lock");
    let partition_at: Vec<u64> = (path.steps.iter().zip(&path.states))
        .filter(|(step, _)| matches!(step.action, WorldAction::Partition { .. }))
        .map(|(_, before)| before.now_ms)
        .collect();
    assert_eq!(partition_at, [0]);

    let typo = parse_set("faults.partitions[0].whne.at_ms=0s").unwrap();
    let e = apply_sets(builtin::kleppmann_clock_jump(), &[typo]).unwrap_err();
    assert!(e.message.contains("has no such field"), "{}", e.message);
}
