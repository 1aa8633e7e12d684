//! Scenarios as data: a topology, lock clients with their protocol and workload, a fault
//! envelope, exploration settings, the oracles to check and the expected verdict.
//!
//! A scenario names its processes; [`Scenario::build`] resolves the names and returns the
//! world (or a clear error naming the field). Built-in scenarios live in [`builtin`]; the same
//! type is what scenario files deserialize into.

pub mod build;
pub mod builtin;
pub mod builtin_detector;
pub mod builtin_redisson;
pub mod builtin_redlock;
pub mod checks;
pub mod detection;
pub mod duration;
pub mod set_path;
pub mod suggest;

use lockcheck_model::lock::redisson::Generation;
use lockcheck_model::lock::redlock::Dispatch;
use lockcheck_model::lock::redlock::RenewCount;
use lockcheck_model::lock::single::Release;
use lockcheck_model::lock::ClockKind;
use lockcheck_model::node::Persistence;
use serde::{Deserialize, Serialize};

/// A complete what-if question about a lock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub sentinel: Option<SentinelSpec>,
    pub clients: Vec<ClientSpec>,
    #[serde(default)]
    pub account: Option<AccountSpec>,
    /// A linearizable token service named `tokens`.
    #[serde(default)]
    pub token_service: bool,
    #[serde(default)]
    pub network: NetworkSpec,
    #[serde(default)]
    pub faults: FaultsSpec,
    #[serde(default)]
    pub explore: ExploreSpec,
    pub oracles: Vec<OracleSpec>,
    /// Deadlock detection: seed 000's lock service around clients, shared detectors.
    #[serde(default)]
    pub detection: Option<detection::DetectionSpec>,
    pub expect: Expected,
}

/// A process's clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSpecDe {
    #[serde(default)]
    #[serde(deserialize_with = "duration::signed_ms")]
    pub offset_ms: i64,
    #[serde(default)]
    pub drift_ppm: i64,
}

/// A Redis node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(default)]
    pub replica_of: Option<String>,
    #[serde(default = "no_persistence")]
    pub persistence: PersistenceDe,
    #[serde(default)]
    pub clock: ClockSpecDe,
    #[serde(default)]
    pub min_replicas_to_write: u32,
    #[serde(default)]
    #[serde(deserialize_with = "duration::opt_ms")]
    pub repl_ack_every_ms: Option<u64>,
}

/// Persistence, as written in scenarios.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PersistenceDe {
    None,
    AofEverysec,
    AofAlways,
}

impl From<PersistenceDe> for Persistence {
    fn from(p: PersistenceDe) -> Self {
        match p {
            PersistenceDe::None => Persistence::None,
            PersistenceDe::AofEverysec => Persistence::AofEverySec,
            PersistenceDe::AofAlways => Persistence::AofAlways,
        }
    }
}

fn no_persistence() -> PersistenceDe {
    PersistenceDe::None
}

/// Sentinel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentinelSpec {
    pub master: String,
    #[serde(deserialize_with = "duration::ms")]
    pub ping_every_ms: u64,
    #[serde(deserialize_with = "duration::ms")]
    pub down_after_ms: u64,
}

/// A lock client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientSpec {
    pub name: String,
    pub protocol: ProtocolSpec,
    pub workload: WorkloadSpec,
    /// `true`: fencing tokens from the token service (else the protocol's own, if any).
    #[serde(default)]
    pub token_service_fencing: bool,
    #[serde(default)]
    pub clock: ClockSpecDe,
}

/// A lock protocol and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ProtocolSpec {
    SingleNode {
        node: String,
        #[serde(deserialize_with = "duration::ms")]
        ttl_ms: u64,
        #[serde(default = "owner_checked")]
        release: Release,
        #[serde(default = "default_retry_ms")]
        #[serde(deserialize_with = "duration::ms")]
        retry_ms: u64,
        #[serde(default)]
        #[serde(deserialize_with = "duration::opt_ms")]
        acquire_timeout_ms: Option<u64>,
        #[serde(default = "default_request_timeout_ms")]
        #[serde(deserialize_with = "duration::ms")]
        request_timeout_ms: u64,
        /// Fenced acquire: `INCR` this counter key on the node for the token.
        #[serde(default)]
        fencing_counter: Option<String>,
        /// Ask Sentinel for the master before each attempt (`node` is then only the first
        /// guess for a release that found no holder).
        #[serde(default)]
        via_sentinel: bool,
    },
    /// Redlock over several masters: seed 000's sequential attempt (or the Redis
    /// documentation's multiplexed one, or seed 000's local-first optimisation), validity
    /// `ttl - elapsed - drift` on the client's wall or monotonic clock, and optionally seed
    /// 000's watchdog. Defaults are seed 000's values.
    Redlock {
        nodes: Vec<String>,
        #[serde(default = "default_watchdog_ms")]
        #[serde(deserialize_with = "duration::ms")]
        ttl_ms: u64,
        /// The drift factor in parts per million of the TTL (seed 000: 0.01 = 10,000).
        #[serde(default = "default_drift_ppm")]
        drift_ppm: u32,
        #[serde(default = "monotonic")]
        clock: ClockKind,
        #[serde(default = "sequential")]
        dispatch: Dispatch,
        #[serde(default = "default_node_timeout_ms")]
        #[serde(deserialize_with = "duration::ms")]
        node_timeout_ms: u64,
        /// Retry delay; several values: a random choice among them.
        #[serde(default = "default_redlock_retry")]
        #[serde(deserialize_with = "duration::vec_ms")]
        retry_ms: Vec<u64>,
        #[serde(default = "default_acquire_timeout")]
        #[serde(deserialize_with = "duration::opt_ms")]
        acquire_timeout_ms: Option<u64>,
        #[serde(default)]
        watchdog: Option<WatchdogSpec>,
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
        #[serde(default = "default_watchdog_ms")]
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
    },
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

fn default_interval_permille() -> u16 {
    300
}
fn default_tries() -> u8 {
    3
}
fn default_renew_timeout_ms() -> u64 {
    1_000
}
fn any_answer() -> RenewCount {
    RenewCount::AnyAnswer
}
fn default_drift_ppm() -> u32 {
    10_000
}
fn monotonic() -> ClockKind {
    ClockKind::Monotonic
}
fn sequential() -> Dispatch {
    Dispatch::Sequential
}
fn default_node_timeout_ms() -> u64 {
    2_000
}
fn default_redlock_retry() -> Vec<u64> {
    vec![500]
}
fn default_acquire_timeout() -> Option<u64> {
    Some(10_000)
}

fn default_watchdog_ms() -> u64 {
    30_000
}
fn default_generation() -> Generation {
    Generation::UpTo3_43
}
fn default_redisson_timeout_ms() -> u64 {
    3_000
}

fn owner_checked() -> Release {
    Release::OwnerChecked
}
fn default_retry_ms() -> u64 {
    100
}
fn default_request_timeout_ms() -> u64 {
    1_000
}

/// What a client does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    pub locks: Vec<String>,
    #[serde(default = "one")]
    pub rounds: u32,
    #[serde(default)]
    #[serde(deserialize_with = "duration::ms")]
    pub start_after_ms: u64,
    #[serde(deserialize_with = "duration::vec_ms")]
    pub work_ms: Vec<u64>,
    /// Read and debit the account each round.
    #[serde(default)]
    pub uses_account: bool,
    #[serde(default = "default_amount")]
    pub amount: i64,
    #[serde(default)]
    pub checks_stop_event: bool,
}

fn one() -> u32 {
    1
}
fn default_amount() -> i64 {
    10
}

/// The protected account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountSpec {
    #[serde(default = "default_balance")]
    pub initial_balance: i64,
    #[serde(default)]
    pub fencing: bool,
    #[serde(default)]
    pub unique_biz_id: bool,
    #[serde(default)]
    pub conditional_debit: bool,
}

fn default_balance() -> i64 {
    100
}

/// Every link's behaviour.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    #[serde(deserialize_with = "duration::vec_ms")]
    pub delays_ms: Vec<u64>,
    #[serde(default)]
    pub reordering: bool,
    #[serde(default)]
    pub lossy: bool,
    /// Links that differ from the rest (both directions).
    #[serde(default)]
    pub links: Vec<LinkOverride>,
}

/// The delays between two processes, both ways (or only from the first to the second).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOverride {
    pub between: [String; 2],
    #[serde(deserialize_with = "duration::vec_ms")]
    pub delays_ms: Vec<u64>,
    #[serde(default)]
    pub one_way: bool,
}

impl Default for NetworkSpec {
    fn default() -> Self {
        NetworkSpec {
            delays_ms: vec![1],
            reordering: false,
            lossy: false,
            links: Vec::new(),
        }
    }
}

/// The fault envelope, with processes by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultsSpec {
    #[serde(default)]
    pub pauses: Vec<PauseSpec>,
    #[serde(default)]
    pub max_pauses: u32,
    #[serde(default)]
    pub partitions: Vec<PartitionSpec>,
    #[serde(default)]
    pub max_partitions: u32,
    #[serde(default)]
    pub crashes: Vec<CrashSpec>,
    #[serde(default)]
    pub max_crashes: u32,
    #[serde(default)]
    pub clock_steps: Vec<ClockStepSpec>,
    #[serde(default)]
    pub max_clock_steps: u32,
    #[serde(default)]
    pub max_losses: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PauseSpec {
    pub process: String,
    #[serde(deserialize_with = "duration::vec_ms")]
    pub durations_ms: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionSpec {
    pub name: String,
    pub side_a: Vec<String>,
    pub side_b: Vec<String>,
    /// Cut only the links from side A to side B.
    #[serde(default)]
    pub one_way: bool,
    /// How long it lasts; `null` (none): it never heals.
    #[serde(deserialize_with = "duration::vec_opt_ms")]
    pub durations_ms: Vec<Option<u64>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrashSpec {
    pub process: String,
    /// `false`: a process crash; `true`: a power loss.
    #[serde(default)]
    pub power_loss: bool,
    /// Restart after this long; `null`: stays down.
    #[serde(deserialize_with = "duration::vec_opt_ms")]
    pub restart_after_ms: Vec<Option<u64>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockStepSpec {
    pub process: String,
    #[serde(deserialize_with = "duration::vec_signed_ms")]
    pub deltas_ms: Vec<i64>,
}

/// How to explore.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExploreSpec {
    #[serde(default)]
    pub max_depth: Option<u32>,
    #[serde(default = "default_max_states")]
    pub max_states: u64,
    #[serde(default)]
    #[serde(deserialize_with = "duration::opt_ms")]
    pub max_virtual_time_ms: Option<u64>,
    /// Random walks for random mode.
    #[serde(default = "default_seeds")]
    pub random_seeds: u64,
    /// Steps one random walk takes at most (worlds with periodic timers never go quiet).
    #[serde(default = "default_walk_steps")]
    pub random_max_steps: u32,
}

impl Default for ExploreSpec {
    fn default() -> Self {
        ExploreSpec {
            max_depth: None,
            max_states: default_max_states(),
            max_virtual_time_ms: None,
            random_seeds: default_seeds(),
            random_max_steps: default_walk_steps(),
        }
    }
}

fn default_max_states() -> u64 {
    2_000_000
}
fn default_seeds() -> u64 {
    2_000
}
fn default_walk_steps() -> u32 {
    1_000
}

/// An oracle to check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum OracleSpec {
    MeLock,
    MeResource,
    Liveness {
        #[serde(deserialize_with = "duration::ms")]
        bound_ms: u64,
    },
    PauseWhileHolding,
    RenewalFailed,
    HolderCrashed,
    /// Witness: two clients did believe they held the same lock at once.
    LockOverlap,
    /// A detector reported a cycle the true wait-for graph does not have at report time.
    DetectorFalsePositive,
    /// A true deadlock lasted `bound_ms` without being reported.
    DetectorFalseNegative {
        #[serde(deserialize_with = "duration::ms")]
        bound_ms: u64,
    },
    /// A true deadlock was not gone within `bound_ms`.
    DeadlockLiveness {
        #[serde(deserialize_with = "duration::ms")]
        bound_ms: u64,
    },
    /// Witness: a deadlock formed.
    DeadlockFormed,
    /// Witness: a detector reported a cycle.
    DetectorReported,
}

/// The verdict a scenario is expected to get.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case", deny_unknown_fields)]
pub enum Expected {
    /// A violation of this oracle is found.
    Violated { oracle: String },
    /// No violation up to the exploration bounds.
    Safe,
}

impl ClockSpecDe {
    pub fn spec(self) -> lockcheck_sim::world::ClockSpec {
        lockcheck_sim::world::ClockSpec::new(self.offset_ms, self.drift_ppm)
    }
}

/// Which clock a protocol measures elapsed time with, as written in scenarios.
pub type ClockKindDe = ClockKind;
