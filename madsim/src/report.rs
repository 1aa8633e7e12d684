//! What one madsim run found, and how it reads.

use lockcheck_sim::world::FaultsUsed;
use lockcheck_sim::Trace;
use std::fmt;

/// How many timeline lines a report prints (the end of the run, where the violation is).
pub const SHOWN_LINES: usize = 60;

/// The first property a run violated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub property: String,
    /// True time of the violation, in ms since the run began.
    pub at_ms: u64,
    /// Handlers run before it.
    pub step: u32,
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// A property was violated.
    Violation,
    /// Nothing was left to happen (open `leads_to_within` obligations are then violated).
    Quiescent,
    /// The run took its allotted number of steps.
    StepBound,
    /// The run reached its virtual-time bound.
    TimeBound,
}

/// The result of one run of a world under madsim.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// madsim's seed: `MADSIM_TEST_SEED` replays the run.
    pub seed: u64,
    /// The run's place among the runs of its runtime (0 for the first).
    pub run: u32,
    pub world: String,
    /// The run's chance of a fault after each event, per thousand.
    pub fault_per_mille: u64,
    pub violation: Option<Violation>,
    /// `sometimes` properties that held at some point of the run.
    pub witnessed: Vec<String>,
    /// `sometimes` properties that never held.
    pub not_witnessed: Vec<String>,
    pub ended: Ended,
    /// Handlers run.
    pub steps: u32,
    /// True time at the end, in ms.
    pub end_ms: u64,
    pub faults: FaultsUsed,
    /// Every event, fault and driver action, in order.
    pub timeline: Vec<String>,
    /// The run as a kernel trace: `lockcheck replay` runs the very same steps in lockcheck's
    /// own simulator, which must accept each of them and reach the same verdict.
    pub trace: Trace,
}

impl RunReport {
    /// The violated property's name, if any.
    pub fn violated(&self) -> Option<&str> {
        self.violation.as_ref().map(|v| v.property.as_str())
    }
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match &self.violation {
            Some(v) => format!(
                "VIOLATION of {} at {} ms (after {} steps)",
                v.property, v.at_ms, v.step
            ),
            None => "no violation".to_string(),
        };
        writeln!(
            f,
            "madsim run {} of seed {} on `{}` (faults after {}‰ of events): {verdict}",
            self.run, self.seed, self.world, self.fault_per_mille
        )?;
        let u = &self.faults;
        writeln!(
            f,
            "ended: {:?} after {} steps at {} ms; faults used: pauses {}, crashes {}, partitions {}, clock steps {}, losses {}",
            self.ended, self.steps, self.end_ms, u.pauses, u.crashes, u.partitions, u.clock_steps, u.losses
        )?;
        if !self.witnessed.is_empty() {
            writeln!(f, "witnessed: {}", self.witnessed.join(", "))?;
        }
        if !self.not_witnessed.is_empty() {
            writeln!(f, "never witnessed: {}", self.not_witnessed.join(", "))?;
        }
        let skip = self.timeline.len().saturating_sub(SHOWN_LINES);
        if skip > 0 {
            writeln!(
                f,
                "timeline (the last {SHOWN_LINES} of {} lines):",
                self.timeline.len()
            )?;
        } else {
            writeln!(f, "timeline:")?;
        }
        for line in &self.timeline[skip..] {
            writeln!(f, "  {line}")?;
        }
        if let Some(v) = &self.violation {
            writeln!(f, "  ** {} violated here **", v.property)?;
        }
        Ok(())
    }
}
