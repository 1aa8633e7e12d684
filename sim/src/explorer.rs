//! The explorer: one loop for every search strategy.
//!
//! It pops a state from the frontier, enumerates its enabled actions, lets the frontier
//! select which to expand, computes successors, deduplicates them by fingerprint (when the
//! frontier prunes), records how each new state was reached in the path log, evaluates the
//! properties on it and pushes it. Depth-first, breadth-first, random walks and replay differ
//! only in the frontier. Limits are checked as it goes and end the loop with a named outcome;
//! an interrupt flag set from outside (a signal handler) ends it at the next state.

use crate::branching::Tally;
use crate::checker::{Checker, Hit};
use crate::fingerprint::{Fingerprint, Lanes};
use crate::frontier::{Frontier, Pending};
use crate::limits::{Pacer, MAX_INTERVAL, MIN_INTERVAL};
use crate::model::Model;
use crate::path_log::PathLog;
use crate::property::Observes;
use crate::report::{Limit, Outcome, Report, Stats};
use crate::visited::VisitedSet;
use key::{dedup_key, KeyMode};
use lookahead::{Pipeline, PrepareMany};
use std::convert::Infallible;

mod key;
mod live;
mod lookahead;
mod options;
mod parallel;
mod reduction;
mod shard;
mod successors;
use successors::Prep;
mod symmetry;
mod tuner;
mod walks;
mod width;
pub use live::DeadValues;
pub use options::{Options, WallClock};
pub use parallel::{explore_parallel, Threads};
pub use reduction::{PartialOrder, Reductions, Sight};
pub use shard::{bfs_order, choice_path, explore_shard, union_len, ShardPlan, ShardReport, Split};
pub use symmetry::Symmetry;
pub use tuner::WorkerTrials;
pub use walks::explore_walks;
pub use width::Width;

/// Explores `model` with `frontier` under `options`: exhaustive search and random walks,
/// whose frontiers cannot fail.
pub fn explore<M: Model, F: Frontier<M, Error = Infallible>>(
    model: &M,
    frontier: &mut F,
    options: Options,
) -> Report<M> {
    match try_explore(model, frontier, options) {
        Ok(report) => report,
        Err(never) => match never {},
    }
}

/// Explores `model` with a frontier that can refuse to go on (replay meeting a choice the
/// model does not offer, a scripted fault not enabled when due): its error, or the report.
pub fn try_explore<M: Model, F: Frontier<M>>(
    model: &M,
    frontier: &mut F,
    options: Options,
) -> Result<Report<M>, F::Error> {
    search(model, frontier, options, None).map(|(report, _visited)| report)
}

/// The search of `try_explore`, with the fingerprints it visited.
/// `many`, when given, prepares expansions ahead on other threads (`lookahead`).
fn search<'m, M: Model, F: Frontier<M>>(
    model: &'m M,
    frontier: &mut F,
    mut options: Options,
    many: Option<&'m dyn PrepareMany<M>>,
) -> Result<(Report<M>, VisitedSet), F::Error> {
    let width = Width::decide(model, options.wide_fingerprints && !options.hash_compaction);
    options.wide_fingerprints = width.is_wide();
    let checker = Checker::new(options.judged.select(model.properties()));
    let partial_order = PartialOrder::decide(&checker.props, &options.reductions, frontier);
    let symmetry = Symmetry::decide(model, &options.reductions, frontier);
    // Canonical fingerprints only where symmetry runs (walks keep their own).
    options.reductions.symmetry = symmetry.is_on();
    let dead_values = DeadValues::decide(&options.reductions, frontier);
    options.reductions.dead_values = dead_values.is_on();
    let mut run = Search::new(model, checker, partial_order, symmetry, &options);
    run.dead_values = dead_values;
    if let Some(many) = many {
        assert_eq!(
            many.mode(),
            (run.partial_order.is_on(), KeyMode::of(&options)),
            "internal bug: the workers prepare expansions under other reductions than the search"
        );
    }
    run.many = run.tuning.adopt(many, &options);
    let outcome = run.main_loop(frontier, &mut options)?;
    assert!(
        !matches!(outcome, Outcome::Complete | Outcome::Bounded { .. }) || frontier.is_empty(),
        "internal bug: the search ended as {outcome} with states left to expand"
    );
    assert!(
        run.stats.unique_states <= run.visited.len() as u64,
        "internal bug: more unique states counted than the visited set holds"
    );
    run.count_live_states_met();
    // Every search, however short, reports a real memory figure.
    run.measure_memory(frontier, &options);
    if let Some(clock) = &options.wall_clock {
        run.stats.wall_ms = Some(clock.elapsed_ms());
    }
    // What hash compaction did where a state taken for another would go unexplored: the
    // visited set and, under partial-order reduction, the expanded set (the proviso's).
    let expanded = run.expanded.as_ref().and_then(VisitedSet::compaction);
    let compaction = (run.visited.compaction()).map(|v| expanded.map_or(v, |e| v.plus(e)));
    let mut report = Report::of(
        run.checker,
        outcome,
        run.stats,
        run.partial_order,
        run.symmetry,
        run.dead_values,
    );
    report.fingerprints = width;
    report.compaction = compaction;
    Ok((report, run.visited))
}

impl<'m, M: Model> Search<'m, M> {
    /// A search of `model` about to start: nothing visited, every statistic zero.
    fn new(
        model: &'m M,
        checker: Checker<M>,
        partial_order: PartialOrder,
        symmetry: Symmetry,
        options: &Options,
    ) -> Self {
        let wide = options.wide_fingerprints;
        let mut run = Search {
            model,
            observes: observes_of(&checker.props),
            partial_order,
            met: symmetry
                .is_on()
                .then(|| VisitedSet::with_capacity_and_width(options.expected_states, wide)),
            dead_values: DeadValues::Off,
            dead_met: VisitedSet::with_capacity_and_width(0, wide),
            dead_stored: 0,
            symmetry,
            checker,
            visited: VisitedSet::for_search(
                options.expected_states,
                wide,
                options.compact_plan(1),
                1,
            ),
            log: PathLog::default(),
            stats: Stats::default(),
            hits: Vec::new(),
            seed: None,
            cut_by_depth: false,
            cut_by_time: false,
            spare: Vec::new(),
            dead: Vec::new(),
            ahead: None,
            many: None,
            pipeline: Pipeline::default(),
            tuning: tuner::Tuning::default(),
            subset: Vec::new(),
            settling: Vec::new(),
            last_seen: false,
            last_fp: 0,
            expanded: None,
            pacer: Pacer::default(),
            next_check_at: MIN_INTERVAL,
        };
        if run.partial_order.is_on() {
            run.expanded = Some(VisitedSet::for_search(
                options.expected_states,
                wide,
                options.compact_plan(1),
                1,
            ));
        }
        run
    }
}

/// What the properties declare they observe (those that declare it).
fn observes_of<M: Model>(props: &[crate::property::Property<M>]) -> Vec<Observes<M>> {
    props.iter().filter_map(|p| p.observes.clone()).collect()
}

struct Search<'m, M: Model> {
    model: &'m M,
    /// What the properties declare they observe (all of them, when partial order is on).
    observes: Vec<Observes<M>>,
    /// Whether partial-order reduction is used, or why not.
    partial_order: PartialOrder,
    /// Whether symmetry reduction is used, or why not.
    symmetry: Symmetry,
    /// Whether the value abstraction is used, or why not.
    dead_values: DeadValues,
    /// Under the value abstraction alone, the plain fingerprints of the states met that
    /// hold dead values, and how many such states were stored (see `explorer::live`).
    dead_met: VisitedSet,
    dead_stored: u64,
    /// Under symmetry reduction, the plain fingerprints of the states met (to report how
    /// many distinct states the stored representatives stand for).
    met: Option<VisitedSet>,
    checker: Checker<M>,
    visited: VisitedSet,
    log: PathLog,
    stats: Stats,
    hits: Vec<(usize, Hit)>,
    seed: Option<u64>,
    cut_by_depth: bool,
    cut_by_time: bool,
    /// A spare buffer for successors (buffers are reused, so that the hot path allocates
    /// nothing per state).
    spare: Vec<Successor<M::State>>,
    /// States done with, for a worker to drop (with `many`: freeing what a worker allocated
    /// is the search thread's largest cost after deduplication).
    dead: Vec<M::State>,
    /// The expansion of the entry next in line, prepared early (breadth-first search; with
    /// `many`, the entry just taken from the pipeline).
    ahead: Option<Prepared<M::State>>,
    /// Prepares many entries at once on other threads (`lookahead`), if the search may.
    many: Option<&'m dyn PrepareMany<M>>,
    /// With `many`: the entries taken from the frontier early, for the workers.
    pipeline: Pipeline<M::State>,
    /// Whether the workers are used now (`tuner`).
    tuning: tuner::Tuning<'m, M>,
    /// Whether the last admitted successor (or a state met settling it) had been expanded
    /// before (under partial-order reduction; see `reduction`).
    last_seen: bool,
    /// The fingerprint of the state admitted last.
    last_fp: Fingerprint,
    /// Fingerprints of the states expanded so far, under partial-order reduction (the
    /// cycle proviso asks whether a successor was already expanded).
    expanded: Option<VisitedSet>,
    /// A buffer for a persistent subset's indices.
    subset: Vec<usize>,
    /// Transient states being settled under partial-order reduction.
    settling: Vec<Pending<M::State>>,
    pacer: Pacer,
    /// Expansions after which limits are checked next.
    next_check_at: u64,
}

/// The expansion of a frontier entry, computed before it is popped.
struct Prepared<S> {
    /// The entry's path-log node, unique among pending entries.
    node: u32,
    /// Whether it had no enabled action.
    terminal: bool,
    successors: Vec<Successor<S>>,
    /// What it offered and what of it is expanded, by kind of choice.
    tally: Tally,
    /// Whether a persistent subset was chosen (the rest postponed).
    reduced: bool,
    /// Whether a subset was chosen but changed what a property observes (expanded fully).
    visible: bool,
    /// The entry's own key, when partial-order reduction will mark it expanded.
    own_key: Option<Lanes>,
}

/// A successor waiting to be deduplicated.
struct Successor<S> {
    state: S,
    vt: u64,
    /// Index of the action among the parent's enabled actions.
    choice: usize,
    /// Its fingerprint, when it could be computed before deduplication (no obligations).
    fp: Option<Lanes>,
}

enum Step {
    Go,
    Stop(Outcome),
}

/// What became of a newly reached state.
enum Admit {
    /// New (or followed again by a walk), recorded as this path-log node.
    New(u32),
    Seen,
    Stop(Outcome),
}

impl<M: Model> Search<'_, M> {
    fn main_loop<F: Frontier<M>>(
        &mut self,
        frontier: &mut F,
        options: &mut Options,
    ) -> Result<Outcome, F::Error> {
        let prunes = frontier.prunes_visited();
        let mut enabled = Vec::new();
        let mut selected = Vec::new();
        while let Some(start) = frontier.next_run() {
            self.stats.runs += 1;
            self.seed = start.seed;
            // Path-log nodes restart when the log is cleared: nothing prepared survives a run.
            self.forget_prepared();
            if !prunes {
                self.log.clear();
            }
            let inits = self.model.init_states();
            selected.clear();
            frontier.select_init(inits.len(), &mut selected)?;
            for &i in &selected {
                let state = inits[i].clone();
                let vt = self.model.virtual_time_ms(&state);
                let mut obligations = self.checker.initial_obligations(vt);
                let admitted =
                    self.admit(&state, vt, None, i, None, &mut obligations, prunes, options);
                match admitted {
                    Admit::Stop(o) => return Ok(o),
                    Admit::Seen => continue,
                    Admit::New(node) => frontier.push(Pending {
                        state,
                        node,
                        depth: 0,
                        obligations,
                    }),
                }
            }
            while let Some(entry) = self.next_entry(frontier) {
                self.note_handed_off(frontier, options);
                if self.stats.expanded_states >= self.next_check_at {
                    if let Some(limit) = self.limit_hit(frontier, options) {
                        return Ok(Outcome::LimitReached(limit));
                    }
                }
                self.tune();
                if options.interrupted() {
                    self.stats.unique_states = self.visited.len() as u64;
                    return Ok(Outcome::Interrupted);
                }
                if let Step::Stop(o) =
                    self.expand_and_bury(entry, frontier, options, &mut enabled, &mut selected)?
                {
                    return Ok(o);
                }
            }
        }
        Ok(if !prunes {
            Outcome::RunsDone {
                runs: self.stats.runs,
            }
        } else if self.cut_by_depth || self.cut_by_time {
            Outcome::Bounded {
                depth: self.cut_by_depth,
                virtual_time: self.cut_by_time,
            }
        } else {
            Outcome::Complete
        })
    }

    /// Takes the entries the frontier handed to other searches and, under partial-order
    /// reduction, marks them expanded (see `explorer::shard`); otherwise they are dropped.
    fn note_handed_off<F: Frontier<M>>(&mut self, frontier: &mut F, options: &Options) {
        for dropped in frontier.take_handed_off() {
            if self.partial_order.is_on() {
                let vt = self.model.virtual_time_ms(&dropped.state);
                self.mark_expanded(&dropped, vt, None, options);
            }
        }
    }

    /// Counts the expansion and runs [`Search::expand`]; then the entry's state is dropped
    /// (on a worker, with workers).
    fn expand_and_bury<F: Frontier<M>>(
        &mut self,
        entry: Pending<M::State>,
        frontier: &mut F,
        options: &Options,
        enabled: &mut Vec<M::Action>,
        selected: &mut Vec<usize>,
    ) -> Result<Step, F::Error> {
        self.stats.expanded_states += 1;
        let step = self.expand(&entry, frontier, options, enabled, selected)?;
        self.bury(entry.state);
        Ok(step)
    }

    fn expand<F: Frontier<M>>(
        &mut self,
        entry: &Pending<M::State>,
        frontier: &mut F,
        options: &Options,
        enabled: &mut Vec<M::Action>,
        selected: &mut Vec<usize>,
    ) -> Result<Step, F::Error> {
        let model = self.model;
        let state = &entry.state;
        if options.max_depth.is_some_and(|d| entry.depth >= d) {
            self.cut_by_depth = true;
            self.stats.cut_off_states += 1;
            return Ok(Step::Go);
        }
        let vt = model.virtual_time_ms(state);
        if options.max_virtual_time_ms.is_some_and(|t| vt > t) {
            self.cut_by_time = true;
            self.stats.cut_off_states += 1;
            return Ok(Step::Go);
        }
        let mut prepared = self.prepared_for(entry, frontier, enabled, selected, options)?;
        self.mark_expanded(entry, vt, prepared.own_key.map(Fingerprint::from), options);
        self.stats.visible_expansions += u64::from(prepared.visible);
        self.stats.branching.add(&prepared.tally);
        let mut successors = std::mem::take(&mut prepared.successors);
        let terminal = prepared.terminal;
        if terminal {
            self.spare = successors;
            self.checker.at_terminal(&entry.obligations, &mut self.hits);
            return Ok(self.record_hits(entry.node, options));
        }
        let prunes = frontier.prunes_visited();
        let mut seen_any = false;
        for next in successors.drain(..) {
            match self.admit_successor(entry, next, frontier, prunes, options) {
                Step::Stop(o) => return Ok(Step::Stop(o)),
                Step::Go => {}
            }
            seen_any |= self.last_seen;
        }
        self.spare = successors;
        if prepared.reduced {
            if let Step::Stop(o) = self.after_reduced(entry, seen_any, frontier, options) {
                return Ok(Step::Stop(o));
            }
        }
        self.stats.unique_states = self.visited.len() as u64;
        Ok(Step::Go)
    }

    /// Deduplicates a newly reached state and evaluates its properties; records it in the
    /// path log (under `parent` and `choice`, or as root `choice`) when it is new or a
    /// property needs its path.
    ///
    /// Obligations move on first, because they are part of the fingerprint; `known_fp`, when
    /// given, was computed from a path without obligations. A deadline that passed on this
    /// path is recorded even when the state itself was seen before, since the earlier visit
    /// may have come by a path without that obligation.
    #[allow(clippy::too_many_arguments)]
    fn admit(
        &mut self,
        state: &M::State,
        vt: u64,
        parent: Option<u32>,
        choice: usize,
        known_fp: Option<Fingerprint>,
        obligations: &mut Option<Box<[u64]>>,
        prunes: bool,
        options: &Options,
    ) -> Admit {
        self.checker
            .update_obligations(self.model, state, vt, obligations, &mut self.hits);
        let fp = known_fp
            .unwrap_or_else(|| Self::fingerprint(self.model, state, obligations, vt, options));
        self.last_fp = fp;
        self.note_met(state, obligations, vt, options);
        self.note_dead(state, obligations, vt, options);
        let new = self.visited.insert(fp);
        if new
            && options
                .max_states
                .is_some_and(|m| self.visited.len() as u64 > m)
        {
            // One state beyond the limit: it is neither evaluated nor counted.
            self.hits.clear();
            self.stats.unique_states = self.visited.len() as u64 - 1;
            return Admit::Stop(Outcome::LimitReached(Limit::States));
        }
        let keep = new || !prunes;
        if keep {
            self.checker.evaluate(self.model, state, &mut self.hits);
        } else if self.hits.is_empty() {
            return Admit::Seen;
        }
        let node = match parent {
            Some(parent) => self.log.push(parent, choice),
            None => self.log.push_root(choice),
        };
        if let Step::Stop(o) = self.record_hits(node, options) {
            return Admit::Stop(o);
        }
        if keep {
            Admit::New(node)
        } else {
            self.log.pop_unused(node);
            Admit::Seen
        }
    }

    /// The key under which a state reached with `obligations` at `vt` is deduplicated.
    #[inline]
    fn fingerprint(
        model: &M,
        state: &M::State,
        obligations: &Option<Box<[u64]>>,
        vt: u64,
        options: &Options,
    ) -> Fingerprint {
        KeyMode::of(options).key(model, state, obligations, vt)
    }

    /// The deduplication key of a state whose model fingerprint is `model_fp`.
    #[inline]
    fn key(
        model_fp: Fingerprint,
        obligations: &Option<Box<[u64]>>,
        vt: u64,
        options: &Options,
    ) -> Fingerprint {
        dedup_key::<M>(
            model_fp,
            obligations,
            vt,
            options.max_virtual_time_ms,
            options.wide_fingerprints,
        )
    }

    fn record_hits(&mut self, node: u32, options: &Options) -> Step {
        if self.hits.is_empty() {
            return Step::Go;
        }
        let path = self.log.path_to(self.model, node, self.seed);
        let violated = self.checker.record(&mut self.hits, path);
        self.stats.unique_states = self.visited.len() as u64;
        if violated && options.stop_at_first_violation {
            return Step::Stop(Outcome::StoppedAtViolation);
        }
        if options.stop_when_all_settled && self.checker.all_settled() {
            return Step::Stop(Outcome::AllSettled);
        }
        Step::Go
    }

    fn limit_hit<F: Frontier<M>>(&mut self, frontier: &F, options: &mut Options) -> Option<Limit> {
        self.stats.unique_states = self.visited.len() as u64;
        self.stats.frontier_states = (frontier.len() + self.pipeline.len()) as u64;
        let memory = self.measure_memory(frontier, options);
        let expanded = self.stats.expanded_states;
        self.next_check_at = expanded
            + self
                .pacer
                .next_interval(expanded, memory, options.max_memory_bytes);
        if let Some(progress) = options.progress.as_mut() {
            progress(&self.stats);
        }
        if options.max_memory_bytes.is_some_and(|m| memory >= m) {
            return Some(Limit::Memory);
        }
        if let (Some(limit), Some(clock)) = (options.time_limit_ms, &options.wall_clock) {
            if clock.elapsed_ms() >= limit {
                return Some(Limit::WallTime);
            }
        }
        None
    }

    /// The memory a limit is compared with, the peak reported updated on the way.
    ///
    /// With a gauge: the resident bytes it reads (the reported figure), plus what the visited
    /// set's next doubling would add if it is due before the next check (a doubling touches
    /// as many new pages as the table holds, at once). Without one (or when it cannot read):
    /// the estimate of the visited set with its next doubling, the path log and the frontier's
    /// entries.
    fn measure_memory<F: Frontier<M>>(&mut self, frontier: &F, options: &Options) -> u64 {
        let next_batch = (MAX_INTERVAL * 16) as usize;
        let visited_now = self.visited.bytes() as u64;
        let visited_soon = self.visited.bytes_after_growth(next_batch) as u64;
        let resident = options
            .memory_gauge
            .as_ref()
            .and_then(|g| g.resident_bytes());
        let (reported, compared) = match resident {
            Some(bytes) => (bytes, bytes + (visited_soon - visited_now)),
            None => {
                let entries = (frontier.len() + self.pipeline.len())
                    * std::mem::size_of::<Pending<M::State>>();
                let bytes = visited_soon + self.log.bytes() as u64 + entries as u64;
                (bytes, bytes)
            }
        };
        self.stats.peak_memory_bytes = self.stats.peak_memory_bytes.max(reported);
        compared
    }
}
