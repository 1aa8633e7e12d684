//! Processes that share one fate (threads of one program): a pause, crash or clock step
//! named on one hits every member in one step and counts once; labels name the members;
//! partial-order reduction never explores a member alone, so a fault named on one member
//! that stops another before its event is not postponed (the reduced and the full search
//! agree); symmetry keeps the groups.

use lockcheck_sim::world::{
    Actor, Context, CrashKind, FaultEnvelope, FaultRule, FaultWindow, ProcessId, ProcessSpec,
    Renaming, StateOf, World, WorldAction,
};
use lockcheck_sim::Stop;
use lockcheck_sim::{explore, BreadthFirst, Model, Options, Property, Reductions};

/// `Ticker` fires once at 10 ms and tells the `Recorder` when; the recorder keeps the
/// first time it hears; `Idle` does nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Proc {
    Ticker,
    Recorder,
    Idle,
}

const TICKER: ProcessId = 0;
const IDLE: ProcessId = 1;
const RECORDER: ProcessId = 2;

impl Actor for Proc {
    type Msg = u64;
    type Timer = ();
    type State = Option<u64>;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut Context<u64, ()>) -> Option<u64> {
        if *self == Proc::Ticker {
            ctx.set_timer((), 10);
        }
        None
    }

    fn on_message(&self, s: &mut Option<u64>, _: ProcessId, at: u64, _: &mut Context<u64, ()>) {
        s.get_or_insert(at);
    }

    fn renamed(&self, _: &Renaming) -> Result<Self, String> {
        Ok(self.clone())
    }

    fn same_config(&self, other: &Self) -> bool {
        self == other
    }

    fn on_timer(&self, _: &mut Option<u64>, _: (), ctx: &mut Context<u64, ()>) {
        let now = ctx.mono_ms() as u64;
        ctx.send(RECORDER, now);
    }
}

/// The ticker and the idle process share one fate; the idle one may pause for 15 ms at
/// exactly 10 ms, the instant the ticker's timer is due.
fn world() -> World<Proc> {
    let spec = |name: &str, actor| ProcessSpec {
        name: name.into(),
        actor,
        clock: Default::default(),
    };
    let faults = FaultEnvelope::none()
        .pause(IDLE, &[15], 1)
        .window(FaultRule::Pause(0), FaultWindow::at(10))
        .shared_fate(vec![TICKER, IDLE]);
    World::new(
        "shared-fate",
        vec![
            spec("ticker", Proc::Ticker),
            spec("idle", Proc::Idle),
            spec("recorder", Proc::Recorder),
        ],
    )
    .with_faults(faults)
    .with_property(
        Property::always("tick-on-time", |_, s: &StateOf<Proc>| {
            s.actor(RECORDER)
                .is_none_or(|at| at.is_none_or(|t| t == 10))
        })
        .observing(|w: &World<Proc>, a: &WorldAction<u64, ()>| {
            w.action_process(a) == Some(RECORDER)
        }),
    )
}

fn options(reductions: Reductions) -> Options {
    Options {
        stop: Stop::Never,
        reductions,
        ..Options::default()
    }
}

#[test]
fn a_pause_named_on_one_member_stops_the_other_before_its_event_in_both_searches() {
    let w = world();
    for reductions in [Reductions::none(), Reductions::all()] {
        let report = explore(&w, &mut BreadthFirst::default(), options(reductions));
        let status = &report.property("tick-on-time").unwrap().status;
        assert!(
            status.is_violated(),
            "the ticker, paused with idle at 10 ms, ticks at 25 ms ({reductions:?})"
        );
        let path = status.path().unwrap();
        assert!(
            path.steps
                .iter()
                .any(|s| s.label == "pause idle with ticker for 15 ms"),
            "{:?}",
            path.steps.iter().map(|s| &s.label).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_fault_hits_every_member_and_counts_once() {
    let w = world();
    let mut s = w.init_states().remove(0);
    w.apply_fault(
        &mut s,
        &WorldAction::Pause {
            process: IDLE,
            duration_ms: 15,
        },
    );
    assert_eq!(s.procs[IDLE].paused_until_ms, Some(15));
    assert_eq!(s.procs[TICKER].paused_until_ms, Some(15));
    assert_eq!(s.procs[RECORDER].paused_until_ms, None);
    assert_eq!(s.faults_used.pauses, 1);

    let mut s = w.init_states().remove(0);
    w.apply_fault(
        &mut s,
        &WorldAction::Crash {
            process: TICKER,
            kind: CrashKind::Process,
            restart_after_ms: Some(5),
        },
    );
    assert!(!s.procs[TICKER].is_up() && !s.procs[IDLE].is_up());
    assert!(s.procs[RECORDER].is_up());
    assert_eq!(s.faults_used.crashes, 1);

    let mut s = w.init_states().remove(0);
    w.apply_fault(
        &mut s,
        &WorldAction::ClockStep {
            process: TICKER,
            delta_ms: 7,
        },
    );
    assert_eq!(s.procs[IDLE].clock_steps_ms, s.procs[TICKER].clock_steps_ms);
    assert_ne!(
        s.procs[RECORDER].clock_steps_ms,
        s.procs[TICKER].clock_steps_ms
    );
}

#[test]
fn symmetry_maps_groups_onto_groups() {
    let spec = |name: &str, actor| ProcessSpec {
        name: name.into(),
        actor,
        clock: Default::default(),
    };
    let idle = |name: &str| spec(name, Proc::Idle);
    let w = World::new("idlers", vec![idle("a"), idle("b"), idle("c"), idle("d")])
        .with_faults(FaultEnvelope::none().shared_fate(vec![0, 1]));
    let refusal = w.swap_refusal(1, 2).unwrap_err();
    assert!(refusal.contains("share one fate"), "{refusal}");
    assert_eq!(w.swap_refusal(0, 1), Ok(()), "within a group");
    assert_eq!(w.swap_refusal(2, 3), Ok(()), "outside every group");
}
