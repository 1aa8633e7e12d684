//! The counters of a search: what it explored, what its reductions merged, what it used.
//! Every engine counts alike, so that two searches of one space agree on
//! [`Stats::results`].

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
    /// Under the dead-values reduction: distinct states met (by their plain fingerprint), of
    /// which `unique_states` were stored (with symmetry on too, what both merged).
    pub dead_values_states_met: u64,
    /// States waiting to be expanded at the last progress report (for progress displays;
    /// not a result of the search).
    pub frontier_states: u64,
}

impl Stats {
    /// Adds the counts of `other`, which counted other expansions of the same search (the
    /// greatest depth and virtual time are the greater of the two).
    pub(crate) fn add_counts(&mut self, other: &Stats) {
        self.expanded_states += other.expanded_states;
        self.transitions += other.transitions;
        self.cut_off_states += other.cut_off_states;
        self.runs += other.runs;
        self.max_depth = self.max_depth.max(other.max_depth);
        self.max_virtual_time_ms = self.max_virtual_time_ms.max(other.max_virtual_time_ms);
        self.peak_memory_bytes = self.peak_memory_bytes.max(other.peak_memory_bytes);
        self.branching.merge(&other.branching);
    }

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
