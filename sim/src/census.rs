//! Shape mode: fingerprints that keep a state's concrete *shape* and forget its far times.
//!
//! The idea (a measurement for symbolic time, not a search): two states that differ only in
//! how far ahead their far deadlines lie would be one symbolic state whose far times are a
//! set of offsets. Hashing each state once with every time more than `far_ms` away written as
//! a tag, and with a drifting clock's phase and readings relative to now left out (the
//! rounding-window model of drift), counts how many such symbolic states a search would
//! need: the *shapes*. A census (`examples/shape_census.rs`) hashes the states a concrete
//! search admits in this mode and counts shapes, (shape, depth) pairs and the concrete states
//! of each shape.
//!
//! The mode is a thread-local switch, only compiled with the `census` feature, and on only
//! inside [`with_shape_mode`]; a search never runs in it.

use std::cell::Cell;

/// What shape mode forgets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeMode {
    /// A time left (or a time since, from its ceiling) of more than this is far.
    pub far_ms: i64,
    /// Leave each Redis node's replication offset out (it counts the writes, so it counts
    /// the retry rounds where nothing reads it).
    pub without_replication_offsets: bool,
}

thread_local! {
    static MODE: Cell<Option<ShapeMode>> = const { Cell::new(None) };
    /// The smallest far time met since the mode was switched on (`i64::MAX`: none).
    static NEAREST_FAR_MS: Cell<i64> = const { Cell::new(i64::MAX) };
}

/// Runs `f` with shape mode on, on this thread: what it returns, and the nearest far time
/// that was hashed as a tag (`None` when no time was far).
pub fn with_shape_mode<R>(mode: ShapeMode, f: impl FnOnce() -> R) -> (R, Option<i64>) {
    let before = MODE.with(|m| m.replace(Some(mode)));
    NEAREST_FAR_MS.with(|n| n.set(i64::MAX));
    let out = f();
    MODE.with(|m| m.set(before));
    let nearest = NEAREST_FAR_MS.with(|n| n.get());
    (out, (nearest != i64::MAX).then_some(nearest))
}

/// The mode in force on this thread, if any.
#[inline]
pub fn shape_mode() -> Option<ShapeMode> {
    MODE.with(|m| m.get())
}

/// Whether a time `room_ms` from its clamp is far under `mode`; a far time is remembered
/// as the nearest so far when it is.
pub(crate) fn is_far(mode: ShapeMode, room_ms: i128) -> bool {
    let far = room_ms > mode.far_ms as i128;
    if far {
        let room = room_ms.min(i64::MAX as i128) as i64;
        NEAREST_FAR_MS.with(|n| n.set(n.get().min(room)));
    }
    far
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FpHasher;

    const MODE: ShapeMode = ShapeMode {
        far_ms: 100,
        without_replication_offsets: false,
    };

    fn hash_left(left_ms: i64) -> u64 {
        let mut h = FpHasher::new();
        h.write_time_left(left_ms, 0);
        std::hash::Hasher::finish(&h)
    }

    #[test]
    fn far_times_left_hash_alike_and_near_ones_apart() {
        let (far, nearest) = with_shape_mode(MODE, || (hash_left(150), hash_left(900)));
        assert_eq!(far.0, far.1);
        assert_eq!(nearest, Some(150));
        let (near, nearest) = with_shape_mode(MODE, || (hash_left(40), hash_left(41)));
        assert_ne!(near.0, near.1);
        assert_eq!(nearest, None);
    }

    #[test]
    fn outside_the_mode_every_time_counts() {
        assert_ne!(hash_left(150), hash_left(900));
        assert_eq!(shape_mode(), None);
    }
}
