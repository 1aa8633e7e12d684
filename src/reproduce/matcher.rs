//! The matcher: a real reply against the model's. Exact for everything but a remaining time
//! to live (PTTL, Redisson's acquire), which is read a moment off the model's instant and so
//! may differ by the run's timing error: within the tolerance it matches.

use lockcheck_model::redis::Reply;

/// How a real reply compares with the model's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    Exact,
    /// A time to live off by `diff_ms`, within the tolerance.
    Within {
        diff_ms: i64,
    },
    Differs,
}

impl Match {
    pub fn agrees(self) -> bool {
        self != Match::Differs
    }
}

/// Compares `actual` with `expected`.
pub fn compare(expected: &Reply, actual: &Reply, ttl_valued: bool, tolerance_ms: i64) -> Match {
    if expected == actual {
        return Match::Exact;
    }
    match (expected, actual) {
        (Reply::Integer(m), Reply::Integer(r)) if ttl_valued && *m >= 0 && *r >= 0 => {
            let diff_ms = r - m;
            if diff_ms.abs() <= tolerance_ms {
                Match::Within { diff_ms }
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
        assert_eq!(compare(&m, &m, false, 0), Match::Exact);
        assert_eq!(compare(&m, &r, true, 10), Match::Within { diff_ms: -10 });
        assert_eq!(compare(&m, &r, true, 9), Match::Differs);
        assert_eq!(
            compare(&m, &r, false, 1_000),
            Match::Differs,
            "not a TTL: exact"
        );
        let (missing, gone) = (Reply::Integer(-2), Reply::Integer(5));
        assert_eq!(compare(&missing, &gone, true, 1_000), Match::Differs);
        let ok = Reply::Status("OK".into());
        assert_eq!(
            compare(&ok, &Reply::Bulk(None), true, 1_000),
            Match::Differs
        );
    }

    #[test]
    fn the_tolerance_grows_with_speed_and_lateness() {
        assert_eq!(tolerance_ms(1.0, 0.0), 3);
        assert_eq!(tolerance_ms(10.0, 0.0), 12);
        assert_eq!(tolerance_ms(10.0, 4.2), 21);
    }
}
