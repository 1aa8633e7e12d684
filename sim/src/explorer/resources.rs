//! The search's resource limits: memory and wall time, looked at between expansions at the
//! pace `limits::Pacer` sets, with the progress report; the same for every engine.

use super::search::Search;
use crate::frontier::Pending;
use crate::limits::MAX_INTERVAL;
use crate::model::Model;
use crate::options::Options;
use crate::report::{Limit, Outcome};

impl<M: Model> Search<'_, M> {
    /// Whether the limits are to be looked at now (the pace `limits::Pacer` set).
    pub(super) fn check_due(&self) -> bool {
        self.stats.expanded_states >= self.next_check_at
    }

    /// The entries the search may push before its next check: what the tables and the
    /// frontier must have room for.
    pub(super) fn entries_ahead(&self) -> usize {
        (MAX_INTERVAL + self.expansions_ahead) as usize * 16
    }

    /// Reads memory and the clock, reports progress, and returns the limit reached, if any.
    /// `waiting` is the number of entries the frontier holds, `frontier_growth` the bytes
    /// it would allocate at once to take [`Search::entries_ahead`] more.
    pub(super) fn limit_hit(
        &mut self,
        waiting: usize,
        frontier_growth: usize,
        options: &mut Options,
    ) -> Option<Outcome> {
        self.stats.unique_states = self.admitted;
        self.stats.frontier_states = (waiting + self.pipeline.len()) as u64;
        let memory = self.measure_memory(waiting, frontier_growth, options);
        let expanded = self.stats.expanded_states;
        let limit_bytes = options.limits.max_memory_bytes;
        let mut interval = self.pacer.next_interval(expanded, memory, limit_bytes);
        let now_ms = options.hooks.wall_clock.as_ref().map(|c| c.elapsed_ms());
        if let Some(now_ms) = now_ms {
            interval = interval.min(self.pacer.next_time_interval(expanded, now_ms));
        }
        self.next_check_at = expanded + interval;
        if let Some(progress) = options.hooks.progress.as_mut() {
            progress(&self.stats);
        }
        if limit_bytes.is_some_and(|m| memory >= m) {
            return Some(Outcome::LimitReached(Limit::Memory));
        }
        let limit_ms = options.limits.time_limit_ms;
        if limit_ms.is_some_and(|limit| now_ms.is_some_and(|now| now >= limit)) {
            return Some(Outcome::LimitReached(Limit::WallTime));
        }
        None
    }

    /// The expansions the batch engines may take at once: no more than the pace allows
    /// before the next check (at least one).
    pub(super) fn expansions_until_check(&self) -> usize {
        (self
            .next_check_at
            .saturating_sub(self.stats.expanded_states))
        .max(1) as usize
    }

    /// The memory a limit is compared with, the peak reported updated on the way.
    ///
    /// With a gauge: the resident bytes it reads (the reported figure), plus what the search
    /// knows it will allocate at once before the next check: each table's next doubling if
    /// it is due by then (a doubling touches as many new pages as the table holds: the
    /// visited set, the states met, the states expanded), the frontier's reallocation
    /// (`frontier_growth`), and the growth of the expansions it will make beyond the pace's
    /// own (a batch), at the highest rate seen. Without one (or when it cannot read): the
    /// estimate of the tables after their next doubling, the path log and the `waiting`
    /// entries.
    pub(super) fn measure_memory(
        &mut self,
        waiting: usize,
        frontier_growth: usize,
        options: &Options,
    ) -> u64 {
        let (tables_now, tables_soon) = self.tables_now_and_after(self.entries_ahead());
        let gauge = options.hooks.memory_gauge.as_ref();
        let (reported, compared) = match gauge.and_then(|g| g.resident_bytes()) {
            Some(bytes) => {
                let batch = self.pacer.growth_within(self.expansions_ahead);
                let known = (tables_soon - tables_now + frontier_growth) as u64 + batch;
                (bytes, bytes + known)
            }
            None => {
                let entries = (waiting + self.pipeline.len()) * size_of::<Pending<M::State>>();
                let bytes = (tables_soon + self.log.bytes() + entries) as u64;
                (bytes, bytes)
            }
        };
        self.stats.peak_memory_bytes = self.stats.peak_memory_bytes.max(reported);
        compared
    }

    /// The bytes of the search's tables now, and once each has taken `extra` more keys:
    /// the visited set (each shard), the states met, the states expanded.
    fn tables_now_and_after(&self, extra: usize) -> (usize, usize) {
        let (mut now, mut after) = self.visited.bytes_now_and_after(extra);
        for table in self.met.tables().chain(self.expanded.as_ref()) {
            now += table.bytes();
            after += table.bytes_after_growth(extra);
        }
        (now, after)
    }
}
