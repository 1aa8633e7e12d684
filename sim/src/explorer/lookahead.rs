//! The lookahead engine: breadth-first search with its expansions prepared ahead, on
//! several threads, for partial-order reduction and the dead-values reduction.
//!
//! The idea: preparing an expansion (the enabled actions, the persistent subset, the
//! successors and their keys, and the entry's own key) reads the entry and nothing the
//! search has done (`explorer::expand`), and breadth-first search expands its queue's
//! entries in queue order. So the search takes the entries at the queue's front early, in batches of
//! `BATCH`, and hands them to worker threads (a few batches ahead, so that the workers
//! prepare while the search expands); each entry is then expanded on the search's thread, in
//! queue order, exactly as one thread does it: deduplication, the cycle proviso (which asks
//! what was *expanded* before, and so depends on the order of expansions), settling
//! transient states, the dead-values reduction's counts, properties, the path log and the
//! queue.
//! New entries go behind the ones taken, so the order is the queue's. Everything but the
//! wall-time, memory and interrupt limits is therefore that of the one-thread search,
//! whatever the number of threads: the same states, statistics, counterexamples and
//! witnesses. The work left on the search's thread (deduplication, properties, postponed
//! actions when the proviso asks for them, transient states) is what bounds the speed-up;
//! the states it is done with (each expanded entry, each successor seen before) go back to
//! the workers with the next batch to be dropped there, since freeing what another thread
//! allocated was the search thread's largest cost after deduplication.

use super::expand::{Expanded, Prep, Prepared, Scratch, Successor, Which};
use super::key::KeyMode;
use super::run;
use super::search::Search;
use super::watch::Watch;
use super::ThreadSafe;
use crate::checker::Obligations;
use crate::frontier::{BreadthFirst, Frontier, Pending};
use crate::model::Model;
use crate::options::Options;
use crate::plan::Plan;
use crate::report::Report;
use std::collections::VecDeque;
use std::mem::take;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;

/// Entries in one batch: enough that handing a batch over costs little, few enough that a
/// search that stops early has not prepared much in vain.
const BATCH: usize = 256;

/// How many entries ahead of the one expanded the search starts loading the table slots an
/// expansion prepared on a worker will touch (its successors' and its own in the expanded
/// set), so that those cache misses overlap with the expansions before it.
const PREFETCH_AHEAD: usize = 2;

/// An entry taken from the queue early, with its expansion.
pub(super) type Ready<S> = (Pending<S>, Prepared<S>);

/// A batch handed to the workers, states for them to drop, and where the batch's expansions
/// come back.
type Job<S> = (Vec<Pending<S>>, Vec<S>, Sender<Vec<Ready<S>>>);

/// Prepares the expansions of batches of entries on other threads.
pub(super) trait PrepareMany<M: Model> {
    /// Hands `entries` over, with states done with (`dead`) to drop; the entries'
    /// expansions, in their order, arrive on the receiver.
    fn submit(
        &self,
        entries: Vec<Pending<M::State>>,
        dead: Vec<M::State>,
    ) -> Receiver<Vec<Ready<M::State>>>;
    /// How many batches to keep in the workers' hands.
    fn batches_in_flight(&self) -> usize;
    /// Whether the workers choose persistent subsets, and how they make keys.
    fn mode(&self) -> (bool, KeyMode);
}

/// The workers' side: a queue of jobs.
struct Workers<'h, S> {
    jobs: Sender<Job<S>>,
    count: usize,
    mode: (bool, KeyMode),
    /// Entries handed over so far.
    handed: &'h AtomicU64,
}

impl<M: Model> PrepareMany<M> for Workers<'_, M::State> {
    fn submit(
        &self,
        entries: Vec<Pending<M::State>>,
        dead: Vec<M::State>,
    ) -> Receiver<Vec<Ready<M::State>>> {
        let (done, receiver) = channel();
        self.handed
            .fetch_add(entries.len() as u64, Ordering::Relaxed);
        self.jobs
            .send((entries, dead, done))
            .expect("internal bug: the workers stopped before the search");
        receiver
    }

    fn batches_in_flight(&self) -> usize {
        self.count + 1
    }

    fn mode(&self) -> (bool, KeyMode) {
        self.mode
    }
}

/// A worker: prepares batch after batch until the search drops the job queue.
fn work<M: Model>(prep: &Prep<'_, M>, jobs: &Mutex<Receiver<Job<M::State>>>) {
    let mut scratch = Scratch::default();
    loop {
        let job = jobs.lock().map(|jobs| jobs.recv());
        let Ok(Ok((entries, dead, done))) = job else {
            return;
        };
        drop(dead);
        let ready = entries
            .into_iter()
            .map(|entry| {
                let prepared = prep.prepare_all_watched(&entry, &mut scratch);
                (entry, prepared)
            })
            .collect();
        // The search may have stopped meanwhile; then nobody waits for this batch.
        let _ = done.send(ready);
    }
}

/// Runs `plan` (a `Lookahead` engine on `threads` threads) breadth-first with its
/// expansions prepared on worker threads (the search's own thread admits them): the report
/// of the core loop with a `BreadthFirst` frontier (see the module doc).
pub(super) fn explore_lookahead<M>(
    model: &M,
    plan: Plan,
    options: Options,
    threads: usize,
) -> Report<M>
where
    M: ThreadSafe,
{
    let mut frontier = BreadthFirst::default();
    // What the workers read: the search's own, built alike (the search keeps its verdicts
    // apart from them).
    let props = options.judged.select(model.properties());
    let observes: Vec<_> = props.iter().filter_map(|p| p.observes.clone()).collect();
    let obligations = Obligations::new(&props);
    let watch = Watch::of(&options);
    let prep = Prep {
        model,
        observes: &observes,
        obligations: &obligations,
        partial_order: plan.partial_order.is_on(),
        keys: KeyMode::of(&plan, &options),
        max_depth: options.limits.max_depth,
        watch: &watch,
        coverage: options.fault_coverage,
    };
    let (jobs, queue) = channel();
    let queue = Mutex::new(queue);
    let handed = AtomicU64::new(0);
    let mut report = std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| work(&prep, &queue));
        }
        let workers = Workers {
            jobs,
            count: threads,
            mode: (prep.partial_order, prep.keys),
            handed: &handed,
        };
        match run(model, plan, &mut frontier, options, Some(&workers)) {
            Ok((report, _visited)) => report,
            Err(never) => match never {},
        }
        // Dropping `workers` closes the job queue: the workers return.
    });
    let expanded = report.stats.expanded_states.max(1);
    report.threads_used_percent = Some((handed.into_inner() * 100 / expanded).min(100));
    report
}

/// The entries taken from the queue early, in its order: those whose expansions came back,
/// and the batches still in the workers' hands.
pub(super) struct Pipeline<S> {
    ready: VecDeque<Ready<S>>,
    in_flight: VecDeque<(usize, Receiver<Vec<Ready<S>>>)>,
    /// Entries in `in_flight`.
    in_flight_len: usize,
}

impl<S> Default for Pipeline<S> {
    fn default() -> Self {
        Pipeline {
            ready: VecDeque::new(),
            in_flight: VecDeque::new(),
            in_flight_len: 0,
        }
    }
}

impl<S> Pipeline<S> {
    /// Entries held.
    pub(super) fn len(&self) -> usize {
        self.ready.len() + self.in_flight_len
    }

    pub(super) fn clear(&mut self) {
        self.ready.clear();
        self.in_flight.clear();
        self.in_flight_len = 0;
    }
}

impl<'m, M: Model> Search<'m, M> {
    /// The next entry to expand: the frontier's next, or, with workers, the pipeline's
    /// (its expansion filed in `ahead`), with the batches behind it handed over.
    pub(super) fn next_entry<F: Frontier<M>>(
        &mut self,
        frontier: &mut F,
    ) -> Option<Pending<M::State>> {
        // Entries the workers still hold come first, also when they are no longer used.
        if self.many.is_none() && self.pipeline.len() == 0 {
            return frontier.pop();
        }
        if self.pipeline.ready.is_empty() {
            if let (Some(many), true) = (self.many, self.pipeline.in_flight.is_empty()) {
                self.hand_over(many, frontier);
            }
            if let Some((len, receiver)) = self.pipeline.in_flight.pop_front() {
                self.pipeline.in_flight_len -= len;
                let ready = receiver
                    .recv()
                    .expect("internal bug: a worker stopped with a batch in hand");
                // A batch comes back whole and in the order it was handed over, so that the
                // entries are expanded in queue order and the workers keep none of them.
                assert_eq!(
                    ready.len(),
                    len,
                    "internal bug: a batch came back with another number of entries"
                );
                debug_assert!(
                    ready
                        .iter()
                        .all(|(entry, prepared)| entry.node == prepared.node),
                    "internal bug: an expansion came back with another entry"
                );
                self.pipeline.ready.extend(ready);
            }
        }
        // Keep the workers busy while this batch is expanded.
        while let Some(many) = self.many {
            if self.pipeline.in_flight.len() >= many.batches_in_flight() || frontier.len() == 0 {
                break;
            }
            self.hand_over(many, frontier);
        }
        let (entry, prepared) = self.pipeline.ready.pop_front()?;
        self.ahead = Some(prepared);
        Some(entry)
    }

    /// Drops every expansion prepared and entry taken early (a new run starts).
    pub(super) fn forget_prepared(&mut self) {
        self.ahead = None;
        self.pipeline.clear();
    }

    /// Hands the next batch of the frontier's entries to the workers.
    fn hand_over<F: Frontier<M>>(&mut self, many: &dyn PrepareMany<M>, frontier: &mut F) {
        let batch: Vec<_> = std::iter::from_fn(|| frontier.pop()).take(BATCH).collect();
        if batch.is_empty() {
            return;
        }
        let len = batch.len();
        self.pipeline.in_flight_len += len;
        let dead = std::mem::take(&mut self.dead);
        self.pipeline
            .in_flight
            .push_back((len, many.submit(batch, dead)));
    }

    /// Drops `state`, on a worker when there are workers (with the next batch handed over).
    pub(super) fn bury(&mut self, state: M::State) {
        if self.many.is_some() {
            self.dead.push(state);
        }
    }

    /// The expansion of `entry`: prepared ahead, or now (then, on one thread, the next
    /// entry's is prepared early so that its memory accesses overlap with this one's).
    pub(super) fn prepared_for<F: Frontier<M>>(
        &mut self,
        entry: &Pending<M::State>,
        frontier: &mut F,
    ) -> Result<Prepared<M::State>, F::Error> {
        let mut buffer = match self.ahead.take() {
            Some(ahead) if ahead.node == entry.node => {
                match self.pipeline.ready.get(PREFETCH_AHEAD) {
                    Some((_, next)) => self.prefetch_prepared(next),
                    _ if self.many.is_none() && self.pipeline.len() == 0 => {
                        self.prepare_next(frontier)
                    }
                    _ => {}
                }
                return Ok(ahead);
            }
            // Prepared for an entry that was cut off instead, or nothing prepared.
            Some(stale) => stale.successors,
            None => std::mem::take(&mut self.spare),
        };
        buffer.clear();
        let prepared = match self.prep().cut(entry) {
            Some(fate) => Prepared {
                node: entry.node,
                expanded: Expanded::unexpanded(fate),
                successors: buffer,
            },
            None => self.prepare_chosen(entry, frontier, buffer)?,
        };
        if self.many.is_none() {
            self.prepare_next(frontier);
        }
        Ok(prepared)
    }

    /// The expansion of `entry` under the actions the frontier selects (all of them: under
    /// partial-order reduction, a persistent subset), its successors' slots prefetched.
    fn prepare_chosen<F: Frontier<M>>(
        &mut self,
        entry: &Pending<M::State>,
        frontier: &mut F,
        mut successors: Vec<Successor<M::State>>,
    ) -> Result<Prepared<M::State>, F::Error> {
        let (mut enabled, mut selected) = (take(&mut self.enabled), take(&mut self.selected));
        enabled.clear();
        self.model.actions(&entry.state, &mut enabled);
        selected.clear();
        frontier.select(self.model, &entry.state, &enabled, &mut selected)?;
        let which = if selected.len() == enabled.len() {
            Which::All
        } else {
            Which::Chosen(&selected)
        };
        let mut subset = take(&mut self.subset);
        let expanded = (self.prep()).expand(entry, &enabled, which, &mut subset, &mut successors);
        (self.enabled, self.selected, self.subset) = (enabled, selected, subset);
        let prepared = Prepared {
            node: entry.node,
            expanded,
            successors,
        };
        self.prefetch_prepared(&prepared);
        Ok(prepared)
    }

    /// Prepares the expansion of the entry next in line, if the frontier knows it.
    fn prepare_next<F: Frontier<M>>(&mut self, frontier: &F) {
        let Some(next) = frontier.peek_next() else {
            return;
        };
        let mut scratch = Scratch {
            enabled: take(&mut self.enabled),
            subset: take(&mut self.subset),
        };
        let buffer = take(&mut self.spare);
        let prepared = self.prep().prepare_all(next, &mut scratch, buffer);
        (self.enabled, self.subset) = (scratch.enabled, scratch.subset);
        self.prefetch_prepared(&prepared);
        self.ahead = Some(prepared);
    }

    /// Starts loading the table slots `prepared` will touch: its successors' in the visited
    /// table and, under partial-order reduction, its own in the expanded set.
    pub(super) fn prefetch_prepared(&self, prepared: &Prepared<M::State>) {
        for next in &prepared.successors {
            self.visited.prefetch(next.key.into());
        }
        if let (Some(key), Some(expanded)) = (prepared.expanded.own_key, &self.expanded) {
            expanded.prefetch(key.into());
        }
    }
}
