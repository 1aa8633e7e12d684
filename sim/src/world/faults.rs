//! The fault envelope: what may go wrong, how often and how badly.
//!
//! A scenario does not script faults; it states budgets and value sets (which processes may
//! pause and for how long, which partitions may happen, which processes may crash and when
//! they restart, whose clock may step and by how much, how many messages may be lost).
//! Exhaustive search branches over every fault at every step while the budget lasts; random
//! walks take faults with a low probability. A scripted fault is an envelope with one choice.
//! Besides the built-in five (pauses, partitions, crashes, clock steps, losses), an actor may
//! declare faults of its own (`Actor::Fault`), listed per process and budgeted the same way
//! (see `actor_fault.rs`).

use super::actor::{CrashKind, NoFault, ProcessId};
use super::actor_fault::ActorFaultRule;
use super::fault_timing::{FaultRule, FaultTiming, FaultWindow};
use std::fmt;
use std::hash::{Hash, Hasher};

/// A process that may pause (GC stop-the-world): every handler, timers included, freezes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PauseFault {
    pub process: ProcessId,
    pub durations_ms: Vec<u64>,
}

/// A set of directed links that may be cut, and for how long (`None`: never heals).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PartitionFault {
    pub name: String,
    pub links: Vec<(ProcessId, ProcessId)>,
    pub durations_ms: Vec<Option<u64>>,
}

impl PartitionFault {
    /// Cuts every link between `side_a` and `side_b`, both ways.
    pub fn two_way(
        name: impl Into<String>,
        side_a: &[ProcessId],
        side_b: &[ProcessId],
        durations_ms: Vec<Option<u64>>,
    ) -> Self {
        let mut links = Vec::new();
        for &a in side_a {
            for &b in side_b {
                links.push((a, b));
                links.push((b, a));
            }
        }
        PartitionFault {
            name: name.into(),
            links,
            durations_ms,
        }
    }

    /// Cuts the links from `senders` to `receivers` only.
    pub fn one_way(
        name: impl Into<String>,
        senders: &[ProcessId],
        receivers: &[ProcessId],
        durations_ms: Vec<Option<u64>>,
    ) -> Self {
        let links = senders
            .iter()
            .flat_map(|&a| receivers.iter().map(move |&b| (a, b)))
            .collect();
        PartitionFault {
            name: name.into(),
            links,
            durations_ms,
        }
    }

    pub fn blocks(&self, from: ProcessId, to: ProcessId) -> bool {
        self.links.contains(&(from, to))
    }
}

/// A process that may crash, how, and after how long it restarts (`None`: stays down).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CrashFault {
    pub process: ProcessId,
    pub kinds: Vec<CrashKind>,
    pub restart_after_ms: Vec<Option<u64>>,
}

/// A process whose wall clock may step, and by how much (ms, either sign).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClockStepFault {
    pub process: ProcessId,
    pub deltas_ms: Vec<i64>,
}

/// Everything that may go wrong in a world, with budgets. `F` is the actors' own fault type.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct FaultEnvelope<F = NoFault> {
    pub pauses: Vec<PauseFault>,
    pub max_pauses: u32,
    pub partitions: Vec<PartitionFault>,
    pub max_partitions: u32,
    pub crashes: Vec<CrashFault>,
    pub max_crashes: u32,
    pub clock_steps: Vec<ClockStepFault>,
    pub max_clock_steps: u32,
    pub max_losses: u32,
    /// Faults of the actors' own, per process.
    pub actor_faults: Vec<ActorFaultRule<F>>,
    pub max_actor_faults: u32,
    /// When the faults may happen (see `fault_timing.rs`); free by default.
    pub timing: FaultTiming,
    /// Processes that share one fate, as threads of one program do (see `shared_fate.rs`):
    /// a pause, crash or clock step of one is one of all. Each group sorted, two or more.
    pub shared_fate: Vec<Vec<ProcessId>>,
}

impl<F> Default for FaultEnvelope<F> {
    fn default() -> Self {
        FaultEnvelope {
            pauses: Vec::new(),
            max_pauses: 0,
            partitions: Vec::new(),
            max_partitions: 0,
            crashes: Vec::new(),
            max_crashes: 0,
            clock_steps: Vec::new(),
            max_clock_steps: 0,
            max_losses: 0,
            actor_faults: Vec::new(),
            max_actor_faults: 0,
            timing: FaultTiming::default(),
            shared_fate: Vec::new(),
        }
    }
}

/// The actors' own faults, the timing and shared fates are shown only when there are some, so that the
/// text of an envelope without them (which a world's model hash is made of) is what it
/// always was.
impl<F: fmt::Debug> fmt::Debug for FaultEnvelope<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("FaultEnvelope");
        d.field("pauses", &self.pauses)
            .field("max_pauses", &self.max_pauses)
            .field("partitions", &self.partitions)
            .field("max_partitions", &self.max_partitions)
            .field("crashes", &self.crashes)
            .field("max_crashes", &self.max_crashes)
            .field("clock_steps", &self.clock_steps)
            .field("max_clock_steps", &self.max_clock_steps)
            .field("max_losses", &self.max_losses);
        if !self.actor_faults.is_empty() || self.max_actor_faults != 0 {
            d.field("actor_faults", &self.actor_faults)
                .field("max_actor_faults", &self.max_actor_faults);
        }
        if !self.timing.is_free() {
            d.field("timing", &self.timing);
        }
        if !self.shared_fate.is_empty() {
            d.field("shared_fate", &self.shared_fate);
        }
        d.finish()
    }
}

impl<F> FaultEnvelope<F> {
    /// No faults at all.
    pub fn none() -> Self {
        Self::default()
    }

    /// Allows `max` pauses of `process`, each lasting one of `durations_ms`.
    pub fn pause(mut self, process: ProcessId, durations_ms: &[u64], max: u32) -> Self {
        self.pauses.push(PauseFault {
            process,
            durations_ms: durations_ms.to_vec(),
        });
        self.max_pauses += max;
        self
    }

    pub fn partition(mut self, fault: PartitionFault, max: u32) -> Self {
        self.partitions.push(fault);
        self.max_partitions += max;
        self
    }

    pub fn crash(
        mut self,
        process: ProcessId,
        kinds: &[CrashKind],
        restart_after_ms: &[Option<u64>],
        max: u32,
    ) -> Self {
        self.crashes.push(CrashFault {
            process,
            kinds: kinds.to_vec(),
            restart_after_ms: restart_after_ms.to_vec(),
        });
        self.max_crashes += max;
        self
    }

    pub fn clock_step(mut self, process: ProcessId, deltas_ms: &[i64], max: u32) -> Self {
        self.clock_steps.push(ClockStepFault {
            process,
            deltas_ms: deltas_ms.to_vec(),
        });
        self.max_clock_steps += max;
        self
    }

    pub fn losses(mut self, max: u32) -> Self {
        self.max_losses = max;
        self
    }

    /// Lets `rule`'s faults happen only within `window`.
    pub fn window(mut self, rule: FaultRule, window: FaultWindow) -> Self {
        self.timing.windows.retain(|(r, _)| *r != rule);
        self.timing.windows.push((rule, window));
        self
    }

    /// Requires `min_gap_ms` from the end of one fault of a process to the start of its
    /// next, and at most `max_per_process` faults on any one process.
    pub fn spaced(mut self, min_gap_ms: u64, max_per_process: Option<u32>) -> Self {
        self.timing.min_gap_ms = min_gap_ms;
        self.timing.max_per_process = max_per_process;
        self
    }
}

/// Faults spent so far on a path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultsUsed {
    pub pauses: u32,
    pub partitions: u32,
    pub crashes: u32,
    pub clock_steps: u32,
    pub losses: u32,
    /// Faults of the actors' own.
    pub actor_faults: u32,
}

/// Hashed field by field as a derived `Hash` would, the actors' own faults only once there
/// are some: a world without them keeps the fingerprints it always had.
impl Hash for FaultsUsed {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.pauses.hash(h);
        self.partitions.hash(h);
        self.crashes.hash(h);
        self.clock_steps.hash(h);
        self.losses.hash(h);
        if self.actor_faults != 0 {
            self.actor_faults.hash(h);
        }
    }
}
