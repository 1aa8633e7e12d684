//! Per-process clocks: offset, rate error and steps, read as wall or monotonic time.
//!
//! True time `t` is the world's virtual time in ms. A process's monotonic clock runs at rate
//! `1 + drift_ppm / 1e6`: `mono(t) = t + floor(t * drift_ppm / 1e6)`. Its wall clock adds a
//! fixed offset and the sum of all steps so far: `wall(t) = offset + mono(t) + steps`. Steps
//! (an NTP correction, a manual change) move the wall clock forwards or backwards; the
//! monotonic clock ignores them but not the rate error. Timers are durations on the
//! monotonic clock, converted to true due times by [`ClockSpec::due_after`].

use super::actor::LocalNow;

const PPM: i128 = 1_000_000;

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

    /// Monotonic reading at true time `t_ms`.
    #[inline]
    pub fn mono_ms(&self, t_ms: u64) -> i64 {
        // The same value in 64-bit arithmetic whenever the product fits (it does for any
        // time a search reaches); 128-bit division is many times slower and this runs for
        // every process of every state fingerprinted.
        if let Some(product) = i64::try_from(t_ms)
            .ok()
            .and_then(|t| t.checked_mul(self.drift_ppm))
        {
            return (t_ms as i64).wrapping_add(product.div_euclid(PPM as i64));
        }
        let t = t_ms as i128;
        (t + (t * self.drift_ppm as i128).div_euclid(PPM)) as i64
    }

    /// Wall reading at true time `t_ms` after `steps_ms` of steps.
    pub fn wall_ms(&self, t_ms: u64, steps_ms: i64) -> i64 {
        self.offset_ms + self.mono_ms(t_ms) + steps_ms
    }

    /// Both readings at true time `t_ms`.
    pub fn local_now(&self, t_ms: u64, steps_ms: i64) -> LocalNow {
        LocalNow {
            wall_ms: self.wall_ms(t_ms, steps_ms),
            mono_ms: self.mono_ms(t_ms),
        }
    }

    /// The earliest true time at which `after_ms` of monotonic time have passed since `t_ms`.
    pub fn due_after(&self, t_ms: u64, after_ms: u64) -> u64 {
        let target = self.mono_ms(t_ms) as i128 + after_ms as i128;
        // Estimate by inverting the rate, then correct for rounding.
        let rate = PPM + self.drift_ppm as i128;
        let mut t = ((after_ms as i128 * PPM + rate - 1) / rate) as u64 + t_ms;
        while t > t_ms && self.mono_ms(t - 1) as i128 >= target {
            t -= 1;
        }
        while (self.mono_ms(t) as i128) < target {
            t += 1;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_64_bit_path_reads_as_the_128_bit_one() {
        let wide = |c: &ClockSpec, t: u64| {
            let t = t as i128;
            (t + (t * c.drift_ppm as i128).div_euclid(PPM)) as i64
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
