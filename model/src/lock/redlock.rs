//! Redlock (seed 000 §3.1 and the Redis documentation), with seed 000's watchdog.
//!
//! The idea: the lock is `SET key owner NX PX ttl` on N independent masters. An attempt
//! reads the client's clock (T1), asks every node, and when it has its answers computes
//! `elapsed = now - T1`, `drift = ceil(ttl * drift factor) + 2 ms` (rounding and constant
//! are parameters, module `drift`) and `validity = ttl - elapsed - drift`; it holds the
//! lock iff a quorum (N/2+1) said OK and `validity > 0` (module `attempt_rules` has the
//! rules where libraries differ), and
//! believes it until `now + validity` (= T1 + ttl - drift) on that same clock: the seed
//! returns `validity` at the end of the attempt as the time left from then, as the Redis
//! documentation and node-redlock's `start + ttl - drift` do. Otherwise it deletes its key
//! on **all** nodes (owner-checked), waits a retry delay and tries again, until the acquire
//! timeout passes. Release is the owner-checked delete on every node, reported `Released`
//! once every node answered or timed out. Seed 000's watchdog is an option (see module
//! `watchdog`).
//!
//! How the nodes are asked is [`Dispatch`]:
//! - [`Dispatch::Sequential`] is seed 000's `for node in self.nodes` loop: one node after the
//!   other, each with the per-node timeout, taken as the client library's socket timeout: a
//!   node that does not answer in time counts as failed and the loop moves on. (The seed's
//!   own check runs after the call returns and only logs: without a socket timeout a dead
//!   node would block it.) Its releases (after a failed attempt and at the end) are
//!   sequential loops too, as in the seed.
//! - [`Dispatch::Multiplexed`] is the Redis documentation's variant: every node at once,
//!   decided when every node answered or timed out.
//! - [`Dispatch::LocalFirst`] is seed 000's optimisation (§4.2): the remote nodes are sent
//!   their request at T1 without waiting, the local ones are asked one after another; the
//!   attempt is decided as soon as the local nodes are done and a quorum said OK (remote
//!   answers received by then count; later ones are ignored), else when every node answered
//!   or timed out. The local nodes come first in `nodes`. The seed gives no code for it;
//!   this is its prose made precise. Renewals go the same way (the seed pipelines the remote
//!   ones).
//!
//! The retry delay is a set of durations: one value is seed 000's fixed 0.5 s, several are a
//! random delay, which the world explores (or samples) as a labelled choice. The acquire
//! timeout is checked as the seed's `while time.monotonic() < deadline` loop does: never
//! during an attempt, only when the retry delay is over (an attempt that began in time and
//! succeeds late still wins).
//!
//! Modelling choices: times are whole ms (the seed's seconds as floats); the drift is rounded
//! up, so `validity` is the floor of the seed's (an exact validity under 1 ms is refused);
//! the seed's `int(validity)` (whole seconds, used only for the watchdog's interval) is not
//! modelled. The owner value is the client's, the same for every attempt (the seed draws a
//! fresh `uuid4` per attempt), so a very late delete from a failed attempt could remove the
//! key of a later one.
//!
//! Requests are tagged with the sweep's kind, its parity (consecutive sweeps of a kind
//! alternate) and the try (module `sweep`); an answer's node is its sender, and a late answer
//! to an earlier sweep is ignored. The set is finite, so an answer delayed by two whole sweeps
//! of the same kind (a node stalled through two attempts) would be taken for the current one.
//!
//! Each try waiting for an answer has a deadline (the per-node timeout) in its slot, and the
//! engine keeps one timer, `SweepTimeout`, at the earliest of them: when it fires, every try
//! past its deadline fails in that one event. Requests sent together (every node at once)
//! therefore time out together, as one event rather than one per node in the order they were
//! sent; an answer that arrives at that instant is taken if it is handled first, as it would
//! be before its own timeout. Which node timed out is then never a matter of timer order,
//! which is what lets interchangeable nodes be renamed (symmetry reduction).

mod attempt_rules;
mod auto_extension;
mod drift;
mod extend;
mod params_text;
mod state;
mod state_hash;
mod sweep;
mod symmetry;
mod timeouts;
mod watchdog;

pub use attempt_rules::{AttemptRules, Decide, Undo, ValidityFrom};
pub use auto_extension::AutoExtension;
pub use drift::DriftRounding;
use drift::SEED_DRIFT_EXTRA_MS;
pub use extend::ExtendRules;
use state::Parities;
pub use state::{Phase, RedlockState};
pub use sweep::{Kind, NodeSweep, Slot, Tag, TryOutcome};
pub use watchdog::{RenewCount, Watch, Watchdog};

use super::engine::{Belief, ClockKind, Deadline, Engine, Extension, LockEvent, LockIo};
use super::refused::OnRefused;
use crate::msg::LockTimer;
use crate::redis::{Command, LockScript, Reply, Set, SetCondition, SetExpiry};
use lockcheck_sim::world::{LocalNow, ProcessId};
use lockcheck_sim::FpHasher;
use std::hash::Hash;

/// How an attempt asks the nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dispatch {
    /// One node after another (seed 000).
    Sequential,
    /// All nodes at once (the Redis documentation).
    Multiplexed,
    /// The first `local` nodes one after another, the others at once at the start, decided
    /// early once the local nodes are done and a quorum is reached (seed 000 §4.2).
    LocalFirst { local: u8 },
}

/// Parameters of Redlock.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Redlock {
    /// The masters, in the order a sequential attempt asks them.
    pub nodes: Vec<ProcessId>,
    pub ttl_ms: u64,
    /// The clock drift factor in parts per million of the TTL (seed: 0.01 = 10 000).
    pub drift_ppm: u32,
    /// Added to the drift (seed 000, the Redis documentation, node-redlock: 2 ms; redsync
    /// v4: none).
    pub drift_extra_ms: u64,
    pub drift_rounding: DriftRounding,
    /// The clock `elapsed` and the validity deadline are measured on.
    pub clock: ClockKind,
    pub dispatch: Dispatch,
    /// How an attempt is decided, undone and judged.
    pub rules: AttemptRules,
    /// A request without an answer after this long counts as failed (seed: 2 s; `None`:
    /// the client waits for ever, as node-redlock, which sets no timeout, does).
    pub node_timeout_ms: Option<u64>,
    /// The delay before the next attempt: one of these (seed: 0.5 s; several: random).
    pub retry_ms: Vec<u64>,
    /// Stop starting attempts after this long (`None`: never; seed: 10 s).
    pub acquire_timeout_ms: Option<u64>,
    /// Give up after this many failed attempts (`None`: never; redsync v4: 32 `tries`,
    /// node-redlock: `retryCount` + 1).
    pub max_attempts: Option<u16>,
    pub watchdog: Option<Watchdog>,
    /// node-redlock 5's `using`: extend automatically before the expiration.
    pub auto_extension: Option<AutoExtension>,
    /// How the business code's `extend L` goes (module `extend`).
    pub extend: ExtendRules,
    /// What the business code believes: the validity (seed), or until `using()`'s abort.
    pub belief: Belief,
    /// What the library does when a crashed node refuses the connection (a refused try
    /// fails at once, as an error, with [`OnRefused::Fail`]).
    pub on_refused: OnRefused,
}

impl Redlock {
    /// Seed 000's Redlock as written: TTL 30 s, drift factor 0.01, per-node timeout 2 s,
    /// sequential, monotonic clock, fixed 0.5 s retry, acquire timeout 10 s, and its watchdog.
    pub fn seed_000(nodes: Vec<ProcessId>) -> Self {
        Redlock {
            nodes,
            ttl_ms: 30_000,
            drift_ppm: 10_000,
            drift_extra_ms: SEED_DRIFT_EXTRA_MS,
            drift_rounding: DriftRounding::Up,
            clock: ClockKind::Monotonic,
            dispatch: Dispatch::Sequential,
            rules: AttemptRules::SEED,
            node_timeout_ms: Some(2_000),
            retry_ms: vec![500],
            acquire_timeout_ms: Some(10_000),
            max_attempts: None,
            watchdog: Some(Watchdog::seed_000()),
            auto_extension: None,
            extend: ExtendRules::REDSYNC,
            belief: Belief::Validity,
            on_refused: OnRefused::Fail,
        }
    }

    /// The lock is held (acquired, renewed or extended) until `at_ms` on the engine's clock.
    fn held_until(&self, at_ms: i64) -> LockEvent {
        LockEvent::Acquired {
            valid_until: Some(Deadline {
                clock: self.clock,
                at_ms,
            }),
            token: None,
        }
    }

    /// The quorum: a majority of the nodes.
    pub fn quorum(&self) -> usize {
        self.nodes.len() / 2 + 1
    }

    /// How many of the first nodes are asked one after another.
    fn sequential(&self) -> usize {
        match self.dispatch {
            Dispatch::Sequential => self.nodes.len(),
            Dispatch::Multiplexed => 0,
            Dispatch::LocalFirst { local } => usize::from(local).min(self.nodes.len()),
        }
    }

    fn tries(&self, kind: Kind) -> u8 {
        match (kind, &self.watchdog) {
            (Kind::Renew, Some(dog)) => dog.tries.clamp(1, sweep::MAX_TRIES),
            _ => 1,
        }
    }

    /// How long a try of a `kind` sweep waits for its answer (`None`: for ever).
    fn timeout_ms(&self, kind: Kind) -> Option<u64> {
        match (kind, &self.watchdog) {
            (Kind::Renew, Some(dog)) => Some(dog.timeout_ms),
            _ => self.node_timeout_ms,
        }
    }

    fn command(&self, kind: Kind, io: &LockIo) -> Command {
        let (key, token) = (io.key.to_vec(), io.owner.to_vec());
        match kind {
            Kind::Acquire => Command::Set(Set {
                key,
                value: token,
                condition: Some(SetCondition::Nx),
                get: false,
                expiry: SetExpiry::Px(self.ttl_ms as i64),
            }),
            Kind::Release => Command::Script(LockScript::CompareAndDelete { key, token }),
            Kind::Renew if self.extend.sets_nx => {
                Command::Script(LockScript::CompareAndPexpireOrSetNx {
                    key,
                    token,
                    ttl_ms: self.ttl_ms as i64,
                })
            }
            Kind::Renew => Command::Script(LockScript::CompareAndPexpire {
                key,
                token,
                ttl_ms: self.ttl_ms as i64,
            }),
        }
    }

    /// Begins a sweep of `kind` now: T1 is read and the first requests go out.
    fn begin(&self, parities: &mut Parities, kind: Kind, io: &mut LockIo) -> NodeSweep {
        let started = self.clock.read(io.now());
        let mut sweep = NodeSweep::new(kind, parities.take(kind), self.nodes.len(), started);
        self.send_due(&mut sweep, io);
        sweep
    }

    fn send_due(&self, sweep: &mut NodeSweep, io: &mut LockIo) {
        let deadline = self.deadline(sweep.kind, io);
        for node in sweep.due_requests(self.sequential(), deadline) {
            self.send(sweep, node, 0, io);
        }
    }

    fn send(&self, sweep: &NodeSweep, node: usize, try_no: u8, io: &mut LockIo) {
        let tag = sweep.tag(try_no).encode();
        io.request(self.nodes[node], tag, self.command(sweep.kind, io));
    }

    /// What an answer means for the quorum, and whether it really extended the lock.
    fn judge(&self, kind: Kind, reply: &Reply) -> (TryOutcome, bool) {
        let outcome = match (kind, reply) {
            (_, Reply::Error(_)) => TryOutcome::Error,
            (Kind::Acquire, Reply::Status(ok)) if ok == "OK" => TryOutcome::Ok,
            (Kind::Acquire, _) => TryOutcome::Refused,
            (Kind::Release, _) => TryOutcome::Ok,
            (Kind::Renew, reply) => match &self.watchdog {
                Some(dog) if dog.counts_as_renewed(reply) => TryOutcome::Ok,
                None if *reply == Reply::Integer(1) => TryOutcome::Ok,
                _ => TryOutcome::Refused,
            },
        };
        let extended = kind == Kind::Renew && *reply == Reply::Integer(1);
        (outcome, extended)
    }

    /// Starts an attempt.
    fn attempt(&self, state: &mut RedlockState, expired: bool, io: &mut LockIo) {
        let sweep = self.begin(&mut state.parities, Kind::Acquire, io);
        state.phase = Phase::Acquiring { sweep, expired };
    }

    /// Records how the try `tag` of the node in position `node` ended and moves on.
    fn settle(
        &self,
        state: &mut RedlockState,
        tag: Tag,
        node: usize,
        judged: (TryOutcome, bool),
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let sweep = state.phase.sweep_mut().filter(|s| s.expects(tag, node))?;
        self.settle_one(sweep, node, judged, io);
        self.send_due(sweep, io);
        self.progress(state, io)
    }

    /// Records how one node's try ended, and sends its next try if an error leaves one.
    fn settle_one(
        &self,
        sweep: &mut NodeSweep,
        node: usize,
        (outcome, extended): (TryOutcome, bool),
        io: &mut LockIo,
    ) {
        sweep.extended += u8::from(extended);
        let deadline = self.deadline(sweep.kind, io);
        if let Some(next) = sweep.settle(node, outcome, self.tries(sweep.kind), deadline) {
            self.send(sweep, node, next, io);
        }
    }

    /// Ends the current sweep if it is over.
    fn progress(&self, state: &mut RedlockState, io: &mut LockIo) -> Option<LockEvent> {
        match &state.phase {
            Phase::Acquiring { sweep, .. } if self.decided(sweep) => self.decide(state, io),
            Phase::Undoing { sweep, .. } if self.sweep_over(sweep) && self.last_attempt(state) => {
                state.phase = Phase::Idle;
                state.failed_attempts = 0;
                io.cancel_timer(LockTimer::AcquireDeadline);
                Some(LockEvent::GaveUp)
            }
            Phase::Undoing { sweep, expired } if self.sweep_over(sweep) => {
                self.wait_to_retry(state, *expired, io);
                None
            }
            Phase::Releasing { sweep } if self.sweep_over(sweep) => {
                state.phase = Phase::Idle;
                Some(LockEvent::Released)
            }
            Phase::Holding {
                watch: Watch::Renewing(sweep),
                ..
            } if self.sweep_over(sweep) => match (self.auto_extension, &self.watchdog) {
                (Some(_), _) => self.extension_over(state, io),
                (None, Some(_)) => self.renewal_over(state, io),
                (None, None) => self.caller_extension_over(state, io),
            },
            Phase::Holding {
                watch: Watch::Undoing(sweep),
                ..
            } if self.sweep_over(sweep) => self.retry_caller_extension(state, io),
            _ => None,
        }
    }

    /// A failed attempt is behind: wait the retry delay (counting the failure when
    /// attempts are limited).
    fn wait_to_retry(&self, state: &mut RedlockState, expired: bool, io: &mut LockIo) {
        if self.max_attempts.is_some() {
            state.failed_attempts += 1;
        }
        state.phase = Phase::Waiting { expired };
        io.set_timer_among(LockTimer::Retry, self.retry_ms.clone());
    }

    /// Whether the attempt whose keys were just deleted was the last one allowed.
    fn last_attempt(&self, state: &RedlockState) -> bool {
        self.max_attempts
            .is_some_and(|max| state.failed_attempts.saturating_add(1) >= max)
    }

    /// The attempt is over: hold the lock, or delete it everywhere before retrying.
    fn decide(&self, state: &mut RedlockState, io: &mut LockIo) -> Option<LockEvent> {
        let Phase::Acquiring { sweep, expired } = std::mem::replace(&mut state.phase, Phase::Idle)
        else {
            unreachable!("decide is called while acquiring");
        };
        let now = self.clock.read(io.now());
        if let Some(valid_until_ms) = self.holds_until(state, &sweep, now) {
            io.cancel_timer(LockTimer::AcquireDeadline);
            state.failed_attempts = 0;
            let (interval_ms, watch) = self.start_watch(valid_until_ms - now, io);
            state.phase = Phase::Holding { interval_ms, watch };
            self.believe_until(state, valid_until_ms);
            self.queue_extension(state, valid_until_ms, io);
            return Some(self.held_until(valid_until_ms));
        }
        if self.rules.undo == Undo::AfterLast && !expired && !self.last_attempt(state) {
            self.wait_to_retry(state, expired, io);
            return None;
        }
        let sweep = self.begin(&mut state.parities, Kind::Release, io);
        state.phase = Phase::Undoing { sweep, expired };
        None
    }

    /// The retry delay is over: try again, or give up if the acquire timeout passed.
    fn retry(&self, state: &mut RedlockState, io: &mut LockIo) -> Option<LockEvent> {
        let Phase::Waiting { expired } = state.phase else {
            return None;
        };
        if expired {
            state.phase = Phase::Idle;
            state.failed_attempts = 0;
            return Some(LockEvent::GaveUp);
        }
        self.attempt(state, false, io);
        None
    }

    /// What a timer does (`on_timer` keeps the `SweepTimeout` timer around it).
    fn on_own_timer(
        &self,
        state: &mut RedlockState,
        timer: LockTimer,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        match timer {
            LockTimer::SweepTimeout => self.time_out(state, io),
            LockTimer::Retry => {
                self.retry_extension(state, io);
                self.retry(state, io)
            }
            LockTimer::AcquireDeadline => {
                if let Phase::Acquiring { expired, .. }
                | Phase::Undoing { expired, .. }
                | Phase::Waiting { expired } = &mut state.phase
                {
                    *expired = true;
                }
                None
            }
            LockTimer::Renew if self.auto_extension.is_some() => match state.phase {
                Phase::Holding {
                    watch: Watch::Sleeping,
                    ..
                } => self.begin_extension(state, io),
                _ => None,
            },
            LockTimer::Renew => {
                self.on_renew_tick(state, io);
                None
            }
            LockTimer::RequestTimeout(_)
            | LockTimer::WaitTtl
            | LockTimer::SentinelScan
            | LockTimer::Resend(_) => None,
        }
    }
}

impl Engine for Redlock {
    type State = RedlockState;

    fn init(&self) -> RedlockState {
        RedlockState {
            phase: Phase::Idle,
            parities: Parities::default(),
            failed_renewals: 0,
            failed_attempts: 0,
            first_started_ms: 0,
            valid_until_ms: 0,
        }
    }

    fn acquire(&self, state: &mut RedlockState, io: &mut LockIo) {
        let armed = Self::armed(state);
        self.keeping_timer(state, armed, io, |state, io| {
            state.failed_attempts = 0;
            if self.rules.validity_from == ValidityFrom::FirstAttempt {
                state.first_started_ms = self.clock.read(io.now());
            }
            if let Some(timeout) = io.within_ms.or(self.acquire_timeout_ms) {
                io.set_timer(LockTimer::AcquireDeadline, timeout);
            }
            self.attempt(state, false, io);
        })
    }

    /// Stops the watchdog and deletes the key on every node (owner-checked), as the
    /// dispatch asks them; `Released` once every node answered or timed out.
    fn release(&self, state: &mut RedlockState, io: &mut LockIo) -> Option<LockEvent> {
        let armed = Self::armed(state);
        self.keeping_timer(state, armed, io, |state, io| {
            self.stop_watch(state, io);
            io.cancel_timer(LockTimer::Retry);
            io.cancel_timer(LockTimer::AcquireDeadline);
            let sweep = self.begin(&mut state.parities, Kind::Release, io);
            state.phase = Phase::Releasing { sweep };
        });
        None
    }

    fn extend(
        &self,
        state: &mut RedlockState,
        how: Extension,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let armed = Self::armed(state);
        self.keeping_timer(state, armed, io, |state, io| {
            self.begin_caller_extension(state, how, io)
        })
    }

    fn on_reply(
        &self,
        state: &mut RedlockState,
        node: ProcessId,
        tag: u16,
        reply: Reply,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        let tag = Tag::decode(tag)?;
        let position = self.nodes.iter().position(|&n| n == node)?;
        let armed = Self::armed(state);
        self.keeping_timer(state, armed, io, |state, io| {
            let judged = self.judge(tag.kind, &reply);
            self.settle(state, tag, position, judged, io)
        })
    }

    fn on_timer(
        &self,
        state: &mut RedlockState,
        timer: LockTimer,
        io: &mut LockIo,
    ) -> Option<LockEvent> {
        // The timer that fired is spent; every other timer still stands.
        let armed = match timer {
            LockTimer::SweepTimeout => None,
            _ => Self::armed(state),
        };
        self.keeping_timer(state, armed, io, |state, io| {
            self.on_own_timer(state, timer, io)
        })
    }

    fn hash_state(&self, state: &RedlockState, now: LocalNow, h: &mut FpHasher) {
        self.fingerprint(state, now, h);
    }

    /// Idle for good, the sweep parities are dead: they only tell a sweep's own answers
    /// from older ones, and with no sweep every answer and timer is ignored (`settle` finds
    /// no sweep, `retry` no waiting phase, a renewal tick no holding one). The failed
    /// renewals stay: a witness reads them.
    fn hash_finished_state(&self, state: &RedlockState, now: LocalNow, h: &mut FpHasher) {
        match state.phase {
            Phase::Idle => (0xffu8, state.failed_renewals).hash(h),
            _ => self.hash_state(state, now, h),
        }
    }

    fn failed_renewals(&self, state: &RedlockState) -> u32 {
        state.failed_renewals.into()
    }
}
