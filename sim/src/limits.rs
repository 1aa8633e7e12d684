//! When the explorer looks at its resource limits, and what it reads when it does.
//!
//! The idea: reading memory costs a system call in the caller's gauge, so it cannot happen
//! at every state; but a search can grow by megabytes between two readings, so a fixed
//! interval either wastes time far from a memory limit or overshoots it near one. The
//! [`Pacer`] keeps the highest growth per expansion seen between two readings and schedules
//! the next reading before growth at that rate could use up half the remaining headroom: far
//! from the limit a reading every [`MAX_INTERVAL`] expansions (as the wall-time limit and
//! progress reports need anyway), close to it every [`MIN_INTERVAL`]. The highest rate, not
//! the last: resident memory grows in bursts (a breadth-first search reuses the memory its
//! frontier freed until a wider level needs new pages, several kilobytes an expansion), so a
//! quiet interval says nothing about the next one.
//!
//! Wall time paces the checks too: one expansion may take microseconds or tens of
//! milliseconds (a state with a hundred thousand locks), so a count of expansions alone
//! lets a time limit or an interrupt wait for seconds. [`Pacer::next_time_interval`]
//! measures the expansions per millisecond since the previous check and schedules the next
//! one about [`CHECK_EVERY_MS`] of wall time later; the search waits for the smaller of the
//! two intervals.
//!
//! The kernel reads nothing of the system: memory comes from a [`MemoryGauge`] the caller
//! passes, like wall time from a `WallClock`.

/// A source of the process's resident memory, the figure a memory limit bounds.
pub trait MemoryGauge: Send + Sync {
    /// Bytes resident now, or `None` when they cannot be read (the explorer then falls
    /// back to its estimate of its own tables).
    fn resident_bytes(&self) -> Option<u64>;

    /// Starts measuring the peak anew, as a search begins (nothing by default).
    fn start_peak(&self) {}

    /// The most bytes resident since [`MemoryGauge::start_peak`], if the gauge knows (a
    /// search reports it when it is above what its own readings saw: the peak between two
    /// readings). `None` by default.
    fn peak_bytes(&self) -> Option<u64> {
        None
    }
}

/// The most expansions between two limit checks.
pub const MAX_INTERVAL: u64 = 1 << 12;

/// The fewest expansions between two limit checks (near a memory limit).
pub const MIN_INTERVAL: u64 = 16;

/// The wall time the pace aims at between two limit checks, in ms.
pub const CHECK_EVERY_MS: u64 = 25;

/// Schedules limit checks from the memory readings and the wall time so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pacer {
    /// The previous reading: expansions then, bytes then.
    last: Option<(u64, u64)>,
    /// Growth per expansion, the highest seen between two readings.
    bytes_per_expansion: u64,
    /// Whether a rate was measured (over two readings far enough apart).
    rate_known: bool,
    /// The fewest expansions a rate is measured over, beyond [`MIN_INTERVAL`]: a batch
    /// engine's batch, which allocates at its start.
    rate_window: u64,
    /// The previous look at the clock: expansions then, ms then.
    last_time: Option<(u64, u64)>,
    /// The interval [`Pacer::next_time_interval`] chose last.
    time_interval: u64,
}

impl Pacer {
    /// Measures growth rates over at least `expansions` (a batch engine's batch): the
    /// growth of a batch happens at its start, and the threads' first allocations with the
    /// first one, so a shorter window would take them for the rate of every expansion.
    pub fn measure_rates_over(&mut self, expansions: u64) {
        self.rate_window = expansions;
    }

    /// The bytes `expansions` more expansions may add at the highest rate seen.
    pub fn growth_within(&self, expansions: u64) -> u64 {
        self.bytes_per_expansion.saturating_mul(expansions)
    }

    /// The expansions to wait before the next check, after reading `bytes` at `expanded`
    /// expansions under the memory limit `limit_bytes` (if any).
    ///
    /// Without a limit, or while memory does not grow, the interval is [`MAX_INTERVAL`];
    /// before a growth rate is known (the first reading), it is [`MIN_INTERVAL`].
    pub fn next_interval(&mut self, expanded: u64, bytes: u64, limit_bytes: Option<u64>) -> u64 {
        let Some(limit_bytes) = limit_bytes else {
            self.last = Some((expanded, bytes));
            return MAX_INTERVAL;
        };
        let Some((last_expanded, last_bytes)) = self.last else {
            self.last = Some((expanded, bytes));
            return MIN_INTERVAL;
        };
        // A rate is measured over at least MIN_INTERVAL expansions: between two readings
        // closer than that (the clock's pace may ask for one after every expansion), what
        // else the process allocated (threads starting, buffers) would pass for the growth
        // of one expansion. The next reading then measures from the older one.
        let steps = expanded.saturating_sub(last_expanded);
        if steps >= MIN_INTERVAL.max(self.rate_window) {
            // Rounded up, so that any growth at all counts.
            let measured = bytes.saturating_sub(last_bytes).div_ceil(steps);
            self.bytes_per_expansion = self.bytes_per_expansion.max(measured);
            self.last = Some((expanded, bytes));
            self.rate_known = true;
        }
        if !self.rate_known {
            return MIN_INTERVAL;
        }
        if self.bytes_per_expansion == 0 {
            return MAX_INTERVAL;
        }
        let headroom_bytes = limit_bytes.saturating_sub(bytes);
        (headroom_bytes / 2 / self.bytes_per_expansion).clamp(MIN_INTERVAL, MAX_INTERVAL)
    }

    /// The expansions to wait before the next check for about [`CHECK_EVERY_MS`] of wall
    /// time to pass, after looking at the clock (`now_ms`) at `expanded` expansions.
    ///
    /// From the expansions per ms since the previous look; when no whole ms passed, twice
    /// the previous interval; 1 at the first look. Between 1 and [`MAX_INTERVAL`].
    pub fn next_time_interval(&mut self, expanded: u64, now_ms: u64) -> u64 {
        let interval = match self.last_time.replace((expanded, now_ms)) {
            None => 1,
            Some((last_expanded, last_ms)) => match now_ms.saturating_sub(last_ms) {
                0 => self.time_interval.saturating_mul(2),
                ms => {
                    let steps = expanded.saturating_sub(last_expanded);
                    steps.saturating_mul(CHECK_EVERY_MS) / ms
                }
            },
        };
        self.time_interval = interval.clamp(1, MAX_INTERVAL);
        self.time_interval
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_limit_checks_are_as_rare_as_allowed() {
        let mut p = Pacer::default();
        assert_eq!(p.next_interval(16, 1_000, None), MAX_INTERVAL);
        assert_eq!(p.next_interval(4_112, 9_000_000, None), MAX_INTERVAL);
    }

    #[test]
    fn readings_an_expansion_apart_measure_no_rate() {
        let mut p = Pacer::default();
        p.next_interval(1, 30_000_000, Some(1 << 34));
        // 20 MB more one expansion later: threads started, not a rate of 20 MB an expansion.
        assert_eq!(p.next_interval(2, 50_000_000, Some(1 << 34)), MIN_INTERVAL);
        assert_eq!(p.growth_within(1_000), 0);
        // Measured from the first reading, over 17 expansions.
        p.next_interval(18, 50_000_000 + 17_000, Some(1 << 34));
        assert_eq!(p.growth_within(1), (20_000_000 + 17_000u64).div_ceil(17));
    }

    #[test]
    fn a_batch_engine_measures_its_rate_over_a_whole_batch() {
        let mut p = Pacer::default();
        p.measure_rates_over(8_192);
        p.next_interval(0, 30_000_000, Some(1 << 34));
        // 100 MB as the first batch's threads start, 40 expansions in: no rate yet.
        assert_eq!(
            p.next_interval(40, 130_000_000, Some(1 << 34)),
            MIN_INTERVAL
        );
        p.next_interval(8_192, 131_000_000, Some(1 << 34));
        assert_eq!(p.growth_within(1), 101_000_000u64.div_ceil(8_192));
    }

    #[test]
    fn the_first_reading_under_a_limit_is_followed_soon_by_a_second() {
        let mut p = Pacer::default();
        assert_eq!(p.next_interval(16, 1_000, Some(1 << 30)), MIN_INTERVAL);
    }

    #[test]
    fn growth_may_use_at_most_half_the_headroom_before_the_next_reading() {
        let mut p = Pacer::default();
        p.next_interval(0, 10_000_000, Some(100_000_000));
        // 1,000 bytes an expansion, 89 MB of headroom left: 44,500 expansions would use
        // half of it, more than the largest interval.
        assert_eq!(
            p.next_interval(1_000, 11_000_000, Some(100_000_000)),
            MAX_INTERVAL
        );
        // Now 1 MB of headroom at 1,000 bytes an expansion: 500 expansions.
        let at = 1_000 + 88_000;
        assert_eq!(p.next_interval(at, 99_000_000, Some(100_000_000)), 500);
        // At the limit, as often as allowed.
        assert_eq!(
            p.next_interval(at + 500, 100_000_000, Some(100_000_000)),
            MIN_INTERVAL
        );
    }

    #[test]
    fn memory_that_never_grew_needs_no_early_check() {
        let mut p = Pacer::default();
        p.next_interval(0, 50_000_000, Some(60_000_000));
        assert_eq!(
            p.next_interval(16, 50_000_000, Some(60_000_000)),
            MAX_INTERVAL
        );
        assert_eq!(
            p.next_interval(32, 40_000_000, Some(60_000_000)),
            MAX_INTERVAL
        );
    }

    #[test]
    fn slow_expansions_are_checked_every_few_ms_of_wall_time() {
        let mut p = Pacer::default();
        assert_eq!(p.next_time_interval(0, 0), 1);
        // One expansion took 40 ms: look again after the next one.
        assert_eq!(p.next_time_interval(1, 40), 1);
        // 10 expansions in 5 ms: 50 in 25 ms.
        assert_eq!(p.next_time_interval(11, 45), 50);
    }

    #[test]
    fn fast_expansions_double_the_interval_until_a_ms_passes() {
        let mut p = Pacer::default();
        assert_eq!(p.next_time_interval(0, 7), 1);
        assert_eq!(p.next_time_interval(1, 7), 2);
        assert_eq!(p.next_time_interval(3, 7), 4);
        // A million expansions a second: far more than the largest interval in 25 ms.
        assert_eq!(p.next_time_interval(1_003, 8), MAX_INTERVAL);
        assert_eq!(p.next_time_interval(5_099, 8), MAX_INTERVAL);
    }

    #[test]
    fn a_quiet_interval_does_not_lower_the_rate_remembered() {
        let mut p = Pacer::default();
        let limit = Some(100_000_000);
        p.next_interval(0, 90_000_000, limit);
        // 10,000 bytes an expansion, 9 MB of headroom: half of it lasts 450 expansions.
        assert_eq!(p.next_interval(100, 91_000_000, limit), 450);
        // No growth in the next 450: a burst at the old rate could still come.
        assert_eq!(p.next_interval(550, 91_000_000, limit), 450);
    }
}
