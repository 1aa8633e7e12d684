//! Parallel breadth-first search: the search `explore` makes with a `BreadthFirst`
//! frontier, on several threads, with the same results whatever their number.
//!
//! The idea: breadth-first search pops states from the front of a queue and appends the new
//! ones at its back, so the states at the front that are already queued can be expanded
//! together: none of them is a successor of another (successors go behind them). A batch of
//! them is taken from the front and split into contiguous chunks, one per thread; each
//! thread computes its chunk's successors and their fingerprints (phase 1). Deduplication is
//! then done by fingerprint in *queue order*, successor `(parent position, choice index)`
//! after successor, exactly as one thread would meet them: the visited set is split into
//! shards by the high bits of the fingerprint, each shard owned by one thread, and each
//! thread inserts the batch's fingerprints of its shard in that order (phase 2; phase 1
//! lists each chunk's keys by shard, so a thread reads only its own). Whether a
//! successor is new depends only on the fingerprints before it that are equal to its own,
//! which all fall into the same shard and are inserted in the same order, so every
//! successor is new or seen exactly as in the sequential search. Finally one thread walks
//! the batch in order (phase 3): it counts, evaluates the properties of the new states,
//! records them in the path log and appends them to the queue, stopping where the
//! sequential search would stop (a violation, the state limit). The queue, the path log and
//! every verdict are therefore the sequential search's own: the same unique states, the
//! same counterexample (the shortest, first in choice order), the same witnesses and the
//! same statistics, for any number of threads and any batch size. Only the wall-time,
//! memory and interrupt limits, checked between batches, may end a search at another point.
//! For the same reason a batch may run on this thread alone: with a wall clock, the search
//! times windows of batches each way and keeps the faster (`tuner::Trials`), since on worlds
//! whose states share processes between cores, or whose batches are small, handing a batch
//! to the threads can cost more than it saves.
//!
//! Partial-order reduction is not done this way: its cycle proviso asks whether a successor
//! was *already expanded*, which depends on the order of expansions within a batch, so that
//! search (and the value abstraction's, whose count of the states met is kept in order)
//! prepares its expansions on the threads and deduplicates on one (`explorer::lookahead`).
//! Symmetry reduction needs nothing but the canonical fingerprint and runs in parallel.

mod admit;
mod batch;
mod memory;
mod threads;

use super::lookahead::explore_lookahead;
use super::tuner::Trials;
use super::{explore, DeadValues, PartialOrder, Symmetry, Width};
use crate::checker::{Checker, Hit};
use crate::fingerprint::Fingerprint;
use crate::frontier::{BreadthFirst, Pending};
use crate::limits::Pacer;
use crate::model::Model;
use crate::path_log::PathLog;
use crate::report::{Limit, Outcome, Report, Stats};
use crate::visited::{Compaction, VisitedSet};
use crate::Options;
use admit::{admit_chunk, new_count, Admitted, Slots};
use batch::{
    candidate, dedup_shard, expand_chunk, shard_of, Cand, Chunk, Fate, Keys, CHUNK_PARENTS,
};
use rayon::prelude::*;
use std::collections::VecDeque;
pub use threads::Threads;

/// Explores `model` breadth-first on `options.threads` threads: the report of `explore`
/// with a `BreadthFirst` frontier, whatever the number of threads (see the module doc).
/// With one thread it is that search itself; with partial-order reduction or the value
/// abstraction, that search with its expansions prepared on the threads (`lookahead`).
pub fn explore_parallel<M>(model: &M, mut options: Options) -> Report<M>
where
    M: Model + Sync,
    M::State: Send + Sync,
    M::Action: Send + Sync,
{
    let threads = options.threads;
    let width = Width::decide(model, options.wide_fingerprints && !options.hash_compaction);
    options.wide_fingerprints = width.is_wide();
    let checker = Checker::new(model.properties());
    let frontier = BreadthFirst::<M::State>::default();
    let partial_order = PartialOrder::decide(&checker.props, &options.reductions, &frontier);
    let sequential = |options| explore(model, &mut BreadthFirst::default(), options);
    if threads <= 1 {
        return sequential(options);
    }
    let one_deduplicating = if partial_order.is_on() {
        Some("partial-order reduction's cycle proviso depends on the order of expansions")
    } else if DeadValues::decide::<M, _>(&options.reductions, &frontier).is_on() {
        Some("the value abstraction's count of the states met is kept by one thread")
    } else {
        None
    };
    if let Some(why) = one_deduplicating {
        return explore_lookahead(model, options, why.into());
    }
    let symmetry = Symmetry::decide(model, &options.reductions, &frontier);
    options.reductions.symmetry = symmetry.is_on();
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(e) => {
            let mut report = sequential(options);
            report.threads = Threads::Refused {
                asked: threads,
                why: format!("the threads could not be started: {e}"),
            };
            return report;
        }
    };
    let mut search = Search::new(model, checker, pool, &options);
    let outcome = search.run(&mut options);
    search.finish_memory(&options);
    if let Some(clock) = &options.wall_clock {
        search.stats.wall_ms = Some(clock.elapsed_ms());
    }
    let mut report = Report::of(
        search.checker,
        outcome,
        search.stats,
        partial_order,
        symmetry,
        DeadValues::Off,
    );
    report.threads = match search.trials {
        None => Threads::Ran(threads),
        Some(_) => Threads::Tuned {
            threads,
            percent: (search.threaded_parents * 100 / report.stats.expanded_states.max(1)).min(100),
        },
    };
    report.fingerprints = width;
    report.compaction = (search.shards.iter())
        .filter_map(VisitedSet::compaction)
        .reduce(Compaction::plus);
    report
}

/// The parallel search: the queue, the sharded visited set, and what phase 3 keeps.
struct Search<'m, M: Model> {
    model: &'m M,
    checker: Checker<M>,
    threads: usize,
    keys: Keys,
    shards: Vec<VisitedSet>,
    /// Under symmetry, the keys of the states met (as the sequential search counts them).
    met: Option<VisitedSet>,
    queue: VecDeque<Pending<M::State>>,
    log: PathLog,
    stats: Stats,
    /// Unique states admitted, in queue order.
    unique: u64,
    hits: Vec<(usize, Hit)>,
    cut_by_depth: bool,
    cut_by_time: bool,
    pacer: Pacer,
    /// The threads.
    pool: rayon::ThreadPool,
    /// Whether batches go to the threads now, and the trials that decide it (`tuner`):
    /// a batch explored on this thread alone is explored alike.
    on_threads: bool,
    trials: Option<Trials>,
    /// Parents expanded in batches on the threads.
    threaded_parents: u64,
    /// Buffers reused batch after batch: where a batch's new entries wait while the batch
    /// is read at the queue's front, the batch's chunks, their new entries.
    spill: VecDeque<Pending<M::State>>,
    chunks: Vec<Chunk<M::State>>,
    fresh_entries: Vec<Vec<Pending<M::State>>>,
    /// The parents and choices of a batch's new states, filled by the chunks' threads and
    /// then recorded in the path log in order.
    fresh_parents: Vec<u32>,
    fresh_choices: Vec<u16>,
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

/// How phase 3 left a batch.
enum Walked {
    Go,
    Stop(Outcome),
}

impl<'m, M> Search<'m, M>
where
    M: Model + Sync,
    M::State: Send + Sync,
    M::Action: Send + Sync,
{
    fn new(model: &'m M, checker: Checker<M>, pool: rayon::ThreadPool, options: &Options) -> Self {
        let threads = pool.current_num_threads();
        let per_shard = options.expected_states / threads;
        let trials = Trials::of(options);
        Search {
            pool,
            on_threads: trials.is_none(),
            trials,
            threaded_parents: 0,
            spill: VecDeque::new(),
            chunks: Vec::new(),
            fresh_entries: Vec::new(),
            fresh_parents: Vec::new(),
            fresh_choices: Vec::new(),
            model,
            checker,
            threads,
            keys: Keys {
                symmetry: options.reductions.symmetry,
                max_depth: options.max_depth,
                max_virtual_time_ms: options.max_virtual_time_ms,
                wide: options.wide_fingerprints,
                shards: threads,
            },
            shards: (0..threads)
                .map(|_| {
                    let (wide, plan) = (options.wide_fingerprints, options.compact_plan(threads));
                    VisitedSet::for_search(per_shard, wide, plan, threads)
                })
                .collect(),
            met: options.reductions.symmetry.then(|| {
                VisitedSet::with_capacity_and_width(
                    options.expected_states,
                    options.wide_fingerprints,
                )
            }),
            queue: VecDeque::new(),
            log: PathLog::default(),
            stats: Stats {
                runs: 1,
                ..Stats::default()
            },
            unique: 0,
            hits: Vec::new(),
            cut_by_depth: false,
            cut_by_time: false,
            pacer: Pacer::default(),
        }
    }

    fn run(&mut self, options: &mut Options) -> Outcome {
        if let Walked::Stop(o) = self.admit_initial(options) {
            return o;
        }
        let mut next_check_at = 0;
        while !self.queue.is_empty() {
            if self.stats.expanded_states >= next_check_at {
                let (limit, interval) = self.limit_hit(options);
                if let Some(limit) = limit {
                    return Outcome::LimitReached(limit);
                }
                next_check_at = self.stats.expanded_states + interval;
            }
            if options.interrupted() {
                self.stats.unique_states = self.unique;
                return Outcome::Interrupted;
            }
            if let Walked::Stop(o) = self.next_batch(options) {
                return o;
            }
            let (expanded, on_now) = (self.stats.expanded_states, self.on_threads);
            if let Some(on) = self.trials.as_mut().and_then(|t| t.after(expanded, on_now)) {
                self.on_threads = on;
            }
        }
        if self.cut_by_depth || self.cut_by_time {
            Outcome::Bounded {
                depth: self.cut_by_depth,
                virtual_time: self.cut_by_time,
            }
        } else {
            Outcome::Complete
        }
    }

    /// Takes the next batch from the queue and explores it.
    fn next_batch(&mut self, options: &Options) -> Walked {
        let take = (CHUNK_PARENTS * self.threads).min(self.queue.len());
        let here = !self.on_threads;
        if !here {
            self.threaded_parents += take as u64;
        }
        // The batch is read where it lies, at the queue's front; its new states go to
        // `spill` meanwhile and join the queue after it.
        let mut queue = std::mem::replace(&mut self.queue, std::mem::take(&mut self.spill));
        let batch = front_pieces(&queue, take, if here { 1 } else { self.threads });
        let mut chunks = std::mem::take(&mut self.chunks);
        self.expand_batch(&batch, &mut chunks, here);
        let evaluated_hits = self.dedup_batch(&chunks, here);
        let fresh: usize = chunks.iter().map(new_count).sum();
        let quiet = !evaluated_hits
            && self.met.is_none()
            && !chunks.iter().any(|c| c.hits)
            && options
                .max_states
                .is_none_or(|m| self.unique + fresh as u64 <= m);
        let walked = if quiet {
            self.admit_batch(&batch, &mut chunks, fresh, here);
            Walked::Go
        } else {
            self.walk_batch(&batch, &mut chunks, options)
        };
        self.chunks = chunks;
        queue.drain(..take);
        queue.append(&mut self.queue);
        self.spill = std::mem::replace(&mut self.queue, queue);
        walked
    }

    /// Admits the initial states, in order, on this thread.
    fn admit_initial(&mut self, options: &Options) -> Walked {
        let model = self.model;
        for (i, state) in model.init_states().into_iter().enumerate() {
            let vt = model.virtual_time_ms(&state);
            let root = Pending {
                state: state.clone(),
                node: 0,
                depth: 0,
                obligations: self.checker.initial_obligations(vt),
            };
            let cand = candidate(model, &self.checker, self.keys, &root, state, i);
            self.note_met(cand.own_fp());
            let new = self.shards[shard_of(cand.fp, self.threads)].insert(cand.fp);
            if let Walked::Stop(o) = self.admit(None, cand, new, options) {
                return Walked::Stop(o);
            }
        }
        Walked::Go
    }

    fn note_met(&mut self, own_fp: Fingerprint) {
        if let Some(met) = self.met.as_mut() {
            met.insert(own_fp);
            self.stats.symmetric_states_met = met.len() as u64;
        }
    }

    /// Phase 1, one chunk per piece of `batch` (about one per thread).
    fn expand_batch(
        &self,
        batch: &[&[Pending<M::State>]],
        chunks: &mut Vec<Chunk<M::State>>,
        here: bool,
    ) {
        chunks.resize_with(batch.len(), Chunk::default);
        let (model, checker, keys) = (self.model, &self.checker, self.keys);
        if here {
            for (entries, chunk) in batch.iter().zip(chunks.iter_mut()) {
                expand_chunk(model, checker, keys, entries, chunk);
            }
            return;
        }
        self.pool.install(|| {
            batch
                .par_iter()
                .zip(chunks.par_iter_mut())
                .for_each(|(entries, chunk)| expand_chunk(model, checker, keys, entries, chunk))
        });
    }

    /// Phase 2, one shard per thread; whether a new state has a hit to record.
    fn dedup_batch(&mut self, chunks: &[Chunk<M::State>], here: bool) -> bool {
        let (model, checker) = (self.model, &self.checker);
        let visited = &mut self.shards;
        if here {
            return (visited.iter_mut().enumerate()).fold(false, |hit, (index, shard)| {
                dedup_shard(model, checker, shard, index, chunks) || hit
            });
        }
        self.pool.install(|| {
            visited
                .par_iter_mut()
                .enumerate()
                .map(|(index, shard)| dedup_shard(model, checker, shard, index, chunks))
                .reduce(|| false, |a, b| a || b)
        })
    }

    /// Phase 3 of a batch with nothing to record and no limit within it (`admit`): each
    /// chunk on its own thread, numbered after the chunks before it.
    fn admit_batch(
        &mut self,
        batch: &[&[Pending<M::State>]],
        chunks: &mut [Chunk<M::State>],
        fresh: usize,
        here: bool,
    ) {
        let mut buffers = std::mem::take(&mut self.fresh_entries);
        buffers.resize_with(chunks.len(), Vec::new);
        let first = self.log.len() as u32;
        let (mut fresh_parents, mut fresh_choices) = (
            std::mem::take(&mut self.fresh_parents),
            std::mem::take(&mut self.fresh_choices),
        );
        fresh_parents.resize(fresh, 0);
        fresh_choices.resize(fresh, 0);
        let (mut log_parents, mut log_choices) = (&mut fresh_parents[..], &mut fresh_choices[..]);
        let mut jobs = Vec::with_capacity(chunks.len());
        let mut first_node = first;
        let parts = chunks.iter_mut().zip(batch).zip(buffers.iter_mut());
        for ((chunk, &mine), entries) in parts {
            let n = new_count(chunk);
            let (p, rest_p) = std::mem::take(&mut log_parents).split_at_mut(n);
            let (c, rest_c) = std::mem::take(&mut log_choices).split_at_mut(n);
            (log_parents, log_choices) = (rest_p, rest_c);
            let slots = Slots {
                first_node,
                log_parents: p,
                log_choices: c,
                entries,
            };
            jobs.push((chunk, mine, slots));
            first_node += n as u32;
        }
        let admit = |(chunk, mine, slots)| admit_chunk(chunk, mine, slots);
        let admitted: Vec<Admitted> = if here {
            jobs.into_iter().map(admit).collect()
        } else {
            self.pool
                .install(|| jobs.into_par_iter().map(admit).collect())
        };
        for (a, entries) in admitted.iter().zip(buffers.iter_mut()) {
            self.add_admitted(a);
            self.queue.extend(entries.drain(..));
        }
        self.log.extend(&fresh_parents, &fresh_choices);
        (self.fresh_parents, self.fresh_choices) = (fresh_parents, fresh_choices);
        self.fresh_entries = buffers;
        self.unique += fresh as u64;
        self.stats.unique_states = self.unique;
    }

    fn add_admitted(&mut self, a: &Admitted) {
        let s = &mut self.stats;
        s.expanded_states += a.expanded_states;
        s.transitions += a.transitions;
        s.cut_off_states += a.cut_off_states;
        s.max_depth = s.max_depth.max(a.max_depth);
        s.max_virtual_time_ms = s.max_virtual_time_ms.max(a.max_virtual_time_ms);
        s.branching.merge(&a.branching);
        self.cut_by_depth |= a.cut_by_depth;
        self.cut_by_time |= a.cut_by_time;
    }

    /// Phase 3: the batch in queue order, as the sequential search admits it.
    fn walk_batch(
        &mut self,
        batch: &[&[Pending<M::State>]],
        chunks: &mut [Chunk<M::State>],
        options: &Options,
    ) -> Walked {
        let mut parents = batch.iter().copied().flatten();
        for chunk in chunks {
            let mut cands = chunk.cands.drain(..).zip(chunk.new.drain(..));
            let mut taken = 0;
            for fate in chunk.fates.drain(..) {
                let entry = parents.next().expect("one fate per parent");
                self.stats.expanded_states += 1;
                let end = match fate {
                    Fate::CutByDepth | Fate::CutByTime => {
                        self.cut_by_depth |= matches!(fate, Fate::CutByDepth);
                        self.cut_by_time |= matches!(fate, Fate::CutByTime);
                        self.stats.cut_off_states += 1;
                        continue;
                    }
                    Fate::Terminal { .. } => {
                        self.checker.at_terminal(&entry.obligations, &mut self.hits);
                        if let Walked::Stop(o) = self.record_hits(entry.node, options) {
                            return Walked::Stop(o);
                        }
                        continue;
                    }
                    Fate::Expanded { end, tally } => {
                        self.stats.branching.add(&tally);
                        end
                    }
                };
                for (cand, new) in cands.by_ref().take(end - taken) {
                    self.stats.transitions += 1;
                    self.note_met(cand.own_fp());
                    let new = new.into_inner();
                    if let Walked::Stop(o) = self.admit(Some(entry), cand, new, options) {
                        return Walked::Stop(o);
                    }
                }
                taken = end;
                self.stats.unique_states = self.unique;
            }
        }
        Walked::Go
    }

    /// Admits one successor of `parent` (or an initial state): as `Search::admit` and
    /// `Search::admit_successor` do, with newness decided in phase 2.
    fn admit(
        &mut self,
        parent: Option<&Pending<M::State>>,
        cand: Cand<M::State>,
        new: bool,
        options: &Options,
    ) -> Walked {
        let undecided: Vec<(usize, Hit)> = cand
            .hits()
            .iter()
            .copied()
            .filter(|&(i, _)| self.checker.undecided(i))
            .collect();
        self.hits.extend(undecided);
        if new {
            if options.max_states.is_some_and(|m| self.unique >= m) {
                self.hits.clear();
                self.stats.unique_states = self.unique;
                return Walked::Stop(Outcome::LimitReached(Limit::States));
            }
            self.unique += 1;
            self.checker
                .evaluate(self.model, &cand.state, &mut self.hits);
        } else if self.hits.is_empty() {
            return Walked::Go;
        }
        let node = match parent {
            Some(p) => self.log.push(p.node, cand.choice as usize),
            None => self.log.push_root(cand.choice as usize),
        };
        if let Walked::Stop(o) = self.record_hits(node, options) {
            return Walked::Stop(o);
        }
        if !new {
            self.log.pop_unused(node);
            return Walked::Go;
        }
        let depth = parent.map_or(0, |p| p.depth + 1);
        if parent.is_some() {
            self.stats.max_depth = self.stats.max_depth.max(depth);
            self.stats.max_virtual_time_ms = self.stats.max_virtual_time_ms.max(cand.vt);
        }
        self.queue.push_back(Pending {
            state: cand.state,
            node,
            depth,
            obligations: cand.obligations,
        });
        Walked::Go
    }

    fn record_hits(&mut self, node: u32, options: &Options) -> Walked {
        if self.hits.is_empty() {
            return Walked::Go;
        }
        let path = self.log.path_to(self.model, node, None);
        let violated = self.checker.record(&mut self.hits, path);
        self.stats.unique_states = self.unique;
        if violated && options.stop_at_first_violation {
            return Walked::Stop(Outcome::StoppedAtViolation);
        }
        if options.stop_when_all_settled && self.checker.all_settled() {
            return Walked::Stop(Outcome::AllSettled);
        }
        Walked::Go
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
