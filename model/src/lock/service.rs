//! Seed 000's `DistributedLockService` around a lock client: what the service registers at
//! the points its `acquire` does, in the same process as the business code.
//!
//! The idea: the service does not change the client's protocol; it watches the client's lock
//! calls and registers them. [`LockService`] runs the [`LockClient`] unchanged and compares
//! its state before and after each step: a lock attempt starting (the first attempt, and
//! every retry, before the attempt is made) is seed 000's `register_wait` followed by
//! `detect_deadlock` and `auto_recover`; a lock acquired is `register_acquire`; a release is
//! `_lock_records.pop(resource)` and `_wait_graph.pop(holder)`; giving up is
//! `_wait_graph.pop(holder)`. The in-process detector ([`LocalDetector`]) therefore sees only
//! this process's records, which is the point: per-process records cannot contain another
//! process's holder. Its "recovery" is `redlock.release_lock(resource, value)` (the
//! owner-checked delete on every node of the protocol) of the earliest recorded lock, and the
//! business code is not told: it keeps believing it holds the lock.
//!
//! For the shared variant the service writes a wait-edge key instead (`SET wait:<owner>
//! <lock> PX ttl`) at every attempt and deletes it once the lock is acquired or the attempt
//! given up; a shared [`super::detector::Detector`] reads those keys. A detector's
//! cooperative abort (`Msg::AbortRound`) reaches the client through [`LockClient::abort`].

use super::client::{ClientState, LockClient, Phase};
use super::detector::{wait_key, LocalDetector, Records};
use super::engine::{request_id, split_request_id};
use crate::msg::{ClientTimer, LockTimer, Msg, ServiceTimer, Timer};
use crate::node::RedisContext;
use crate::redis::{Command, LockScript, Set, SetExpiry};
use lockcheck_sim::world::{Actor, LocalNow, ProcessId, TimerEffect};
use lockcheck_sim::FpHasher;
use std::hash::Hash;

/// The lock index the service's own requests carry (no workload has that many locks).
const SERVICE_LOCK: u8 = 0xFF;

/// Wait-edge keys in Redis (the shared variant).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WaitEdges {
    pub node: ProcessId,
    pub ttl_ms: u64,
}

/// A lock client inside seed 000's lock service.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LockService {
    pub client: LockClient,
    /// Seed 000's in-process detector, if any.
    pub detector: Option<LocalDetector>,
    /// Wait-edge keys for a shared detector, if any.
    pub wait_edges: Option<WaitEdges>,
}

/// The service's state: the client's, and the in-process detector's records.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ServiceState {
    pub client: ClientState,
    pub records: Records,
    /// A cycle the in-process detector reported at this instant.
    pub report: Option<Vec<ProcessId>>,
}

/// What the service compares before and after a step of the client.
struct Before {
    phase: Phase,
    held: Vec<bool>,
    gave_up: u32,
}

impl LockService {
    fn before(state: &ServiceState) -> Before {
        let c = &state.client;
        Before {
            phase: c.phase,
            held: c.held.iter().map(Option::is_some).collect(),
            gave_up: c.gave_up,
        }
    }

    /// Runs one step of the client, registers what it did, and sends the service's own
    /// requests *before* the client's (the seed registers and detects before it calls
    /// `acquire_lock`).
    fn run(
        &self,
        state: &mut ServiceState,
        ctx: &mut RedisContext,
        step: impl FnOnce(&LockClient, &mut ClientState, &mut RedisContext),
    ) {
        let before = Self::before(state);
        let mut inner = RedisContext::new(ctx.me(), ctx.local_now());
        step(&self.client, &mut state.client, &mut inner);
        self.observe(state, before, ctx);
        let (sends, timers) = inner.into_effects();
        for (to, msg) in sends {
            ctx.send(to, msg);
        }
        for timer in timers {
            match timer {
                TimerEffect::Set { timer, after_ms } => ctx.set_timer(timer, after_ms),
                TimerEffect::SetAmong { timer, after_ms } => ctx.set_timer_among(timer, after_ms),
                TimerEffect::Cancel(timer) => ctx.cancel_timer(timer),
            }
        }
    }

    /// Registers what the client's step did, in the order it did it.
    fn observe(&self, state: &mut ServiceState, before: Before, ctx: &mut RedisContext) {
        let rule = self.detector.as_ref().map(|d| d.wait_record);
        for (i, was) in before.held.iter().enumerate() {
            if !was && state.client.held[i].is_some() {
                if let Some(rule) = rule {
                    state.records.register_acquire(i as u8, rule);
                }
                self.edge(None, ctx);
            }
        }
        if state.client.gave_up > before.gave_up {
            state.records.waits.clear();
            self.edge(None, ctx);
        }
        let phase = state.client.phase;
        if phase != before.phase {
            match phase {
                Phase::Releasing(j) => state.records.released(j),
                Phase::Acquiring(i) => self.attempt(state, i, ctx),
                _ => {}
            }
        }
    }

    /// An acquire attempt of lock `i` begins: `register_wait`, `detect_deadlock`,
    /// `auto_recover`; or the wait-edge key is written (again).
    fn attempt(&self, state: &mut ServiceState, i: u8, ctx: &mut RedisContext) {
        self.edge(Some(i), ctx);
        let Some(detector) = &self.detector else {
            return;
        };
        state.records.register_wait(i);
        let Some((cycle, victim)) = state.records.detect(ctx.me(), detector.max_chain) else {
            return;
        };
        state.report = Some(cycle);
        ctx.set_timer(Timer::Service(ServiceTimer::ReportDone), 0);
        let key = self.client.workload.locks[victim as usize].clone();
        for node in self.client.protocol.nodes() {
            let command = Command::Script(LockScript::CompareAndDelete {
                key: key.clone(),
                token: self.client.owner.clone(),
            });
            let id = request_id(SERVICE_LOCK, 0);
            ctx.send(node, Msg::Request { id, command });
        }
        state.records.locks.retain(|&l| l != victim);
    }

    /// Writes the wait edge to lock `i`, or deletes it (`None`).
    fn edge(&self, lock: Option<u8>, ctx: &mut RedisContext) {
        let Some(edges) = &self.wait_edges else {
            return;
        };
        let key = wait_key(&self.client.owner);
        let command = match lock {
            Some(i) => Command::Set(Set {
                key,
                value: self.client.workload.locks[i as usize].clone(),
                condition: None,
                get: false,
                expiry: SetExpiry::Px(edges.ttl_ms as i64),
            }),
            None => Command::del(&key),
        };
        let id = request_id(SERVICE_LOCK, 1);
        ctx.send(edges.node, Msg::Request { id, command });
    }
}

impl Actor for LockService {
    type Msg = Msg;
    type Timer = Timer;
    type State = ServiceState;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut RedisContext) -> ServiceState {
        ServiceState {
            client: self.client.on_start(ctx),
            records: Records::default(),
            report: None,
        }
    }

    fn on_message(
        &self,
        state: &mut ServiceState,
        from: ProcessId,
        msg: Msg,
        ctx: &mut RedisContext,
    ) {
        match msg {
            Msg::Response { id, .. } | Msg::Refused { id }
                if split_request_id(id).0 == SERVICE_LOCK => {}
            Msg::AbortRound => self.run(state, ctx, |c, s, ctx| c.abort(s, ctx)),
            msg => self.run(state, ctx, |c, s, ctx| c.on_message(s, from, msg, ctx)),
        }
    }

    fn on_timer(&self, state: &mut ServiceState, timer: Timer, ctx: &mut RedisContext) {
        match timer {
            Timer::Service(ServiceTimer::ReportDone) => state.report = None,
            timer => {
                if let Timer::Client(ClientTimer::Lock {
                    lock,
                    timer: LockTimer::Retry,
                }) = timer
                {
                    if state.client.phase == Phase::Acquiring(lock) {
                        // The seed's loop registers and detects before every attempt.
                        self.attempt(state, lock, ctx);
                    }
                }
                self.run(state, ctx, |c, s, ctx| c.on_timer(s, timer, ctx));
            }
        }
    }

    fn hash_state(&self, state: &ServiceState, now: LocalNow, h: &mut FpHasher) {
        self.client.hash_state(&state.client, now, h);
        (&state.records, &state.report).hash(h);
    }
}
