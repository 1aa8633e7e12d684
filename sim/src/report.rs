//! What an exploration returns: an outcome, statistics, and a verdict per property.
//!
//! A limit is never an error or a hang: running out of states, wall time or memory is the
//! named outcome `LimitReached` with the statistics gathered so far, and every property
//! still reports what was found before the limit. An interrupt from outside is reported the
//! same way, as `Interrupted`.

use crate::model::Model;
use crate::property::PropertyKind;
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

/// Counters of an exploration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Distinct states seen (by fingerprint).
    pub unique_states: u64,
    /// States expanded (popped from the frontier).
    pub expanded_states: u64,
    /// Successors generated.
    pub transitions: u64,
    /// Greatest depth reached.
    pub max_depth: u32,
    /// Greatest virtual time reached, in ms.
    pub max_virtual_time_ms: u64,
    /// States not expanded because of the depth or virtual-time bound.
    pub cut_off_states: u64,
    /// Runs started (1 for exhaustive search).
    pub runs: u64,
    /// Peak memory seen at the explorer's limit checks and at its end: the process's
    /// resident bytes when a memory gauge was given, else the estimate of the explorer's own
    /// tables (visited set, path log, frontier). Never zero once a search has run.
    pub peak_memory_bytes: u64,
    /// Wall time in ms, if a wall clock was given.
    pub wall_ms: Option<u64>,
    /// Where the branching came from, by kind of choice.
    pub branching: crate::branching::Branching,
    /// Expanded states at which partial-order reduction postponed some actions.
    pub reduced_states: u64,
    /// Reduced states that were expanded fully after all (the cycle proviso).
    pub proviso_expansions: u64,
    /// States where a persistent subset was abandoned because one of its actions changed
    /// what a property observes.
    pub visible_expansions: u64,
    /// Transient states settled at once under partial-order reduction.
    pub settled_states: u64,
    /// Under symmetry reduction: distinct states met (by their own fingerprint), of which
    /// `unique_states` representatives were stored.
    pub symmetric_states_met: u64,
    /// Under the value abstraction: distinct states met (by their plain fingerprint), of
    /// which `unique_states` were stored (with symmetry on too, what both merged).
    pub live_states_met: u64,
    /// States waiting to be expanded at the last progress report (for progress displays;
    /// not a result of the search).
    pub frontier_states: u64,
}

impl Stats {
    /// These statistics with the figures of progress and resources (peak memory, wall time,
    /// frontier) zeroed: what two searches of the same space must agree on.
    pub fn results(&self) -> Stats {
        Stats {
            peak_memory_bytes: 0,
            wall_ms: None,
            frontier_states: 0,
            ..*self
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
    /// Whether partial-order reduction was used, or why not.
    pub partial_order: crate::explorer::PartialOrder,
    /// Whether symmetry reduction was used, or why not.
    pub symmetry: crate::explorer::Symmetry,
    /// Whether the value abstraction was used, or why not.
    pub dead_values: crate::explorer::DeadValues,
    /// How many threads searched, or why one did.
    pub threads: crate::explorer::Threads,
    /// How many bits of each fingerprint the search compared, or why 64 when asked for 128.
    pub fingerprints: crate::explorer::Width,
    /// Under hash compaction, what its tables held and compared (`visited::compact`).
    pub compaction: Option<crate::visited::Compaction>,
}

impl<M: Model> Report<M> {
    /// The report of a search on one thread that ended as `outcome`, with the verdicts
    /// `checker` holds.
    pub(crate) fn of(
        checker: crate::checker::Checker<M>,
        outcome: Outcome,
        stats: Stats,
        partial_order: crate::explorer::PartialOrder,
        symmetry: crate::explorer::Symmetry,
        dead_values: crate::explorer::DeadValues,
    ) -> Self {
        let properties = checker
            .props
            .iter()
            .zip(checker.statuses)
            .map(|(p, status)| PropertyReport {
                name: p.name.clone(),
                kind: p.kind(),
                status,
            })
            .collect();
        Report {
            outcome,
            stats,
            properties,
            partial_order,
            symmetry,
            dead_values,
            threads: crate::explorer::Threads::Ran(1),
            fingerprints: crate::explorer::Width::Bits64,
            compaction: None,
        }
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
                self.fingerprints.bits(),
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
