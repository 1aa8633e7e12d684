//! A scripted client: sends a fixed list of commands at fixed times and records the replies.
//!
//! It is the simplest client there is, for tests that ask "what does the node answer to this
//! sequence, under these faults?" and compare the model with a real server.

use crate::msg::{Msg, Timer};
use crate::node::RedisContext;
use crate::redis::{Command, Reply};
use lockcheck_sim::world::{Actor, ProcessId};

/// What a step sends.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StepAction {
    /// A command; its reply is recorded under the step's index.
    Command(Command),
    /// An operator's `REPLICAOF NO ONE` (`None`) or `REPLICAOF master`, as Sentinel sends it
    /// (in configuration epoch `step + 1`); no reply.
    ReplicaOf { master: Option<ProcessId> },
}

/// One step of a script.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScriptedStep {
    /// Delay after the previous step (after start for the first), in ms.
    pub after_ms: u64,
    pub target: ProcessId,
    pub action: StepAction,
}

impl ScriptedStep {
    pub fn command(after_ms: u64, target: ProcessId, command: Command) -> Self {
        ScriptedStep {
            after_ms,
            target,
            action: StepAction::Command(command),
        }
    }
}

/// A client that sends its steps in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScriptedClient {
    pub steps: Vec<ScriptedStep>,
}

/// What the scripted client has seen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScriptedState {
    /// `(step, reply)` in arrival order.
    pub replies: Vec<(u32, Reply)>,
    /// `(channel, message)` pushed to it.
    pub published: Vec<(Vec<u8>, Vec<u8>)>,
}

impl ScriptedState {
    /// The reply to step `step`, if it came.
    pub fn reply(&self, step: usize) -> Option<&Reply> {
        self.replies
            .iter()
            .find(|(id, _)| *id as usize == step)
            .map(|(_, r)| r)
    }
}

impl Actor for ScriptedClient {
    type Msg = Msg;
    type Timer = Timer;
    type State = ScriptedState;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut RedisContext) -> ScriptedState {
        if let Some(first) = self.steps.first() {
            ctx.set_timer(Timer::ScriptStep(0), first.after_ms);
        }
        ScriptedState::default()
    }

    fn on_message(
        &self,
        state: &mut ScriptedState,
        _from: ProcessId,
        msg: Msg,
        _ctx: &mut RedisContext,
    ) {
        match msg {
            Msg::Response { id, reply } => state.replies.push((id, reply)),
            // A crashed node's host refused the connection: the error a client sees.
            Msg::Refused { id } => {
                let error = crate::lock::refused::CONNECTION_REFUSED.to_string();
                state.replies.push((id, crate::redis::Reply::Error(error)))
            }
            Msg::Published { channel, message } => state.published.push((channel, message)),
            other => panic!("a scripted client does not handle {other:?}"),
        }
    }

    fn on_timer(&self, _state: &mut ScriptedState, timer: Timer, ctx: &mut RedisContext) {
        let Timer::ScriptStep(i) = timer else {
            panic!("a scripted client sets no {timer:?} timer")
        };
        let step = &self.steps[i];
        let msg = match &step.action {
            StepAction::Command(command) => Msg::Request {
                id: i as u32,
                command: command.clone(),
            },
            StepAction::ReplicaOf { master } => Msg::ReplicaOf {
                master: *master,
                epoch: i as u64 + 1,
            },
        };
        ctx.send(step.target, msg);
        if let Some(next) = self.steps.get(i + 1) {
            ctx.set_timer(Timer::ScriptStep(i + 1), next.after_ms);
        }
    }
}
