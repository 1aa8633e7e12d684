//! go-redsync/redsync v4's `Mutex.Lock`, read from `redsync.go`, `mutex.go` and
//! `scripts.go` at tag v4.17.0 (the same from v4.7.1, the first release that retries when
//! every node is taken).
//!
//! - `NewMutex` defaults (`redsync.go` 29-52): expiry 8 s, 32 tries, a retry delay of
//!   `rand.Intn(250-50)+50` ms (every whole ms from 50 to 249, drawn before each retry),
//!   drift factor 0.01, timeout factor 0.05, quorum `len(pools)/2 + 1`.
//! - `lockContext` (`mutex.go` 64-134): each try takes `start := time.Now()`, asks every
//!   node at once (`actOnPoolsAsync`) with `SET key value NX PX expiry` under one context
//!   of `expiry * timeoutFactor` (400 ms), then `until = start + expiry - drift` with
//!   `drift = int64(expiry * driftFactor)` (truncated, and no `+ 2 ms`); it holds iff `n >=
//!   quorum && now.Before(until)`. A failed try deletes the key on every node (the delete
//!   script, with the same timeout) before the next. Go's `time.Now()` carries the
//!   monotonic reading, so `until` is on the monotonic clock.
//! - There is no acquire timeout: `Lock` fails with `ErrFailed` after its tries.
//! - `Extend` is the caller's to call (no watchdog): the workload step `extend L`
//!   (`ExtendContext`: `start := time.Now()`, the touch script `PEXPIRE expiry` where the
//!   key holds the value, on every node at once; below a quorum it fails, else `until = now
//!   + expiry - (now - start) - drift` and it holds iff `now.Before(until)`, else
//!   `ErrExtendFailed`). `Unlock` is the delete script on every node.
//! - `WithSetNXOnExtend` (`redsync.go` 93-101, off by default) makes `touch` run
//!   `touchWithSetNXScript` (`mutex.go` 257-262): where the key is gone it is set again
//!   with `SET key value PX expiry NX`; give `extend = { sets_nx = true }`.
//!
//! - A crashed node's refused connection fails that node's try (`on_refused = "fail"`):
//!   go-redis retries a dial error (`shouldRetry`, `error.go` 41-54 at v9.7.0: a
//!   `net.OpError` that is no timeout) 3 times (`MaxRetries`, `options.go` 210-211) after
//!   8 to 512 ms of backoff (217-223), then returns it; the three backoffs (under 60 ms)
//!   are not modelled.
//!
//! Left out: `WithFailFast` and `WithShufflePools` (off by default), and the lack of a
//! timeout on the unlock's and the extension's requests (the model's per-node timeout
//! bounds them too).

use super::{Profile, ProtocolSpec};
use lockcheck_model::lock::redlock::{AttemptRules, Dispatch, DriftRounding, ExtendRules};
use lockcheck_model::lock::{ClockKind, OnRefused};

/// `NewMutex`'s expiry.
const EXPIRY_MS: u64 = 8_000;
/// `timeoutFactor`: the per-node timeout as a share of the expiry, in ‰.
const TIMEOUT_PERMILLE: u64 = 50;

pub const V4: Profile = Profile {
    library: "redsync",
    source: "go-redsync/redsync: redsync.go, mutex.go, scripts.go at v4.17.0",
    versions: "4.7.1 to 4.17",
    first: [4, 7, 1],
    last: [4, 17, u32::MAX],
    summary: "Redlock on every node at once: 8 s expiry, 32 tries 50 to 249 ms apart, drift ttl/100 (no +2 ms) on the monotonic clock, per-node timeout expiry/20",
    defaults,
    required: &[],
    derive,
};

fn defaults() -> ProtocolSpec {
    ProtocolSpec::Redlock {
        nodes: Vec::new(),
        ttl_ms: EXPIRY_MS,
        drift_ppm: 10_000,
        drift_extra_ms: 0,
        drift_rounding: DriftRounding::Down,
        clock: ClockKind::Monotonic,
        dispatch: Dispatch::Multiplexed,
        attempt: AttemptRules::SEED,
        node_timeout_ms: Some(EXPIRY_MS * TIMEOUT_PERMILLE / 1_000),
        retry_ms: (50..250).collect(),
        acquire_timeout_ms: None,
        max_attempts: Some(32),
        auto_extension: None,
        belief: Default::default(),
        extend: ExtendRules::REDSYNC,
        watchdog: None,
        on_refused: OnRefused::Fail,
    }
}

/// The per-node timeout is `expiry * timeoutFactor`: it follows a given expiry.
fn derive(spec: &mut ProtocolSpec, overridden: &dyn Fn(&str) -> bool) {
    if let ProtocolSpec::Redlock {
        ttl_ms,
        node_timeout_ms,
        ..
    } = spec
    {
        if !overridden("node_timeout_ms") {
            *node_timeout_ms = Some((*ttl_ms * TIMEOUT_PERMILLE / 1_000).max(1));
        }
    }
}
