//! How a Redlock engine's state is fingerprinted: every time as time elapsed or left,
//! relative to now and clamped where its exact value no longer matters (past the TTL no
//! validity is left), so that states differing only in when they happen are one.

use super::sweep::{Elapsed, NodeSweep};
use super::{Phase, Redlock, RedlockState, ValidityFrom, Watch};
use lockcheck_sim::world::LocalNow;
use lockcheck_sim::FpHasher;
use std::hash::{Hash, Hasher};

impl Redlock {
    /// The engine's state as the kernel fingerprints it.
    pub(super) fn fingerprint(&self, state: &RedlockState, now: LocalNow, h: &mut FpHasher) {
        (state.parities, state.failed_renewals, state.failed_attempts).hash(h);
        self.hash_first_start(state, now, h);
        let elapsed = |sweep: &NodeSweep| self.elapsed_for_hash(sweep, now);
        match &state.phase {
            Phase::Idle => h.write_u8(0),
            Phase::Acquiring { sweep, expired } => {
                (1u8, expired).hash(h);
                sweep.hash_relative(elapsed(sweep), now.mono_ms, h);
            }
            Phase::Undoing { sweep, expired } => {
                (2u8, expired).hash(h);
                sweep.hash_relative(elapsed(sweep), now.mono_ms, h);
            }
            Phase::Waiting { expired } => (3u8, expired).hash(h),
            Phase::Holding { interval_ms, watch } => {
                (4u8, interval_ms).hash(h);
                watch.hash_relative(elapsed, now.mono_ms, h);
                if self.keeps_expiration() {
                    // Once passed, only that it passed matters (`expiration > now`).
                    let left_ms = state.valid_until_ms - self.clock.read(now);
                    h.write_time_left(left_ms, -1);
                }
            }
            Phase::Releasing { sweep } => {
                h.write_u8(5);
                sweep.hash_relative(elapsed(sweep), now.mono_ms, h);
            }
        }
    }

    /// Elapsed time since `sweep` began, hashed up to the TTL (beyond it every outcome is
    /// fixed).
    fn elapsed_for_hash(&self, sweep: &NodeSweep, now: LocalNow) -> Elapsed {
        Elapsed {
            ms: self.clock.read(now) - sweep.started_ms,
            ceiling_ms: self.ttl_ms as i64,
        }
    }

    /// Hashes when the acquire (or extension) under way began, as time elapsed (at most the
    /// TTL: beyond it no validity is left whatever the value), if the validity counts from
    /// it.
    pub(super) fn hash_first_start(&self, state: &RedlockState, now: LocalNow, h: &mut FpHasher) {
        let extending = matches!(
            state.phase,
            Phase::Holding {
                watch: Watch::Renewing(_) | Watch::Retrying | Watch::Undoing(_),
                ..
            }
        ) && self.watchdog.is_none();
        let under_way = extending
            || matches!(
                state.phase,
                Phase::Acquiring { .. } | Phase::Undoing { .. } | Phase::Waiting { .. }
            );
        if self.rules.validity_from == ValidityFrom::FirstAttempt && under_way {
            let elapsed_ms = self.clock.read(now) - state.first_started_ms;
            h.write_time_since(elapsed_ms, self.ttl_ms as i64);
        }
    }
}
