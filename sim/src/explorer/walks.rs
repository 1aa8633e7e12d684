//! Seeded random walks on several threads, with the results of one thread.
//!
//! The idea: a walk depends on its seed alone. Its chooser is seeded by it, its path log
//! starts empty, and until the first violation (which ends the whole search) nothing a walk
//! meets changes what the next one does; the visited set only counts distinct states. So
//! the walks of a search can run apart, in waves of consecutive seeds, a few consecutive
//! seeds per task, each task a search of its own with a visited set of its own, and be
//! merged in seed order exactly as one thread would have met them: the first violation in seed order ends the search (later walks of
//! its wave are discarded unseen), each `sometimes` witness is the first walk's in seed
//! order, the distinct states are the union of the walks' sets, and the other counters add
//! up (depth and virtual time: the greatest). Each walk checks the wall-time and memory
//! limits and the interrupt flag as one thread does; a limit may end the search at another
//! point than one thread would, as in parallel breadth-first search.
//!
//! A search that goes on after a violation (`Stop::Never`) or stops once
//! every property is settled runs on one thread: there, what one walk decided changes what
//! the next one evaluates.

use super::run;
use super::ThreadSafe;
use crate::frontier::Walk;
use crate::model::Model;
use crate::options::Judged;
use crate::options::{Options, Parallelism};
use crate::plan::{Engine, Plan, Strategy};
use crate::report::{Outcome, Report, Status};
use crate::visited::VisitedSet;
use rayon::prelude::*;

/// Consecutive seeds one task walks, one after another in one search: short walks cost
/// little more than setting a search up, so a task takes several.
const WALKS_PER_TASK: u64 = 8;
/// Tasks per thread in a wave: enough to even out tasks of different lengths, few enough
/// that little is wasted after a violation.
const TASKS_PER_THREAD: u64 = 4;

/// Runs the seeded random walks `seeds` (each at most `max_steps` steps) on
/// `options.parallelism.threads` threads: the report one thread gives (see the module doc).
pub fn explore_walks<M>(
    model: &M,
    seeds: std::ops::Range<u64>,
    max_steps: u32,
    mut options: Options,
) -> Report<M>
where
    M: ThreadSafe,
{
    let strategy = Strategy::Walks {
        seeds: seeds.end.saturating_sub(seeds.start),
    };
    let plan = Plan::decide(model, &options, strategy);
    options.hooks.begin();
    let walk = |seeds: std::ops::Range<u64>, plan, options| {
        let mut walk = Walk::random(seeds).with_max_steps(max_steps);
        let ran = run(model, plan, &mut walk, options, None);
        ran.unwrap_or_else(|never| match never {})
    };
    let Engine::Walks { threads } = plan.engine else {
        return walk(seeds, plan, options).0;
    };
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(e) => {
            let plan = plan.on_one_thread(format!("the threads could not be started: {e}"));
            return walk(seeds, plan, options).0;
        }
    };
    let mut merged = Merged::new(plan.width.is_wide());
    let wave = threads as u64 * TASKS_PER_THREAD * WALKS_PER_TASK;
    let mut first = seeds.start;
    while first < seeds.end && merged.goes_on() {
        let last = first.saturating_add(wave).min(seeds.end);
        let settled = merged.settled();
        let tasks = tasks_of(first..last, &options, &settled);
        let walks: Vec<_> = pool.install(|| {
            (tasks.into_par_iter())
                .map(|(task, options)| {
                    let plan = Plan::decide(model, &options, Strategy::Frontier { prunes: false });
                    walk(task, plan, options)
                })
                .collect()
        });
        for (report, visited) in walks {
            merged.absorb(report, &visited);
            if !merged.goes_on() {
                break;
            }
        }
        if let (Some(report), Some(progress)) = (&merged.report, options.hooks.progress.as_mut()) {
            progress(&report.stats);
        }
        first = last;
    }
    let mut report = merged
        .finish()
        .expect("internal bug: a search of two or more seeds ran no walk");
    if let Some(clock) = &options.hooks.wall_clock {
        report.stats.wall_ms = Some(clock.elapsed_ms());
    }
    report.plan = plan;
    report
}

/// The tasks of a wave of `seeds`, one per `WALKS_PER_TASK` consecutive seeds, each with
/// its options.
fn tasks_of(
    seeds: std::ops::Range<u64>,
    options: &Options,
    settled: &[String],
) -> Vec<(std::ops::Range<u64>, Options)> {
    (seeds.clone().step_by(WALKS_PER_TASK as usize))
        .map(|first| {
            let task = first..first.saturating_add(WALKS_PER_TASK).min(seeds.end);
            (task, walk_options(options, settled))
        })
        .collect()
}

/// One walk's options: the search's limits and interrupt, without its progress display
/// (the merged statistics are shown after each wave), judging no property that is
/// `settled` already. A settled property is a witnessed `sometimes` (a violation ends the
/// search): it cannot end a walk nor open an obligation, so leaving it out changes
/// nothing but the cost of building its path again.
fn walk_options(options: &Options, settled: &[String]) -> Options {
    let mut storage = options.storage;
    storage.expected_states = 0;
    storage.hash_compaction = false;
    Options {
        stop: options.stop,
        judged: match &options.judged {
            Judged::All if !settled.is_empty() => Judged::AllBut(settled.to_vec()),
            judged => judged.clone(),
        },
        limits: options.limits,
        reductions: options.reductions,
        parallelism: Parallelism {
            threads: 1,
            ..options.parallelism
        },
        storage,
        hooks: options.hooks.without_progress(),
        fault_coverage: options.fault_coverage,
    }
}

/// The walks merged so far, in seed order.
struct Merged<M: Model> {
    report: Option<Report<M>>,
    visited: VisitedSet,
}

impl<M: Model> Merged<M> {
    /// Nothing merged yet; the union of the walks' states compares 128-bit keys when `wide`.
    fn new(wide: bool) -> Self {
        Merged {
            report: None,
            visited: VisitedSet::with_capacity_and_width(0, wide),
        }
    }

    /// Whether the walks merged so far leave the search going: every one ran its course.
    fn goes_on(&self) -> bool {
        self.report
            .as_ref()
            .is_none_or(|r| matches!(r.outcome, Outcome::RunsDone { .. }))
    }

    /// Adds the next walk in seed order, `walk` with the states it `visited`.
    fn absorb(&mut self, walk: Report<M>, visited: &VisitedSet) {
        assert!(
            self.goes_on(),
            "internal bug: a walk merged after the search ended"
        );
        for fp in visited.iter() {
            self.visited.insert(fp);
        }
        let Some(report) = self.report.as_mut() else {
            self.report = Some(walk);
            return;
        };
        if let (Some(all), Some(theirs)) = (&mut report.fault_coverage, &walk.fault_coverage) {
            all.merge(theirs);
        }
        let sum = &mut report.stats;
        sum.add_counts(&walk.stats);
        let mut theirs = walk.properties.into_iter().peekable();
        for mine in &mut report.properties {
            // A walk leaves out the properties settled before its wave, and keeps the order.
            let Some(t) = theirs.next_if(|t| t.name == mine.name) else {
                assert!(
                    !is_undecided(&mine.status),
                    "internal bug: a walk left out the undecided property {}",
                    mine.name
                );
                continue;
            };
            if is_undecided(&mine.status) && t.status.path().is_some() {
                mine.status = t.status;
            }
        }
        assert!(
            theirs.next().is_none(),
            "internal bug: a walk judged a property the search does not have"
        );
        report.outcome = match walk.outcome {
            Outcome::RunsDone { .. } => Outcome::RunsDone { runs: sum.runs },
            ended => ended,
        };
    }

    /// The properties settled so far (witnessed; a violation ends the search).
    fn settled(&self) -> Vec<String> {
        self.report.as_ref().map_or_else(Vec::new, |r| {
            r.properties
                .iter()
                .filter(|p| !is_undecided(&p.status))
                .map(|p| p.name.clone())
                .collect()
        })
    }

    /// The merged report, if any walk ran.
    fn finish(self) -> Option<Report<M>> {
        let mut report = self.report?;
        report.stats.unique_states = self.visited.len() as u64;
        let tables = self.visited.bytes() as u64;
        report.stats.peak_memory_bytes = report.stats.peak_memory_bytes.max(tables);
        Some(report)
    }
}

/// Whether a property still waits for a path: not violated, not witnessed.
fn is_undecided<M: Model>(status: &Status<M>) -> bool {
    matches!(status, Status::Holds | Status::NotWitnessed)
}
