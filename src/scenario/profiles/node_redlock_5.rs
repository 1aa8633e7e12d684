//! node-redlock (npm `redlock`) v5's `acquire(resources, duration)`, read from
//! `src/index.ts` at tag v5.0.0-beta.2 (v5.0.0-beta.1 behaves the same; beta.2 adds
//! `retryCount = -1` for no limit). The defaults are v4's: drift factor 0.01, `retryCount`
//! 10 (11 attempts), `retryDelay` 200 ms with `retryJitter` 100 ms (every whole ms from 100
//! to 299; defaults at 105-111), the wall clock (`Date.now()`), no request timeout (ioredis
//! sets none); the attempt is not ([`AttemptRules::NODE_REDLOCK_5`]):
//!
//! - `acquire` (296-343) reads `start = Date.now()` once, before the first attempt, and
//!   returns `new Lock(..., start + duration - drift)`, with the drift
//!   `Math.round(driftFactor * duration) + 2`, as soon as `_execute` reports a quorum: the
//!   retries eat into the validity, and the expiration is never compared with the clock,
//!   so a lock whose validity is over is returned all the same.
//! - `_attemptOperation` (470-543) sends the script to every client at once and resolves
//!   as soon as `votesFor.size === quorumSize` or `votesAgainst.size === quorumSize`
//!   (an error counts against); with an even number of servers a 2 to 2 split never
//!   resolves, and neither does `acquire`.
//! - `_execute` (418-468) retries after a failed attempt without undoing it: the keys it
//!   set stay until they expire or until `acquire`'s `catch` runs the release script once
//!   (`retryCount: 0`), after the last attempt.
//!
//! `extend(existing, duration)` (369-411) is the caller's to call: the workload step `extend
//! L` with [`ExtendRules::NODE_REDLOCK_5`]: `start = Date.now()`, an expired lock refused,
//! then `_execute`'s attempts and retries without undo, the new expiration `start +
//! duration - drift` never compared with the clock; a failure leaves the old lock as it
//! was. `using(resources, duration, routine)` is the profile with `auto_extension = {}`
//! (module `redlock::auto_extension` of the model). Its routine is handed only an
//! `AbortSignal` (`return await routine(signal)`), never the lock or its expiration, so what it believes is that it
//! holds the lock until the signal is aborted: with `auto_extension` the profile's `belief`
//! is `until_aborted` (`acquire`'s caller holds the `Lock` and may read `lock.expiration`:
//! `validity`). Left out: `release`'s own retries (the model's release is one round): with
//! the real library in the loop (`reproduce --library`), a release that finds the lock gone
//! was sent 9 to 11 times, 200 ms apart, and returned about 2.2 s after the model's, so the
//! client's next round starts that much later. The `EVALSHA`-then-`EVAL` round trip on a
//! server without the script cached is v4's (see there).

use super::{node_redlock, Profile, ProtocolSpec};
use lockcheck_model::lock::engine::Belief;
use lockcheck_model::lock::redlock::{AttemptRules, ExtendRules};

pub(crate) const V5: Profile = Profile {
    library: "node-redlock",
    source: "mike-marcacci/node-redlock: src/index.ts at v5.0.0-beta.2",
    versions: "5.0.0-beta.1 to 5.0.0-beta.2",
    first: [5, 0, 0],
    last: [5, 0, 0],
    summary: "as 4, but decided at the first quorum either way (a tie never is), a failed attempt's keys deleted only after the last one, the validity counted from the first attempt and never checked; `extend` likewise, retried without undo",
    defaults,
    required: &[(
        "ttl_ms",
        "node-redlock's `acquire(resources, duration)` has no default duration: give the `duration` the code passes",
    )],
    derive,
};

/// `using()`'s routine believes until its signal is aborted.
fn derive(spec: &mut ProtocolSpec, overridden: &dyn Fn(&str) -> bool) {
    if let ProtocolSpec::Redlock {
        auto_extension: Some(_),
        belief,
        ..
    } = spec
    {
        if !overridden("belief") {
            *belief = Belief::UntilAborted;
        }
    }
}

fn defaults() -> ProtocolSpec {
    let mut spec = node_redlock::defaults();
    if let ProtocolSpec::Redlock {
        attempt, extend, ..
    } = &mut spec
    {
        *attempt = AttemptRules::NODE_REDLOCK_5;
        *extend = ExtendRules::NODE_REDLOCK_5;
    }
    spec
}
