//! What business code does when it fails to get a lock (its acquire timeout, `tryLock`'s wait
//! or attempt limit ran out): the default ends the round, as code that checks `tryLock`'s
//! result does; the two others are the misuses seed 003's review found.

/// The business code's answer to a failed acquire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnFail {
    /// The round ends without the work (the result is checked).
    #[default]
    EndRound,
    /// The work runs anyway, without the lock: `tryLock()`'s result ignored.
    Proceed,
    /// Every lock of the round is released anyway, the one that failed too, and the round
    /// ends: `lock()` inside `try`, `unlock()` in `finally`.
    Unlock,
}
