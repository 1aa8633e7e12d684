//! The dead-values reduction on the lease world: clients count their attempts, and a finished
//! client declares its count dead. With the abstraction the search stores fewer states and
//! reaches the same verdicts, and says how many distinct states the stored ones stood for.

mod common;

use common::{Msg, Node, NodeState, Phase, Timer};
use lockcheck_sim::world::{
    Actor, ClockSpec, Context, FaultEnvelope, LinkSpec, LocalNow, Network, ProcessId, ProcessSpec,
    World,
};
use lockcheck_sim::{
    explore, BreadthFirst, DeadValues, FpHasher, Model, Outcome, Property, Reductions,
};
use lockcheck_sim::{Report, Status};
use std::hash::Hash;

/// A lease-world process that counts the acquire requests it sent.
#[derive(Clone, Debug)]
struct Counting(Node);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Counted {
    inner: NodeState,
    attempts: u32,
}

impl Actor for Counting {
    type Msg = Msg;
    type Timer = Timer;
    type Fault = lockcheck_sim::world::NoFault;
    type State = Counted;

    fn on_start(&self, ctx: &mut Context<Msg, Timer>) -> Counted {
        let inner = self.0.on_start(ctx);
        let attempts = u32::from(matches!(self.0, Node::Client { .. }));
        Counted { inner, attempts }
    }

    fn on_message(
        &self,
        state: &mut Counted,
        from: ProcessId,
        msg: Msg,
        ctx: &mut Context<Msg, Timer>,
    ) {
        self.0.on_message(&mut state.inner, from, msg, ctx);
    }

    fn on_timer(&self, state: &mut Counted, timer: Timer, ctx: &mut Context<Msg, Timer>) {
        if timer == Timer::Retry {
            state.attempts += 1;
        }
        self.0.on_timer(&mut state.inner, timer, ctx);
    }

    fn hash_state(&self, state: &Counted, now: LocalNow, h: &mut FpHasher) {
        self.0.hash_state(&state.inner, now, h);
        state.attempts.hash(h);
    }

    /// Done, a client never sends again and nothing reads its count.
    fn has_dead_values(&self, state: &Counted) -> bool {
        phase(state) == Some(Phase::Done)
    }

    fn hash_state_without_dead_values(&self, state: &Counted, now: LocalNow, h: &mut FpHasher) {
        self.0.hash_state(&state.inner, now, h);
    }
}

type CountingWorld = World<Counting>;
type State = lockcheck_sim::world::StateOf<Counting>;

fn phase(s: &Counted) -> Option<Phase> {
    match s.inner {
        NodeState::Client { phase } => Some(phase),
        NodeState::Kv { .. } => None,
    }
}

fn holders(s: &State) -> usize {
    (1..=2)
        .filter(|&p| s.actor(p).and_then(phase) == Some(Phase::Holding))
        .count()
}

/// Two counting clients on a kv with a 100 ms lease, 60 ms of work, delays of 1 or 2 ms
/// and one pause of client-1.
fn world() -> CountingWorld {
    let process = |name: &str, node: Node| ProcessSpec {
        name: name.to_string(),
        actor: Counting(node),
        clock: ClockSpec::default(),
    };
    let client = || Node::Client { work_ms: 60 };
    World::new(
        "counting-lease-world",
        vec![
            process("kv", Node::Kv { ttl_ms: 100 }),
            process("client-1", client()),
            process("client-2", client()),
        ],
    )
    .with_network(Network::uniform(LinkSpec::choice(vec![1, 2])))
    .with_faults(FaultEnvelope::none().pause(1, &[30, 120], 1))
    .with_property(Property::always("mutual-exclusion", |_, s| holders(s) <= 1))
    .with_property(Property::sometimes(
        "pause-while-holding",
        |_, s: &State| s.is_paused(1) && s.actor(1).and_then(phase) == Some(Phase::Holding),
    ))
}

fn search(world: &CountingWorld, dead_values: bool) -> Report<CountingWorld> {
    let options = lockcheck_sim::Options {
        stop: lockcheck_sim::Stop::Never,
        reductions: Reductions {
            dead_values,
            ..Reductions::none()
        },
        ..lockcheck_sim::Options::default()
    };
    explore(world, &mut BreadthFirst::default(), options)
}

fn verdicts(r: &Report<CountingWorld>) -> Vec<(String, &'static str)> {
    r.properties
        .iter()
        .map(|p| (p.name.clone(), p.status.word()))
        .collect()
}

#[test]
fn dead_counts_leave_the_fingerprint_and_the_verdicts_stay() {
    let world = world();
    let full = search(&world, false);
    let abstracted = search(&world, true);
    assert_eq!(full.outcome, Outcome::Complete);
    assert_eq!(abstracted.outcome, Outcome::Complete);
    assert_eq!(full.plan.dead_values, DeadValues::Off);
    assert_eq!(abstracted.plan.dead_values, DeadValues::On);
    assert_eq!(verdicts(&abstracted), verdicts(&full));
    assert!(
        matches!(
            full.property("mutual-exclusion").unwrap().status,
            Status::Violated(_)
        ),
        "the pause of 120 ms outlasts the lease"
    );
    let (stored, met) = (
        abstracted.stats.unique_states,
        abstracted.stats.dead_values_states_met,
    );
    assert!(
        stored < full.stats.unique_states,
        "stored {stored} of {} states",
        full.stats.unique_states
    );
    assert!(met > stored && met <= full.stats.unique_states);
}

/// The live fingerprint leaves out exactly what is declared: a finished client's count, and
/// nothing of the time, the timers or the network.
#[test]
fn the_live_fingerprint_leaves_out_the_declared_values_and_nothing_else() {
    let world = world().with_property(Property::sometimes("client-1-done", |_, s: &State| {
        s.actor(1).and_then(phase) == Some(Phase::Done)
    }));
    let report = search(&world, false);
    let done = report
        .property("client-1-done")
        .unwrap()
        .status
        .path()
        .unwrap();
    let state = done.last_state().clone();
    assert!(world.any_dead_values(&state));
    let mut counted_more = state.clone();
    match &mut counted_more.procs[1].life {
        lockcheck_sim::world::Life::Up(c) => c.attempts += 5,
        other => panic!("client-1 is up: {other:?}"),
    }
    assert_ne!(world.fingerprint(&counted_more), world.fingerprint(&state));
    assert_eq!(
        world.fingerprint_without_dead_values(&counted_more),
        world.fingerprint_without_dead_values(&state)
    );
    let mut later = state.clone();
    later.now_ms += 1;
    assert_ne!(
        world.fingerprint_without_dead_values(&later),
        world.fingerprint_without_dead_values(&state)
    );
    let mut sent = state.clone();
    sent.in_flight.push(lockcheck_sim::world::InFlight {
        from: 2,
        to: 0,
        msg: std::sync::Arc::new(Msg::Acquire),
        msg_hash: 7,
        due_ms: state.now_ms + 1,
    });
    assert_ne!(
        world.fingerprint_without_dead_values(&sent),
        world.fingerprint_without_dead_values(&state)
    );
}
