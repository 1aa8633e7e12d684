//! The system wall clock, for wall-time limits on a search.
//!
//! The kernel never reads the system clock (determinism); it asks a [`WallClock`] that the
//! caller passes in. This is the one backed by `std::time::Instant`.

use lockcheck_sim::WallClock;
use std::time::Instant;

/// Milliseconds since this clock was created.
#[derive(Clone, Copy, Debug)]
pub struct SystemWallClock {
    start: Instant,
}

impl SystemWallClock {
    pub fn start() -> Self {
        SystemWallClock {
            start: Instant::now(),
        }
    }
}

impl WallClock for SystemWallClock {
    fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_time_starts_near_zero_and_never_goes_back() {
        let clock = SystemWallClock::start();
        let a = clock.elapsed_ms();
        let b = clock.elapsed_ms();
        assert!(a < 1_000 && b >= a);
    }
}
