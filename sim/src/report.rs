//! What an exploration returns: an outcome, statistics, and a verdict per property.
//!
//! A limit is never an error or a hang: running out of states, wall time or memory is the
//! named outcome `LimitReached` with the statistics gathered so far, and every property
//! still reports what was found before the limit. An interrupt from outside is reported the
//! same way, as `Interrupted`.

use crate::model::Model;
use crate::model::PropertyKind;
use crate::stats::Stats;
use std::fmt;

/// How an exploration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every reachable state was explored: "holds" verdicts are proofs.
    Complete,
    /// Every state within the depth or virtual-time bound was explored; some were cut off.
    Bounded { depth: bool, virtual_time: bool },
    /// All random or replayed runs were carried out.
    RunsDone { runs: u64 },
    /// Stopped at the first violation, as asked.
    StoppedAtViolation,
    /// Stopped once every property was settled (violated or witnessed), as asked.
    AllSettled,
    /// A resource limit ended the search before it was done.
    LimitReached(Limit),
    /// The caller's interrupt flag ended the search before it was done.
    Interrupted,
}

/// A resource limit of the explorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    States,
    WallTime,
    Memory,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::States => "state limit",
            Limit::WallTime => "wall-time limit",
            Limit::Memory => "memory limit",
        })
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Complete => f.write_str("complete: every reachable state explored"),
            Outcome::Bounded {
                depth,
                virtual_time,
            } => {
                let what = match (depth, virtual_time) {
                    (true, true) => "depth and virtual-time bounds",
                    (true, false) => "depth bound",
                    _ => "virtual-time bound",
                };
                write!(f, "complete up to the {what}")
            }
            Outcome::RunsDone { runs } => write!(f, "{runs} runs done"),
            Outcome::StoppedAtViolation => f.write_str("stopped at the first violation"),
            Outcome::AllSettled => f.write_str("stopped once every oracle was settled"),
            Outcome::LimitReached(l) => write!(f, "{l} reached before the search was done"),
            Outcome::Interrupted => f.write_str("interrupted before the search was done"),
        }
    }
}

/// One step of a path: the action taken and its label.
pub struct Step<M: Model> {
    pub action: M::Action,
    pub label: String,
}

/// A run from an initial state: actions and every state along the way.
pub struct Path<M: Model> {
    /// The seed of the random run it came from, if any.
    pub seed: Option<u64>,
    /// Index of the initial state.
    pub init: usize,
    pub steps: Vec<Step<M>>,
    /// `steps.len() + 1` states, the initial one first.
    pub states: Vec<M::State>,
}

impl<M: Model> Path<M> {
    pub fn last_state(&self) -> &M::State {
        self.states
            .last()
            .expect("a path has at least its initial state")
    }
    pub fn labels(&self) -> Vec<String> {
        self.steps.iter().map(|s| s.label.clone()).collect()
    }
}

/// The verdict on one property.
pub enum Status<M: Model> {
    /// No counterexample among the explored states (a proof when the outcome is complete).
    Holds,
    /// A counterexample: the path ends in the violating state.
    Violated(Path<M>),
    /// A `sometimes` property was satisfied: the path ends in a witness.
    Witnessed(Path<M>),
    /// A `sometimes` property was satisfied by none of the explored states.
    NotWitnessed,
}

impl<M: Model> Status<M> {
    pub fn is_violated(&self) -> bool {
        matches!(self, Status::Violated(_))
    }
    pub fn path(&self) -> Option<&Path<M>> {
        match self {
            Status::Violated(p) | Status::Witnessed(p) => Some(p),
            _ => None,
        }
    }
    pub fn word(&self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::Violated(_) => "VIOLATED",
            Status::Witnessed(_) => "witnessed",
            Status::NotWitnessed => "NEVER WITNESSED",
        }
    }
}

/// A property's name, kind and verdict.
pub struct PropertyReport<M: Model> {
    pub name: String,
    pub kind: PropertyKind,
    pub status: Status<M>,
}

/// The result of an exploration.
pub struct Report<M: Model> {
    pub outcome: Outcome,
    pub stats: Stats,
    pub properties: Vec<PropertyReport<M>>,
    /// What ran and why: the engine, each reduction or why not, the fingerprint width, the
    /// visited set.
    pub plan: crate::plan::Plan,
    /// For the engines that use their threads only while that is faster, or hand work to
    /// them: the share of the expansions the threads took, in percent.
    pub threads_used_percent: Option<u64>,
    /// Under hash compaction, what its tables held and compared (`visited::compact`).
    pub compaction: Option<crate::visited::Compaction>,
    /// When the options asked for it, which of the model's fault rules the explored runs
    /// used and when (`crate::coverage`).
    pub fault_coverage: Option<crate::coverage::FaultCoverage>,
}

impl<M: Model> Report<M> {
    /// What ran, in words: the engine and, where measured, its threads' share.
    pub fn ran(&self) -> String {
        self.plan.engine.ran(self.threads_used_percent)
    }

    /// The verdict on the property called `name`.
    pub fn property(&self, name: &str) -> Option<&PropertyReport<M>> {
        self.properties.iter().find(|p| p.name == name)
    }
    /// The first violated property, if any.
    pub fn first_violation(&self) -> Option<(&str, &Path<M>)> {
        self.properties.iter().find_map(|p| match &p.status {
            Status::Violated(path) => Some((p.name.as_str(), path)),
            _ => None,
        })
    }
    /// `sometimes` properties that nothing witnessed: a green run with these is hollow.
    pub fn hollow(&self) -> Vec<&str> {
        self.properties
            .iter()
            .filter(|p| matches!(p.status, Status::NotWitnessed))
            .map(|p| p.name.as_str())
            .collect()
    }
    /// For a search that explored its whole (bounded) space: the probability that two of its
    /// unique states shared a fingerprint of the width it compared (64 or 128 bits), so that
    /// one of them was taken for the other and its successors were not explored
    /// ([`crate::fingerprint::collision_probability`]). Under hash compaction, a bound: that
    /// probability at 64 bits plus the expected number of states the compact tables took for
    /// others ([`crate::visited::Compaction::omission_bound`]), at most 1.
    pub fn collision_probability(&self) -> Option<f64> {
        self.is_exhaustive().then(|| {
            let whole = crate::fingerprint::collision_probability(
                self.stats.unique_states,
                self.plan.width.bits(),
            );
            let compacted = self.compaction.map_or(0.0, |c| c.omission_bound());
            (whole + compacted).min(1.0)
        })
    }

    /// Whether the verdicts are a proof over the whole reachable space (or bounded space).
    pub fn is_exhaustive(&self) -> bool {
        matches!(self.outcome, Outcome::Complete | Outcome::Bounded { .. })
    }
}

impl<M: Model> fmt::Display for Report<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "outcome: {}", self.outcome)?;
        let s = &self.stats;
        writeln!(
            f,
            "states: {} unique, {} expanded, {} transitions, depth {}, virtual time {} ms, {} runs",
            s.unique_states,
            s.expanded_states,
            s.transitions,
            s.max_depth,
            s.max_virtual_time_ms,
            s.runs
        )?;
        for p in &self.properties {
            writeln!(f, "  {} {}: {}", p.kind, p.name, p.status.word())?;
        }
        Ok(())
    }
}

// Manual impls: derives would demand `M: Clone + Debug` of the model itself.

impl<M: Model> Clone for Step<M> {
    fn clone(&self) -> Self {
        Step {
            action: self.action.clone(),
            label: self.label.clone(),
        }
    }
}

impl<M: Model> fmt::Debug for Step<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

impl<M: Model> Clone for Path<M> {
    fn clone(&self) -> Self {
        Path {
            seed: self.seed,
            init: self.init,
            steps: self.steps.clone(),
            states: self.states.clone(),
        }
    }
}

impl<M: Model> fmt::Debug for Path<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Path")
            .field("seed", &self.seed)
            .field("init", &self.init)
            .field("steps", &self.steps)
            .finish()
    }
}

impl<M: Model> Clone for Status<M> {
    fn clone(&self) -> Self {
        match self {
            Status::Holds => Status::Holds,
            Status::Violated(p) => Status::Violated(p.clone()),
            Status::Witnessed(p) => Status::Witnessed(p.clone()),
            Status::NotWitnessed => Status::NotWitnessed,
        }
    }
}

impl<M: Model> fmt::Debug for Status<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path() {
            Some(p) => write!(f, "{} {:?}", self.word(), p),
            None => f.write_str(self.word()),
        }
    }
}

impl<M: Model> Clone for PropertyReport<M> {
    fn clone(&self) -> Self {
        PropertyReport {
            name: self.name.clone(),
            kind: self.kind,
            status: self.status.clone(),
        }
    }
}

impl<M: Model> fmt::Debug for PropertyReport<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {:?}", self.kind, self.name, self.status)
    }
}

impl<M: Model> fmt::Debug for Report<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Report")
            .field("outcome", &self.outcome)
            .field("stats", &self.stats)
            .field("properties", &self.properties)
            .finish()
    }
}
