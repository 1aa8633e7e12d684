//! The matcher: a real reply against the model's. Exact for everything but a remaining time
//! to live (PTTL, Redisson's acquire), which is read a moment off the model's instant and so
//! may differ by the run's timing error: within the tolerance it matches; a little further
//! off (up to a tenth of a second of real time) it says the timing was not held (a server
//! ran a command late), not that Redis answers otherwise.

use lockcheck_model::redis::Reply;

/// How a real reply compares with the model's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    Exact,
    /// A time to live off by `diff_ms`, within the tolerance.
    Within {
        diff_ms: i64,
    },
    /// A time to live off by `diff_ms`, beyond the tolerance but within the timing bound.
    TtlOff {
        diff_ms: i64,
    },
    Differs,
}

impl Match {
    pub fn agrees(self) -> bool {
        matches!(self, Match::Exact | Match::Within { .. })
    }
}

/// How far off a time to live may be read for the run's timing to be at fault rather than
/// Redis: 100 ms of real time at `speed`.
pub fn timing_bound_ms(speed: f64) -> i64 {
    (100.0 * speed).round() as i64
}

/// Compares `actual` with `expected` (a time to live within `tolerance_ms`, or off by at
/// most `bound_ms`).
pub fn compare(
    expected: &Reply,
    actual: &Reply,
    ttl_valued: bool,
    tolerance_ms: i64,
    bound_ms: i64,
) -> Match {
    if expected == actual {
        return Match::Exact;
    }
    match (expected, actual) {
        (Reply::Integer(m), Reply::Integer(r)) if ttl_valued && *m >= 0 && *r >= 0 => {
            let diff_ms = r - m;
            if diff_ms.abs() <= tolerance_ms {
                Match::Within { diff_ms }
            } else if diff_ms.abs() <= bound_ms {
                Match::TtlOff { diff_ms }
            } else {
                Match::Differs
            }
        }
        _ => Match::Differs,
    }
}

/// The tolerance for a time to live: 2 ms, one ms of real jitter at `speed`, and twice the
/// worst lateness so far (the command that set the deadline and the one reading it).
pub fn tolerance_ms(speed: f64, worst_late_ms: f64) -> i64 {
    2 + speed.ceil() as i64 + (2.0 * worst_late_ms).ceil() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_time_to_live_may_differ_and_only_within_the_tolerance() {
        let (m, r) = (Reply::Integer(9_000), Reply::Integer(8_990));
        assert_eq!(compare(&m, &m, false, 0, 0), Match::Exact);
        assert_eq!(
            compare(&m, &r, true, 10, 10),
            Match::Within { diff_ms: -10 }
        );
        assert_eq!(compare(&m, &r, true, 9, 10), Match::TtlOff { diff_ms: -10 });
        assert!(!Match::TtlOff { diff_ms: -10 }.agrees());
        assert_eq!(compare(&m, &r, true, 9, 9), Match::Differs);
        let not_ttl = compare(&m, &r, false, 1_000, 1_000);
        assert_eq!(not_ttl, Match::Differs, "not a TTL: exact");
        let (missing, gone) = (Reply::Integer(-2), Reply::Integer(5));
        assert_eq!(compare(&missing, &gone, true, 1_000, 1_000), Match::Differs);
        let ok = Reply::Status("OK".into());
        let nil = Reply::Bulk(None);
        assert_eq!(compare(&ok, &nil, true, 1_000, 1_000), Match::Differs);
        assert_eq!(timing_bound_ms(10.0), 1_000);
    }

    #[test]
    fn the_tolerance_grows_with_speed_and_lateness() {
        assert_eq!(tolerance_ms(1.0, 0.0), 3);
        assert_eq!(tolerance_ms(10.0, 0.0), 12);
        assert_eq!(tolerance_ms(10.0, 4.2), 21);
    }
}
