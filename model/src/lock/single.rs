//! The single-node lock (seed 000's original): `SET key owner NX PX ttl` on one Redis node,
//! retried after a fixed delay until an acquire timeout, released with the owner-checked
//! compare-and-delete script, or, in the buggy variant, with a plain `DEL` (a late unlock
//! deletes whoever holds the lock now). With a fencing counter the acquire is the fenced
//! script, which also `INCR`s a token counter on the same node (a failover can roll it
//! back). With a Sentinel, each attempt first asks it which node is the master, and the
//! release goes to the node that granted the lock. The client believes it holds the lock
//! until it releases: there is no validity.

use super::engine::{Engine, Extension, LockEvent, LockIo, OptionalMs};
use super::refused::OnRefused;
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
    /// The key's TTL (`None`: it never expires, as with redis-py's default `timeout=None`,
    /// so a holder that never releases keeps the lock for good).
    pub ttl_ms: Option<u64>,
    pub release: Release,
    /// Delay before trying again after a refusal or a timeout: one of these (several: a
    /// jittered retry, each value a choice).
    pub retry_ms: Vec<u64>,
    /// Give up acquiring after this long (`None`: never).
    pub acquire_timeout_ms: Option<u64>,
    /// When the acquire timeout is checked.
    pub give_up_check: GiveUpCheck,
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
    /// What the library does when a crashed node refuses the connection.
    pub on_refused: OnRefused,
}

/// As derived, with an optional request timeout written as the always-set one was: the
/// text of a lock with a timeout (which a world's model hash is made of) is what it
/// always was.
impl std::fmt::Debug for SingleNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("SingleNode");
        d.field("node", &self.node)
            .field("ttl_ms", &OptionalMs(self.ttl_ms))
            .field("release", &self.release)
            .field("retry_ms", &self.retry_ms)
            .field("acquire_timeout_ms", &self.acquire_timeout_ms);
        if self.give_up_check != GiveUpCheck::AtDeadline {
            d.field("give_up_check", &self.give_up_check);
        }
        d.field("max_attempts", &self.max_attempts)
            .field("request_timeout_ms", &OptionalMs(self.request_timeout_ms))
            .field("fencing_counter", &self.fencing_counter)
            .field("sentinel", &self.sentinel);
        if !self.on_refused.is_fail() {
            d.field("on_refused", &self.on_refused);
        }
        d.finish()
    }
}

/// When the acquire timeout makes the client give up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GiveUpCheck {
    /// The moment it passes, an attempt in flight included.
    AtDeadline,
    /// After a failed attempt, when the next one would start after it (redis-py's
    /// `blocking_timeout`: `next_try_at > stop_trying_at`, checked before sleeping); an
    /// attempt in flight is never cut short. Needs one retry delay. A timer marks the first
    /// instant from which the next try would start late: a failure in that very
    /// millisecond goes either way (both orders are explored), as with any two events of
    /// one instant.
    BeforeSleep,
}

/// How far an acquire has got: `failed` counts its failed attempts when attempts are
/// limited (else it stays 0, so states that differ only in it are one); `out_of_time`: with
/// [`GiveUpCheck::BeforeSleep`], the next failure gives up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tries {
    pub failed: u16,
    pub out_of_time: bool,
}

/// Where a single-node engine is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SingleState {
    Idle,
    /// Asked Sentinel for the master, for acquire attempt `tag`.
    Discovering {
        tag: u16,
        tries: Tries,
    },
    /// Waiting for `node`'s answer to acquire attempt `tag`.
    Acquiring {
        tag: u16,
        node: ProcessId,
        tries: Tries,
    },
    /// Refused or timed out; the retry timer runs.
    Waiting {
        tag: u16,
        tries: Tries,
    },
    Holding {
        node: ProcessId,
    },
    /// Holding, and waiting for `node`'s answer to the business code's extension.
    Extending {
        node: ProcessId,
    },
    Releasing,
}

impl SingleState {
    /// The tries of an acquire under way.
    fn tries_mut(&mut self) -> Option<&mut Tries> {
        match self {
            SingleState::Discovering { tries, .. }
            | SingleState::Acquiring { tries, .. }
            | SingleState::Waiting { tries, .. } => Some(tries),
            SingleState::Idle
            | SingleState::Holding { .. }
            | SingleState::Extending { .. }
            | SingleState::Releasing => None,
        }
    }
}

/// Acquire attempts alternate between two tags, so a late answer to the previous attempt is
/// recognised (and ignored) without a counter that grows forever.
const ACQUIRE_TAGS: [u16; 2] = [1, 2];
const RELEASE_TAG: u16 = 3;
const EXTEND_TAG: u16 = 4;

impl SingleNode {
    /// A lock on `node` with `ttl_ms`: released with the owner-checked script, retried every
    /// 100 ms without an acquire timeout or attempt limit, a request counting as failed after
    /// 1 s, no fencing counter, no Sentinel, a refused connection failing the request at once.
    pub fn new(node: ProcessId, ttl_ms: u64) -> Self {
        SingleNode {
            node,
            ttl_ms: Some(ttl_ms),
            release: Release::OwnerChecked,
            retry_ms: vec![100],
            acquire_timeout_ms: None,
            give_up_check: GiveUpCheck::AtDeadline,
            max_attempts: None,
            request_timeout_ms: Some(1_000),
            fencing_counter: None,
            sentinel: None,
            on_refused: OnRefused::Fail,
        }
    }

    /// Starts attempt `tag` after `tries`: through Sentinel if there is one, else straight
    /// to the node.
    fn attempt(&self, state: &mut SingleState, tag: u16, tries: Tries, io: &mut LockIo) {
        match self.sentinel {
            Some(sentinel) => {
                *state = SingleState::Discovering { tag, tries };
                io.send(sentinel, Msg::AskMaster);
                self.time_request(tag, io);
            }
            None => self.send_acquire(state, self.node, tag, tries, io),
        }
    }

    fn send_acquire(
        &self,
        state: &mut SingleState,
        node: ProcessId,
        tag: u16,
        tries: Tries,
        io: &mut LockIo,
    ) {
        *state = SingleState::Acquiring { tag, node, tries };
        let command = match (&self.fencing_counter, self.ttl_ms) {
            (Some(counter), Some(ttl_ms)) => Command::Script(LockScript::FencedAcquire {
                key: io.key.to_vec(),
                token: io.owner.to_vec(),
                ttl_ms: ttl_ms as i64,
                counter_key: counter.clone(),
            }),
            (Some(_), None) => unreachable!("a fenced lock has a TTL (the scenario checks it)"),
            (None, ttl_ms) => Command::Set(Set {
                key: io.key.to_vec(),
                value: io.owner.to_vec(),
                condition: Some(SetCondition::Nx),
                get: false,
                expiry: ttl_ms.map_or(SetExpiry::NoTtl, |ms| SetExpiry::Px(ms as i64)),
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

    /// Attempt `tag`, after `tries`, failed too: wait a retry delay, or give up if that was
    /// the last attempt allowed or the next would start too late.
    fn retry_later(
        &self,
        state: &mut SingleState,
        tag: u16,
        mut tries: Tries,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        if let Some(max) = self.max_attempts {
            tries.failed = tries.failed.saturating_add(1);
            if tries.failed >= max {
                return self.give_up(state, io);
            }
        }
        if tries.out_of_time {
            return self.give_up(state, io);
        }
        *state = SingleState::Waiting { tag, tries };
        io.set_timer_among(LockTimer::Retry, self.retry_ms.clone());
        None
    }

    fn give_up(&self, state: &mut SingleState, io: &mut LockIo) -> Option<LockEvent> {
        io.cancel_timer(LockTimer::AcquireDeadline);
        io.cancel_timer(LockTimer::Retry);
        *state = SingleState::Idle;
        Some(LockEvent::GaveUp)
    }

    /// When the acquire-deadline timer is set, from the start of the acquire: the timeout
    /// itself, or (checked before sleeping) the first instant from which the next attempt
    /// would start after it.
    fn deadline_timer_ms(&self, timeout_ms: u64) -> u64 {
        match self.give_up_check {
            GiveUpCheck::AtDeadline => timeout_ms,
            GiveUpCheck::BeforeSleep => {
                let sleep_ms = self.retry_ms.iter().copied().max().unwrap_or(0);
                (timeout_ms + 1).saturating_sub(sleep_ms)
            }
        }
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
        if let Some(timeout_ms) = io.within_ms.or(self.acquire_timeout_ms) {
            io.set_timer(
                LockTimer::AcquireDeadline,
                self.deadline_timer_ms(timeout_ms),
            );
        }
        self.attempt(state, ACQUIRE_TAGS[0], Tries::default(), io);
    }

    fn release(&self, state: &mut SingleState, io: &mut LockIo) -> Option<LockEvent> {
        // Released while still acquiring (a detector's abort): the acquisition's timers
        // would fire into `Releasing` and do nothing, so they go now.
        if let SingleState::Discovering { tag, .. } | SingleState::Acquiring { tag, .. } = *state {
            io.cancel_timer(LockTimer::RequestTimeout(tag));
        }
        if state.tries_mut().is_some() {
            io.cancel_timer(LockTimer::Retry);
            io.cancel_timer(LockTimer::AcquireDeadline);
        }
        let node = match *state {
            SingleState::Holding { node } | SingleState::Extending { node } => node,
            _ => self.node,
        };
        // A lock object whose token another thread's release cleared raises `LockError`
        // ("Cannot release an unlocked lock") before sending anything.
        let Some(token) = io.token else {
            *state = SingleState::Idle;
            return Some(LockEvent::Released);
        };
        *state = SingleState::Releasing;
        let command = match self.release {
            Release::OwnerChecked => Command::Script(LockScript::CompareAndDelete {
                key: io.key.to_vec(),
                token: token.to_vec(),
            }),
            Release::PlainDel => Command::Del {
                keys: vec![io.key.to_vec()],
            },
        };
        io.request(node, RELEASE_TAG, command);
        self.time_request(RELEASE_TAG, io);
        None
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
                tries,
            } if tag == current => {
                io.cancel_timer(LockTimer::RequestTimeout(tag));
                let Some(token) = self.granted(&reply) else {
                    return self.retry_later(state, tag, tries, io);
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
            SingleState::Extending { node } if tag == EXTEND_TAG => {
                io.cancel_timer(LockTimer::RequestTimeout(tag));
                *state = SingleState::Holding { node };
                Some(match reply {
                    Reply::Integer(1) => LockEvent::Extended { valid_until: None },
                    _ => LockEvent::NotExtended,
                })
            }
            _ => None,
        }
    }

    /// `reacquire()` is the owner-checked `PEXPIRE` to the TTL; `extend(t)` and
    /// `extend(t, replace_ttl=True)` are redis-py's extend script. Without a hold (an
    /// acquire that failed and the code went on) there is nothing to extend: redis-py
    /// raises `LockError` before sending anything.
    fn extend(
        &self,
        state: &mut SingleState,
        how: Extension,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let node = match *state {
            SingleState::Holding { node } => node,
            // A thread extending through a lock object another thread acquired with (a
            // renewer thread): redis-py sends what the object holds.
            SingleState::Idle if io.token.is_some_and(|t| t != io.owner) => self.node,
            _ => return Some(LockEvent::NotExtended),
        };
        // redis-py refuses to extend or reacquire a lock without a timeout (`LockError`)
        // before it sends anything.
        let Some(ttl_ms) = self.ttl_ms else {
            return Some(LockEvent::NotExtended);
        };
        // Nor can it extend a lock object whose token a release cleared.
        let Some(token) = io.token else {
            return Some(LockEvent::NotExtended);
        };
        let (key, token) = (io.key.to_vec(), token.to_vec());
        let script = match how {
            Extension::Ttl => LockScript::CompareAndPexpire {
                key,
                token,
                ttl_ms: ttl_ms as i64,
            },
            Extension::By(ms) | Extension::To(ms) => LockScript::RedisPyExtend {
                key,
                token,
                ms: ms as i64,
                replace: matches!(how, Extension::To(_)),
            },
        };
        *state = SingleState::Extending { node };
        io.request(node, EXTEND_TAG, Command::Script(script));
        self.time_request(EXTEND_TAG, io);
        None
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
                    tries,
                    ..
                }
                | SingleState::Discovering {
                    tag: current,
                    tries,
                },
            ) if tag == current => self.retry_later(state, tag, tries, io),
            (LockTimer::RequestTimeout(RELEASE_TAG), SingleState::Releasing) => {
                *state = SingleState::Idle;
                Some(LockEvent::Released)
            }
            (LockTimer::RequestTimeout(EXTEND_TAG), SingleState::Extending { node }) => {
                *state = SingleState::Holding { node };
                Some(LockEvent::NotExtended)
            }
            (LockTimer::Retry, SingleState::Waiting { tag, tries }) => {
                let next = if tag == ACQUIRE_TAGS[0] {
                    ACQUIRE_TAGS[1]
                } else {
                    ACQUIRE_TAGS[0]
                };
                self.attempt(state, next, tries, io);
                None
            }
            (LockTimer::AcquireDeadline, _) => match (self.give_up_check, state.tries_mut()) {
                (_, None) => None,
                (GiveUpCheck::AtDeadline, Some(_)) => self.give_up(state, io),
                (GiveUpCheck::BeforeSleep, Some(tries)) => {
                    tries.out_of_time = true;
                    None
                }
            },
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
        if let (Msg::MasterIs { master, .. }, SingleState::Discovering { tag, tries }) =
            (msg, &*state)
        {
            let (tag, tries) = (*tag, *tries);
            io.cancel_timer(LockTimer::RequestTimeout(tag));
            self.send_acquire(state, master, tag, tries, io);
        }
        None
    }
}
