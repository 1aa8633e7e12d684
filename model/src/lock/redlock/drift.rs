//! The drift and validity arithmetic of an attempt: `drift = ttl * drift factor`, rounded
//! to whole ms as the library does, plus a constant, and `validity = ttl - elapsed - drift`.

use super::Redlock;

/// The seed's constant term of the drift, `+ 2 ms`.
pub(super) const SEED_DRIFT_EXTRA_MS: u64 = 2;

/// How `ttl * drift factor` becomes whole milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriftRounding {
    /// Up (the seed's modelling choice: the validity is never longer than the seed's).
    Up,
    /// To the nearest, halves up (node-redlock's `Math.round`).
    Nearest,
    /// Down (redsync's `time.Duration(float64(expiry) * driftFactor)` in nanoseconds, taken
    /// to whole milliseconds).
    Down,
}

impl Redlock {
    /// `ttl * drift factor` in whole ms (rounded as `drift_rounding` says), plus the extra
    /// drift (2 ms in the seed).
    pub fn drift_ms(&self) -> i64 {
        let scaled = self.ttl_ms * u64::from(self.drift_ppm);
        let factor_ms = match self.drift_rounding {
            DriftRounding::Up => scaled.div_ceil(1_000_000),
            DriftRounding::Nearest => (scaled + 500_000) / 1_000_000,
            DriftRounding::Down => scaled / 1_000_000,
        };
        (factor_ms + self.drift_extra_ms) as i64
    }

    /// `ttl - elapsed - drift`.
    pub fn validity_ms(&self, elapsed_ms: i64) -> i64 {
        self.ttl_ms as i64 - elapsed_ms - self.drift_ms()
    }
}
