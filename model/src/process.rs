//! The processes of a Redis world, as one actor type (a world has one).
//!
//! Each kind is an [`Actor`] of its own; [`Process`] dispatches to it, and [`ProcessState`]
//! holds its state. Lock clients, the detector and the protected resource join here.

use crate::fault::RedisFault;
use crate::lock::detector::{Detector, DetectorState};
use crate::lock::service::{LockService, ServiceState};
use crate::lock::{ClientState, LockClient};
use crate::msg::{Msg, Timer};
use crate::node::{NodeState, RedisContext, RedisNode};
use crate::resource::{Account, AccountState, TokenService};
use crate::scripted::{ScriptedClient, ScriptedState};
use crate::sentinel::{Sentinel, SentinelState};
use lockcheck_sim::world::{Actor, CrashKind, LocalNow, ProcessId, Renaming};
use lockcheck_sim::FpHasher;

/// Any process of a Redis world.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Process {
    Redis(RedisNode),
    Sentinel(Sentinel),
    Scripted(ScriptedClient),
    Client(LockClient),
    Account(Account),
    Tokens(TokenService),
    /// A lock client inside seed 000's lock service (in-process detector, wait-edge keys).
    Service(LockService),
    /// A shared deadlock detector.
    Detector(Detector),
}

/// The state of any process of a Redis world.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProcessState {
    Redis(NodeState),
    Sentinel(SentinelState),
    Scripted(ScriptedState),
    Client(ClientState),
    Account(AccountState),
    Tokens(u64),
    Service(ServiceState),
    Detector(DetectorState),
}

impl ProcessState {
    pub fn as_redis(&self) -> Option<&NodeState> {
        match self {
            ProcessState::Redis(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_sentinel(&self) -> Option<&SentinelState> {
        match self {
            ProcessState::Sentinel(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_scripted(&self) -> Option<&ScriptedState> {
        match self {
            ProcessState::Scripted(s) => Some(s),
            _ => None,
        }
    }
    /// A lock client's state, whether it runs alone or inside a lock service.
    pub fn as_client(&self) -> Option<&ClientState> {
        match self {
            ProcessState::Client(s) => Some(s),
            ProcessState::Service(s) => Some(&s.client),
            _ => None,
        }
    }
    pub fn as_service(&self) -> Option<&ServiceState> {
        match self {
            ProcessState::Service(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_detector(&self) -> Option<&DetectorState> {
        match self {
            ProcessState::Detector(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_account(&self) -> Option<&AccountState> {
        match self {
            ProcessState::Account(s) => Some(s),
            _ => None,
        }
    }
}

impl Process {
    /// The lock client of this process, whether it runs alone or inside a lock service.
    pub fn lock_client(&self) -> Option<&LockClient> {
        match self {
            Process::Client(c) => Some(c),
            Process::Service(s) => Some(&s.client),
            _ => None,
        }
    }
}

/// Runs `$body` with `$actor` and `$state` bound to the matching kind's actor and state.
macro_rules! dispatch {
    ($process:expr, $state:expr, |$actor:ident, $s:ident| $body:expr) => {
        match ($process, $state) {
            (Process::Redis($actor), ProcessState::Redis($s)) => $body,
            (Process::Sentinel($actor), ProcessState::Sentinel($s)) => $body,
            (Process::Scripted($actor), ProcessState::Scripted($s)) => $body,
            (Process::Client($actor), ProcessState::Client($s)) => $body,
            (Process::Account($actor), ProcessState::Account($s)) => $body,
            (Process::Tokens($actor), ProcessState::Tokens($s)) => $body,
            (Process::Service($actor), ProcessState::Service($s)) => $body,
            (Process::Detector($actor), ProcessState::Detector($s)) => $body,
            (process, state) => {
                panic!("internal bug: {process:?} with the state of another kind: {state:?}")
            }
        }
    };
}

impl Actor for Process {
    type Msg = Msg;
    type Timer = Timer;
    type State = ProcessState;
    type Fault = RedisFault;

    fn on_start(&self, ctx: &mut RedisContext) -> ProcessState {
        match self {
            Process::Redis(a) => ProcessState::Redis(a.on_start(ctx)),
            Process::Sentinel(a) => ProcessState::Sentinel(a.on_start(ctx)),
            Process::Scripted(a) => ProcessState::Scripted(a.on_start(ctx)),
            Process::Client(a) => ProcessState::Client(a.on_start(ctx)),
            Process::Account(a) => ProcessState::Account(a.on_start(ctx)),
            Process::Tokens(a) => ProcessState::Tokens(a.on_start(ctx)),
            Process::Service(a) => ProcessState::Service(a.on_start(ctx)),
            Process::Detector(a) => ProcessState::Detector(a.on_start(ctx)),
        }
    }

    fn on_message(
        &self,
        state: &mut ProcessState,
        from: ProcessId,
        msg: Msg,
        ctx: &mut RedisContext,
    ) {
        dispatch!(self, state, |a, s| a.on_message(s, from, msg, ctx))
    }

    fn on_message_lent(
        &self,
        state: &mut ProcessState,
        from: ProcessId,
        msg: &Msg,
        ctx: &mut RedisContext,
    ) {
        dispatch!(self, state, |a, s| a.on_message_lent(s, from, msg, ctx))
    }

    fn on_timer(&self, state: &mut ProcessState, timer: Timer, ctx: &mut RedisContext) {
        dispatch!(self, state, |a, s| a.on_timer(s, timer, ctx))
    }

    /// A crashed Redis node's host refuses a client's request; everything else to a crashed
    /// process (replication, Sentinel's pings, a reply to a crashed client) is lost.
    fn refusal(&self, msg: &Msg) -> Option<Msg> {
        match (self, msg) {
            (Process::Redis(_), Msg::Request { id, .. }) => Some(Msg::Refused { id: *id }),
            _ => None,
        }
    }

    fn on_crash(&self, state: &ProcessState, kind: CrashKind) -> Option<ProcessState> {
        match (self, state) {
            (Process::Redis(a), ProcessState::Redis(s)) => {
                a.on_crash(s, kind).map(ProcessState::Redis)
            }
            // Other processes keep nothing: a restarted client starts over.
            _ => None,
        }
    }

    fn on_restart(&self, survived: Option<ProcessState>, ctx: &mut RedisContext) -> ProcessState {
        match (self, survived) {
            (Process::Redis(a), Some(ProcessState::Redis(s))) => {
                ProcessState::Redis(a.on_restart(Some(s), ctx))
            }
            (process, _) => process.on_start(ctx),
        }
    }

    /// A node's faults reach the node; other processes have no disk to stall (a scenario
    /// refuses such a fault on them, see `lockcheck::scenario`).
    fn on_fault(&self, state: &mut ProcessState, fault: &RedisFault, now: LocalNow) {
        if let (Process::Redis(a), ProcessState::Redis(s)) = (self, state) {
            a.on_fault(s, fault, now);
        }
    }

    fn fault_size(&self, fault: &RedisFault) -> u64 {
        fault.size()
    }

    fn describe_fault(&self, fault: &RedisFault) -> String {
        fault.describe()
    }

    fn renamed(&self, r: &Renaming) -> Result<Self, String> {
        crate::rename::renamed(self, r)
    }

    fn same_config(&self, other: &Self) -> bool {
        self == other
    }

    fn rename_state(&self, state: &ProcessState, r: &Renaming) -> Option<ProcessState> {
        crate::rename::rename_state(self, state, r)
    }

    fn rename_msg(&self, msg: &Msg, r: &Renaming) -> Option<Msg> {
        crate::rename::rename_msg(msg, r)
    }

    fn rename_timer(&self, timer: &Timer, r: &Renaming) -> Option<Timer> {
        crate::rename::rename_timer(timer, r)
    }

    fn describe_msg(&self, msg: &Msg) -> String {
        crate::describe::msg(msg)
    }

    fn describe_timer(&self, timer: &Timer) -> String {
        crate::describe::timer(timer)
    }

    fn hash_state(&self, state: &ProcessState, now: LocalNow, h: &mut FpHasher) {
        dispatch!(self, state, |a, s| a.hash_state(s, now, h))
    }

    /// Every actor of the model writes its times relative to now through
    /// `write_time_left` and `write_time_since` (the node's keyspace deadlines, replica lags
    /// and disk stall; a lock client's validity, its Redlock sweeps, slots and first start;
    /// Redisson's wait; Sentinel's silences and election), and the others hash no time
    /// relative to now (absolute times, if any, do not move with it).
    fn time_linear_hash(&self) -> bool {
        true
    }

    fn has_dead_values(&self, state: &ProcessState) -> bool {
        dispatch!(self, state, |a, s| a.has_dead_values(s))
    }

    fn hash_state_without_dead_values(
        &self,
        state: &ProcessState,
        now: LocalNow,
        h: &mut FpHasher,
    ) {
        dispatch!(self, state, |a, s| a
            .hash_state_without_dead_values(s, now, h))
    }

    fn hash_knowledge_of(
        &self,
        state: &ProcessState,
        other: ProcessId,
        now: LocalNow,
        h: &mut FpHasher,
    ) {
        if let (Process::Client(client), ProcessState::Client(s)) = (self, state) {
            client.hash_knowledge_of(s, other, now, h);
        }
    }
}
