//! A crashed process's host refuses connections: property tests on a world of one client
//! sending numbered requests to one server that may crash at any moment, for good.
//!
//! Every request ends exactly once: answered by the server, or, when it was on its way at a
//! process crash or sent after one, refused by the server's host, the refusal coming back on
//! the link from the server. Nothing is lost and nothing answered twice. After a power loss
//! nothing is refused: what the server had not answered is lost.

use lockcheck_sim::world::{
    Actor, Context, CrashKind, FaultEnvelope, LinkSpec, Network, ProcessId, ProcessSpec, StateOf,
    World,
};
use lockcheck_sim::{explore, BreadthFirst, Options, Property, Status, Stop};
use proptest::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum M {
    Req(u8),
    Ack(u8),
    Refused(u8),
}

/// The client (process 0) sends request `i` at `send_at_ms[i]`; the server (process 1)
/// acknowledges each request.
#[derive(Clone, Debug)]
enum Peer {
    Client { send_at_ms: Vec<u64> },
    Server,
}

/// What the client got back for each request: `Some(true)` refused, `Some(false)` answered.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Got {
    answers: Vec<Option<bool>>,
    twice: bool,
}

impl Actor for Peer {
    type Msg = M;
    type Timer = u8;
    type State = Got;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut Context<M, u8>) -> Got {
        let n = match self {
            Peer::Client { send_at_ms } => {
                for (i, &at) in send_at_ms.iter().enumerate() {
                    ctx.set_timer(i as u8, at);
                }
                send_at_ms.len()
            }
            Peer::Server => 0,
        };
        Got {
            answers: vec![None; n],
            twice: false,
        }
    }

    fn on_message(&self, state: &mut Got, from: ProcessId, msg: M, ctx: &mut Context<M, u8>) {
        let (i, refused) = match msg {
            M::Req(i) => return ctx.send(from, M::Ack(i)),
            M::Ack(i) => (i, false),
            M::Refused(i) => (i, true),
        };
        let slot = &mut state.answers[i as usize];
        state.twice |= slot.is_some();
        *slot = Some(refused);
    }

    fn on_timer(&self, _state: &mut Got, timer: u8, ctx: &mut Context<M, u8>) {
        ctx.send(1, M::Req(timer));
    }

    fn refusal(&self, msg: &M) -> Option<M> {
        match msg {
            M::Req(i) => Some(M::Refused(*i)),
            _ => None,
        }
    }
}

/// Requests still on their way, either way, or waiting for their delay to be chosen.
fn on_the_way(state: &StateOf<Peer>) -> usize {
    state.in_flight.len() + state.unrouted.len()
}

fn world(
    send_at_ms: Vec<u64>,
    there_ms: Vec<u64>,
    back_ms: Vec<u64>,
    kind: CrashKind,
) -> World<Peer> {
    let n = send_at_ms.len();
    let spec = |name: &str, actor| ProcessSpec {
        name: name.into(),
        actor,
        clock: Default::default(),
    };
    World::new(
        "refusals",
        vec![
            spec("client", Peer::Client { send_at_ms }),
            spec("server", Peer::Server),
        ],
    )
    .with_network(
        Network::default()
            .with_link(0, 1, LinkSpec::choice(there_ms))
            .with_link(1, 0, LinkSpec::choice(back_ms)),
    )
    .with_faults(FaultEnvelope::none().crash(1, &[kind], &[None], 1))
    .with_property(Property::always(
        "answered-at-most-once",
        |_, s: &StateOf<Peer>| !s.actor(0).is_some_and(|g| g.twice),
    ))
    .with_property(Property::always(
        "nothing-lost",
        move |_, s: &StateOf<Peer>| {
            // Once nothing is on its way, every request sent has its answer or refusal.
            let got = s.actor(0).map_or(0, |g| g.answers.iter().flatten().count());
            let timers_left = s.procs[0].timers.len();
            on_the_way(s) > 0 || got + timers_left == n
        },
    ))
    .with_property(Property::always(
        "refused-only-by-a-process-crash",
        move |_, s: &StateOf<Peer>| {
            let refused = s.actor(0).is_some_and(|g| g.answers.contains(&Some(true)));
            !refused || kind == CrashKind::Process
        },
    ))
}

fn all_states() -> Options {
    Options {
        stop: Stop::Never,
        ..Options::default()
    }
}

fn status(world: &World<Peer>, property: &str) -> bool {
    let report = explore(world, &mut BreadthFirst::default(), all_states());
    matches!(report.property(property).unwrap().status, Status::Holds)
}

fn delays() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0u64..6, 1..3)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_process_crash_answers_every_request_exactly_once(
        send_at_ms in prop::collection::vec(0u64..8, 1..4),
        there_ms in delays(),
        back_ms in delays(),
    ) {
        let w = world(send_at_ms, there_ms, back_ms, CrashKind::Process);
        prop_assert!(status(&w, "answered-at-most-once"));
        prop_assert!(status(&w, "nothing-lost"));
        prop_assert!(status(&w, "refused-only-by-a-process-crash"));
    }

    #[test]
    fn a_power_loss_refuses_nothing_and_loses_what_was_unanswered(
        send_at_ms in prop::collection::vec(0u64..8, 1..4),
        there_ms in delays(),
        back_ms in delays(),
    ) {
        let w = world(send_at_ms, there_ms, back_ms, CrashKind::PowerLoss);
        prop_assert!(status(&w, "answered-at-most-once"));
        prop_assert!(status(&w, "refused-only-by-a-process-crash"));
        // A crash before the first send loses every request.
        prop_assert!(!status(&w, "nothing-lost"));
    }
}

#[test]
fn a_refusal_comes_back_on_the_link_from_the_crashed_process_after_its_delay() {
    // Sent at 10 ms; the server crashed at once (the first fault), the way back takes 7 ms.
    let w = world(vec![10], vec![2], vec![7], CrashKind::Process);
    let path = lockcheck_sim::follow_labels(&w, None, 0, vec!["crash server, no restart".into()])
        .unwrap_or_else(|e| panic!("{e}"));
    let mut state = path.last_state().clone();
    use lockcheck_sim::Model;
    let mut arrived_ms = None;
    for _ in 0..20 {
        let mut enabled = Vec::new();
        w.actions(&state, &mut enabled);
        let Some(a) = enabled.iter().find(|a| !w.is_fault(a)) else {
            break;
        };
        state = w.next_state(&state, a).unwrap();
        if arrived_ms.is_none() && state.actor(0).unwrap().answers[0].is_some() {
            arrived_ms = Some(state.now_ms);
        }
    }
    assert_eq!(state.actor(0).unwrap().answers, vec![Some(true)]);
    assert_eq!(arrived_ms, Some(17));
}
