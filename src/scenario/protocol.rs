//! The lock protocols a scenario can give a client: one [`ProtocolSpec`] variant per
//! protocol, with its defaults (read from the model's constructors), the constructors the
//! built-in scenarios start from, which field `ttl` means to `sweep`, and its builder
//! (the model's [`Protocol`], every value checked with the field named).

mod builder;
mod redisson_servers;

pub use redisson_servers::{ServersMode, ServersSpec};

use super::duration;
use super::profiles::{LibrarySpec, Table};
use lockcheck_model::lock::engine::Belief;
use lockcheck_model::lock::redisson::{FairLock, Generation, Redisson, Retries};
use lockcheck_model::lock::redlock::{
    AttemptRules, Dispatch, DriftRounding, ExtendRules, Redlock, RenewCount, Watchdog,
};
use lockcheck_model::lock::single::{GiveUpCheck, Release, SingleNode};
use lockcheck_model::lock::{ClockKind, OnRefused};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// A lock protocol and its parameters: a protocol kind with its fields (`kind =
/// "redlock"`), or a client library's profile (`library = "redsync"`, [`LibrarySpec`]).
///
/// (De)serialised by hand (below): a table with `library` is a profile, any other is a
/// kind, read by the derived code (`remote = "Self"` makes it `ProtocolSpec::deserialize`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    remote = "Self",
    tag = "kind",
    rename_all = "snake_case",
    deny_unknown_fields
)]
pub enum ProtocolSpec {
    SingleNode {
        node: String,
        /// The key's TTL; `"never"`: the key never expires (redis-py's `timeout=None`).
        #[serde(deserialize_with = "duration::opt_ms")]
        ttl_ms: Option<u64>,
        #[serde(default = "owner_checked")]
        release: Release,
        /// Retry delay: one value, or several (a jittered retry: each a choice).
        #[serde(default = "default_retry_ms")]
        #[serde(deserialize_with = "duration::one_or_vec_ms")]
        #[serde(serialize_with = "duration::one_or_vec_ser")]
        retry_ms: Vec<u64>,
        #[serde(default)]
        #[serde(deserialize_with = "duration::opt_ms")]
        acquire_timeout_ms: Option<u64>,
        /// When the acquire timeout is checked: `at_deadline` (when it passes) or
        /// `before_sleep` (redis-py's `blocking_timeout`).
        #[serde(default = "at_deadline", skip_serializing_if = "is_at_deadline")]
        give_up_check: GiveUpCheck,
        /// Give up after this many failed attempts (none: never).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_attempts: Option<u64>,
        /// A request is waited for this long (`"never"`: for ever, as redis-py without a
        /// socket timeout).
        #[serde(default = "default_request_timeout_ms")]
        #[serde(deserialize_with = "duration::opt_ms")]
        request_timeout_ms: Option<u64>,
        /// Fenced acquire: `INCR` this counter key on the node for the token.
        #[serde(default)]
        fencing_counter: Option<String>,
        /// Ask Sentinel for the master before each attempt (`node` is then only the first
        /// guess for a release that found no holder).
        #[serde(default)]
        via_sentinel: bool,
        /// Whether the lock object keeps its token in thread-local storage (redis-py's
        /// `thread_local`, true by default); false: threads that share the object (the
        /// clients' `lock_object`) share its token.
        #[serde(default = "yes", skip_serializing_if = "is_yes")]
        thread_local: bool,
        /// A crashed node's refused connection: `fail` (the request fails at once) or
        /// `wait` (the library queues it; the request waits for its timeout).
        #[serde(default, skip_serializing_if = "OnRefused::is_fail")]
        on_refused: OnRefused,
    },
    /// Redlock over several masters: seed 000's sequential attempt (or the Redis
    /// documentation's multiplexed one, or seed 000's local-first optimisation), validity
    /// `ttl - elapsed - drift` on the client's wall or monotonic clock, and optionally seed
    /// 000's watchdog. Defaults are seed 000's values.
    Redlock {
        nodes: Vec<String>,
        #[serde(default = "default_redlock_ttl_ms")]
        #[serde(deserialize_with = "duration::ms")]
        ttl_ms: u64,
        /// The drift factor in parts per million of the TTL (seed 000: 0.01 = 10,000).
        #[serde(default = "default_drift_ppm")]
        drift_ppm: u32,
        /// Added to the drift (seed 000, node-redlock: 2 ms; redsync: none).
        #[serde(
            default = "default_drift_extra_ms",
            skip_serializing_if = "is_seed_drift_extra"
        )]
        #[serde(deserialize_with = "duration::ms")]
        drift_extra_ms: u64,
        /// How `ttl * drift factor` becomes whole ms: `up` (seed 000), `nearest`
        /// (node-redlock), `down` (redsync).
        #[serde(default = "default_drift_rounding", skip_serializing_if = "is_up")]
        drift_rounding: DriftRounding,
        #[serde(default = "monotonic")]
        clock: ClockKind,
        #[serde(default = "sequential")]
        dispatch: Dispatch,
        /// How an attempt is decided, undone and judged (`[...protocol.attempt]`; seed 000's
        /// rules when absent, node-redlock 5's with its profile).
        #[serde(default, skip_serializing_if = "AttemptRules::is_seed")]
        attempt: AttemptRules,
        /// A node's answer is waited for this long (`"never"`: for ever, as node-redlock).
        #[serde(default = "default_node_timeout_ms")]
        #[serde(deserialize_with = "duration::opt_ms")]
        node_timeout_ms: Option<u64>,
        /// Retry delay: one value, or several (a jittered retry: each a choice).
        #[serde(default = "default_redlock_retry")]
        #[serde(deserialize_with = "duration::one_or_vec_ms")]
        retry_ms: Vec<u64>,
        #[serde(default = "default_acquire_timeout")]
        #[serde(deserialize_with = "duration::opt_ms")]
        acquire_timeout_ms: Option<u64>,
        /// Give up after this many failed attempts (none: never).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_attempts: Option<u64>,
        #[serde(default)]
        watchdog: Option<WatchdogSpec>,
        /// node-redlock 5's `using`: extend automatically before the expiration.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        auto_extension: Option<AutoExtensionSpec>,
        /// How the business code's `extend L` goes (`[...protocol.extend]`; redsync's
        /// rules when absent, node-redlock's with its profiles).
        #[serde(default, skip_serializing_if = "ExtendRules::is_redsync")]
        extend: ExtendRules,
        /// What the business code believes: `validity` (it sees the expiration), or
        /// `until_aborted` (node-redlock 5's `using()` routine sees only the abort signal;
        /// the default of that profile with `auto_extension`).
        #[serde(default, skip_serializing_if = "is_validity")]
        belief: Belief,
        /// A crashed node's refused connection: `fail` (that node's try fails at once) or
        /// `wait` (the library queues it: node-redlock's ioredis).
        #[serde(default, skip_serializing_if = "OnRefused::is_fail")]
        on_refused: OnRefused,
    },
    /// Redisson's `RLock`: `lock()` with the watchdog, or an explicit lease; `tryLock` with a
    /// wait time; the watchdog generation (`up_to3_43` stops renewing after one error,
    /// `from3_44` retries).
    Redisson {
        node: String,
        /// An explicit lease (no watchdog); `null`: `lock()` with the watchdog.
        #[serde(default)]
        #[serde(deserialize_with = "duration::opt_ms")]
        lease_ms: Option<u64>,
        #[serde(default = "default_watchdog_timeout_ms")]
        #[serde(deserialize_with = "duration::ms")]
        watchdog_timeout_ms: u64,
        #[serde(default)]
        #[serde(deserialize_with = "duration::opt_ms")]
        wait_ms: Option<u64>,
        #[serde(default = "default_generation")]
        generation: Generation,
        #[serde(default = "default_redisson_timeout_ms")]
        #[serde(deserialize_with = "duration::ms")]
        request_timeout_ms: u64,
        /// One server, a master with replicas, or Sentinel; and the `WAIT` after each script.
        #[serde(default, skip_serializing_if = "ServersSpec::is_default")]
        servers: ServersSpec,
        /// `getFairLock`: waiters queue and are woken in order (`fair = {}`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fair: Option<FairSpec>,
        /// `retryAttempts`: a script without an answer within `request_timeout_ms` (or
        /// refused) is written again this many times (0: once; the profiles: Redisson's 3).
        #[serde(default, skip_serializing_if = "is_zero")]
        retry_attempts: u8,
        /// `retryInterval`: the wait before each new write (1.5 s).
        #[serde(
            default = "default_retry_interval_ms",
            skip_serializing_if = "is_default_retry_interval"
        )]
        #[serde(deserialize_with = "duration::ms")]
        retry_interval_ms: u64,
    },
    /// A client library's version, with its defaults and the fields the table overrides.
    #[serde(skip)]
    Library(LibrarySpec),
}

impl Serialize for ProtocolSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ProtocolSpec::Library(library) => library.serialize(s),
            kind => ProtocolSpec::serialize(kind, s),
        }
    }
}

impl<'de> Deserialize<'de> for ProtocolSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let table = super::strict::table(d)?;
        if table.contains_key("library") {
            LibrarySpec::from_table(table)
                .map(ProtocolSpec::Library)
                .map_err(de::Error::custom)
        } else {
            ProtocolSpec::from_table(table).map_err(de::Error::custom)
        }
    }
}

impl ProtocolSpec {
    /// A protocol kind's table (`kind` and its fields) read as the derived code reads it.
    pub(super) fn from_table(table: Table) -> Result<Self, serde_json::Error> {
        ProtocolSpec::deserialize(serde_json::Value::Object(table))
    }

    /// A protocol kind as a table, as the derived code writes it.
    pub(super) fn to_table(&self) -> Table {
        match ProtocolSpec::serialize(self, serde_json::value::Serializer) {
            Ok(serde_json::Value::Object(table)) => table,
            other => unreachable!("a protocol kind is written as a table, not {other:?}"),
        }
    }

    /// The protocol kind this spec stands for: itself, or its library profile's.
    pub fn resolved(&self) -> &ProtocolSpec {
        match self {
            ProtocolSpec::Library(library) => library.resolved(),
            kind => kind,
        }
    }
}

/// Seed 000's watchdog.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WatchdogSpec {
    /// Renew every this share of the validity, in per mille (seed 000: 300).
    #[serde(default = "default_interval_permille")]
    pub interval_permille: u16,
    /// Tries per node and round (seed 000: 3).
    #[serde(default = "default_tries")]
    pub tries: u8,
    #[serde(default = "default_renew_timeout_ms")]
    #[serde(deserialize_with = "duration::ms")]
    pub timeout_ms: u64,
    /// `any_answer`: seed 000's code as written (a renewal answering 0 still counts);
    /// `extended`: only a real extension counts.
    #[serde(default = "any_answer")]
    pub counts: RenewCount,
}

/// Redisson's fair lock (`getFairLock`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FairSpec {
    /// `threadWaitTime`: how long a waiter keeps its place in the queue (5 min).
    #[serde(default = "default_thread_wait_ms")]
    #[serde(deserialize_with = "duration::ms")]
    pub thread_wait_ms: u64,
}

fn default_thread_wait_ms() -> u64 {
    FairLock::REDISSON.thread_wait_ms
}

/// node-redlock 5's automatic extension (`using`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutoExtensionSpec {
    /// Extend this long before the expiration (`automaticExtensionThreshold`: 500 ms).
    #[serde(default = "default_threshold_ms")]
    #[serde(deserialize_with = "duration::ms")]
    pub threshold_ms: u64,
}

fn default_threshold_ms() -> u64 {
    500
}

// The defaults a scenario file may leave out, read from the model's constructors so that
// each is written once: seed 000's Redlock and watchdog, Redisson's `lock()`, the
// single-node lock.

fn redlock() -> Redlock {
    Redlock::seed_000(Vec::new())
}
fn watchdog() -> Watchdog {
    Watchdog::seed_000()
}
fn redisson() -> Redisson {
    Redisson::lock(0)
}
fn at_deadline() -> GiveUpCheck {
    single_node().give_up_check
}
fn yes() -> bool {
    true
}

fn is_yes(v: &bool) -> bool {
    *v
}

fn is_at_deadline(check: &GiveUpCheck) -> bool {
    *check == at_deadline()
}
fn single_node() -> SingleNode {
    SingleNode::new(0, 0)
}
fn default_interval_permille() -> u16 {
    watchdog().interval_permille
}
fn default_tries() -> u8 {
    watchdog().tries
}
fn default_renew_timeout_ms() -> u64 {
    watchdog().timeout_ms
}
fn any_answer() -> RenewCount {
    watchdog().counts
}
fn default_redlock_ttl_ms() -> u64 {
    redlock().ttl_ms
}
fn default_drift_ppm() -> u32 {
    redlock().drift_ppm
}
fn monotonic() -> ClockKind {
    redlock().clock
}
fn sequential() -> Dispatch {
    redlock().dispatch
}
fn default_node_timeout_ms() -> Option<u64> {
    redlock().node_timeout_ms
}
fn default_drift_extra_ms() -> u64 {
    redlock().drift_extra_ms
}
fn is_seed_drift_extra(ms: &u64) -> bool {
    *ms == default_drift_extra_ms()
}
fn default_drift_rounding() -> DriftRounding {
    redlock().drift_rounding
}
fn is_up(rounding: &DriftRounding) -> bool {
    *rounding == default_drift_rounding()
}
fn default_redlock_retry() -> Vec<u64> {
    redlock().retry_ms
}
fn default_acquire_timeout() -> Option<u64> {
    redlock().acquire_timeout_ms
}
fn default_watchdog_timeout_ms() -> u64 {
    redisson().watchdog_timeout_ms
}
fn default_generation() -> Generation {
    redisson().generation
}
fn default_redisson_timeout_ms() -> u64 {
    redisson().request_timeout_ms
}
fn is_zero(n: &u8) -> bool {
    *n == 0
}
fn default_retry_interval_ms() -> u64 {
    Retries::REDISSON.interval_ms
}
fn is_default_retry_interval(ms: &u64) -> bool {
    *ms == default_retry_interval_ms()
}
fn owner_checked() -> Release {
    single_node().release
}
fn default_retry_ms() -> Vec<u64> {
    single_node().retry_ms
}
fn is_validity(b: &Belief) -> bool {
    *b == Belief::Validity
}

fn default_request_timeout_ms() -> Option<u64> {
    single_node().request_timeout_ms
}

impl WatchdogSpec {
    /// Seed 000's watchdog.
    pub fn seed_000() -> Self {
        let w = watchdog();
        WatchdogSpec {
            interval_permille: w.interval_permille,
            tries: w.tries,
            timeout_ms: w.timeout_ms,
            counts: w.counts,
        }
    }
}

impl ProtocolSpec {
    /// Seed 000's Redlock over `nodes`, as its code is written.
    pub(crate) fn seed_000_redlock(nodes: Vec<String>) -> Self {
        let r = redlock();
        ProtocolSpec::Redlock {
            nodes,
            ttl_ms: r.ttl_ms,
            drift_ppm: r.drift_ppm,
            drift_extra_ms: r.drift_extra_ms,
            drift_rounding: r.drift_rounding,
            clock: r.clock,
            dispatch: r.dispatch,
            attempt: r.rules,
            node_timeout_ms: r.node_timeout_ms,
            retry_ms: r.retry_ms,
            acquire_timeout_ms: r.acquire_timeout_ms,
            max_attempts: r.max_attempts.map(u64::from),
            watchdog: r.watchdog.map(|_| WatchdogSpec::seed_000()),
            auto_extension: None,
            extend: r.extend,
            belief: r.belief,
            on_refused: r.on_refused,
        }
    }

    /// Redisson's `lock()` on `node` as it ships.
    pub(crate) fn redisson_lock(node: &str) -> Self {
        let r = redisson();
        ProtocolSpec::Redisson {
            node: node.into(),
            lease_ms: None,
            watchdog_timeout_ms: r.watchdog_timeout_ms,
            wait_ms: None,
            generation: r.generation,
            request_timeout_ms: r.request_timeout_ms,
            servers: ServersSpec::default(),
            fair: None,
            retry_attempts: r.retries.attempts,
            retry_interval_ms: default_retry_interval_ms(),
        }
    }

    /// The field `sweep --vary ttl=...` sets: how long the lock lives on the node without
    /// a renewal.
    pub(crate) fn ttl_field(&self) -> &'static str {
        match self.resolved() {
            ProtocolSpec::SingleNode { .. } | ProtocolSpec::Redlock { .. } => "ttl_ms",
            ProtocolSpec::Redisson {
                lease_ms: Some(_), ..
            } => "lease_ms",
            ProtocolSpec::Redisson { lease_ms: None, .. } => "watchdog_timeout_ms",
            ProtocolSpec::Library(_) => unreachable!("a profile resolves to a protocol kind"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_protocol_written_with_defaults_is_the_constructors_one() {
        let redlock: ProtocolSpec =
            serde_json::from_str(r#"{"kind": "redlock", "nodes": ["a", "b"], "watchdog": {}}"#)
                .unwrap();
        assert_eq!(
            redlock,
            ProtocolSpec::seed_000_redlock(vec!["a".into(), "b".into()])
        );
        let redisson: ProtocolSpec =
            serde_json::from_str(r#"{"kind": "redisson", "node": "r"}"#).unwrap();
        assert_eq!(redisson, ProtocolSpec::redisson_lock("r"));
        let ProtocolSpec::SingleNode {
            retry_ms,
            request_timeout_ms,
            release,
            ..
        } = serde_json::from_str(r#"{"kind": "single_node", "node": "r", "ttl_ms": 5}"#).unwrap()
        else {
            panic!("a single-node spec");
        };
        assert_eq!((retry_ms, request_timeout_ms), (vec![100], Some(1_000)));
        assert_eq!(release, Release::OwnerChecked);
    }

    #[test]
    fn ttl_names_the_field_that_bounds_the_lock_on_the_node() {
        let single: ProtocolSpec =
            serde_json::from_str(r#"{"kind": "single_node", "node": "r", "ttl_ms": 5}"#).unwrap();
        assert_eq!(single.ttl_field(), "ttl_ms");
        assert_eq!(ProtocolSpec::seed_000_redlock(vec![]).ttl_field(), "ttl_ms");
        let watchdog = ProtocolSpec::redisson_lock("r");
        assert_eq!(watchdog.ttl_field(), "watchdog_timeout_ms");
        let leased: ProtocolSpec =
            serde_json::from_str(r#"{"kind": "redisson", "node": "r", "lease_ms": 9}"#).unwrap();
        assert_eq!(leased.ttl_field(), "lease_ms");
    }
}
