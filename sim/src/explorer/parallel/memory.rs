//! The parallel search's limits between batches: memory (with every shard's next
//! doubling that a batch could cause), wall time, and the progress report.

use super::batch::CHUNK_PARENTS;
use super::Search;
use crate::frontier::Pending;
use crate::limits::MAX_INTERVAL;
use crate::model::Model;
use crate::report::Limit;
use crate::visited::VisitedSet;
use crate::Options;

impl<M> Search<'_, M>
where
    M: Model + Sync,
    M::State: Send + Sync,
    M::Action: Send + Sync,
{
    /// Reads memory and the clock, reports progress; returns the limit reached, if any,
    /// and the expansions to wait before the next check (`limits::Pacer`).
    pub(super) fn limit_hit(&mut self, options: &mut Options) -> (Option<Limit>, u64) {
        self.stats.unique_states = self.unique;
        self.stats.frontier_states = self.queue.len() as u64;
        let memory = self.measure_memory(options);
        let expanded = self.stats.expanded_states;
        let interval = self
            .pacer
            .next_interval(expanded, memory, options.max_memory_bytes);
        if let Some(progress) = options.progress.as_mut() {
            progress(&self.stats);
        }
        if options.max_memory_bytes.is_some_and(|m| memory >= m) {
            return (Some(Limit::Memory), interval);
        }
        if let (Some(limit), Some(clock)) = (options.time_limit_ms, &options.wall_clock) {
            if clock.elapsed_ms() >= limit {
                return (Some(Limit::WallTime), interval);
            }
        }
        (None, interval)
    }

    /// The memory a limit is compared with, the peak reported updated on the way: as
    /// `Search::measure_memory`, with every shard's next doubling that a batch could cause.
    fn measure_memory(&mut self, options: &Options) -> u64 {
        let per_shard = (MAX_INTERVAL * 16) as usize + CHUNK_PARENTS * 16;
        let now: usize = self.shards.iter().map(VisitedSet::bytes).sum();
        let soon: usize = self
            .shards
            .iter()
            .map(|s| s.bytes_after_growth(per_shard))
            .sum();
        let met = self.met.as_ref().map_or(0, VisitedSet::bytes);
        let resident = options
            .memory_gauge
            .as_ref()
            .and_then(|g| g.resident_bytes());
        let (reported, compared) = match resident {
            Some(bytes) => (bytes, bytes + (soon - now) as u64),
            None => {
                let entries = self.queue.len() * std::mem::size_of::<Pending<M::State>>();
                let bytes = (soon + met + self.log.bytes() + entries) as u64;
                (bytes, bytes)
            }
        };
        self.stats.peak_memory_bytes = self.stats.peak_memory_bytes.max(reported);
        compared
    }

    /// The memory figure every report has, measured once more at the end.
    pub(super) fn finish_memory(&mut self, options: &Options) {
        self.measure_memory(options);
    }
}
