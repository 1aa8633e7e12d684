//! Fault timing (`world/fault_timing.rs`): windows of time, windows counted from an anchor,
//! the quiet gap between two faults of one process and the cap per process, each read off
//! every state or every path of small worlds of tickers; and partial-order reduction with an
//! anchor that opens, at the very instant it holds, a window of a fault on another process.

use lockcheck_sim::world::{
    Actor, Anchor, Context, CrashKind, FaultEnvelope, FaultRule, FaultWindow, ProcessId,
    ProcessSpec, StateOf, World, WorldAction,
};
use lockcheck_sim::{
    explore, BreadthFirst, Model, Options, PartialOrder, Property, Reductions, Status,
};
use lockcheck_sim::{Limits, Stop};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Ticks `ticks` times, 10 ms apart (for ever when `ticks` is 0, keeping no count then),
/// telling `notify` at every tick; records the true time at which it hears anything.
#[derive(Clone, Debug)]
struct Ticker {
    ticks: u8,
    notify: Option<ProcessId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Ticks {
    count: u8,
    heard_at_ms: Vec<u64>,
}

impl Actor for Ticker {
    type Msg = ();
    type Timer = ();
    type State = Ticks;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut Context<(), ()>) -> Ticks {
        ctx.set_timer((), 10);
        Ticks {
            count: 0,
            heard_at_ms: Vec::new(),
        }
    }

    fn on_message(&self, s: &mut Ticks, _: ProcessId, _: (), ctx: &mut Context<(), ()>) {
        // The clocks are exact: the wall clock reads true time.
        s.heard_at_ms.push(ctx.wall_ms() as u64);
    }

    fn on_timer(&self, s: &mut Ticks, _: (), ctx: &mut Context<(), ()>) {
        if let Some(to) = self.notify {
            ctx.send(to, ());
        }
        if self.ticks == 0 {
            ctx.set_timer((), 10);
            return;
        }
        s.count += 1;
        if s.count < self.ticks {
            ctx.set_timer((), 10);
        }
    }
}

fn ticker(name: &str, ticks: u8) -> ProcessSpec<Ticker> {
    ProcessSpec {
        name: name.into(),
        actor: Ticker {
            ticks,
            notify: None,
        },
        clock: Default::default(),
    }
}

/// One ticker ticking ten times (at 10, 20, ..., 100 ms) that may pause for 5 ms.
fn one_ticker(envelope: impl FnOnce(FaultEnvelope) -> FaultEnvelope) -> World<Ticker> {
    World::new("ticker", vec![ticker("t", 10)]).with_faults(envelope(FaultEnvelope::none().pause(
        0,
        &[5],
        1,
    )))
}

/// The instants at which some reachable state of `w` offers a fault.
fn fault_instants(w: &World<Ticker>) -> BTreeSet<u64> {
    let mut seen = BTreeSet::new();
    let mut queue: Vec<StateOf<Ticker>> = w.init_states();
    let mut instants = BTreeSet::new();
    while let Some(s) = queue.pop() {
        if !seen.insert(w.fingerprint(&s)) {
            continue;
        }
        let mut actions = Vec::new();
        w.actions(&s, &mut actions);
        if actions.iter().any(WorldAction::is_fault) {
            instants.insert(s.now_ms);
        }
        queue.extend(actions.iter().filter_map(|a| w.next_state(&s, a)));
    }
    instants
}

/// The instants at which faults begin, on every path of `w` to its end, in path order
/// (with the process of each).
fn fault_paths(w: &World<Ticker>) -> Vec<Vec<(ProcessId, u64)>> {
    fn walk(
        w: &World<Ticker>,
        s: &StateOf<Ticker>,
        path: &mut Vec<(ProcessId, u64)>,
        out: &mut Vec<Vec<(ProcessId, u64)>>,
    ) {
        let mut actions = Vec::new();
        w.actions(s, &mut actions);
        if actions.is_empty() {
            out.push(path.clone());
        }
        for a in &actions {
            let fault = match a {
                WorldAction::Pause { process, .. } => Some((*process, s.now_ms)),
                _ => None,
            };
            path.extend(fault);
            walk(w, &w.next_state(s, a).unwrap(), path, out);
            if fault.is_some() {
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    walk(w, &w.init_states()[0], &mut Vec::new(), &mut out);
    out
}

fn every_ten(from: u64, to: u64) -> BTreeSet<u64> {
    (from..=to).step_by(10).collect()
}

#[test]
fn a_free_pause_may_begin_at_the_start_and_at_every_event() {
    assert_eq!(fault_instants(&one_ticker(|f| f)), every_ten(0, 100));
}

#[test]
fn a_pause_pinned_to_an_instant_begins_there_even_when_nothing_else_happens_then() {
    let pinned = one_ticker(|f| f.window(FaultRule::Pause(0), FaultWindow::at(25)));
    assert_eq!(fault_instants(&pinned), BTreeSet::from([25]));
}

#[test]
fn a_window_bounds_when_a_pause_may_begin_at_its_opening_and_at_events_within_it() {
    let closed = one_ticker(|f| f.window(FaultRule::Pause(0), FaultWindow::between(20, Some(60))));
    assert_eq!(fault_instants(&closed), every_ten(20, 60));
    let open = one_ticker(|f| f.window(FaultRule::Pause(0), FaultWindow::between(35, None)));
    let mut expected = every_ten(40, 100);
    expected.insert(35);
    assert_eq!(fault_instants(&open), expected);
}

#[test]
fn a_window_counted_from_an_anchor_opens_when_the_anchor_first_holds() {
    let third_tick = || Anchor {
        name: "t ticked 3 times".into(),
        process: 0,
        holds: Arc::new(|s: &Ticks| s.count >= 3),
    };
    let at = |offset_ms| {
        one_ticker(|f| {
            f.window(
                FaultRule::Pause(0),
                FaultWindow::at(offset_ms).after_anchor(0),
            )
        })
        .with_anchor(third_tick())
    };
    assert_eq!(fault_instants(&at(0)), BTreeSet::from([30]));
    assert_eq!(fault_instants(&at(15)), BTreeSet::from([45]));
}

/// A ticker that ticks for ever keeps no count, so without its window its states at 10 and
/// 20 ms are one state; the window's opening tells them apart.
#[test]
fn the_fingerprint_tells_apart_states_before_and_after_a_window_opens() {
    let w = World::new("forever", vec![ticker("t", 0)]).with_faults(
        FaultEnvelope::none()
            .pause(0, &[5], 1)
            .window(FaultRule::Pause(0), FaultWindow::at(35)),
    );
    assert_eq!(fault_instants(&w), BTreeSet::from([35]));
}

#[test]
fn a_quiet_gap_separates_the_end_of_one_pause_from_the_start_of_the_next() {
    let w = one_ticker(|f| f.pause(0, &[], 2).spaced(20, None));
    let paths = fault_paths(&w);
    for path in &paths {
        for pair in path.windows(2) {
            assert!(pair[1].1 >= pair[0].1 + 5 + 20, "too close: {path:?}");
        }
    }
    // The gap's end is a moment of its own: the next pause may begin exactly there.
    let starts = |p: &Vec<(ProcessId, u64)>| p.iter().map(|f| f.1).collect::<Vec<_>>();
    assert!(
        paths.iter().any(|p| starts(p) == [0, 25, 50]),
        "no pauses at 0, 25 and 50 ms"
    );
    assert!(paths.iter().any(|p| starts(p) == [10, 40, 70]));
}

#[test]
fn a_cap_per_process_counts_each_process_alone() {
    let two = World::new("two tickers", vec![ticker("a", 3), ticker("b", 3)]).with_faults(
        FaultEnvelope::none()
            .pause(0, &[5], 1)
            .pause(1, &[5], 2)
            .spaced(0, Some(1)),
    );
    let paths = fault_paths(&two);
    let most = |p: ProcessId| {
        let on_p = |path: &Vec<(ProcessId, u64)>| path.iter().filter(|f| f.0 == p).count();
        paths.iter().map(on_p).max().unwrap()
    };
    assert_eq!((most(0), most(1)), (1, 1), "one pause each at most");
    assert!(
        paths.iter().any(|p| p.len() == 2),
        "the budget of 3 still allows one each"
    );
}

/// Three processes: `a` ticks once at 10 ms and may pause (so it has two actions then),
/// `b` ticks once at 10 ms and tells `c`, and `b` may pause at the very instant `a` has
/// ticked. `c` hears `b` at 11 ms, or at 16 ms when `b` paused before its tick. A reduced
/// search that explored `b`'s tick alone first would never see the late message.
fn anchored_race() -> World<Ticker> {
    let mut b = ticker("b", 1);
    b.actor.notify = Some(2);
    World::new("anchored race", vec![ticker("a", 1), b, ticker("c", 1)])
        .with_faults(
            FaultEnvelope::none()
                .pause(0, &[50], 1)
                .pause(1, &[5], 1)
                .window(FaultRule::Pause(1), FaultWindow::at(0).after_anchor(0)),
        )
        .with_anchor(Anchor {
            name: "a ticked".into(),
            process: 0,
            holds: Arc::new(|s: &Ticks| s.count >= 1),
        })
        .with_property(
            Property::sometimes("c hears b late", |_, s: &StateOf<Ticker>| {
                s.actor(2).is_some_and(|c| c.heard_at_ms.contains(&16))
            })
            .observing(|_, a| matches!(a, WorldAction::Deliver { to: 2, .. })),
        )
}

#[test]
fn partial_order_reduction_keeps_a_fault_an_anchor_opens_at_its_own_instant() {
    let w = anchored_race();
    for reductions in [Reductions::all(), Reductions::none()] {
        let options = Options {
            stop: Stop::Never,
            reductions,
            ..Options::default()
        };
        let report = explore(&w, &mut BreadthFirst::default(), options);
        let want_reduced = reductions.partial_order;
        assert_eq!(
            matches!(report.plan.partial_order, PartialOrder::On),
            want_reduced
        );
        let status = &report.property("c hears b late").unwrap().status;
        assert!(
            matches!(status, Status::Witnessed(_)),
            "reductions {reductions:?}: {status:?}"
        );
    }
}

/// A process crashed for good stays quiet for good: its state does not change as time
/// passes, so a ticker ticking for ever beside it still has finitely many states.
#[test]
fn a_process_down_for_good_keeps_the_state_space_finite() {
    let w = World::new("forever", vec![ticker("t", 0), ticker("down", 1)]).with_faults(
        FaultEnvelope::none()
            .crash(1, &[CrashKind::Process], &[None], 1)
            .spaced(1_000, None),
    );
    let options = Options {
        stop: Stop::Never,
        limits: Limits::states(10_000),
        ..Options::default()
    };
    let report = explore(&w, &mut BreadthFirst::default(), options);
    assert!(report.is_exhaustive(), "{:?}", report.outcome);
}
