//! Sans-IO actors: the processes of a world, written as plain state machines.
//!
//! An actor never awaits, sleeps or reads a system clock. A handler receives its state, the
//! event (start, message, timer, restart) and a [`Context`] that tells it the process's own
//! clock readings and collects its effects: messages to send and timers to set or cancel.
//! The same actor runs under every driver (exhaustive, random, replay, madsim).

use super::symmetry::Renaming;
use crate::fingerprint::FpHasher;
use std::fmt::Debug;
use std::hash::Hash;

/// Index of a process in its world.
pub type ProcessId = usize;

/// The kind of crash a process suffers; the actor decides what survives each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CrashKind {
    /// The process dies; the machine and its OS (page cache, fsynced or not) survive.
    Process,
    /// The machine loses power: whatever was not fsynced is lost too.
    PowerLoss,
}

impl CrashKind {
    /// How a label says it, in the scenario format's words (`power_loss = true`): nothing
    /// for a process crash, ` with power loss` for a power loss.
    pub fn label_suffix(self) -> &'static str {
        match self {
            CrashKind::Process => "",
            CrashKind::PowerLoss => " with power loss",
        }
    }

    /// Whether the host answers for the dead process: after a process crash its OS is up
    /// and resets the process's connections and refuses new ones (an RST, at once); a
    /// machine without power answers nothing, so a sender waits for its own timeout.
    pub fn refuses_connections(self) -> bool {
        match self {
            CrashKind::Process => true,
            CrashKind::PowerLoss => false,
        }
    }
}

/// The fault type of an actor without faults of its own: it has no values, so no such
/// fault can be declared or offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NoFault {}

/// A process's clock readings at the moment a handler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalNow {
    /// Wall-clock reading in ms (affected by offset, rate error and steps).
    pub wall_ms: i64,
    /// Monotonic reading in ms (affected by rate error, never by steps).
    pub mono_ms: i64,
}

/// A handler's window on the world: its clock, and a buffer for its effects.
#[derive(Debug)]
pub struct Context<M, T> {
    me: ProcessId,
    now: LocalNow,
    pub(crate) sends: Vec<(ProcessId, M)>,
    pub(crate) timers: Vec<TimerEffect<T>>,
}

/// A timer request of a handler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimerEffect<T> {
    /// Fire `timer` after `after_ms` of this process's monotonic time; replaces a pending
    /// timer with the same value.
    Set {
        timer: T,
        after_ms: u64,
    },
    /// Fire `timer` after one of `after_ms` (a nondeterministic choice the world explores:
    /// a work duration from a set, a random retry delay); replaces a pending `timer`.
    SetAmong {
        timer: T,
        after_ms: std::sync::Arc<[u64]>,
    },
    Cancel(T),
}

impl<M, T> Context<M, T> {
    pub fn new(me: ProcessId, now: LocalNow) -> Self {
        Context {
            me,
            now,
            sends: Vec::new(),
            timers: Vec::new(),
        }
    }
    /// This process's id.
    pub fn me(&self) -> ProcessId {
        self.me
    }
    /// This process's wall-clock reading (ms).
    pub fn wall_ms(&self) -> i64 {
        self.now.wall_ms
    }
    /// This process's monotonic-clock reading (ms).
    pub fn mono_ms(&self) -> i64 {
        self.now.mono_ms
    }
    pub fn local_now(&self) -> LocalNow {
        self.now
    }
    /// Sends `msg` to `to` over the simulated network.
    pub fn send(&mut self, to: ProcessId, msg: M) {
        self.sends.push((to, msg));
    }
    /// Sets (or resets) `timer` to fire after `after_ms` of monotonic time.
    pub fn set_timer(&mut self, timer: T, after_ms: u64) {
        self.timers.push(TimerEffect::Set { timer, after_ms });
    }
    /// Sets (or resets) `timer` to fire after one of `after_ms` (non-empty) of monotonic
    /// time; which one is a choice of the world, explored like a message delay.
    pub fn set_timer_among(&mut self, timer: T, after_ms: impl Into<std::sync::Arc<[u64]>>) {
        let after_ms = after_ms.into();
        assert!(
            !after_ms.is_empty(),
            "set_timer_among needs at least one duration"
        );
        self.timers.push(TimerEffect::SetAmong { timer, after_ms });
    }
    /// Cancels `timer` if it is pending.
    pub fn cancel_timer(&mut self, timer: T) {
        self.timers.push(TimerEffect::Cancel(timer));
    }
    /// The effects collected so far (for drivers other than the world, and for tests).
    pub fn into_effects(self) -> (Vec<(ProcessId, M)>, Vec<TimerEffect<T>>) {
        (self.sends, self.timers)
    }
}

/// A process: its behaviour (`self`, immutable configuration) over its state.
pub trait Actor: Debug {
    type Msg: Clone + Debug + Hash + Eq;
    type Timer: Clone + Debug + Hash + Eq;
    type State: Clone + Debug + Hash + Eq;
    /// Faults of this actor's own (a disk stall of a node, say), declared per process in the
    /// envelope ([`super::FaultEnvelope::actor_fault`]) and budgeted like the built-in ones;
    /// [`NoFault`] for an actor without any.
    type Fault: Clone + Debug + Hash + Eq;

    /// The state at first start.
    fn on_start(&self, ctx: &mut Context<Self::Msg, Self::Timer>) -> Self::State;

    /// A message from `from` arrives.
    fn on_message(
        &self,
        state: &mut Self::State,
        from: ProcessId,
        msg: Self::Msg,
        ctx: &mut Context<Self::Msg, Self::Timer>,
    );

    /// A message from `from` arrives that the world lends: other states (the parent of the
    /// one being computed, its other successors) still hold it. The same handler as
    /// [`Actor::on_message`]; by default it runs that on a copy. An actor that only reads
    /// most messages overrides it to save the copy (a Redis node executes a command in
    /// place), and must then behave exactly as `on_message` would.
    fn on_message_lent(
        &self,
        state: &mut Self::State,
        from: ProcessId,
        msg: &Self::Msg,
        ctx: &mut Context<Self::Msg, Self::Timer>,
    ) {
        self.on_message(state, from, msg.clone(), ctx)
    }

    /// A timer set earlier fires.
    fn on_timer(
        &self,
        state: &mut Self::State,
        timer: Self::Timer,
        ctx: &mut Context<Self::Msg, Self::Timer>,
    );

    /// What the host of this process answers to `msg` while the process is down after a
    /// crash that refuses connections ([`CrashKind::refuses_connections`]): a message back to
    /// the sender (a refused connection, say), or `None` (the default) to lose `msg` silently.
    /// The answer travels the link back to the sender like any message.
    fn refusal(&self, _msg: &Self::Msg) -> Option<Self::Msg> {
        None
    }

    /// What survives a crash of `kind` (`None`: nothing; the process restarts from scratch).
    fn on_crash(&self, _state: &Self::State, _kind: CrashKind) -> Option<Self::State> {
        None
    }

    /// The state after a restart, from what survived the crash.
    fn on_restart(
        &self,
        survived: Option<Self::State>,
        ctx: &mut Context<Self::Msg, Self::Timer>,
    ) -> Self::State {
        match survived {
            Some(state) => state,
            None => self.on_start(ctx),
        }
    }

    /// Applies one of this actor's own faults to its state, at the process's clock readings
    /// `now`. A fault changes this process's state alone (it sends nothing and sets no
    /// timer); what it causes later happens through the actor's own handlers. That keeps an
    /// actor fault an event on its process for partial-order reduction, and lets every
    /// driver apply it the same way ([`super::World::apply_fault`]). The default ignores
    /// the fault: an actor that declares faults implements this.
    fn on_fault(&self, _state: &mut Self::State, _fault: &Self::Fault, _now: LocalNow) {}

    /// How bad a fault is, for the shrinker: a fault may be replaced by one of the same
    /// process's envelope values with a smaller size (the default: all the same size).
    fn fault_size(&self, _fault: &Self::Fault) -> u64 {
        0
    }

    /// A short description of a fault for labels (defaults to `Debug`).
    fn describe_fault(&self, fault: &Self::Fault) -> String {
        format!("{fault:?}")
    }

    /// `fault` (of this process) with every process id renamed by `r`, or `None` if it
    /// holds none that `r` moves (the default).
    fn rename_fault(&self, _fault: &Self::Fault, _r: &Renaming) -> Option<Self::Fault> {
        None
    }

    /// Feeds `state` into a fingerprint. Actors that store absolute local times (deadlines)
    /// should hash them relative to `now`, so that states differing only by absolute time
    /// coincide; the default hashes the state as it is.
    fn hash_state(&self, state: &Self::State, _now: LocalNow, hasher: &mut FpHasher) {
        state.hash(hasher);
    }

    /// Whether [`Actor::hash_state`] and [`Actor::hash_state_without_dead_values`] feed every value that
    /// depends on `now` through [`FpHasher::write_time_left`] or
    /// [`FpHasher::write_time_since`] (or call [`FpHasher::time_dependent`] when they hash
    /// one otherwise), never as a plain number. Declaring it lets the world move a cached
    /// fingerprint part with time instead of computing it again at every instant (see
    /// `fingerprint`); a time written plainly would then be hashed as it was when the part
    /// was computed, and states that differ would be merged. `world::verify_time_shifts`
    /// checks the declaration on every part moved. The default declares nothing.
    fn time_linear_hash(&self) -> bool {
        false
    }

    /// Dead values (see `world::dead_values`): whether `state` holds values that can no
    /// longer matter. Declaring it is a promise about this state and every state the process
    /// can reach from it: two states that [`Actor::hash_state_without_dead_values`] hashes alike react to
    /// every event (a message, a timer, a crash and restart) with the same effects and again
    /// into states it hashes alike, and no
    /// property of the model reads what it leaves out. The default declares nothing.
    fn has_dead_values(&self, _state: &Self::State) -> bool {
        false
    }

    /// Feeds what of `state` can still matter into a fingerprint; called only when
    /// [`Actor::has_dead_values`] says some values no longer do (the default hashes all).
    fn hash_state_without_dead_values(
        &self,
        state: &Self::State,
        now: LocalNow,
        hasher: &mut FpHasher,
    ) {
        self.hash_state(state, now, hasher);
    }

    /// Symmetry reduction (see `world::symmetry`): this actor's configuration with every
    /// process id it holds renamed by `r`, or why it cannot be renamed (the default: an
    /// actor that does not implement the renaming hooks takes no part in symmetry).
    fn renamed(&self, _r: &Renaming) -> Result<Self, String>
    where
        Self: Sized,
    {
        Err("its actor does not support renaming process ids".into())
    }

    /// Whether `self` and `other` are the same configuration (compared after [`Actor::renamed`]).
    fn same_config(&self, _other: &Self) -> bool {
        false
    }

    /// `state` with every process id it holds renamed by `r`, or `None` when it holds none
    /// that `r` moves. Called only on actors whose [`Actor::renamed`] succeeds.
    fn rename_state(&self, _state: &Self::State, _r: &Renaming) -> Option<Self::State> {
        None
    }

    /// Feeds what `state` holds about process `other` into `hasher`, naming no process: a
    /// Redlock client's slot for a node in its sweep. Symmetry reduction sorts the members of
    /// a group by it when their own states are alike, so that the representative is found
    /// without trying every order of them. It must be invariant under renaming: for every
    /// automorphism `r` of the world, `state` renamed by `r` says of `r.of(other)` what
    /// `state` says of `other`. The default says nothing (sound, only slower).
    fn hash_knowledge_of(
        &self,
        _state: &Self::State,
        _other: ProcessId,
        _now: LocalNow,
        _hasher: &mut FpHasher,
    ) {
    }

    /// `msg` (to this process) with every process id renamed by `r`, or `None` if unchanged.
    fn rename_msg(&self, _msg: &Self::Msg, _r: &Renaming) -> Option<Self::Msg> {
        None
    }

    /// `timer` (of this process) with every process id renamed by `r`, or `None` if unchanged.
    fn rename_timer(&self, _timer: &Self::Timer, _r: &Renaming) -> Option<Self::Timer> {
        None
    }

    /// A short description of a message for labels (defaults to `Debug`).
    fn describe_msg(&self, msg: &Self::Msg) -> String {
        format!("{msg:?}")
    }

    /// A short description of a timer for labels (defaults to `Debug`).
    fn describe_timer(&self, timer: &Self::Timer) -> String {
        format!("{timer:?}")
    }
}
