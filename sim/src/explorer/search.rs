//! The core loop and the state of a search, shared by every engine.
//!
//! A search pops an entry from its frontier, computes its expansion (`explorer::expand`,
//! or takes the one prepared ahead), and admits its successors (`explorer::admit`); limits
//! and the interrupt flag are looked at between expansions. The batch engine
//! (`explorer::batches`) keeps this state and calls the same expansion and admission, only
//! in batches spread over threads.

use super::expand::{Prep, Prepared, Successor};
use super::key::KeyMode;
use super::lookahead::{Pipeline, PrepareMany};
use super::met::Met;
use super::store::Shards;
use super::tuner;
use super::watch::Watch;
use crate::checker::{Checker, Hit};
use crate::coverage::FaultCoverage;
use crate::fingerprint::Lanes;
use crate::frontier::{Frontier, Pending};
use crate::limits::{Pacer, MIN_INTERVAL};
use crate::model::{Model, Observes};
use crate::options::Options;
use crate::path_log::PathLog;
use crate::plan::{Plan, Table};
use crate::report::{Outcome, Report};
use crate::stats::Stats;
use crate::visited::VisitedSet;

/// Whether a search goes on.
pub(super) enum Flow {
    Go,
    Stop(Outcome),
}

/// Which bounds cut states off.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Cuts {
    pub depth: bool,
    pub time: bool,
}

impl Cuts {
    pub(super) fn merge(&mut self, other: Cuts) {
        self.depth |= other.depth;
        self.time |= other.time;
    }
}

/// A search under way: what it decided, what it found, and the buffers it reuses.
pub(super) struct Search<'m, M: Model> {
    pub model: &'m M,
    pub plan: Plan,
    /// What the properties declare they observe (all of them, when partial order is on).
    pub observes: Vec<Observes<M>>,
    pub keys: KeyMode,
    pub max_depth: Option<u32>,
    /// What a step looks at while it computes or admits many successors.
    pub watch: Watch,
    pub checker: Checker<M>,
    /// The keys of the states stored, in one shard per thread of the batch engine.
    pub visited: Shards,
    /// The distinct states met, where a reduction stores fewer (`met`).
    pub met: Met,
    /// Keys of the states expanded so far, under partial-order reduction (the cycle
    /// proviso asks whether a successor was already expanded).
    pub expanded: Option<VisitedSet>,
    pub log: PathLog,
    pub stats: Stats,
    /// Unique states admitted so far.
    pub admitted: u64,
    pub hits: Vec<(usize, Hit)>,
    pub seed: Option<u64>,
    pub cuts: Cuts,
    /// The fault rules the expansions used, when the options ask for coverage.
    pub coverage: Option<FaultCoverage>,
    /// Whether the last admitted successor (or a state met settling it) had been expanded
    /// before (under partial-order reduction; see `reduction`).
    pub last_seen: bool,
    /// The key of the state admitted last.
    pub last_key: Lanes,
    /// Buffers reused, so that the hot path allocates nothing per state: successors,
    /// enabled actions, the frontier's selection, a persistent subset, transient states
    /// being settled and their successors.
    pub spare: Vec<Successor<M::State>>,
    pub enabled: Vec<M::Action>,
    pub selected: Vec<usize>,
    pub subset: Vec<usize>,
    pub settling: Vec<Pending<M::State>>,
    pub settled: Vec<Successor<M::State>>,
    /// States done with, for a worker to drop (with `many`: freeing what a worker allocated
    /// is the search thread's largest cost after deduplication).
    pub dead: Vec<M::State>,
    /// The expansion of the entry next in line, prepared early (breadth-first search; with
    /// `many`, the entry just taken from the pipeline).
    pub ahead: Option<Prepared<M::State>>,
    /// Prepares many entries at once on other threads (`lookahead`), if the search may.
    pub many: Option<&'m dyn PrepareMany<M>>,
    /// With `many`: the entries taken from the frontier early, for the workers.
    pub pipeline: Pipeline<M::State>,
    /// Whether the workers are used now (`tuner`).
    pub tuning: tuner::Tuning<'m, M>,
    pub pacer: Pacer,
    /// Expansions after which limits are checked next.
    pub next_check_at: u64,
    /// Expansions the search may make between two limit checks beyond what the pace
    /// allows (a batch of the batch engine, which is checked only between batches).
    pub expansions_ahead: u64,
}

impl<'m, M: Model> Search<'m, M> {
    /// A search of `model` under `plan` and `options` about to start, its visited set in
    /// `shards` shards: nothing visited, every statistic zero.
    pub(super) fn new(model: &'m M, plan: Plan, options: &Options, shards: usize) -> Self {
        let checker = Checker::new(options.judged.select(model.properties()));
        let wide = plan.width.is_wide();
        let expected = options.storage.expected_states;
        let compact = match plan.table {
            Table::Compact { .. } => options.compact_plan(shards),
            Table::Exact => None,
        };
        Search {
            model,
            observes: (checker.props.iter())
                .filter_map(|p| p.observes.clone())
                .collect(),
            keys: KeyMode::of(&plan, options),
            max_depth: options.limits.max_depth,
            watch: Watch::of(options),
            checker,
            visited: Shards::new(shards, expected, wide, compact),
            met: Met::new(&plan, expected, wide),
            expanded: (plan.partial_order.is_on())
                .then(|| VisitedSet::for_search(expected, wide, compact, 1)),
            plan,
            log: PathLog::default(),
            stats: Stats::default(),
            admitted: 0,
            hits: Vec::new(),
            seed: None,
            cuts: Cuts::default(),
            coverage: (options.fault_coverage).then(|| FaultCoverage::new(model.fault_rules())),
            last_seen: false,
            last_key: Lanes::default(),
            spare: Vec::new(),
            enabled: Vec::new(),
            selected: Vec::new(),
            subset: Vec::new(),
            settling: Vec::new(),
            settled: Vec::new(),
            dead: Vec::new(),
            ahead: None,
            many: None,
            pipeline: Pipeline::default(),
            tuning: tuner::Tuning::default(),
            pacer: Pacer::default(),
            // With a clock, the first check comes after one expansion: it may be slow.
            next_check_at: if options.hooks.wall_clock.is_some() {
                1
            } else {
                MIN_INTERVAL
            },
            expansions_ahead: 0,
        }
    }

    /// What computing an expansion reads, for this search.
    pub(super) fn prep(&self) -> Prep<'_, M> {
        Prep {
            model: self.model,
            observes: &self.observes,
            obligations: &self.checker.obligations,
            partial_order: self.plan.partial_order.is_on(),
            keys: self.keys,
            max_depth: self.max_depth,
            watch: &self.watch,
            coverage: self.coverage.is_some(),
        }
    }

    /// Adds the fault rules `expanded` used to the coverage, when the search keeps it.
    pub(super) fn note_coverage(&mut self, expanded: &super::expand::Expanded) {
        if let (Some(coverage), Some(used)) = (&mut self.coverage, &expanded.used) {
            coverage.note(used);
        }
    }

    /// Runs the search with `frontier` to its end: the core loop.
    pub(super) fn run<F: Frontier<M>>(
        &mut self,
        frontier: &mut F,
        options: &mut Options,
    ) -> Result<Outcome, F::Error> {
        let prunes = frontier.prunes_visited();
        while let Some(start) = frontier.next_run() {
            self.stats.runs += 1;
            self.seed = start.seed;
            // Path-log nodes restart when the log is cleared: nothing prepared survives a run.
            self.forget_prepared();
            if !prunes {
                self.log.clear();
            }
            if let Flow::Stop(o) = self.admit_roots(frontier, options)? {
                return Ok(o);
            }
            while let Some(entry) = self.next_entry(frontier) {
                self.note_handed_off(frontier);
                if self.check_due() {
                    let growth = frontier.growth_bytes(self.entries_ahead());
                    if let Some(o) = self.limit_hit(frontier.len(), growth, options) {
                        return Ok(o);
                    }
                }
                self.tune();
                if let Some(o) = self.interrupted(options) {
                    return Ok(o);
                }
                if let Flow::Stop(o) = self.expand(entry, frontier, options)? {
                    return Ok(o);
                }
            }
        }
        Ok(if !prunes {
            Outcome::RunsDone {
                runs: self.stats.runs,
            }
        } else {
            self.finished()
        })
    }

    /// The report of the search, which ended as `outcome` with `waiting` entries left, and
    /// its visited set.
    pub(super) fn finish(
        mut self,
        outcome: Outcome,
        waiting: usize,
        options: &Options,
    ) -> (Report<M>, Shards) {
        self.stats.unique_states = self.admitted;
        // Every key stored is an admitted state's, but where the search stopped within a
        // step: the state beyond the state limit, or the rest of a batch whose keys the batch
        // engine had inserted before a violation or the limit was met.
        let stored = self.visited.len() as u64;
        let stopped_within = matches!(
            outcome,
            Outcome::StoppedAtViolation
                | Outcome::AllSettled
                | Outcome::LimitReached(crate::report::Limit::States)
        );
        assert!(
            stored == self.admitted || (stopped_within && stored > self.admitted),
            "internal bug: {stored} keys in the visited set for {} states admitted",
            self.admitted
        );
        self.met.finish(&self.plan, &mut self.stats);
        // Every search, however short, reports a real memory figure: its highest reading,
        // or the gauge's own peak when the search went higher between two readings.
        self.measure_memory(waiting, 0, options);
        let gauge = options.hooks.memory_gauge.as_ref();
        if let Some(peak) = gauge.and_then(|g| g.peak_bytes()) {
            self.stats.peak_memory_bytes = self.stats.peak_memory_bytes.max(peak);
        }
        if let Some(clock) = &options.hooks.wall_clock {
            self.stats.wall_ms = Some(clock.elapsed_ms());
        }
        // What hash compaction did where a state taken for another would go unexplored: the
        // visited set and, under partial-order reduction, the expanded set (the proviso's).
        let expanded = self.expanded.as_ref().and_then(VisitedSet::compaction);
        let compaction = (self.visited.compaction()).map(|v| expanded.map_or(v, |e| v.plus(e)));
        let report = Report {
            outcome,
            stats: self.stats,
            properties: self.checker.into_verdicts(),
            plan: self.plan,
            threads_used_percent: None,
            compaction,
            fault_coverage: self.coverage,
        };
        (report, self.visited)
    }

    /// How a search that ran out of states to expand ended.
    pub(super) fn finished(&self) -> Outcome {
        if self.cuts.depth || self.cuts.time {
            Outcome::Bounded {
                depth: self.cuts.depth,
                virtual_time: self.cuts.time,
            }
        } else {
            Outcome::Complete
        }
    }

    /// `Interrupted`, with the statistics so far, once the interrupt flag is set.
    pub(super) fn interrupted(&mut self, options: &Options) -> Option<Outcome> {
        options.hooks.interrupted().then(|| {
            self.stats.unique_states = self.admitted;
            Outcome::Interrupted
        })
    }

    /// Takes the entries the frontier handed to other searches and, under partial-order
    /// reduction, marks them expanded (see `explorer::shard`); otherwise they are dropped.
    fn note_handed_off<F: Frontier<M>>(&mut self, frontier: &mut F) {
        for dropped in frontier.take_handed_off() {
            if self.plan.partial_order.is_on() {
                self.mark_expanded(&dropped, None);
            }
        }
    }

    /// Expands `entry` (its expansion prepared now or ahead) and admits its successors;
    /// then its state is dropped (on a worker, with workers).
    fn expand<F: Frontier<M>>(
        &mut self,
        entry: Pending<M::State>,
        frontier: &mut F,
        options: &Options,
    ) -> Result<Flow, F::Error> {
        let mut prepared = self.prepared_for(&entry, frontier)?;
        let mut successors = std::mem::take(&mut prepared.successors);
        let expanded = &prepared.expanded;
        let flow = self.absorb(
            &entry,
            expanded,
            successors.drain(..),
            || None,
            frontier,
            options,
        );
        self.spare = successors;
        self.bury(entry.state);
        Ok(flow)
    }
}
