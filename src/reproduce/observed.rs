//! The oracles, fed what was observed: the model's path is walked again with every real
//! reply delivered in place of the model's, the model's clients reacting to it, and the
//! recorded property evaluated in every state of that observed history. A time to live that
//! agreed within the tolerance keeps the model's value (the run passes only those it took
//! as exact).

use super::verdict::Observed;
use crate::oracles::RedisWorld;
use lockcheck_model::msg::Msg;
use lockcheck_model::redis::Reply;
use lockcheck_sim::world::WorldAction;
use lockcheck_sim::{Claim, Model, Path};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The recorded `property` on the history in which trace step i (0-based) delivered
/// `real[i]` instead of the model's reply: an `always` property happens where some state
/// breaks it, a `sometimes` property (a witness trace) where some state meets it; any other
/// kind takes the model's verdict (`model_happened`).
pub fn judge(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    real: &BTreeMap<usize, Reply>,
    property: &str,
    model_happened: bool,
) -> Observed {
    let event = world
        .properties
        .iter()
        .find(|p| p.name == property)
        .and_then(|p| match &p.claim {
            Claim::Always(c) => Some((c.clone(), false)),
            Claim::Sometimes(c) => Some((c.clone(), true)),
            _ => None,
        });
    let mut state = path.states[0].clone();
    let mut happened = false;
    for (i, step) in path.steps.iter().enumerate() {
        let action = match (&step.action, real.get(&i)) {
            (WorldAction::Deliver { from, to, msg }, Some(reply)) => match &**msg {
                Msg::Response { id, reply: model } if model != reply => {
                    let observed = Arc::new(Msg::Response {
                        id: *id,
                        reply: reply.clone(),
                    });
                    if let Some(m) = state
                        .in_flight
                        .iter_mut()
                        .find(|m| m.from == *from && m.to == *to && m.msg == *msg)
                    {
                        m.msg = observed.clone();
                    }
                    WorldAction::Deliver {
                        from: *from,
                        to: *to,
                        msg: observed,
                    }
                }
                _ => step.action.clone(),
            },
            _ => match enabled_by_label(world, &state, &step.label) {
                Some(a) => a,
                None => return Observed::OtherPath { step: i + 1 },
            },
        };
        if let Some(next) = world.next_state(&state, &action) {
            state = next;
        }
        happened |= event
            .as_ref()
            .is_some_and(|(c, holds)| c(world, &state) == *holds);
    }
    let happened = match event {
        Some(_) => happened,
        None => model_happened,
    };
    if happened {
        Observed::Happened
    } else {
        Observed::Holds
    }
}

/// The action enabled in `state` whose label is `label`.
fn enabled_by_label(
    world: &RedisWorld,
    state: &<RedisWorld as Model>::State,
    label: &str,
) -> Option<<RedisWorld as Model>::Action> {
    let mut actions = Vec::new();
    world.actions(state, &mut actions);
    actions.into_iter().find(|a| world.label(state, a) == label)
}
