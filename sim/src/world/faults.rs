//! The fault envelope: what may go wrong, how often and how badly.
//!
//! A scenario does not script faults; it states budgets and value sets (which processes may
//! pause and for how long, which partitions may happen, which processes may crash and when
//! they restart, whose clock may step and by how much, how many messages may be lost).
//! Exhaustive search branches over every fault at every step while the budget lasts; random
//! walks take faults with a low probability. A scripted fault is an envelope with one choice.

use super::actor::{CrashKind, ProcessId};

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

/// Everything that may go wrong in a world, with budgets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FaultEnvelope {
    pub pauses: Vec<PauseFault>,
    pub max_pauses: u32,
    pub partitions: Vec<PartitionFault>,
    pub max_partitions: u32,
    pub crashes: Vec<CrashFault>,
    pub max_crashes: u32,
    pub clock_steps: Vec<ClockStepFault>,
    pub max_clock_steps: u32,
    pub max_losses: u32,
}

impl FaultEnvelope {
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
}

/// Faults spent so far on a path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FaultsUsed {
    pub pauses: u32,
    pub partitions: u32,
    pub crashes: u32,
    pub clock_steps: u32,
    pub losses: u32,
}
