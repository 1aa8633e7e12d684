//! `explain`'s chart draws the causes of a violation: for seed 000's Redlock with a clock
//! jump, the jump with its size, the partition, the key the jump expired early with its TTL
//! by true time, the events the violation depends on, thin arrows for deliveries that
//! changed nothing, and an overlap with a width; the list of causes is the `why` block's, with
//! no renewal the violation does not need.

use lockcheck::check::{check, Mode};
use lockcheck::report::explained;
use lockcheck::scenario::builtin;

fn clock_drift_chart() -> (lockcheck::report::swimlane::Chart, usize, usize) {
    let scenario = builtin::by_name("seed-000-redlock-clock-drift").expect("a built-in");
    let checked = check(&scenario, Mode::Exhaustive).expect("builds");
    let (oracle, path) = checked.report.first_violation().expect("violates");
    let steps = path.steps.len();
    let (chart, continued) = explained::chart(
        &checked.world,
        path.clone(),
        &scenario.name,
        "",
        Some(oracle),
    );
    (chart, steps, continued.steps.len())
}

#[test]
fn the_clock_jump_and_the_partition_are_drawn() {
    let (chart, _, _) = clock_drift_chart();
    let steps: Vec<&str> = chart
        .causes
        .marks
        .iter()
        .filter(|m| m.kind == "clock-step")
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(steps, ["clock of redis-3 steps +30.000 s"]);
    assert_eq!(chart.causes.cuts.len(), 1);
    let cut = &chart.causes.cuts[0];
    assert_eq!((cut.from_ms, cut.to_ms), (0, 5_000));
    let names: Vec<&str> = cut
        .lanes
        .iter()
        .map(|&l| chart.lanes[l].0.as_str())
        .collect();
    assert_eq!(names, ["redis-4", "redis-5", "p1"]);
    // redis-3's key for p1 ends at the jump by its clock, 30 s later by true time.
    let early: Vec<_> = chart.causes.true_time_keys.iter().collect();
    assert_eq!(early.len(), 1, "{early:?}");
    assert_eq!(early[0].key_text, "order_lock = p1");
    assert_eq!(chart.lanes[early[0].lane].0, "redis-3");
    assert_eq!(early[0].to_ms - early[0].by_clock_ms, 30_000);
}

#[test]
fn the_violation_depends_on_the_faults_and_the_acquisitions() {
    let (chart, _, _) = clock_drift_chart();
    let labels: Vec<&str> = chart
        .causes
        .cause_labels
        .iter()
        .map(|(_, l)| l.as_str())
        .collect();
    for wanted in [
        "partition p1-remote for 5000 ms",
        "step clock of redis-3 by +30000 ms",
        "deliver p2 -> redis-3: SET order_lock p2 NX PX 30000",
    ] {
        assert!(labels.contains(&wanted), "{wanted} not in {labels:?}");
    }
    // The `nil` answers to p2's attempts on redis-1 and redis-2 changed nothing.
    let quiet: Vec<&str> = chart
        .arrows
        .iter()
        .filter(|a| chart.causes.changes.get(a.step) == Some(&false))
        .map(|a| a.text.as_str())
        .collect();
    assert!(quiet.contains(&"redis-1 -> p2: nil"), "{quiet:?}");
    let svg = chart.svg();
    assert!(svg.contains(r#"class="msg quiet""#));
    assert!(svg.contains(r#"class="msg cause""#));
    assert!(svg.contains(r#"class="clock-step""#));
    assert!(svg.contains(r#"class="partition""#));
}

#[test]
fn the_run_continues_to_the_end_of_the_overlap() {
    let (chart, steps, continued) = clock_drift_chart();
    assert!(continued > steps, "{continued} steps after {steps}");
    let (from_ms, to_ms) = chart.overlaps[0];
    let (violated_ms, _) = chart.violation.clone().expect("a violation");
    assert_eq!(from_ms, violated_ms);
    assert!(
        to_ms > from_ms + 100,
        "overlap {from_ms}..{to_ms} has no width"
    );
}

/// Seed 003's chart rings and lists what the violation depends on and nothing else:
/// instance-b's renewals while it works (the last changes to the lock key before the
/// violation) are not in it, and the list is the `why` block's.
#[test]
fn the_list_holds_no_renewal_the_violation_does_not_need() {
    let scenario = builtin::by_name("seed-003-incident").expect("a built-in");
    let checked = check(&scenario, Mode::Exhaustive).expect("builds");
    let (oracle, path) = checked.report.first_violation().expect("violates");
    let renewal = "EVAL redisson-renew account:lock:10086 30000 instance-b:1";
    assert!(path.steps.iter().any(|s| s.label.ends_with(renewal)));
    let why = lockcheck::report::why::why(&checked.world, path, path.steps.len());
    let (chart, _) = explained::chart(&checked.world, path.clone(), "", "", Some(oracle));
    let listed: Vec<&str> = chart
        .causes
        .cause_labels
        .iter()
        .map(|(_, l)| l.as_str())
        .collect();
    assert!(!listed.iter().any(|l| l.ends_with(renewal)), "{listed:#?}");
    let wanted: Vec<&str> = why.events.iter().map(|e| e.label.as_str()).collect();
    assert_eq!(listed, wanted);
    assert_eq!(chart.causes.count("cause"), wanted.len());
    let html = chart.html(&[], Some(oracle));
    for line in why.lines(false) {
        let item = format!("<li>{}</li>", lockcheck::report::escape(&line));
        assert!(html.contains(&item), "{item}");
    }
}
