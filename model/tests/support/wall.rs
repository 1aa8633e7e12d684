//! The test's wall clock: the system clock the real server reads too, in Unix milliseconds.

// Talks to a real Redis server, in real time: the wall clock is the point here.
#![allow(clippy::disallowed_methods)]

use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Now, in Unix milliseconds.
pub fn wall_ms() -> i64 {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("a clock after 1970");
    i64::try_from(since_epoch.as_millis()).expect("milliseconds fit in i64")
}

/// The first wall-clock reading strictly after `after_ms`.
pub fn wall_ms_after(after_ms: i64) -> i64 {
    loop {
        let now = wall_ms();
        if now > after_ms {
            return now;
        }
        sleep(Duration::from_micros(200));
    }
}

/// Sleeps until `after` has passed since `start`.
pub fn sleep_until(start: Instant, after: Duration) {
    sleep((start + after).saturating_duration_since(Instant::now()));
}
