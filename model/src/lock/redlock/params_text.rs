//! A Redlock's parameters as text. A world's model hash is made of this text (saved traces
//! carry it), so the fields added for client-library profiles are written only when they
//! differ from the seed's: a seed Redlock's text, and every hash saved before, stays what
//! it was.

use super::drift::SEED_DRIFT_EXTRA_MS;
use super::{DriftRounding, Redlock};
use crate::lock::engine::{Belief, OptionalMs};

/// As derived, with the fields added for client-library profiles only when they differ
/// from the seed's: the text of a seed Redlock (which a world's model hash is made of) is
/// what it always was.
impl std::fmt::Debug for Redlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Redlock");
        d.field("nodes", &self.nodes)
            .field("ttl_ms", &self.ttl_ms)
            .field("drift_ppm", &self.drift_ppm);
        if self.drift_extra_ms != SEED_DRIFT_EXTRA_MS {
            d.field("drift_extra_ms", &self.drift_extra_ms);
        }
        if self.drift_rounding != DriftRounding::Up {
            d.field("drift_rounding", &self.drift_rounding);
        }
        d.field("clock", &self.clock)
            .field("dispatch", &self.dispatch);
        if !self.rules.is_seed() {
            d.field("rules", &self.rules);
        }
        d.field("node_timeout_ms", &OptionalMs(self.node_timeout_ms))
            .field("retry_ms", &self.retry_ms)
            .field("acquire_timeout_ms", &self.acquire_timeout_ms)
            .field("max_attempts", &self.max_attempts)
            .field("watchdog", &self.watchdog);
        if let Some(extension) = &self.auto_extension {
            d.field("auto_extension", extension);
        }
        if !self.extend.is_redsync() {
            d.field("extend", &self.extend);
        }
        if self.belief != Belief::Validity {
            d.field("belief", &self.belief);
        }
        if !self.on_refused.is_fail() {
            d.field("on_refused", &self.on_refused);
        }
        d.finish()
    }
}
