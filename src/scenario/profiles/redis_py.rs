//! redis-py's `Lock` (`redis.lock.Lock`, made by `Redis.lock(name, timeout=...)`), read
//! from `redis/lock.py` at tag v5.3.1; the file behaves the same from v4.3.4 (when
//! `acquire` took its `sleep` argument) to v7.4.1 (v5.0.2 adds the lock's name to its
//! errors, v6.0.0 `raise_on_release_error`, which only `__exit__` reads).
//!
//! - Defaults (76-85): `timeout=None`, `sleep=0.1`, `blocking=True`,
//!   `blocking_timeout=None`, `thread_local=True`; the client's `socket_timeout` is `None`.
//! - `acquire` (173-218): `SET name token NX PX int(timeout * 1000)` (`do_acquire`, 220-228),
//!   and while it fails: `sleep` seconds and try again, for ever unless `blocking_timeout`
//!   is given (`acquire_timeout_ms`). The timeout is checked after a failed attempt, before
//!   sleeping: `stop_trying_at = monotonic() + blocking_timeout` at the start, and it gives
//!   up when `monotonic() + sleep > stop_trying_at` (`give_up_check = "before_sleep"`); an
//!   attempt in flight is never cut short. The token is a fresh `uuid1` per `acquire`.
//! - `release` (248-265): the compare-and-delete script (`LUA_RELEASE_SCRIPT`, 27-34);
//!   `LockNotOwnedError` when the key is gone or someone else's.
//! - No request timeout: without `socket_timeout`, a command waits for its answer.
//! - With `thread_local=True` the token lives in `threading.local`: only the thread that
//!   acquired can release or extend. `thread_local=False` shares it among the threads
//!   that use the object: give those clients one `owner`.
//!
//! - `extend(t, replace_ttl)` and `reacquire()` are the caller's to call: the workload steps
//!   `extend L by D`, `extend L to D` and `extend L` (`LUA_EXTEND_SCRIPT`, which adds to the
//!   TTL left or replaces it, and `LUA_REACQUIRE_SCRIPT`, the owner-checked `PEXPIRE` to
//!   `timeout`); a 0 is `LockNotOwnedError`.
//!
//! Left out: `timeout=None` (a key that never expires: give `ttl_ms`).

use super::{derives_nothing, Profile, ProtocolSpec};
use lockcheck_model::lock::single::{GiveUpCheck, Release};

pub(crate) const V4_TO_7: Profile = Profile {
    library: "redis-py",
    source: "redis/redis-py: redis/lock.py at v5.3.1 (the same from v4.3.4 to v7.4.1)",
    versions: "4.3.4 to 7.4",
    first: [4, 3, 4],
    last: [7, 4, u32::MAX],
    summary: "SET NX PX on one node, retried every 100 ms (for ever, or until the next try would start past blocking_timeout), released with the compare-and-delete script, no request timeout",
    defaults,
    required: &[(
        "ttl_ms",
        "redis-py's `timeout` defaults to None, a key that never expires: give the `timeout` the code passes",
    )],
    derive: derives_nothing,
};

fn defaults() -> ProtocolSpec {
    ProtocolSpec::SingleNode {
        node: String::new(),
        ttl_ms: 0,
        release: Release::OwnerChecked,
        retry_ms: vec![100],
        acquire_timeout_ms: None,
        give_up_check: GiveUpCheck::BeforeSleep,
        max_attempts: None,
        request_timeout_ms: None,
        fencing_counter: None,
        via_sentinel: false,
    }
}
