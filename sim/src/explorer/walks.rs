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
//! A search that goes on after a violation (`stop_at_first_violation` off) or stops once
//! every property is settled runs on one thread: there, what one walk decided changes what
//! the next one evaluates.

use super::{search, Options, Threads, Width};
use crate::checker::Judged;
use crate::frontier::Walk;
use crate::model::Model;
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
/// `options.threads` threads: the report one thread gives (see the module doc).
pub fn explore_walks<M>(
    model: &M,
    seeds: std::ops::Range<u64>,
    max_steps: u32,
    mut options: Options,
) -> Report<M>
where
    M: Model + Sync,
    M::State: Send + Sync,
    M::Action: Send + Sync,
{
    let threads = options.threads;
    let sequential = |seeds: std::ops::Range<u64>, options| {
        let mut walk = Walk::random(seeds).with_max_steps(max_steps);
        search(model, &mut walk, options, None)
            .unwrap_or_else(|never| match never {})
            .0
    };
    if threads <= 1 || seeds.end.saturating_sub(seeds.start) <= 1 {
        return sequential(seeds, options);
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    let pool = match (one_thread_only(&options), pool) {
        (None, Ok(pool)) => pool,
        (why, pool) => {
            let why = why.map_or_else(
                || format!("the threads could not be started: {}", pool.err().unwrap()),
                str::to_string,
            );
            let mut report = sequential(seeds, options);
            report.threads = Threads::Refused {
                asked: threads,
                why,
            };
            return report;
        }
    };
    let mut merged = Merged::new(Width::decide(model, options.wide_fingerprints).is_wide());
    let wave = threads as u64 * TASKS_PER_THREAD * WALKS_PER_TASK;
    let mut first = seeds.start;
    while first < seeds.end && merged.goes_on() {
        let last = first.saturating_add(wave).min(seeds.end);
        let settled = merged.settled();
        let walks = wave_of_walks(model, &pool, first..last, max_steps, &options, &settled);
        for (report, visited) in walks {
            merged.absorb(report, &visited);
            if !merged.goes_on() {
                break;
            }
        }
        if let (Some(report), Some(progress)) = (&merged.report, options.progress.as_mut()) {
            progress(&report.stats);
        }
        first = last;
    }
    let mut report = merged
        .finish()
        .expect("internal bug: a search of two or more seeds ran no walk");
    if let Some(clock) = &options.wall_clock {
        report.stats.wall_ms = Some(clock.elapsed_ms());
    }
    report.threads = Threads::Ran(threads);
    report
}

/// The walks of `seeds` on `pool`, a task per `WALKS_PER_TASK` consecutive seeds: each
/// task's report, in seed order, with the states it visited.
fn wave_of_walks<M>(
    model: &M,
    pool: &rayon::ThreadPool,
    seeds: std::ops::Range<u64>,
    max_steps: u32,
    options: &Options,
    settled: &[String],
) -> Vec<(Report<M>, VisitedSet)>
where
    M: Model + Sync,
    M::State: Send + Sync,
    M::Action: Send + Sync,
{
    let jobs: Vec<(std::ops::Range<u64>, Options)> = seeds
        .clone()
        .step_by(WALKS_PER_TASK as usize)
        .map(|first| {
            let task = first..first.saturating_add(WALKS_PER_TASK).min(seeds.end);
            (task, walk_options(options, settled))
        })
        .collect();
    pool.install(|| {
        jobs.into_par_iter()
            .map(|(task, options)| {
                let mut walk = Walk::random(task).with_max_steps(max_steps);
                search(model, &mut walk, options, None).unwrap_or_else(|never| match never {})
            })
            .collect()
    })
}

/// Why a search of walks with `options` must run on one thread, if it must.
fn one_thread_only(options: &Options) -> Option<&'static str> {
    if !options.stop_at_first_violation {
        Some("the search goes on after a violation, which changes what later walks evaluate")
    } else if options.stop_when_all_settled {
        Some("the search stops once every property is settled, which depends on every walk before")
    } else if options.max_states.is_some() {
        Some("a state limit counts the states of every walk before")
    } else {
        None
    }
}

/// One walk's options: the search's limits and interrupt, without its progress display
/// (the merged statistics are shown after each wave), judging no property that is
/// `settled` already. A settled property is a witnessed `sometimes` (a violation ends the
/// search): it cannot end a walk nor open an obligation, so leaving it out changes
/// nothing but the cost of building its path again.
fn walk_options(options: &Options, settled: &[String]) -> Options {
    Options {
        stop_at_first_violation: options.stop_at_first_violation,
        stop_when_all_settled: options.stop_when_all_settled,
        max_states: options.max_states,
        max_depth: options.max_depth,
        max_virtual_time_ms: options.max_virtual_time_ms,
        max_memory_bytes: options.max_memory_bytes,
        memory_gauge: options.memory_gauge.clone(),
        time_limit_ms: options.time_limit_ms,
        wall_clock: options.wall_clock.clone(),
        progress: None,
        interrupt: options.interrupt.clone(),
        expected_states: 0,
        reductions: options.reductions,
        judged: match &options.judged {
            Judged::All if !settled.is_empty() => Judged::AllBut(settled.to_vec()),
            judged => judged.clone(),
        },
        threads: 1,
        worker_trials: options.worker_trials,
        wide_fingerprints: options.wide_fingerprints,
        hash_compaction: false,
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
        let (sum, one) = (&mut report.stats, &walk.stats);
        sum.expanded_states += one.expanded_states;
        sum.transitions += one.transitions;
        sum.cut_off_states += one.cut_off_states;
        sum.runs += one.runs;
        sum.max_depth = sum.max_depth.max(one.max_depth);
        sum.max_virtual_time_ms = sum.max_virtual_time_ms.max(one.max_virtual_time_ms);
        sum.peak_memory_bytes = sum.peak_memory_bytes.max(one.peak_memory_bytes);
        sum.branching.merge(&one.branching);
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
