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
/// `real[i]` instead of the model's reply; only `always` properties are judged on states,
/// any other kind takes the model's verdict (`model_violated`).
pub fn judge(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    real: &BTreeMap<usize, Reply>,
    property: &str,
    model_violated: bool,
) -> Observed {
    let condition = world
        .properties
        .iter()
        .find(|p| p.name == property)
        .and_then(|p| match &p.claim {
            Claim::Always(c) => Some(c.clone()),
            _ => None,
        });
    let mut state = path.states[0].clone();
    let mut violated = false;
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
        violated |= condition.as_ref().is_some_and(|c| !c(world, &state));
    }
    let violated = match condition {
        Some(_) => violated,
        None => model_violated,
    };
    if violated {
        Observed::Violated
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
