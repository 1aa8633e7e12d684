//! The protocols a lock client can speak, as one enum over their engines.

use super::engine::{Belief, Engine, Extension, LockEvent, LockIo};
use super::redisson::Redisson;
use super::redlock::Redlock;
use super::refused::OnRefused;
use super::single::SingleNode;
use crate::msg::{LockTimer, Msg};
use crate::redis::Reply;
use lockcheck_sim::world::{LocalNow, ProcessId};
use lockcheck_sim::FpHasher;

/// A lock protocol with its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    SingleNode(SingleNode),
    Redlock(Redlock),
    Redisson(Redisson),
}

/// The state of one lock's engine.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EngineState {
    SingleNode(<SingleNode as Engine>::State),
    Redlock(<Redlock as Engine>::State),
    Redisson(<Redisson as Engine>::State),
}

/// Runs `$body` with `$e` and `$s` bound to the matching engine and state.
macro_rules! with_engine {
    ($protocol:expr, $state:expr, |$e:ident, $s:ident| $body:expr) => {
        match ($protocol, $state) {
            (Protocol::SingleNode($e), EngineState::SingleNode($s)) => $body,
            (Protocol::Redlock($e), EngineState::Redlock($s)) => $body,
            (Protocol::Redisson($e), EngineState::Redisson($s)) => $body,
            _ => panic!("internal bug: a lock engine with the state of another protocol"),
        }
    };
}

impl Protocol {
    pub fn init(&self) -> EngineState {
        match self {
            Protocol::SingleNode(e) => EngineState::SingleNode(e.init()),
            Protocol::Redlock(e) => EngineState::Redlock(e.init()),
            Protocol::Redisson(e) => EngineState::Redisson(e.init()),
        }
    }

    pub fn acquire(&self, state: &mut EngineState, io: &mut LockIo) {
        with_engine!(self, state, |e, s| e.acquire(s, io))
    }

    pub fn release(&self, state: &mut EngineState, io: &mut LockIo) -> Option<LockEvent> {
        with_engine!(self, state, |e, s| e.release(s, io))
    }

    pub fn extend(
        &self,
        state: &mut EngineState,
        how: Extension,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        with_engine!(self, state, |e, s| e.extend(s, how, io))
    }

    pub fn on_reply(
        &self,
        state: &mut EngineState,
        node: ProcessId,
        tag: u16,
        reply: Reply,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        with_engine!(self, state, |e, s| e.on_reply(s, node, tag, reply, io))
    }

    /// `node` refused request `tag`: the engine's answer, if the library raises it.
    pub fn on_refused(
        &self,
        state: &mut EngineState,
        node: ProcessId,
        tag: u16,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        if !self.on_refused_kind().is_fail() {
            return None;
        }
        with_engine!(self, state, |e, s| e.on_refused(s, node, tag, io))
    }

    /// What the library does with a refused connection.
    pub fn on_refused_kind(&self) -> OnRefused {
        match self {
            Protocol::SingleNode(e) => e.on_refused,
            Protocol::Redlock(e) => e.on_refused,
            Protocol::Redisson(_) => OnRefused::Fail,
        }
    }

    pub fn on_timer(
        &self,
        state: &mut EngineState,
        timer: LockTimer,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        with_engine!(self, state, |e, s| e.on_timer(s, timer, io))
    }

    pub(crate) fn on_published(
        &self,
        state: &mut EngineState,
        channel: &[u8],
        message: &[u8],
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        with_engine!(self, state, |e, s| e.on_published(s, channel, message, io))
    }

    pub(crate) fn on_other(
        &self,
        state: &mut EngineState,
        from: ProcessId,
        msg: Msg,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        with_engine!(self, state, |e, s| e.on_other(s, from, msg, io))
    }

    pub fn hash_state(&self, state: &EngineState, now: LocalNow, h: &mut FpHasher) {
        with_engine!(self, state, |e, s| e.hash_state(s, now, h))
    }

    pub(crate) fn hash_finished_state(&self, state: &EngineState, now: LocalNow, h: &mut FpHasher) {
        with_engine!(self, state, |e, s| e.hash_finished_state(s, now, h))
    }

    /// What the business code believes of a lock it holds.
    pub fn belief(&self) -> Belief {
        match self {
            Protocol::Redlock(r) => r.belief,
            Protocol::SingleNode(_) | Protocol::Redisson(_) => Belief::Validity,
        }
    }

    pub fn failed_renewals(&self, state: &EngineState) -> u32 {
        with_engine!(self, state, |e, s| e.failed_renewals(s))
    }

    /// The Redis nodes this protocol talks to (for liveness oracles).
    pub fn nodes(&self) -> Vec<ProcessId> {
        match self {
            Protocol::SingleNode(e) => vec![e.node],
            Protocol::Redlock(e) => e.nodes.clone(),
            Protocol::Redisson(e) => vec![e.node],
        }
    }
}
