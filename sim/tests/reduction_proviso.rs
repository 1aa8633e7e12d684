//! The cycle proviso of partial-order reduction, shown on the smallest world that needs it:
//! a process that spins at one instant (a zero-duration timer that re-arms itself, so its
//! event leads back to the same state) beside a process with one event of its own. Reduced
//! to the spinner's invisible event alone, the search would go round the self-loop forever
//! and never run the other process's event; the proviso (a reduced state that meets an
//! already expanded state is expanded fully) must find it.

use lockcheck_sim::world::{Actor, Context, ProcessId, ProcessSpec, World, WorldAction};
use lockcheck_sim::Stop;
use lockcheck_sim::{explore, BreadthFirst, DepthFirst, Options, Property, Reductions, Status};

/// `Spinner` re-arms a zero-duration timer forever; `Worker` finishes its one job at t = 0.
#[derive(Clone, Debug)]
enum Proc {
    Spinner,
    Worker,
}

impl Actor for Proc {
    type Msg = ();
    type Timer = ();
    /// Whether the worker did its job (the spinner's state never changes).
    type State = bool;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut Context<(), ()>) -> bool {
        ctx.set_timer((), 0);
        false
    }

    fn on_message(&self, _: &mut bool, _: ProcessId, _: (), _: &mut Context<(), ()>) {}

    fn on_timer(&self, done: &mut bool, _: (), ctx: &mut Context<(), ()>) {
        match self {
            Proc::Spinner => ctx.set_timer((), 0),
            Proc::Worker => *done = true,
        }
    }
}

const WORKER: ProcessId = 1;

fn world() -> World<Proc> {
    let spec = |name: &str, actor| ProcessSpec {
        name: name.into(),
        actor,
        clock: Default::default(),
    };
    World::new(
        "spinner",
        vec![spec("spinner", Proc::Spinner), spec("worker", Proc::Worker)],
    )
    .with_property(
        Property::sometimes(
            "worker-done",
            |_, s: &lockcheck_sim::world::StateOf<Proc>| s.actor(WORKER) == Some(&true),
        )
        .observing_digest(
            |w: &World<Proc>, a: &WorldAction<(), ()>| w.action_process(a) == Some(WORKER),
            |_, s| u64::from(s.actor(WORKER) == Some(&true)),
        ),
    )
}

fn options() -> Options {
    Options {
        stop: Stop::Never,
        reductions: Reductions::all(),
        ..Options::default()
    }
}

#[test]
fn the_cycle_proviso_reaches_an_event_a_self_loop_would_postpone_forever() {
    let w = world();
    let bfs = explore(&w, &mut BreadthFirst::default(), options());
    let dfs = explore(&w, &mut DepthFirst::default(), options());
    for report in [&bfs, &dfs] {
        assert!(report.plan.partial_order.is_on());
        assert!(
            matches!(
                report.property("worker-done").unwrap().status,
                Status::Witnessed(_)
            ),
            "the worker's event is explored"
        );
        assert!(report.stats.proviso_expansions >= 1, "the proviso fired");
    }
    let full = explore(
        &w,
        &mut BreadthFirst::default(),
        Options {
            reductions: Reductions::none(),
            ..options()
        },
    );
    assert_eq!(full.stats.unique_states, bfs.stats.unique_states);
}
