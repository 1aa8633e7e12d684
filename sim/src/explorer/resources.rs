//! The search's resource limits: memory and wall time, looked at between expansions at the
//! pace `limits::Pacer` sets, with the progress report; the same for every engine.

use super::search::Search;
use crate::frontier::Pending;
use crate::limits::MAX_INTERVAL;
use crate::model::Model;
use crate::options::Options;
use crate::report::{Limit, Outcome};

impl<M: Model> Search<'_, M> {
    /// When a check is due: reads memory and the clock, reports progress, and returns the
    /// limit reached, if any. `waiting` is the number of entries the frontier holds.
    pub(super) fn limit_hit(&mut self, waiting: usize, options: &mut Options) -> Option<Outcome> {
        if self.stats.expanded_states < self.next_check_at {
            return None;
        }
        self.stats.unique_states = self.admitted;
        self.stats.frontier_states = (waiting + self.pipeline.len()) as u64;
        let memory = self.measure_memory(waiting, options);
        let expanded = self.stats.expanded_states;
        let limit_bytes = options.limits.max_memory_bytes;
        self.next_check_at = expanded + self.pacer.next_interval(expanded, memory, limit_bytes);
        if let Some(progress) = options.hooks.progress.as_mut() {
            progress(&self.stats);
        }
        if limit_bytes.is_some_and(|m| memory >= m) {
            return Some(Outcome::LimitReached(Limit::Memory));
        }
        let clock = options.hooks.wall_clock.as_ref();
        if let (Some(limit), Some(clock)) = (options.limits.time_limit_ms, clock) {
            if clock.elapsed_ms() >= limit {
                return Some(Outcome::LimitReached(Limit::WallTime));
            }
        }
        None
    }

    /// The memory a limit is compared with, the peak reported updated on the way.
    ///
    /// With a gauge: the resident bytes it reads (the reported figure), plus what the visited
    /// set's next doubling would add if it is due before the next check (a doubling touches
    /// as many new pages as the table holds, at once). Without one (or when it cannot read):
    /// the estimate of the visited set with its next doubling, the tables of the states met,
    /// the path log and the `waiting` entries.
    pub(super) fn measure_memory(&mut self, waiting: usize, options: &Options) -> u64 {
        let ahead = (MAX_INTERVAL * 16) as usize + self.growth_ahead;
        let (visited_now, visited_soon) = self.visited.bytes_now_and_after(ahead);
        let gauge = options.hooks.memory_gauge.as_ref();
        let (reported, compared) = match gauge.and_then(|g| g.resident_bytes()) {
            Some(bytes) => (bytes, bytes + (visited_soon - visited_now) as u64),
            None => {
                let entries = (waiting + self.pipeline.len()) * size_of::<Pending<M::State>>();
                let tables = visited_soon + self.met.bytes() + self.log.bytes();
                let bytes = (tables + entries) as u64;
                (bytes, bytes)
            }
        };
        self.stats.peak_memory_bytes = self.stats.peak_memory_bytes.max(reported);
        compared
    }
}
