//! Faults of an actor's own (`Actor::Fault`), end to end on a world of counters whose
//! fault drops some of their count: offered per process while the envelope's budget lasts,
//! counted in `FaultsUsed`, labelled in traces, shrunk to a smaller value, applied by
//! `World::apply_fault` exactly as by a step, and seen by symmetry reduction.

use lockcheck_sim::world::{
    Actor, Context, FaultEnvelope, LocalNow, ProcessId, ProcessSpec, Renaming, StateOf, World,
    WorldAction,
};
use lockcheck_sim::Stop;
use lockcheck_sim::{
    explore, shrink, BreadthFirst, Model, Options, Property, ShrinkOptions, Status,
};

/// Ticks three times, 10 ms apart; its fault loses `lost` of what it counted.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Counter;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Count {
    ticks: u8,
    lost: u64,
}

/// The counter's own fault.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Lose(u64);

impl Actor for Counter {
    type Msg = ();
    type Timer = ();
    type State = Count;
    type Fault = Lose;

    fn on_start(&self, ctx: &mut Context<(), ()>) -> Count {
        ctx.set_timer((), 10);
        Count { ticks: 0, lost: 0 }
    }

    fn on_message(&self, _: &mut Count, _: ProcessId, _: (), _: &mut Context<(), ()>) {}

    fn on_timer(&self, s: &mut Count, _: (), ctx: &mut Context<(), ()>) {
        s.ticks += 1;
        if s.ticks < 3 {
            ctx.set_timer((), 10);
        }
    }

    fn on_fault(&self, s: &mut Count, fault: &Lose, _now: LocalNow) {
        s.lost += fault.0;
    }

    fn fault_size(&self, fault: &Lose) -> u64 {
        fault.0
    }

    fn describe_fault(&self, fault: &Lose) -> String {
        format!("lose {}", fault.0)
    }

    fn renamed(&self, _: &Renaming) -> Result<Self, String> {
        Ok(Counter)
    }

    fn same_config(&self, other: &Self) -> bool {
        self == other
    }
}

/// Two counters; counter `a` may lose 1, 2 or 5, at most `max` times in all.
fn world(max: u32) -> World<Counter> {
    let spec = |name: &str| ProcessSpec {
        name: name.into(),
        actor: Counter,
        clock: Default::default(),
    };
    let lost = |s: &StateOf<Counter>| {
        (0..2)
            .map(|p| s.actor(p).map_or(0, |c| c.lost))
            .sum::<u64>()
    };
    World::new("counters", vec![spec("a"), spec("b")])
        .with_faults(FaultEnvelope::none().actor_fault(0, vec![Lose(1), Lose(2), Lose(5)], max))
        .with_property(Property::always("lost-below-2", move |_, s| lost(s) < 2))
        .with_property(Property::always(
            "within-budget",
            move |w: &World<Counter>, s| s.faults_used.actor_faults <= w.faults.max_actor_faults,
        ))
}

fn all_states() -> Options {
    Options {
        stop: Stop::Never,
        ..Options::default()
    }
}

#[test]
fn actor_faults_are_offered_per_process_while_the_budget_lasts() {
    let w = world(2);
    let init = &w.init_states()[0];
    let mut faults = Vec::new();
    w.enabled_faults(init, &mut faults);
    let offered: Vec<_> = faults
        .iter()
        .map(|a| match a {
            WorldAction::ActorFault { process, fault } => (*process, fault.0),
            other => panic!("only faults of the counters' own: {other:?}"),
        })
        .collect();
    assert_eq!(offered, vec![(0, 1), (0, 2), (0, 5)]);
    // Two spent: none offered any more.
    let once = w.next_state(init, &faults[0]).unwrap();
    let twice = w.next_state(&once, &faults[0]).unwrap();
    assert_eq!(once.faults_used.actor_faults, 1);
    assert_eq!(twice.actor(0).unwrap().lost, 2);
    let mut left = Vec::new();
    w.enabled_faults(&twice, &mut left);
    assert!(left.is_empty(), "budget spent: {left:?}");
    let report = explore(&w, &mut BreadthFirst::default(), all_states());
    assert!(matches!(
        report.property("within-budget").unwrap().status,
        Status::Holds
    ));
}

#[test]
fn a_violation_by_an_actor_fault_is_labelled_and_shrinks_to_the_smallest_value() {
    let w = world(1);
    let report = explore(&w, &mut BreadthFirst::default(), Options::default());
    let Status::Violated(path) = &report.property("lost-below-2").unwrap().status else {
        panic!("losing 2 or 5 breaks the property")
    };
    assert!(
        path.labels()
            .iter()
            .any(|l| l == "a: lose 2" || l == "a: lose 5"),
        "{:?}",
        path.labels()
    );
    let shrunk = shrink(&w, path, "lost-below-2", ShrinkOptions::default()).unwrap();
    let faults: Vec<_> = shrunk
        .labels()
        .into_iter()
        .filter(|l| l.starts_with("a: "))
        .collect();
    assert_eq!(
        faults,
        vec!["a: lose 2"],
        "the smallest value that still violates"
    );
    let big = WorldAction::ActorFault {
        process: 0,
        fault: Lose(5),
    };
    let smaller: Vec<_> = w.shrink_action(&big);
    assert_eq!(
        smaller.len(),
        2,
        "lose 1 and lose 2 are smaller: {smaller:?}"
    );
    assert!(w.is_fault(&big));
}

#[test]
fn apply_fault_does_what_the_step_does() {
    let w = world(1);
    let init = &w.init_states()[0];
    let fault = WorldAction::ActorFault {
        process: 0,
        fault: Lose(2),
    };
    let stepped = w.next_state(init, &fault).unwrap();
    let mut applied = init.clone();
    w.apply_fault(&mut applied, &fault);
    assert_eq!(applied.actor(0), stepped.actor(0));
    assert_eq!(applied.faults_used, stepped.faults_used);
    assert_eq!(
        w.fingerprint_from_scratch(&applied),
        w.fingerprint(&stepped)
    );
}

#[test]
fn symmetry_keeps_apart_processes_whose_own_faults_differ() {
    let one_sided = world(1);
    let why = one_sided.symmetry().clone().map(|g| g.groups).unwrap_err();
    assert!(why.contains("faults of their own"), "{why}");
    let both = World::new("counters", one_sided.processes.clone()).with_faults(
        FaultEnvelope::none()
            .actor_fault(0, vec![Lose(1)], 1)
            .actor_fault(1, vec![Lose(1)], 0),
    );
    let groups = both.symmetry().clone().expect("symmetric").groups;
    assert_eq!(groups, vec![vec![0, 1]]);
}

/// A driver that schedules the handlers itself (as the madsim driver does) changes its
/// record of the world only through the kernel: starting every process, moving time on and
/// running a timer's handler reach the actor states a kernel step reaches.
#[test]
fn a_driver_runs_handlers_through_the_kernel() {
    let w = world(0);
    let mut record = w.not_started();
    for p in 0..2 {
        let (sends, timers) = w.start_process(&mut record, p).into_effects();
        assert!(sends.is_empty());
        assert_eq!(timers.len(), 1, "each counter sets its first tick");
    }
    w.move_time_to(&mut record, 10);
    let fire = WorldAction::Fire {
        process: 1,
        timer: (),
    };
    let effects = w.handle_event(&mut record, fire.clone()).into_effects();
    assert_eq!(effects.1.len(), 1, "the second tick is set");
    assert_eq!(record.actor(1), Some(&Count { ticks: 1, lost: 0 }));
    assert_eq!(record.actor(0), Some(&Count { ticks: 0, lost: 0 }));
    let init = &w.init_states()[0];
    let advanced = w.next_state(init, &WorldAction::Advance).unwrap();
    let fired = w.next_state(&advanced, &fire).unwrap();
    assert_eq!(record.actor(1), fired.actor(1));
    assert_eq!(record.now_ms, fired.now_ms);
}

#[test]
#[should_panic(expected = "time moved back")]
fn a_driver_cannot_move_time_back() {
    let w = world(0);
    let mut record = w.not_started();
    w.move_time_to(&mut record, 10);
    w.move_time_to(&mut record, 9);
}
