//! When faults may happen: windows of time, anchors, and spacing per process.
//!
//! The idea: the envelope's rules say which faults may happen and its budgets how many; its
//! timing ([`FaultTiming`]) says when. A rule may carry a window of true time
//! ([`FaultWindow`]: `from_ms..=to_ms`, counted from the start of the run or from the first
//! instant an [`Anchor`] held, an event of one process such as "client p1 acquires"). The
//! envelope may also require a quiet gap between two faults of one process (from the end of
//! one, a pause's resume or a crash's restart, to the start of the next) and cap the faults
//! any one process suffers. Free rules (no window) and pinned ones mix in one envelope.
//!
//! What a state carries ([`FaultTimes`]): when each anchor first held, and per process how
//! many faults it suffered and until when it stays quiet. The fingerprint hashes what the
//! future depends on, relative to `now`: each windowed rule's status (waiting for its anchor,
//! opening in so long, open and closing in so long, open for good, closed) and each process's
//! quiet time left and count; an envelope without timing hashes nothing more, so its
//! fingerprints are what they always were. Time stops at each window's opening and each
//! quiet gap's end while a fault could then happen, so a fault pinned to an instant
//! (`from_ms == to_ms`) is offered at that instant even when nothing else happens there.
//!
//! Partial-order reduction (`independence.rs`) stays sound: a window counted from the start
//! of the run does not change within an instant; a process's gap and count change only by
//! its own faults; an anchor reads one process's state, so whether it has held by the end of
//! an instant does not depend on the order of other processes' events. What an anchor can do
//! is open, at this very instant, a window of a fault on another process `p`; `p` is then not
//! explored alone while that anchor has not held (`World::anchor_may_open_now`).

use super::actor::{Actor, ProcessId};
use super::clock::{later, MAX_INSTANT_MS};
use super::state::StateOf;
use super::symmetry::Renaming;
use super::World;
use crate::fingerprint::FpHasher;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// One rule of a [`super::FaultEnvelope`], by kind and position in its list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultRule {
    Pause(usize),
    Partition(usize),
    Crash(usize),
    ClockStep(usize),
    ActorFault(usize),
}

/// When a rule's faults may happen: from `from_ms` to `to_ms` (inclusive; `None`: for
/// good) of true time after the start of the run, or after the first instant its anchor
/// held (before that, never).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FaultWindow {
    pub anchor: Option<usize>,
    pub from_ms: u64,
    pub to_ms: Option<u64>,
}

impl FaultWindow {
    /// Exactly at `at_ms` after the start of the run.
    pub fn at(at_ms: u64) -> Self {
        FaultWindow {
            anchor: None,
            from_ms: at_ms,
            to_ms: Some(at_ms),
        }
    }

    /// From `from_ms` to `to_ms` after the start of the run.
    pub fn between(from_ms: u64, to_ms: Option<u64>) -> Self {
        FaultWindow {
            anchor: None,
            from_ms,
            to_ms,
        }
    }

    /// Counted from the first instant anchor `anchor` held instead.
    pub fn after_anchor(self, anchor: usize) -> Self {
        FaultWindow {
            anchor: Some(anchor),
            ..self
        }
    }

    /// Its true-time bounds, given when its anchor held (`None` while it has not).
    fn bounds(&self, anchored_at_ms: &[Option<u64>]) -> Option<(u64, Option<u64>)> {
        let base = match self.anchor {
            None => 0,
            Some(a) => anchored_at_ms[a]?,
        };
        Some((
            later(base, self.from_ms),
            self.to_ms.map(|t| later(base, t)),
        ))
    }
}

/// An envelope's timing: windows of particular rules (rules not listed may fire at any
/// time), the quiet gap between two faults of one process, and the cap per process.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FaultTiming {
    pub windows: Vec<(FaultRule, FaultWindow)>,
    /// Time from the end of one fault of a process to the start of its next (0: none).
    pub min_gap_ms: u64,
    /// At most this many faults on any one process (pauses, crashes, clock steps and faults
    /// of its actor's own; partitions are no process's).
    pub max_per_process: Option<u32>,
}

impl FaultTiming {
    /// Whether it says anything at all.
    pub fn is_free(&self) -> bool {
        *self == FaultTiming::default()
    }

    /// Whether it keeps count of each process's faults.
    pub fn spaces_faults(&self) -> bool {
        self.min_gap_ms > 0 || self.max_per_process.is_some()
    }

    pub fn window_of(&self, rule: FaultRule) -> Option<&FaultWindow> {
        self.windows
            .iter()
            .find(|(r, _)| *r == rule)
            .map(|(_, w)| w)
    }
}

/// An event of one process that windows may count from: the first instant `holds` is true
/// of its actor's state (checked after each of its handlers, its start and its restarts).
/// `holds` must read only what the actor's fingerprint keeps (its hash without dead values
/// too, when it declares some), so that states hashed alike fire their anchors alike.
pub struct Anchor<S> {
    pub name: String,
    pub process: ProcessId,
    pub holds: Arc<dyn Fn(&S) -> bool + Send + Sync>,
}

impl<S> Clone for Anchor<S> {
    fn clone(&self) -> Self {
        Anchor {
            name: self.name.clone(),
            process: self.process,
            holds: self.holds.clone(),
        }
    }
}

impl<S> fmt::Debug for Anchor<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Anchor({:?} on {})", self.name, self.process)
    }
}

/// A path's record of fault timing (part of [`super::WorldState`]); both lists are empty
/// when the world needs neither.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FaultTimes {
    /// When each of the world's anchors first held, in the world's order.
    pub anchored_at_ms: Vec<Option<u64>>,
    /// Per process, when the envelope spaces faults.
    pub per_process: Vec<ProcessFaults>,
}

/// One process's faults so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProcessFaults {
    pub count: u32,
    /// No fault of this process before this instant.
    pub quiet_until_ms: u64,
}

impl<A: Actor> World<A> {
    /// This world's state before anything runs: time 0, every process down (not yet
    /// started), no anchor held, no fault suffered. Drivers start from it.
    pub fn not_started(&self) -> StateOf<A> {
        let mut state = StateOf::<A>::not_started(self.processes.len());
        state.fault_times = self.initial_fault_times();
        state
    }

    /// The record a run starts with: no anchor held, no fault suffered.
    fn initial_fault_times(&self) -> FaultTimes {
        if let Some(error) = self.timing_error() {
            panic!("internal bug: {error}");
        }
        let spaced = self.faults.timing.spaces_faults();
        FaultTimes {
            anchored_at_ms: vec![None; self.anchors.len()],
            per_process: vec![
                ProcessFaults::default();
                if spaced { self.processes.len() } else { 0 }
            ],
        }
    }

    /// Whether the timing lets `rule` (on `process`, if it is one process's) fire now.
    pub(crate) fn timing_allows(
        &self,
        state: &StateOf<A>,
        rule: FaultRule,
        process: Option<ProcessId>,
    ) -> bool {
        let timing = &self.faults.timing;
        let now = state.now_ms;
        let in_window = timing.window_of(rule).is_none_or(|w| {
            w.bounds(&state.fault_times.anchored_at_ms)
                .is_some_and(|(from, to)| from <= now && to.is_none_or(|t| now <= t))
        });
        let log = process.and_then(|p| state.fault_times.per_process.get(p));
        let spaced = log.is_none_or(|log| {
            now >= log.quiet_until_ms && timing.max_per_process.is_none_or(|m| log.count < m)
        });
        in_window && spaced
    }

    /// Records a fault of process `p` that ends at `end_ms` (`None`: never, a crash for
    /// good), when the envelope spaces faults.
    pub(crate) fn note_fault(&self, state: &mut StateOf<A>, p: ProcessId, end_ms: Option<u64>) {
        let gap = self.faults.timing.min_gap_ms;
        if let Some(log) = state.fault_times.per_process.get_mut(p) {
            log.count += 1;
            log.quiet_until_ms = end_ms.map_or(MAX_INSTANT_MS, |end| later(end, gap));
        }
    }

    /// Records the anchors of process `p` that hold for the first time in `state`.
    pub(crate) fn note_anchors(&self, state: &mut StateOf<A>, p: ProcessId) {
        for (i, anchor) in self.anchors.iter().enumerate() {
            if anchor.process != p || state.fault_times.anchored_at_ms[i].is_some() {
                continue;
            }
            if state.actor(p).is_some_and(|s| (anchor.holds)(s)) {
                state.fault_times.anchored_at_ms[i] = Some(state.now_ms);
            }
        }
    }

    /// The earliest future instant at which a window opens or a quiet gap ends (only where a
    /// fault of that kind may still happen): time stops there (drivers that keep time
    /// themselves stop there too).
    pub fn next_timing_ms(&self, state: &StateOf<A>) -> Option<u64> {
        let now = state.now_ms;
        let times = &state.fault_times;
        let openings = self.faults.timing.windows.iter().filter_map(|(rule, w)| {
            let (from, _) = w.bounds(&times.anchored_at_ms)?;
            (from > now && self.budget_left(state, *rule)).then_some(from)
        });
        let quiet_ends = times.per_process.iter().enumerate().filter_map(|(p, log)| {
            let t = log.quiet_until_ms;
            let may_fault = || self.rules_on(p).any(|rule| self.budget_left(state, rule));
            (t > now && t < MAX_INSTANT_MS && may_fault()).then_some(t)
        });
        openings.chain(quiet_ends).min()
    }

    /// Every rule of the envelope.
    fn rules(&self) -> impl Iterator<Item = FaultRule> {
        let f = &self.faults;
        let kind = |len: usize, rule: fn(usize) -> FaultRule| (0..len).map(rule);
        kind(f.pauses.len(), FaultRule::Pause)
            .chain(kind(f.partitions.len(), FaultRule::Partition))
            .chain(kind(f.crashes.len(), FaultRule::Crash))
            .chain(kind(f.clock_steps.len(), FaultRule::ClockStep))
            .chain(kind(f.actor_faults.len(), FaultRule::ActorFault))
    }

    /// The rules whose faults happen on process `p`.
    fn rules_on(&self, p: ProcessId) -> impl Iterator<Item = FaultRule> + '_ {
        self.rules()
            .filter(move |&rule| self.rule_on(rule) == Some(p))
    }

    /// Whether the budget of `rule`'s kind is not spent.
    fn budget_left(&self, state: &StateOf<A>, rule: FaultRule) -> bool {
        let (used, f) = (&state.faults_used, &self.faults);
        match rule {
            FaultRule::Pause(_) => used.pauses < f.max_pauses,
            FaultRule::Partition(_) => used.partitions < f.max_partitions,
            FaultRule::Crash(_) => used.crashes < f.max_crashes,
            FaultRule::ClockStep(_) => used.clock_steps < f.max_clock_steps,
            FaultRule::ActorFault(_) => used.actor_faults < f.max_actor_faults,
        }
    }

    /// Feeds what the future depends on of `state`'s fault timing into `h` (see the module
    /// documentation); nothing when the envelope has no timing.
    pub(crate) fn hash_fault_timing(&self, state: &StateOf<A>, h: &mut FpHasher) {
        self.hash_fault_timing_with(state, state.fault_times.per_process.iter(), h);
    }

    /// [`World::hash_fault_timing`] with each process's faults so far given, in process
    /// order (a renamed state's, see `world::renamed_hash`).
    pub(crate) fn hash_fault_timing_with<'a>(
        &self,
        state: &StateOf<A>,
        per_process: impl Iterator<Item = &'a ProcessFaults>,
        h: &mut FpHasher,
    ) {
        let timing = &self.faults.timing;
        if timing.is_free() {
            return;
        }
        let now = state.now_ms;
        for (_, w) in &timing.windows {
            match w.bounds(&state.fault_times.anchored_at_ms) {
                None => h.write_u8(0),
                Some((from, _)) if from > now => {
                    h.write_u8(1);
                    h.write_u64(from - now);
                }
                Some((_, None)) => h.write_u8(2),
                Some((_, Some(to))) if to >= now => {
                    h.write_u8(3);
                    h.write_u64(to - now);
                }
                Some(_) => h.write_u8(4),
            }
        }
        for log in per_process {
            // Quiet for good (a crash that never restarts) is one value, not a time left
            // that shrinks as time passes: the state space stays finite.
            let left = (log.quiet_until_ms < MAX_INSTANT_MS)
                .then(|| log.quiet_until_ms.saturating_sub(now));
            left.hash(h);
            if timing.max_per_process.is_some() {
                log.count.hash(h);
            }
        }
    }

    /// Whether an anchor of another process, not yet held in `state`, would open at this
    /// very instant a window of a fault on `p` or of a partition that cuts a link into `p`
    /// (then `p` may not be explored alone: see the module documentation).
    pub(crate) fn anchor_may_open_now(&self, state: &StateOf<A>, p: ProcessId) -> bool {
        self.faults.timing.windows.iter().any(|(rule, w)| {
            let Some(a) = w.anchor else { return false };
            let waiting = state.fault_times.anchored_at_ms[a].is_none();
            waiting && w.from_ms == 0 && self.anchors[a].process != p && self.rule_touches(*rule, p)
        })
    }

    /// Whether `rule`'s faults happen on `p`, or (a partition) may cut a link into `p`.
    fn rule_touches(&self, rule: FaultRule, p: ProcessId) -> bool {
        match rule {
            FaultRule::Partition(i) => self.faults.partitions[i]
                .links
                .iter()
                .any(|&(_, to)| to == p),
            _ => self.rule_on(rule) == Some(p),
        }
    }

    /// Whether renaming by `r` keeps the timing: it moves no process with a windowed fault
    /// and no process an anchor reads (the gap and the cap are the same for every process).
    pub(crate) fn timing_refusal(&self, r: &Renaming) -> Result<(), String> {
        let n = self.processes.len();
        let moved = |p: ProcessId| r.of(p) != p;
        if self.anchors.iter().any(|a| moved(a.process)) {
            return Err("an event a fault window counts from".into());
        }
        let windowed = |p: ProcessId| {
            self.faults
                .timing
                .windows
                .iter()
                .any(|(rule, _)| self.rule_on(*rule) == Some(p))
        };
        match (0..n).find(|&p| moved(p) && windowed(p)) {
            Some(_) => Err("its fault windows".into()),
            None => Ok(()),
        }
    }

    /// The process `rule`'s faults happen on (none for a partition).
    fn rule_on(&self, rule: FaultRule) -> Option<ProcessId> {
        let f = &self.faults;
        match rule {
            FaultRule::Pause(i) => Some(f.pauses[i].process),
            FaultRule::Crash(i) => Some(f.crashes[i].process),
            FaultRule::ClockStep(i) => Some(f.clock_steps[i].process),
            FaultRule::ActorFault(i) => Some(f.actor_faults[i].process),
            FaultRule::Partition(_) => None,
        }
    }

    /// Why the timing is not consistent with the world, if it is not: a window naming a
    /// rule or an anchor that does not exist.
    fn timing_error(&self) -> Option<String> {
        let f = &self.faults;
        f.timing.windows.iter().find_map(|(rule, w)| {
            let rule_exists = self.rules().any(|r| r == *rule);
            let anchor_exists = w.anchor.is_none_or(|a| a < self.anchors.len());
            (!rule_exists || !anchor_exists)
                .then(|| format!("a window of {rule:?} names no such rule or anchor"))
        })
    }
}
