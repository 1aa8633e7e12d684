//! The world's time, pause, clock, crash, partition and link semantics, one rule per test.
//!
//! Each test drives a small world of `Recorder` actors through chosen labels and reads what
//! each actor recorded (its local clock readings at each event).

use lockcheck_sim::follow_labels;
use lockcheck_sim::world::{
    Actor, ClockSpec, Context, CrashKind, FaultEnvelope, LinkSpec, Network, PartitionFault,
    ProcessId, ProcessSpec, StateOf, World,
};
use lockcheck_sim::Model;
use lockcheck_sim::Stop;

/// Sends its greetings at start, sets its timers, and logs every event with its clocks.
#[derive(Clone, Debug)]
struct Recorder {
    /// (to, message) sent at start.
    greetings: Vec<(ProcessId, &'static str)>,
    /// (timer, after_ms) set at start.
    timers: Vec<(&'static str, u64)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Log {
    events: Vec<String>,
    restarts: u32,
}

impl Actor for Recorder {
    type Msg = &'static str;
    type Timer = &'static str;
    type State = Log;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut Context<&'static str, &'static str>) -> Log {
        for (to, m) in &self.greetings {
            ctx.send(*to, m);
        }
        for (t, after) in &self.timers {
            ctx.set_timer(t, *after);
        }
        Log {
            events: vec![],
            restarts: 0,
        }
    }

    fn on_message(
        &self,
        state: &mut Log,
        from: ProcessId,
        msg: &'static str,
        ctx: &mut Context<&'static str, &'static str>,
    ) {
        state
            .events
            .push(format!("msg {msg} from {from} at wall {}", ctx.wall_ms()));
    }

    fn on_timer(
        &self,
        state: &mut Log,
        timer: &'static str,
        ctx: &mut Context<&'static str, &'static str>,
    ) {
        state.events.push(format!(
            "timer {timer} at wall {} mono {}",
            ctx.wall_ms(),
            ctx.mono_ms()
        ));
        if timer == "send-late" {
            ctx.send(1 - ctx.me(), "late");
        }
    }

    fn on_crash(&self, state: &Log, kind: CrashKind) -> Option<Log> {
        // The log is "fsynced" only up to a process crash; a power loss loses it.
        (kind == CrashKind::Process).then(|| state.clone())
    }

    fn on_restart(
        &self,
        survived: Option<Log>,
        _ctx: &mut Context<&'static str, &'static str>,
    ) -> Log {
        let mut log = survived.unwrap_or(Log {
            events: vec![],
            restarts: 0,
        });
        log.restarts += 1;
        log
    }
}

fn world(a: Recorder, b: Recorder, clock_b: ClockSpec) -> World<Recorder> {
    World::new(
        "recorders",
        vec![
            ProcessSpec {
                name: "a".into(),
                actor: a,
                clock: ClockSpec::default(),
            },
            ProcessSpec {
                name: "b".into(),
                actor: b,
                clock: clock_b,
            },
        ],
    )
}

fn quiet() -> Recorder {
    Recorder {
        greetings: vec![],
        timers: vec![],
    }
}

/// Follows `labels`, then lets the world run without faults (first non-fault action) until
/// nothing is left to do.
fn run(world: &World<Recorder>, labels: &[&str]) -> StateOf<Recorder> {
    let path = follow_labels(
        world,
        None,
        0,
        labels.iter().map(|s| s.to_string()).collect(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut state = path.last_state().clone();
    for _ in 0..1_000 {
        let mut enabled = Vec::new();
        world.actions(&state, &mut enabled);
        let Some(a) = enabled.iter().find(|a| !world.is_fault(a)) else {
            return state;
        };
        state = world.next_state(&state, a).unwrap();
    }
    panic!("the world did not quiesce")
}

fn events(state: &StateOf<Recorder>, p: ProcessId) -> Vec<String> {
    state.actor(p).map(|l| l.events.clone()).unwrap_or_default()
}

#[test]
fn a_paused_process_gets_its_messages_and_due_timers_after_resuming_in_order() {
    let a = Recorder {
        greetings: vec![(1, "hello")],
        timers: vec![],
    };
    let b = Recorder {
        greetings: vec![],
        timers: vec![("first", 10), ("second", 20)],
    };
    let w = world(a, b, ClockSpec::default())
        .with_network(Network::uniform(LinkSpec::fixed(5)))
        .with_faults(FaultEnvelope::none().pause(1, &[30], 1));
    let s = run(&w, &["pause b for 30 ms"]);
    assert_eq!(
        events(&s, 1),
        vec![
            "timer first at wall 30 mono 30",
            "timer second at wall 30 mono 30",
            "msg hello from 0 at wall 30",
        ]
    );
    // Without the pause, everything happens on time.
    let s = run(&w, &[]);
    assert_eq!(
        events(&s, 1),
        vec![
            "msg hello from 0 at wall 5",
            "timer first at wall 10 mono 10",
            "timer second at wall 20 mono 20",
        ]
    );
}

#[test]
fn a_pause_can_begin_just_before_a_due_timer_fires() {
    let b = Recorder {
        greetings: vec![],
        timers: vec![("work-done", 10)],
    };
    let w = world(quiet(), b, ClockSpec::default()).with_faults(FaultEnvelope::none().pause(
        1,
        &[7],
        1,
    ));
    let s = run(&w, &["advance to 10 ms", "pause b for 7 ms"]);
    assert_eq!(events(&s, 1), vec!["timer work-done at wall 17 mono 17"]);
}

#[test]
fn a_fast_clock_fires_timers_early_and_a_step_moves_only_the_wall_clock() {
    let b = Recorder {
        greetings: vec![],
        timers: vec![("t", 1_010)],
    };
    let w = world(quiet(), b, ClockSpec::new(100, 10_000))
        .with_faults(FaultEnvelope::none().clock_step(1, &[-500], 1));
    let s = run(&w, &[]);
    assert_eq!(events(&s, 1), vec!["timer t at wall 1110 mono 1010"]);
    let s = run(&w, &["step clock of b by -500 ms"]);
    assert_eq!(events(&s, 1), vec!["timer t at wall 610 mono 1010"]);
}

#[test]
fn a_process_crash_keeps_what_the_actor_keeps_and_a_power_loss_loses_it() {
    let b = Recorder {
        greetings: vec![],
        timers: vec![("before", 1), ("never", 100)],
    };
    let w = world(quiet(), b, ClockSpec::default()).with_faults(FaultEnvelope::none().crash(
        1,
        &[CrashKind::Process, CrashKind::PowerLoss],
        &[Some(50)],
        1,
    ));
    let crash = |kind: &str| {
        let label = format!("crash b{kind}, restart after 50 ms");
        run(&w, &["advance to 1 ms", "timer b: \"before\"", &label])
    };
    let s = crash("");
    assert_eq!(events(&s, 1), vec!["timer before at wall 1 mono 1"]);
    assert_eq!(s.actor(1).unwrap().restarts, 1);
    assert_eq!(s.now_ms, 51, "the pending timer died with the process");
    let s = crash(" with power loss");
    assert!(events(&s, 1).is_empty());
    assert_eq!(s.actor(1).unwrap().restarts, 1);
}

#[test]
fn messages_to_a_crashed_process_are_lost() {
    let a = Recorder {
        greetings: vec![(1, "hello")],
        timers: vec![("send-late", 20)],
    };
    let w = world(a, quiet(), ClockSpec::default())
        .with_network(Network::uniform(LinkSpec::fixed(5)))
        .with_faults(FaultEnvelope::none().crash(1, &[CrashKind::Process], &[Some(30)], 1));
    let s = run(&w, &["crash b, restart after 30 ms"]);
    assert!(events(&s, 1).is_empty(), "{:?}", events(&s, 1));
    // hello was in flight at the crash, late was sent while b was down.
}

#[test]
fn a_partition_drops_messages_until_it_heals() {
    let a = Recorder {
        greetings: vec![(1, "early")],
        timers: vec![("send-late", 200)],
    };
    let split = PartitionFault::two_way("a|b", &[0], &[1], vec![Some(100)]);
    let w = world(a, quiet(), ClockSpec::default())
        .with_network(Network::uniform(LinkSpec::fixed(5)))
        .with_faults(FaultEnvelope::none().partition(split, 1));
    let s = run(&w, &["partition a|b for 100 ms"]);
    assert_eq!(events(&s, 1), vec!["msg late from 0 at wall 205"]);
}

#[test]
fn a_one_way_partition_cuts_one_direction_only() {
    let a = Recorder {
        greetings: vec![(1, "a-to-b")],
        timers: vec![],
    };
    let b = Recorder {
        greetings: vec![(0, "b-to-a")],
        timers: vec![],
    };
    let cut = PartitionFault::one_way("a->b", &[0], &[1], vec![None]);
    let w = world(a, b, ClockSpec::default()).with_faults(FaultEnvelope::none().partition(cut, 1));
    let s = run(&w, &["partition a->b for good"]);
    assert!(events(&s, 1).is_empty());
    assert_eq!(events(&s, 0), vec!["msg b-to-a from 1 at wall 1"]);
}

#[test]
fn a_fifo_link_never_reorders_and_a_reordering_link_may() {
    let a = Recorder {
        greetings: vec![(1, "one"), (1, "two")],
        timers: vec![],
    };
    let fifo = world(a.clone(), quiet(), ClockSpec::default())
        .with_network(Network::uniform(LinkSpec::choice([1, 5])));
    let s = run(
        &fifo,
        &[
            "delay a -> b: \"one\" by 5 ms",
            "delay a -> b: \"two\" by 1 ms",
        ],
    );
    assert_eq!(
        events(&s, 1),
        vec!["msg one from 0 at wall 5", "msg two from 0 at wall 5"]
    );
    let loose = world(a, quiet(), ClockSpec::default())
        .with_network(Network::uniform(LinkSpec::choice([1, 5]).reordering()));
    let s = run(
        &loose,
        &[
            "delay a -> b: \"one\" by 5 ms",
            "delay a -> b: \"two\" by 1 ms",
        ],
    );
    assert_eq!(
        events(&s, 1),
        vec!["msg two from 0 at wall 1", "msg one from 0 at wall 5"]
    );
}

#[test]
fn a_lossy_link_may_lose_a_message_within_the_loss_budget() {
    let a = Recorder {
        greetings: vec![(1, "one"), (1, "two")],
        timers: vec![],
    };
    let w = world(a, quiet(), ClockSpec::default())
        .with_network(Network::uniform(LinkSpec::fixed(1).lossy()))
        .with_faults(FaultEnvelope::none().losses(1));
    let s = run(&w, &["lose a -> b: \"one\""]);
    assert_eq!(events(&s, 1), vec!["msg two from 0 at wall 1"]);
    assert_eq!(s.faults_used.losses, 1);
}

#[test]
fn states_that_differ_only_by_absolute_time_share_a_fingerprint() {
    let b = Recorder {
        greetings: vec![],
        timers: vec![("t", 10)],
    };
    let w = world(quiet(), b, ClockSpec::default());
    let s0 = w.init_states().remove(0);
    let mut later = s0.clone();
    later.now_ms += 1_000;
    for t in &mut later.procs[1].timers {
        t.due_ms += 1_000;
    }
    assert_eq!(w.fingerprint(&s0), w.fingerprint(&later));
    let mut other = s0.clone();
    other.procs[1].timers[0].due_ms += 1;
    assert_ne!(w.fingerprint(&s0), w.fingerprint(&other));
}

#[test]
fn a_scripted_run_injects_its_faults_at_the_first_step_at_or_after_their_time() {
    use lockcheck_sim::{run_script, ScriptedFault};
    let b = Recorder {
        greetings: vec![],
        timers: vec![("first", 10), ("second", 20)],
    };
    let w = world(quiet(), b, ClockSpec::default()).with_faults(FaultEnvelope::none().pause(
        1,
        &[7],
        1,
    ));
    let path = run_script(
        &w,
        &[ScriptedFault::new(15, "pause b for 7 ms")],
        1_000,
        100,
    )
    .unwrap();
    assert_eq!(
        events(path.last_state(), 1),
        vec![
            "timer first at wall 10 mono 10",
            "timer second at wall 27 mono 27"
        ]
    );
    let err = run_script(
        &w,
        &[ScriptedFault::new(15, "pause a for 7 ms")],
        1_000,
        100,
    )
    .unwrap_err();
    assert!(err.to_string().contains("pause a for 7 ms"), "{err}");
}

/// Sets one timer whose duration is a choice, and records how long after start it fired.
/// Its state holds a local time (the start), so it hashes it relative to `now`, as the
/// `Actor::hash_state` contract asks.
#[derive(Clone, Debug)]
struct Chooser;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Waited {
    started_mono_ms: i64,
    fired_after_ms: Vec<i64>,
}

impl Actor for Chooser {
    type Msg = ();
    type Timer = &'static str;
    type State = Waited;
    type Fault = lockcheck_sim::world::NoFault;
    fn on_start(&self, ctx: &mut Context<(), &'static str>) -> Waited {
        ctx.set_timer_among("work", vec![300, 100, 200]);
        Waited {
            started_mono_ms: ctx.mono_ms(),
            fired_after_ms: vec![],
        }
    }
    fn on_message(&self, _: &mut Waited, _: ProcessId, _: (), _: &mut Context<(), &'static str>) {}
    fn on_timer(&self, w: &mut Waited, _: &'static str, ctx: &mut Context<(), &'static str>) {
        w.fired_after_ms.push(ctx.mono_ms() - w.started_mono_ms);
    }
    fn hash_state(
        &self,
        w: &Waited,
        now: lockcheck_sim::world::LocalNow,
        h: &mut lockcheck_sim::FpHasher,
    ) {
        use std::hash::Hash;
        (w.started_mono_ms - now.mono_ms, &w.fired_after_ms).hash(h);
    }
}

#[test]
fn a_timer_set_among_durations_is_a_labelled_choice_explored_exhaustively() {
    use lockcheck_sim::{explore, BreadthFirst, Options, Property};
    let spec = ProcessSpec {
        name: "worker".to_string(),
        actor: Chooser,
        clock: ClockSpec::default(),
    };
    let fired_at = |ms: i64| {
        move |_: &World<Chooser>, s: &StateOf<Chooser>| {
            s.actor(0).is_some_and(|w| w.fired_after_ms == vec![ms])
        }
    };
    let w = World::new("choice", vec![spec])
        .with_property(Property::sometimes("after-100", fired_at(100)))
        .with_property(Property::sometimes("after-200", fired_at(200)))
        .with_property(Property::sometimes("after-300", fired_at(300)));
    let mut enabled = Vec::new();
    let s0 = w.init_states().remove(0);
    w.actions(&s0, &mut enabled);
    let labels: Vec<String> = enabled.iter().map(|a| w.label(&s0, a)).collect();
    assert_eq!(
        labels,
        vec![
            "timer worker: \"work\" after 300 ms",
            "timer worker: \"work\" after 100 ms",
            "timer worker: \"work\" after 200 ms"
        ]
    );
    let options = Options {
        stop: Stop::Never,
        ..Options::default()
    };
    let report = explore(&w, &mut BreadthFirst::default(), options);
    assert!(report.hollow().is_empty(), "{report}");
}
