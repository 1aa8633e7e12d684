//! node-redlock (npm `redlock`) v4's `lock(resource, ttl)`, read from `redlock.js` at tag
//! v4.2.0; v4.0.0 and v4.1.0 behave the same (v4.2.0 adds `lockWithOptions` and `EVALSHA`).
//!
//! - Defaults (58-63): drift factor 0.01, `retryCount` 10, `retryDelay` 200 ms,
//!   `retryJitter` 100 ms; the delay is `retryDelay + floor((random*2 - 1) * retryJitter)`
//!   (428), every whole ms from 100 to 299.
//! - `_lock` (347-445): each attempt takes `start = Date.now()` (the **wall** clock), sends
//!   the acquire script (`SET key value PX ttl` unless the key exists) to every server at
//!   once and waits for every callback; `drift = Math.round(driftFactor * ttl) + 2`, and it
//!   holds iff `votes >= quorum && start + ttl - drift > Date.now()` (419). A failed
//!   attempt runs the unlock script on every server, then retries while `attempts <=
//!   retryCount`: 11 attempts in all (427).
//! - There is no request timeout: a server that never answers holds the attempt for ever.
//! - `ttl` has no default: the caller gives it.
//! - `extend(lock, ttl)` (294-315) is the caller's to call: the workload step `extend L`
//!   with [`ExtendRules::NODE_REDLOCK_4`]. It refuses a lock whose `expiration <
//!   Date.now()`, else runs `_lock` with the extend script: every attempt checked from its
//!   own `start`, and after a failed one `lock.unlock()` on every server before the retry,
//!   so a failed attempt gives the lock up while the caller still holds the old `lock`.
//! - `unlock` is the compare-and-delete script on every server, once.
//! - A crashed server's refused connection (`on_refused = "wait"`): node-redlock talks
//!   through ioredis, which keeps a command sent while it reconnects in its offline queue
//!   (`enableOfflineQueue: true`, `lib/redis/RedisOptions.ts` 166 at ioredis v5.0.0), so the
//!   attempt waits for that server as for one that never answers. Left out: ioredis gives
//!   up on a queued command after 20 reconnections (`maxRetriesPerRequest`, 175; the
//!   delays `Math.min(times * 50, 2000)`, 136-137, add up to 10.5 s) with
//!   `MaxRetriesPerRequestError` (`event_handler.ts` 208), and sends it once the server is
//!   back.
//!
//! Seen with the real library in the loop (`reproduce --library`, v4.2.0 on ioredis 5.4.1):
//! the model sends the acquire script as the `SET key value NX PX ttl` it amounts to, which
//! answers `OK`/nil where the script answers 1/0 (compared by meaning). Not modelled: every
//! script goes as `EVALSHA` first, and on a server that has not cached it (`NOSCRIPT`) as
//! `EVAL` again, a second round trip a pause can fall between; ioredis's `INFO` ready check
//! on connecting.

use super::{derives_nothing, Profile, ProtocolSpec};
use lockcheck_model::lock::redlock::{AttemptRules, Dispatch, DriftRounding, ExtendRules};
use lockcheck_model::lock::{ClockKind, OnRefused};

pub const V4: Profile = Profile {
    library: "node-redlock",
    source: "mike-marcacci/node-redlock: redlock.js at v4.2.0",
    versions: "4.0 to 4.2",
    first: [4, 0, 0],
    last: [4, 2, u32::MAX],
    summary: "Redlock on every server at once, waiting for every answer (no timeout): 11 attempts 100 to 299 ms apart, drift round(ttl/100) + 2 ms on the wall clock (Date.now()); `extend` refuses an expired lock and unlocks every server after a failed attempt",
    defaults,
    required: &[(
        "ttl_ms",
        "node-redlock's `lock(resource, ttl)` has no default TTL: give the `ttl` the code passes",
    )],
    derive: derives_nothing,
};

pub(super) fn defaults() -> ProtocolSpec {
    ProtocolSpec::Redlock {
        nodes: Vec::new(),
        ttl_ms: 0,
        drift_ppm: 10_000,
        drift_extra_ms: 2,
        drift_rounding: DriftRounding::Nearest,
        clock: ClockKind::Wall,
        dispatch: Dispatch::Multiplexed,
        attempt: AttemptRules::SEED,
        node_timeout_ms: None,
        retry_ms: (100..300).collect(),
        acquire_timeout_ms: None,
        max_attempts: Some(11),
        auto_extension: None,
        belief: Default::default(),
        extend: ExtendRules::NODE_REDLOCK_4,
        watchdog: None,
        on_refused: OnRefused::Wait,
    }
}
