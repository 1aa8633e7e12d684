//! Per-process clocks: offset, rate error and steps, read as wall or monotonic time.
//!
//! True time `t` is the world's virtual time in ms. A process's monotonic clock runs at rate
//! `1 + drift_ppm / 1e6`: `mono(t) = t + floor(t * drift_ppm / 1e6)`. Its wall clock adds a
//! fixed offset and the sum of all steps so far: `wall(t) = offset + mono(t) + steps`. Steps
//! (an NTP correction, a manual change) move the wall clock forwards or backwards; the
//! monotonic clock ignores them but not the rate error. Timers are durations on the
//! monotonic clock, converted to true due times by [`ClockSpec::due_after`].
//!
//! Time arithmetic cannot overflow: true instants saturate at [`MAX_INSTANT_MS`] (2^60 ms,
//! about 36 million years), readings and step sums are clamped to ±[`MAX_READING_MS`]
//! (2^62 ms), so a model may still add a few such values without leaving `i64`, and
//! [`ClockSpec::due_after`] takes a bounded number of steps whatever its arguments.

use super::actor::LocalNow;

const PPM: i128 = 1_000_000;

/// The latest true instant the world reaches; later times saturate here.
pub const MAX_INSTANT_MS: u64 = 1 << 60;

/// The largest wall or monotonic reading (and sum of clock steps), either sign.
pub const MAX_READING_MS: i64 = 1 << 62;

/// `t_ms + after_ms`, saturating at [`MAX_INSTANT_MS`].
pub fn later(t_ms: u64, after_ms: u64) -> u64 {
    t_ms.saturating_add(after_ms).min(MAX_INSTANT_MS)
}

/// A sum of clock steps, clamped to ±[`MAX_READING_MS`].
pub fn add_step(steps_ms: i64, delta_ms: i64) -> i64 {
    clamp_reading(steps_ms as i128 + delta_ms as i128)
}

fn clamp_reading(v: i128) -> i64 {
    v.clamp(-(MAX_READING_MS as i128), MAX_READING_MS as i128) as i64
}

/// A process's clock configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClockSpec {
    /// Wall-clock offset from true time at t = 0, in ms.
    pub offset_ms: i64,
    /// Rate error in parts per million (positive: runs fast).
    pub drift_ppm: i64,
}

impl ClockSpec {
    pub fn new(offset_ms: i64, drift_ppm: i64) -> Self {
        assert!(
            drift_ppm > -(PPM as i64),
            "a clock rate error of {drift_ppm} ppm would stop or reverse the clock"
        );
        ClockSpec {
            offset_ms,
            drift_ppm,
        }
    }

    /// Monotonic reading at true time `t_ms` (at most 2 * [`MAX_INSTANT_MS`]).
    #[inline]
    pub fn mono_ms(&self, t_ms: u64) -> i64 {
        let t = t_ms.min(MAX_INSTANT_MS) as i64;
        // The same value in 64-bit arithmetic whenever the product fits (it does for any
        // time a search reaches); 128-bit division is many times slower and this runs for
        // every process of every state fingerprinted.
        if let Some(product) = t.checked_mul(self.drift_ppm) {
            return clamp_reading(t as i128 + product.div_euclid(PPM as i64) as i128);
        }
        let t = t as i128;
        clamp_reading(t + (t * self.drift_ppm as i128).div_euclid(PPM))
    }

    /// Wall reading at true time `t_ms` after `steps_ms` of steps, clamped to
    /// ±[`MAX_READING_MS`].
    pub fn wall_ms(&self, t_ms: u64, steps_ms: i64) -> i64 {
        clamp_reading(self.offset_ms as i128 + self.mono_ms(t_ms) as i128 + steps_ms as i128)
    }

    /// Where within its current millisecond the monotonic clock stands at true time `t_ms`,
    /// in millionths of a millisecond (0 for an exact clock). A drifting clock's future
    /// readings relative to `t_ms` depend on this and nothing else:
    /// `mono(t + d) - mono(t) = d + floor((phase + d * drift_ppm) / 1e6)`. A fingerprint that
    /// writes times relative to now must include it, or it would merge states whose clocks
    /// round differently later.
    pub fn phase(&self, t_ms: u64) -> u32 {
        if self.drift_ppm == 0 {
            return 0;
        }
        match (t_ms as i64).checked_mul(self.drift_ppm) {
            Some(product) if t_ms <= i64::MAX as u64 => product.rem_euclid(PPM as i64) as u32,
            _ => (t_ms as i128 * self.drift_ppm as i128).rem_euclid(PPM) as u32,
        }
    }

    /// Both readings at true time `t_ms`.
    pub fn local_now(&self, t_ms: u64, steps_ms: i64) -> LocalNow {
        LocalNow {
            wall_ms: self.wall_ms(t_ms, steps_ms),
            mono_ms: self.mono_ms(t_ms),
        }
    }

    /// The earliest true time at which `after_ms` of monotonic time have passed since `t_ms`
    /// ([`MAX_INSTANT_MS`] if that is later). The rate's inverse gives the answer up to
    /// rounding; when it is off, a bisection over `[t_ms, MAX_INSTANT_MS]` (at most 61
    /// steps) finds it, so no argument makes this loop long.
    pub fn due_after(&self, t_ms: u64, after_ms: u64) -> u64 {
        let t_ms = t_ms.min(MAX_INSTANT_MS);
        let target = self.mono_ms(t_ms) as i128 + after_ms as i128;
        let reached = |t: u64| self.mono_ms(t) as i128 >= target;
        let rate = PPM + self.drift_ppm as i128;
        let estimate = (after_ms as i128 * PPM + rate - 1) / rate + t_ms as i128;
        let guess = estimate.clamp(t_ms as i128, MAX_INSTANT_MS as i128) as u64;
        if reached(guess) && (guess == t_ms || !reached(guess - 1)) {
            return guess;
        }
        // `lo` never reaches the target (or is `t_ms`), `hi` does (or is the end of time).
        let (mut lo, mut hi) = (t_ms, MAX_INSTANT_MS);
        if reached(lo) {
            return lo;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if reached(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_64_bit_path_reads_as_the_128_bit_one() {
        // The 128-bit reading, with the same saturation at the largest instant and reading.
        let wide = |c: &ClockSpec, t: u64| {
            let t = t.min(MAX_INSTANT_MS) as i128;
            clamp_reading(t + (t * c.drift_ppm as i128).div_euclid(PPM))
        };
        for drift_ppm in [-999_999, -4_000, -1, 0, 1, 4_000, 10_000, 3_000_000] {
            let c = ClockSpec::new(0, drift_ppm);
            for t in [
                0,
                1,
                999,
                1_000_001,
                123_456_789,
                1 << 40,
                u64::MAX / 2,
                u64::MAX,
            ] {
                assert_eq!(c.mono_ms(t), wide(&c, t), "{drift_ppm} ppm at {t} ms");
            }
        }
    }

    #[test]
    fn perfect_clock_reads_true_time_plus_offset() {
        let c = ClockSpec::new(500, 0);
        assert_eq!(c.mono_ms(1_000), 1_000);
        assert_eq!(c.wall_ms(1_000, 0), 1_500);
        assert_eq!(c.due_after(1_000, 250), 1_250);
    }

    #[test]
    fn fast_clock_fires_timers_early_and_steps_move_only_wall() {
        let c = ClockSpec::new(0, 10_000); // 1 % fast
        assert_eq!(c.mono_ms(10_000), 10_100);
        assert_eq!(c.wall_ms(10_000, -3_000), 7_100);
        assert_eq!(
            c.mono_ms(10_000),
            10_100,
            "steps never touch monotonic time"
        );
        let due = c.due_after(0, 10_100);
        assert_eq!(due, 10_000);
        assert!(c.mono_ms(due) >= 10_100 && c.mono_ms(due - 1) < 10_100);
    }

    #[test]
    fn slow_clock_fires_timers_late() {
        let c = ClockSpec::new(0, -20_000); // 2 % slow
        let due = c.due_after(1_000, 9_800);
        assert!(c.mono_ms(due) - c.mono_ms(1_000) >= 9_800);
        assert!(c.mono_ms(due - 1) - c.mono_ms(1_000) < 9_800);
        assert_eq!(due, 11_000);
    }
}
