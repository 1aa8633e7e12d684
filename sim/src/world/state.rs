//! The state of a world: virtual time, each process's life, clock and timers, the network.
//!
//! Everything is kept in ordered `Vec`s (timers in firing order, messages in send order),
//! never in hash maps. The fingerprint ([`WorldState::hash_relative`]) writes every time as
//! an offset from `now` (clamped at zero for overdue events, whose exact lateness does not
//! change the future), so states that differ only by absolute time coincide.

use super::actor::{Actor, LocalNow};
use super::clock::ClockSpec;
use super::fault_timing::FaultTimes;
use super::faults::FaultsUsed;
use super::key_memo::KeyMemo;
use super::network::{msg_hash, InFlight, Unrouted};
use super::resume_order::ResumeOrder;
use super::shared::Shared;
use crate::fingerprint::{lane_a, Fingerprint, FpHasher, TimeShift};
use std::hash::{Hash, Hasher};

/// Whether a process is running, and what a crashed one kept.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Life<S> {
    Up(S),
    Down {
        survived: Option<S>,
        restart_at_ms: Option<u64>,
        /// Its host refuses connections meanwhile (a process crash, not a power loss):
        /// messages to it come back as the actor's [`super::Actor::refusal`].
        refusing: bool,
    },
}

/// A pending timer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PendingTimer<T> {
    pub due_ms: u64,
    pub timer: T,
}

/// A timer set with a choice of durations, waiting for the world to choose.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UndecidedTimer<T> {
    pub process: usize,
    pub timer: T,
    /// Shared: a state is copied for each choice it offers, its durations are not.
    pub after_ms: std::sync::Arc<[u64]>,
}

/// One process's dynamic state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProcState<S, T> {
    pub life: Life<S>,
    /// End of the current pause (true time), if paused.
    pub paused_until_ms: Option<u64>,
    /// Sum of the wall-clock steps so far.
    pub clock_steps_ms: i64,
    /// Pending timers in firing order (due time, then order of setting).
    pub timers: Vec<PendingTimer<T>>,
}

impl<S, T> ProcState<S, T> {
    pub fn actor_state(&self) -> Option<&S> {
        match &self.life {
            Life::Up(s) => Some(s),
            Life::Down { .. } => None,
        }
    }
    pub fn is_up(&self) -> bool {
        matches!(self.life, Life::Up(_))
    }
    pub fn is_paused(&self) -> bool {
        self.paused_until_ms.is_some()
    }
    /// Down after a crash whose host refuses connections (see [`Life::Down`]).
    pub fn is_refusing(&self) -> bool {
        matches!(self.life, Life::Down { refusing: true, .. })
    }
    /// Up and not paused: its handlers may run.
    pub fn is_running(&self) -> bool {
        self.is_up() && !self.is_paused()
    }
}

/// The whole dynamic state of a world of actors with states `S`, messages `M`, timers `T`
/// (see [`StateOf`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WorldState<S, M, T> {
    pub now_ms: u64,
    /// Each process's state, shared with the states it was copied from until written
    /// (see [`Shared`]).
    pub procs: Vec<Shared<ProcState<S, T>>>,
    /// Messages in the network, grouped by link (from, to), in send order within a link.
    pub in_flight: Vec<InFlight<M>>,
    /// Messages whose delay is still to be chosen, in send order.
    pub unrouted: Vec<Unrouted<M>>,
    /// Timers whose duration is still to be chosen, in the order they were set.
    pub undecided_timers: Vec<UndecidedTimer<T>>,
    /// Active partitions: index into the envelope's partitions, and heal time.
    pub partitions: Vec<(usize, Option<u64>)>,
    pub faults_used: FaultsUsed,
    /// When anchors held and each process's faults, for the envelope's timing (hashed by
    /// the world, which knows the windows: see `fault_timing.rs`).
    pub fault_times: FaultTimes,
    /// The key of this state's symmetry class, once computed (see `key_memo.rs`); empty in
    /// a copy, ignored when states are compared or hashed.
    pub key_memo: KeyMemo,
}

/// The world state of actor type `A`.
pub type StateOf<A> = WorldState<<A as Actor>::State, <A as Actor>::Msg, <A as Actor>::Timer>;
/// One process's state in a world of actor `A`.
pub type ProcOf<A> = ProcState<<A as Actor>::State, <A as Actor>::Timer>;

impl<S, M, T> WorldState<S, M, T> {
    /// Time 0, `processes` processes all down (not yet started), nothing on the network,
    /// no fault timing (a world's own is `World::not_started`).
    pub(crate) fn not_started(processes: usize) -> Self {
        WorldState {
            now_ms: 0,
            procs: (0..processes)
                .map(|_| {
                    Shared::new(ProcState {
                        life: Life::Down {
                            survived: None,
                            restart_at_ms: None,
                            refusing: false,
                        },
                        paused_until_ms: None,
                        clock_steps_ms: 0,
                        timers: Vec::new(),
                    })
                })
                .collect(),
            in_flight: Vec::new(),
            unrouted: Vec::new(),
            undecided_timers: Vec::new(),
            partitions: Vec::new(),
            faults_used: Default::default(),
            fault_times: Default::default(),
            key_memo: KeyMemo::default(),
        }
    }
}

impl<S: Hash, M: Hash, T: Hash> WorldState<S, M, T> {
    /// The state of process `p`'s actor, if it is up.
    pub fn actor(&self, p: usize) -> Option<&S> {
        self.procs[p].actor_state()
    }

    pub fn is_paused(&self, p: usize) -> bool {
        self.procs[p].is_paused()
    }

    pub fn is_up(&self, p: usize) -> bool {
        self.procs[p].is_up()
    }

    /// Feeds the state, with times relative to `now`, into `h`: each process's part (its
    /// [`ProcState::hash_relative`], cached in its [`Shared`] cell when it is fresh), then the
    /// network and the faults.
    pub fn hash_relative<A: Actor<State = S>>(
        &self,
        actors: &[A],
        clocks: &[ClockSpec],
        resume: ResumeOrder,
        h: &mut FpHasher,
    ) {
        let now = self.now_ms;
        for (i, p) in self.procs.iter().enumerate() {
            let part = match p.cached_hash(now) {
                Some(cached) => {
                    debug_assert_eq!(
                        cached,
                        p.hash_relative(&actors[i], &clocks[i], resume, now, h.is_wide()),
                        "stale cached fingerprint of process {i}"
                    );
                    cached
                }
                None => p.hash_relative(&actors[i], &clocks[i], resume, now, h.is_wide()),
            };
            h.write_fp(part);
        }
        self.hash_rest(h);
    }

    /// Like [`WorldState::hash_relative`], ignoring every cached part.
    pub fn hash_from_scratch<A: Actor<State = S>>(
        &self,
        actors: &[A],
        clocks: &[ClockSpec],
        resume: ResumeOrder,
        h: &mut FpHasher,
    ) {
        for (i, p) in self.procs.iter().enumerate() {
            let part = p.hash_relative(&actors[i], &clocks[i], resume, self.now_ms, h.is_wide());
            h.write_fp(part);
        }
        self.hash_rest(h);
    }

    /// Computes and caches the fingerprint part of every process whose cached part is
    /// missing or was computed at another time.
    /// The parts are of both lanes when `wide`, of lane A alone otherwise.
    pub fn refresh_hashes<A: Actor<State = S>>(
        &mut self,
        actors: &[A],
        clocks: &[ClockSpec],
        resume: ResumeOrder,
        wide: bool,
    ) {
        let now = self.now_ms;
        for (i, p) in self.procs.iter_mut().enumerate() {
            p.refresh_hash(now, |p| {
                p.hash_relative_movable(&actors[i], &clocks[i], resume, now, wide)
            });
        }
    }

    /// The network, partitions and faults spent, with times relative to `now`.
    pub(super) fn hash_rest(&self, h: &mut FpHasher) {
        let in_flight = self.in_flight.iter().map(|m| Flight {
            from: m.from,
            to: m.to,
            due_ms: m.due_ms,
            body: FlightBody::Kept(m),
        });
        self.hash_rest_with(h, in_flight, &self.unrouted, &self.undecided_timers);
    }

    /// [`WorldState::hash_rest`] with the messages in flight, the unrouted messages and the
    /// undecided timers given (a renamed state's, see `world::renamed_hash`): everything
    /// else is this state's.
    pub(super) fn hash_rest_with<'a>(
        &self,
        h: &mut FpHasher,
        in_flight: impl ExactSizeIterator<Item = Flight<'a, M>>,
        unrouted: &[Unrouted<M>],
        undecided_timers: &[UndecidedTimer<T>],
    ) where
        M: 'a,
    {
        let now = self.now_ms;
        let rel = |t: u64| t.saturating_sub(now);
        h.write_usize(in_flight.len());
        for m in in_flight {
            h.write_usize(m.from);
            h.write_usize(m.to);
            h.write_u64(rel(m.due_ms));
            match m.body {
                FlightBody::Kept(kept) => kept.hash_body(h),
                FlightBody::Renamed(msg) => {
                    if h.is_wide() {
                        h.write_fp(msg_hash(msg, true));
                    } else {
                        h.write_u64(lane_a(msg_hash(msg, false)));
                    }
                }
            }
        }
        unrouted.hash(h);
        undecided_timers.hash(h);
        h.write_usize(self.partitions.len());
        for (rule, heal) in &self.partitions {
            h.write_usize(*rule);
            heal.map(rel).hash(h);
        }
        self.faults_used.hash(h);
    }
}

/// A message in flight as a fingerprint takes it: its ends, when it is due, and its body.
pub(super) struct Flight<'a, M> {
    pub from: usize,
    pub to: usize,
    pub due_ms: u64,
    pub body: FlightBody<'a, M>,
}

/// The body of a [`Flight`]: a message kept as it is (with its kept hash), or a renamed one.
pub(super) enum FlightBody<'a, M> {
    Kept(&'a InFlight<M>),
    Renamed(&'a M),
}

impl<S: Hash, T: Hash> ProcState<S, T> {
    /// This process's part of a world fingerprint at true time `now`, every time relative
    /// to it: what its actor hashes of its state, its pause, its clock's offsets from true
    /// time and its timers (see [`ProcState::timer_choice`]). A function of the process
    /// state, actor, clock, resume order and `now` alone, which is what lets [`Shared`] cache
    /// it.
    pub fn hash_relative<A: Actor<State = S>>(
        &self,
        actor: &A,
        clock: &ClockSpec,
        resume: ResumeOrder,
        now: u64,
        wide: bool,
    ) -> Fingerprint {
        self.hash_relative_movable(actor, clock, resume, now, wide)
            .0
    }

    /// [`ProcState::hash_relative`] with how the part moves with time.
    pub fn hash_relative_movable<A: Actor<State = S>>(
        &self,
        actor: &A,
        clock: &ClockSpec,
        resume: ResumeOrder,
        now: u64,
        wide: bool,
    ) -> (Fingerprint, TimeShift) {
        let linear = actor.time_linear_hash();
        self.hash_relative_by(clock, resume, now, wide, linear, |s, local, h| {
            actor.hash_state(s, local, h)
        })
    }

    /// [`ProcState::hash_relative`] with `hash_actor` feeding the actor's state (its whole
    /// state, or only what can still matter: see `world::dead_values`), and how the part moves
    /// with time: not at all unless the actor writes its times linearly (`time_linear`, see
    /// [`Actor::time_linear_hash`]) and the clock keeps true time's rate (a drifting clock's
    /// readings relative to now, and its phase, change with now otherwise than linearly).
    pub(super) fn hash_relative_by(
        &self,
        clock: &ClockSpec,
        resume: ResumeOrder,
        now: u64,
        wide: bool,
        time_linear: bool,
        hash_actor: impl Fn(&S, LocalNow, &mut FpHasher),
    ) -> (Fingerprint, TimeShift) {
        let mut h = FpHasher::of_width(wide);
        let local: LocalNow = clock.local_now(now, self.clock_steps_ms);
        let clamped = now >= LINEAR_TIMES_END_MS || local.wall_ms.unsigned_abs() >= 1 << 61;
        if !time_linear || clock.drift_ppm != 0 || clamped {
            h.time_dependent();
        }
        let left = |t: u64| t as i64 - now as i64;
        match &self.life {
            Life::Up(s) => {
                h.write_u8(1);
                hash_actor(s, local, &mut h);
            }
            Life::Down {
                survived,
                restart_at_ms,
                refusing,
            } => {
                h.write_u8(if *refusing { 3 } else { 2 });
                if let Some(s) = survived {
                    hash_actor(s, local, &mut h);
                }
                write_instant(&mut h, restart_at_ms.map(left));
            }
        }
        write_instant(&mut h, self.paused_until_ms.map(left));
        if !leaves_out_drift(clock) {
            h.write_i64(local.wall_ms - now as i64);
            h.write_i64(local.mono_ms - now as i64);
            h.write_u32(clock.phase(now));
        }
        h.write_usize(self.timers.len());
        for t in &self.timers {
            h.write_time_left(left(t.due_ms), 0);
            t.timer.hash(&mut h);
        }
        // Only where there is a choice: a part without one is the part it always was.
        let choice = self.timer_choice(resume, now);
        if choice > 0 {
            h.write_usize(choice);
        }
        h.finish_part()
    }
}

/// True instants from which fingerprint parts are computed at every instant: far beyond any
/// search, and far enough below the saturation of instants and readings (`world::clock`)
/// that no reading it hashes is clamped.
const LINEAR_TIMES_END_MS: u64 = 1 << 58;

/// Whether this fingerprint leaves out a drifting clock's readings relative to now and its
/// phase: only in the census's shape mode (the rounding-window model of drift).
#[inline]
fn leaves_out_drift(clock: &ClockSpec) -> bool {
    #[cfg(feature = "census")]
    if crate::census::shape_mode().is_some() {
        return clock.drift_ppm != 0;
    }
    let _ = clock;
    false
}

/// Feeds an optional instant as the time left until it (0 once passed).
fn write_instant(h: &mut FpHasher, left_ms: Option<i64>) {
    match left_ms {
        None => h.write_u8(0),
        Some(left_ms) => {
            h.write_u8(1);
            h.write_time_left(left_ms, 0);
        }
    }
}
