//! The batch engine: breadth-first search whose expansions and deduplication are spread
//! over several threads, with the results of the core loop on one, whatever their number.
//!
//! The idea: breadth-first search pops states from the front of a queue and appends the new
//! ones at its back, so the states at the front that are already queued can be expanded
//! together: none of them is a successor of another (successors go behind them). A batch of
//! them is taken from the front and split into contiguous chunks, one per thread; each
//! thread expands its chunk with the core's expansion (phase 1: successors with their keys,
//! `explorer::expand`). Deduplication is then done by key in *queue order*, successor
//! `(parent position, choice index)` after successor, exactly as one thread would meet them:
//! the visited set is split into shards by the high bits of the key, each shard owned by one
//! thread, and each thread inserts the batch's keys of its shard in that order (phase 2;
//! phase 1 lists each chunk's keys by shard, so a thread reads only its own). Whether a
//! successor is new depends only on the keys before it that are equal to its own, which
//! all fall into the same shard and are inserted in the same order, so every successor is
//! new or seen exactly as in the core loop. Finally the batch is admitted in queue order
//! with the core's admission, given the newness phase 2 found (phase 3): it counts,
//! evaluates the properties of the new states, records them in the path log and appends
//! them to the queue, stopping where the core loop would stop (a violation, the state
//! limit). When nothing is to be recorded and the state limit is not within the batch,
//! admitting comes down to numbering the new states in queue order (`numbering`), which
//! each chunk does on its own thread after a prefix sum. The queue, the path log and every
//! verdict are therefore the core loop's own: the same unique states, the same
//! counterexample (the shortest, first in choice order), the same witnesses and the same
//! statistics, for any number of threads and any batch size. Only the wall-time, memory and
//! interrupt limits, checked between batches, may end a search at another point. For the
//! same reason a batch may run on this thread alone: with a wall clock, the engine times
//! windows of batches each way and keeps the faster (`tuner::Trials`), since on worlds whose
//! states share processes between cores, or whose batches are small, handing a batch to
//! the threads can cost more than it saves.
//!
//! Partial-order reduction and the dead-values reduction do not run here: the cycle proviso
//! asks whether a successor was *already expanded*, and the dead values' count of the
//! states met is kept in order, both of which depend on the order of expansions within a
//! batch; the plan gives those searches the lookahead engine. Symmetry reduction needs
//! nothing but the canonical key and runs here.

mod chunk;
mod numbering;

use super::expand::Fate;
use super::run;
use super::search::{Flow, Search};
use super::tuner::Trials;
use super::ThreadSafe;
use crate::frontier::{BreadthFirst, Pending};
use crate::model::Model;
use crate::options::Options;
use crate::plan::Plan;
use crate::report::{Outcome, Report};
use chunk::{dedup_shard, expand_chunk, Chunk};
use numbering::{number_chunk, Numbered, Slots};
use rayon::prelude::*;
use std::collections::VecDeque;

/// Parents expanded by one thread per batch.
const CHUNK_PARENTS: usize = 4096;

/// Runs `plan` (a `Batches` engine on `threads` threads) breadth-first: the report of the
/// core loop with a `BreadthFirst` frontier (see the module doc).
pub(super) fn explore_batches<M>(
    model: &M,
    plan: Plan,
    mut options: Options,
    threads: usize,
) -> Report<M>
where
    M: ThreadSafe,
{
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(e) => {
            let plan = plan.on_one_thread(format!("the threads could not be started: {e}"));
            let frontier = &mut BreadthFirst::default();
            let ran = run(model, plan, frontier, options, None);
            return ran.unwrap_or_else(|never| match never {}).0;
        }
    };
    let mut search = Search::new(model, plan, &options, threads);
    search.expansions_ahead = (CHUNK_PARENTS * threads) as u64;
    search.pacer.measure_rates_over(search.expansions_ahead);
    let trials = Trials::of(&options);
    let mut engine = Batches {
        search,
        threads,
        pool,
        on_threads: trials.is_none(),
        trials,
        threaded_parents: 0,
        queue: BreadthFirst::default(),
        spill: BreadthFirst::default(),
        chunks: Vec::new(),
        buffers: Buffers::default(),
    };
    let outcome = engine.run(&mut options);
    let waiting = engine.queue.entries().len();
    let tuned = engine.trials.is_some();
    let threaded = engine.threaded_parents;
    let (mut report, _visited) = engine.search.finish(outcome, waiting, &options);
    if tuned {
        let expanded = report.stats.expanded_states.max(1);
        report.threads_used_percent = Some((threaded * 100 / expanded).min(100));
    }
    report
}

/// The batch engine: the core search's state, the queue, the threads and the buffers its
/// batches reuse.
struct Batches<'m, M: Model> {
    search: Search<'m, M>,
    threads: usize,
    pool: rayon::ThreadPool,
    /// Whether batches go to the threads now, and the trials that decide it (`tuner`):
    /// a batch explored on this thread alone is explored alike.
    on_threads: bool,
    trials: Option<Trials>,
    /// Parents expanded in batches on the threads.
    threaded_parents: u64,
    queue: BreadthFirst<M::State>,
    /// Where a batch's new entries wait while the batch is read at the queue's front.
    spill: BreadthFirst<M::State>,
    chunks: Vec<Chunk<M::State>>,
    buffers: Buffers<M::State>,
}

/// Buffers of the numbering of a batch, reused batch after batch: each chunk's new
/// entries, and the parents and choices of the batch's new states.
struct Buffers<S> {
    entries: Vec<Vec<Pending<S>>>,
    parents: Vec<u32>,
    choices: Vec<u16>,
}

impl<S> Default for Buffers<S> {
    fn default() -> Self {
        Buffers {
            entries: Vec::new(),
            parents: Vec::new(),
            choices: Vec::new(),
        }
    }
}

/// The first `take` entries of `queue` in about `parts` contiguous pieces (one more where
/// the ring wraps).
fn front_pieces<T>(queue: &VecDeque<T>, take: usize, parts: usize) -> Vec<&[T]> {
    let (a, b) = queue.as_slices();
    let per_part = take.div_ceil(parts).max(1);
    let mut pieces = Vec::with_capacity(parts + 1);
    let mut start = 0;
    while start < take {
        let end = (start + per_part).min(take);
        if end <= a.len() {
            pieces.push(&a[start..end]);
        } else if start >= a.len() {
            pieces.push(&b[start - a.len()..end - a.len()]);
        } else {
            pieces.extend([&a[start..], &b[..end - a.len()]]);
        }
        start = end;
    }
    pieces
}

impl<M> Batches<'_, M>
where
    M: ThreadSafe,
{
    fn run(&mut self, options: &mut Options) -> Outcome {
        self.search.stats.runs = 1;
        let roots = self.search.admit_roots(&mut self.queue, options);
        if let Flow::Stop(o) = roots.unwrap_or_else(|never| match never {}) {
            return o;
        }
        while !self.queue.entries().is_empty() {
            if self.search.check_due() {
                let (waiting, ahead) = (self.queue.waiting(), self.search.entries_ahead());
                let growth = self.queue.growth(ahead) + self.spill.growth(ahead);
                if let Some(o) = self.search.limit_hit(waiting, growth, options) {
                    return o;
                }
            }
            if let Some(o) = self.search.interrupted(options) {
                return o;
            }
            if let Flow::Stop(o) = self.next_batch(options) {
                return o;
            }
            let (expanded, on_now) = (self.search.stats.expanded_states, self.on_threads);
            if let Some(on) = self.trials.as_mut().and_then(|t| t.after(expanded, on_now)) {
                self.on_threads = on;
            }
        }
        self.search.finished()
    }

    /// Takes the next batch from the queue and explores it.
    fn next_batch(&mut self, options: &Options) -> Flow {
        let most = (CHUNK_PARENTS * self.threads).min(self.search.expansions_until_check());
        let take = most.min(self.queue.entries().len());
        let here = !self.on_threads;
        if !here {
            self.threaded_parents += take as u64;
        }
        // The batch is read where it lies, at the queue's front; its new states go to
        // `spill` meanwhile and join the queue after it.
        let queue = std::mem::take(self.queue.entries());
        let batch = front_pieces(&queue, take, if here { 1 } else { self.threads });
        let mut chunks = std::mem::take(&mut self.chunks);
        self.expand_batch(&batch, &mut chunks, here);
        let abandoned =
            (chunks.iter().flat_map(|c| &c.expansions)).find_map(|(e, _)| match e.fate {
                Fate::Abandoned(stopped) => Some(stopped.outcome()),
                _ => None,
            });
        if let Some(outcome) = abandoned {
            // A limit or an interrupt met while the batch was expanded: nothing of it is
            // admitted, and the queue stays as it was.
            self.chunks = chunks;
            drop(batch);
            *self.queue.entries() = queue;
            self.search.stats.unique_states = self.search.admitted;
            return Flow::Stop(outcome);
        }
        let evaluated_hits = self.dedup_batch(&chunks, here);
        let fresh: usize = chunks.iter().map(Chunk::new_count).sum();
        let quiet = !evaluated_hits
            && self.search.met.counts_nothing()
            && !chunks.iter().any(|c| c.has_hits(&self.search.checker))
            && (options.limits.max_states).is_none_or(|m| self.search.admitted + fresh as u64 <= m);
        let flow = if quiet {
            self.number_batch(&batch, &mut chunks, fresh, here);
            Flow::Go
        } else {
            self.admit_batch(&batch, &mut chunks, options)
        };
        if let Flow::Go = flow {
            assert_eq!(
                self.search.visited.len() as u64,
                self.search.admitted,
                "internal bug: a batch left another number of keys in the visited set than \
                 states admitted"
            );
        }
        self.chunks = chunks;
        drop(batch);
        let mut queue = queue;
        queue.drain(..take);
        queue.append(self.spill.entries());
        *self.queue.entries() = queue;
        flow
    }

    /// Phase 1, one chunk per piece of `batch` (about one per thread).
    fn expand_batch(
        &self,
        batch: &[&[Pending<M::State>]],
        chunks: &mut Vec<Chunk<M::State>>,
        here: bool,
    ) {
        chunks.resize_with(batch.len(), Chunk::default);
        let (prep, shards) = (self.search.prep(), self.threads);
        if here {
            for (entries, chunk) in batch.iter().zip(chunks.iter_mut()) {
                expand_chunk(&prep, shards, entries, chunk);
            }
            return;
        }
        self.pool.install(|| {
            (batch.par_iter())
                .zip(chunks.par_iter_mut())
                .for_each(|(entries, chunk)| expand_chunk(&prep, shards, entries, chunk))
        });
    }

    /// Phase 2, one shard per thread; whether a new state has a hit to record.
    fn dedup_batch(&mut self, chunks: &[Chunk<M::State>], here: bool) -> bool {
        let search = &mut self.search;
        let (model, checker) = (search.model, &search.checker);
        let shards = search.visited.sets_mut();
        if here {
            return (shards.iter_mut().enumerate()).fold(false, |hit, (index, shard)| {
                dedup_shard(model, checker, shard, index, chunks) || hit
            });
        }
        self.pool.install(|| {
            (shards.par_iter_mut().enumerate())
                .map(|(index, shard)| dedup_shard(model, checker, shard, index, chunks))
                .reduce(|| false, |a, b| a || b)
        })
    }

    /// Phase 3: the batch in queue order, admitted as the core loop admits it.
    fn admit_batch(
        &mut self,
        batch: &[&[Pending<M::State>]],
        chunks: &mut [Chunk<M::State>],
        options: &Options,
    ) -> Flow {
        let mut parents = batch.iter().copied().flatten();
        for chunk in chunks {
            let mut new = chunk.new.drain(..).map(|n| Some(n.into_inner()));
            let mut successors = chunk.successors.drain(..);
            let mut taken = 0;
            for (expanded, end) in chunk.expansions.drain(..) {
                let entry = parents.next().expect("one expansion per parent");
                let mine = successors.by_ref().take(end - taken);
                let known_new = || new.next().expect("one answer per successor");
                let (search, spill) = (&mut self.search, &mut self.spill);
                let flow = search.absorb(entry, &expanded, mine, known_new, spill, options);
                if let Flow::Stop(o) = flow {
                    return Flow::Stop(o);
                }
                taken = end;
            }
        }
        assert!(
            parents.next().is_none(),
            "internal bug: a parent of the batch had no expansion"
        );
        Flow::Go
    }

    /// Phase 3 of a batch with nothing to record and no limit within it: each chunk's new
    /// states numbered on its own thread, after the chunks before it (`numbering`).
    fn number_batch(
        &mut self,
        batch: &[&[Pending<M::State>]],
        chunks: &mut [Chunk<M::State>],
        fresh: usize,
        here: bool,
    ) {
        let buffers = &mut self.buffers;
        buffers.entries.resize_with(chunks.len(), Vec::new);
        buffers.parents.resize(fresh, 0);
        buffers.choices.resize(fresh, 0);
        let (mut parents, mut choices) = (&mut buffers.parents[..], &mut buffers.choices[..]);
        let mut jobs = Vec::with_capacity(chunks.len());
        let mut first_node = self.search.log.len() as u32;
        let parts = chunks.iter_mut().zip(batch).zip(buffers.entries.iter_mut());
        for ((chunk, &mine), entries) in parts {
            let n = chunk.new_count();
            let (p, rest_p) = std::mem::take(&mut parents).split_at_mut(n);
            let (c, rest_c) = std::mem::take(&mut choices).split_at_mut(n);
            (parents, choices) = (rest_p, rest_c);
            jobs.push((chunk, mine, Slots::new(first_node, p, c, entries)));
            first_node += n as u32;
        }
        let coverage = self.search.coverage.as_ref();
        let number = |(chunk, mine, slots)| number_chunk(chunk, mine, slots, coverage);
        let numbered: Vec<Numbered> = if here {
            jobs.into_iter().map(number).collect()
        } else {
            self.pool
                .install(|| jobs.into_par_iter().map(number).collect())
        };
        let search = &mut self.search;
        for (n, entries) in numbered.iter().zip(buffers.entries.iter_mut()) {
            search.stats.add_counts(&n.stats);
            search.cuts.merge(n.cuts);
            if let (Some(all), Some(chunk)) = (&mut search.coverage, &n.coverage) {
                all.merge(chunk);
            }
            self.spill.entries().extend(entries.drain(..));
        }
        search.log.extend(&buffers.parents, &buffers.choices);
        search.admitted += fresh as u64;
        search.stats.unique_states = search.admitted;
    }
}

#[cfg(test)]
mod tests {
    use super::front_pieces;
    use std::collections::VecDeque;

    #[test]
    fn front_pieces_cover_the_front_in_order_where_the_ring_wraps() {
        let mut queue: VecDeque<u32> = VecDeque::with_capacity(8);
        queue.extend(0..6);
        queue.drain(..4);
        queue.extend(6..12);
        assert!(!queue.as_slices().1.is_empty(), "the ring wraps");
        for (take, parts) in [(7, 2), (8, 3), (1, 2), (0, 2), (8, 1)] {
            let pieces = front_pieces(&queue, take, parts);
            let flat: Vec<u32> = pieces.iter().flat_map(|p| p.iter().copied()).collect();
            assert_eq!(flat, (4..4 + take as u32).collect::<Vec<_>>());
            assert!(pieces.len() <= parts + 1 && pieces.iter().all(|p| !p.is_empty()));
        }
    }
}
