//! redis-py's `Lock` (`redis.lock.Lock`, made by `Redis.lock(name, timeout=...)`), read
//! from `redis/lock.py` at tag v5.3.1; the file behaves the same from v4.3.4 (when
//! `acquire` took its `sleep` argument) to v8.2.0 (v5.0.2 adds the lock's name to its
//! errors, v6.0.0 `raise_on_release_error`, which only `__exit__` reads; v8.0.0 and v8.1.0
//! change type hints only). v8.2.0 changes three things no scenario can tell apart: the
//! token is a `uuid4`; a release that fails keeps the token (so the caller may retry it);
//! and the extend and reacquire scripts leave the expiry alone and answer 1 when the new
//! TTL would be 0 or less, which a TTL left above 0 and a positive extension never give.
//!
//! - Defaults (76-85): `timeout=None`, `sleep=0.1`, `blocking=True`,
//!   `blocking_timeout=None`, `thread_local=True`; the client's `socket_timeout` is `None`.
//! - `timeout=None` is the default `ttl_ms = "never"`: `SET name token NX` with no expiry,
//!   so a holder that crashes or never releases keeps the lock for good; `extend` and
//!   `reacquire` then raise `LockError` before sending anything.
//! - `acquire` (173-218): `SET name token NX PX int(timeout * 1000)` (`do_acquire`, 220-228),
//!   and while it fails: `sleep` seconds and try again, for ever unless `blocking_timeout`
//!   is given (`acquire_timeout_ms`). The timeout is checked after a failed attempt, before
//!   sleeping: `stop_trying_at = monotonic() + blocking_timeout` at the start, and it gives
//!   up when `monotonic() + sleep > stop_trying_at` (`give_up_check = "before_sleep"`); an
//!   attempt in flight is never cut short. The token is a fresh `uuid1` per `acquire`.
//! - `release` (248-265): the compare-and-delete script (`LUA_RELEASE_SCRIPT`, 27-34);
//!   `LockNotOwnedError` when the key is gone or someone else's.
//! - No request timeout: without `socket_timeout`, a command waits for its answer.
//! - A crashed node's refused connection fails the request at once (`on_refused = "fail"`):
//!   `Connection.connect` raises `ConnectionError` on the socket's `OSError`
//!   (`redis/connection.py` 373-384 at v5.3.1), with no retry by default (`Retry(NoBackoff(),
//!   0)`, 294-295). From v6.0.0 the client retries it 3 times first
//!   (`Retry(ExponentialWithJitterBackoff(base=1, cap=10), 3)`, `redis/client.py` 215-216):
//!   those seconds of backoff are not modelled. `acquire` lets the error out; the model
//!   takes it as a failed attempt, as for a caller that catches it and calls again.
//! - `thread_local=True` (`thread_local = true`, the default) keeps the token in
//!   `threading.local` (`__init__`): only the thread that acquired can release or extend.
//!   `thread_local=False` keeps it in a `SimpleNamespace` shared by the threads that use
//!   the object (clients of one `process` with one `lock_object`): `acquire` stores its
//!   token there on success, `release` reads it, raises `LockError` when there is none and
//!   clears it before sending the delete, and `extend` reads it (raising when there is
//!   none). So a thread whose key expired releases the lock of the thread that took it
//!   through the same object (the timeline in `__init__`'s docstring). The model clears
//!   the token before the delete whatever its answer, as v4.3.4 to v8.1 do; v8.2 keeps it
//!   after a failed release, which only a shared object could tell (another thread's
//!   release would present it again): not modelled.
//!
//! - `extend(t, replace_ttl)` and `reacquire()` are the caller's to call: the workload steps
//!   `extend L by D`, `extend L to D` and `extend L` (`LUA_EXTEND_SCRIPT`, which adds to the
//!   TTL left or replaces it, and `LUA_REACQUIRE_SCRIPT`, the owner-checked `PEXPIRE` to
//!   `timeout`); a 0 is `LockNotOwnedError`.
//!
//! Seen with the real library in the loop (`reproduce --library`, v5.3.1): the same
//! `SET NX` and retry loop (102 or 103 tries in 10.6 s where the model makes 103). Not
//! modelled: the scripts go as `EVALSHA`, and on a server that has not cached them
//! (`NOSCRIPT`) as `SCRIPT LOAD` and `EVALSHA` again, two more round trips.
//!
use super::{derives_nothing, Profile, ProtocolSpec};
use lockcheck_model::lock::single::{GiveUpCheck, Release};
use lockcheck_model::lock::OnRefused;

pub(crate) const V4_TO_8: Profile = Profile {
    library: "redis-py",
    source: "redis/redis-py: redis/lock.py at v5.3.1 (the same from v4.3.4 to v8.2.0)",
    versions: "4.3.4 to 8.2",
    first: [4, 3, 4],
    last: [8, 2, u32::MAX],
    summary: "SET NX PX on one node (SET NX with no expiry unless a timeout is given: the default timeout=None never expires), retried every 100 ms (for ever, or until the next try would start past blocking_timeout), released with the compare-and-delete script, no request timeout",
    defaults,
    required: &[],
    derive: derives_nothing,
};

fn defaults() -> ProtocolSpec {
    ProtocolSpec::SingleNode {
        node: String::new(),
        ttl_ms: None,
        release: Release::OwnerChecked,
        retry_ms: vec![100],
        acquire_timeout_ms: None,
        give_up_check: GiveUpCheck::BeforeSleep,
        max_attempts: None,
        request_timeout_ms: None,
        fencing_counter: None,
        via_sentinel: false,
        thread_local: true,
        on_refused: OnRefused::Fail,
    }
}
