//! The single-node lock (seed 000's original): `SET key owner NX PX ttl` on one Redis node,
//! retried after a fixed delay until an acquire timeout, released with the owner-checked
//! compare-and-delete script, or, in the buggy variant, with a plain `DEL` (a late unlock
//! deletes whoever holds the lock now). With a fencing counter the acquire is the fenced
//! script, which also `INCR`s a token counter on the same node (a failover can roll it
//! back). With a Sentinel, each attempt first asks it which node is the master, and the
//! release goes to the node that granted the lock. The client believes it holds the lock
//! until it releases: there is no validity.

use super::engine::{Engine, LockEvent, LockIo, OptionalMs};
use crate::msg::{LockTimer, Msg};
use crate::redis::{Command, LockScript, Reply, Set, SetCondition, SetExpiry};
use lockcheck_sim::world::ProcessId;

/// How the lock is released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Release {
    /// `if get(key) == owner then del(key)`, atomically.
    OwnerChecked,
    /// `DEL key`, whoever holds it.
    PlainDel,
}

/// Parameters of the single-node lock.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SingleNode {
    pub node: ProcessId,
    pub ttl_ms: u64,
    pub release: Release,
    /// Delay before trying again after a refusal or a timeout: one of these (several: a
    /// jittered retry, each value a choice).
    pub retry_ms: Vec<u64>,
    /// Give up acquiring after this long (`None`: never).
    pub acquire_timeout_ms: Option<u64>,
    /// Give up after this many failed attempts (`None`: never), as redsync's `tries` and
    /// node-redlock's `retryCount` do.
    pub max_attempts: Option<u16>,
    /// A request without an answer after this long counts as failed (`None`: the client
    /// waits for ever, as redis-py without a `socket_timeout` does).
    pub request_timeout_ms: Option<u64>,
    /// Acquire with the fenced script, incrementing this counter key for the token.
    pub fencing_counter: Option<Vec<u8>>,
    /// Ask this Sentinel for the master before each attempt (else use `node`).
    pub sentinel: Option<ProcessId>,
}

/// As derived, with an optional request timeout written as the always-set one was: the
/// text of a lock with a timeout (which a world's model hash is made of) is what it
/// always was.
impl std::fmt::Debug for SingleNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SingleNode")
            .field("node", &self.node)
            .field("ttl_ms", &self.ttl_ms)
            .field("release", &self.release)
            .field("retry_ms", &self.retry_ms)
            .field("acquire_timeout_ms", &self.acquire_timeout_ms)
            .field("max_attempts", &self.max_attempts)
            .field("request_timeout_ms", &OptionalMs(self.request_timeout_ms))
            .field("fencing_counter", &self.fencing_counter)
            .field("sentinel", &self.sentinel)
            .finish()
    }
}

/// Where a single-node engine is. `failed` counts the failed attempts of this acquire when
/// attempts are limited (else it stays 0, so states that differ only in it are one).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SingleState {
    Idle,
    /// Asked Sentinel for the master, for acquire attempt `tag`.
    Discovering {
        tag: u16,
        failed: u16,
    },
    /// Waiting for `node`'s answer to acquire attempt `tag`.
    Acquiring {
        tag: u16,
        node: ProcessId,
        failed: u16,
    },
    /// Refused or timed out; the retry timer runs.
    Waiting {
        tag: u16,
        failed: u16,
    },
    Holding {
        node: ProcessId,
    },
    Releasing,
}

/// Acquire attempts alternate between two tags, so a late answer to the previous attempt is
/// recognised (and ignored) without a counter that grows forever.
const ACQUIRE_TAGS: [u16; 2] = [1, 2];
const RELEASE_TAG: u16 = 3;

impl SingleNode {
    /// A lock on `node` with `ttl_ms`: released with the owner-checked script, retried every
    /// 100 ms without an acquire timeout or attempt limit, a request counting as failed after
    /// 1 s, no fencing counter, no Sentinel.
    pub fn new(node: ProcessId, ttl_ms: u64) -> Self {
        SingleNode {
            node,
            ttl_ms,
            release: Release::OwnerChecked,
            retry_ms: vec![100],
            acquire_timeout_ms: None,
            max_attempts: None,
            request_timeout_ms: Some(1_000),
            fencing_counter: None,
            sentinel: None,
        }
    }

    /// Starts attempt `tag` after `failed` failed ones: through Sentinel if there is one,
    /// else straight to the node.
    fn attempt(&self, state: &mut SingleState, tag: u16, failed: u16, io: &mut LockIo) {
        match self.sentinel {
            Some(sentinel) => {
                *state = SingleState::Discovering { tag, failed };
                io.send(sentinel, Msg::AskMaster);
                self.time_request(tag, io);
            }
            None => self.send_acquire(state, self.node, tag, failed, io),
        }
    }

    fn send_acquire(
        &self,
        state: &mut SingleState,
        node: ProcessId,
        tag: u16,
        failed: u16,
        io: &mut LockIo,
    ) {
        *state = SingleState::Acquiring { tag, node, failed };
        let command = match &self.fencing_counter {
            Some(counter) => Command::Script(LockScript::FencedAcquire {
                key: io.key.to_vec(),
                token: io.owner.to_vec(),
                ttl_ms: self.ttl_ms as i64,
                counter_key: counter.clone(),
            }),
            None => Command::Set(Set {
                key: io.key.to_vec(),
                value: io.owner.to_vec(),
                condition: Some(SetCondition::Nx),
                get: false,
                expiry: SetExpiry::Px(self.ttl_ms as i64),
            }),
        };
        io.request(node, tag, command);
        self.time_request(tag, io);
    }

    /// Arms request `tag`'s timeout, if requests have one.
    fn time_request(&self, tag: u16, io: &mut LockIo) {
        if let Some(timeout_ms) = self.request_timeout_ms {
            io.set_timer(LockTimer::RequestTimeout(tag), timeout_ms);
        }
    }

    /// Attempt `tag`, after `failed` failed ones, failed too: wait a retry delay, or give up
    /// if that was the last attempt allowed.
    fn retry_later(
        &self,
        state: &mut SingleState,
        tag: u16,
        failed: u16,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let Some(max) = self.max_attempts else {
            *state = SingleState::Waiting { tag, failed: 0 };
            io.set_timer_among(LockTimer::Retry, self.retry_ms.clone());
            return None;
        };
        let failed = failed.saturating_add(1);
        if failed >= max {
            io.cancel_timer(LockTimer::AcquireDeadline);
            *state = SingleState::Idle;
            return Some(LockEvent::GaveUp);
        }
        *state = SingleState::Waiting { tag, failed };
        io.set_timer_among(LockTimer::Retry, self.retry_ms.clone());
        None
    }

    /// What an acquire reply means: the token if it granted the lock, `None` if refused.
    fn granted(&self, reply: &Reply) -> Option<Option<u64>> {
        match (&self.fencing_counter, reply) {
            (None, Reply::Status(ok)) if ok == "OK" => Some(None),
            (Some(_), Reply::Integer(n)) => Some(Some(*n as u64)),
            _ => None,
        }
    }
}

impl Engine for SingleNode {
    type State = SingleState;

    fn init(&self) -> SingleState {
        SingleState::Idle
    }

    fn acquire(&self, state: &mut SingleState, io: &mut LockIo) {
        if let Some(timeout) = self.acquire_timeout_ms {
            io.set_timer(LockTimer::AcquireDeadline, timeout);
        }
        self.attempt(state, ACQUIRE_TAGS[0], 0, io);
    }

    fn release(&self, state: &mut SingleState, io: &mut LockIo) {
        let node = match *state {
            SingleState::Holding { node } => node,
            _ => self.node,
        };
        *state = SingleState::Releasing;
        let command = match self.release {
            Release::OwnerChecked => Command::Script(LockScript::CompareAndDelete {
                key: io.key.to_vec(),
                token: io.owner.to_vec(),
            }),
            Release::PlainDel => Command::Del {
                keys: vec![io.key.to_vec()],
            },
        };
        io.request(node, RELEASE_TAG, command);
        self.time_request(RELEASE_TAG, io);
    }

    fn on_reply(
        &self,
        state: &mut SingleState,
        _node: ProcessId,
        tag: u16,
        reply: Reply,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        match *state {
            SingleState::Acquiring {
                tag: current,
                node,
                failed,
            } if tag == current => {
                io.cancel_timer(LockTimer::RequestTimeout(tag));
                let Some(token) = self.granted(&reply) else {
                    return self.retry_later(state, tag, failed, io);
                };
                *state = SingleState::Holding { node };
                io.cancel_timer(LockTimer::AcquireDeadline);
                Some(LockEvent::Acquired {
                    valid_until: None,
                    token,
                })
            }
            SingleState::Releasing if tag == RELEASE_TAG => {
                io.cancel_timer(LockTimer::RequestTimeout(tag));
                *state = SingleState::Idle;
                Some(LockEvent::Released)
            }
            _ => None,
        }
    }

    fn on_timer(
        &self,
        state: &mut SingleState,
        timer: LockTimer,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        match (timer, state.clone()) {
            (
                LockTimer::RequestTimeout(tag),
                SingleState::Acquiring {
                    tag: current,
                    failed,
                    ..
                }
                | SingleState::Discovering {
                    tag: current,
                    failed,
                },
            ) if tag == current => self.retry_later(state, tag, failed, io),
            (LockTimer::RequestTimeout(RELEASE_TAG), SingleState::Releasing) => {
                *state = SingleState::Idle;
                Some(LockEvent::Released)
            }
            (LockTimer::Retry, SingleState::Waiting { tag, failed }) => {
                let next = if tag == ACQUIRE_TAGS[0] {
                    ACQUIRE_TAGS[1]
                } else {
                    ACQUIRE_TAGS[0]
                };
                self.attempt(state, next, failed, io);
                None
            }
            (
                LockTimer::AcquireDeadline,
                SingleState::Acquiring { .. }
                | SingleState::Waiting { .. }
                | SingleState::Discovering { .. },
            ) => {
                io.cancel_timer(LockTimer::Retry);
                *state = SingleState::Idle;
                Some(LockEvent::GaveUp)
            }
            _ => None,
        }
    }

    fn on_other(
        &self,
        state: &mut SingleState,
        _from: ProcessId,
        msg: Msg,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        if let (Msg::MasterIs { master, .. }, SingleState::Discovering { tag, failed }) =
            (msg, &*state)
        {
            let (tag, failed) = (*tag, *failed);
            io.cancel_timer(LockTimer::RequestTimeout(tag));
            self.send_acquire(state, master, tag, failed, io);
        }
        None
    }
}
