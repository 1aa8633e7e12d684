//! Scenarios as data: a topology, lock clients with their protocol and workload, a fault
//! envelope, exploration settings, the oracles to check and the expected verdict.
//!
//! A scenario names its processes; [`Scenario::build`] resolves the names and returns the
//! world (or a clear error naming the field). Built-in scenarios are listed in [`builtin`] and
//! made with the world-building helpers of [`kit`], which a user's own worlds can use too; the
//! same type is what scenario files deserialize into.

pub mod build;
pub mod builtin;
mod builtin_classic;
pub mod builtin_detector;
pub(crate) mod builtin_disk;
pub(crate) mod builtin_node_redlock_5;
pub(crate) mod builtin_node_redlock_extend;
pub(crate) mod builtin_profiles;
pub(crate) mod builtin_progress;
pub(crate) mod builtin_redis_py_timeout;
pub(crate) mod builtin_redisson;
pub(crate) mod builtin_redisson_fair;
pub(crate) mod builtin_redisson_replicas;
pub(crate) mod builtin_redisson_resend;
pub(crate) mod builtin_redlock;
pub(crate) mod builtin_redlock_baseline;
pub(crate) mod builtin_redsync_set_nx;
pub(crate) mod builtin_refused;
pub(crate) mod builtin_replicas;
pub(crate) mod builtin_resume_order;
pub(crate) mod builtin_retries;
pub(crate) mod builtin_schedules;
pub(crate) mod builtin_seed_003_questions;
pub(crate) mod builtin_sentinels;
pub(crate) mod builtin_steps;
pub(crate) mod builtin_threads;
pub(crate) mod builtin_workloads;
pub mod checks;
pub mod detection;
pub mod duration;
mod expected;
pub mod fault_when;
pub mod file;
mod inert;
pub mod kit;
mod oracle;
mod persistence;
pub mod profiles;
mod protocol;
pub mod set;
pub(crate) mod set_path;
mod steps;
mod strict;
pub(crate) mod suggest;
mod threads;
pub mod to_toml;
pub mod vary;

pub use expected::ExpectedVerdict;
pub use persistence::PersistenceDe;

pub use fault_when::FaultWhen;
pub use oracle::{Oracle, OracleSpec};
pub use protocol::{
    AutoExtensionSpec, FairSpec, ProtocolSpec, ServersMode, ServersSpec, WatchdogSpec,
};

use lockcheck_model::lock::redisson::Generation;
use lockcheck_model::lock::single::{GiveUpCheck, Release};
use lockcheck_model::lock::ClockKind;
use lockcheck_sim::world::ResumeOrder;
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
    /// The verdict the author expects; `check` compares with it when it is stated.
    #[serde(default, skip_serializing_if = "ExpectedVerdict::is_unstated")]
    pub expect: ExpectedVerdict,
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
    #[serde(default = "persistence::none")]
    pub persistence: PersistenceDe,
    #[serde(default)]
    pub clock: ClockSpecDe,
    #[serde(default)]
    pub min_replicas_to_write: u32,
    #[serde(default)]
    #[serde(deserialize_with = "duration::opt_ms")]
    pub repl_ack_every_ms: Option<u64>,
    /// `min-replicas-max-lag`: a replica whose last acknowledgement is older does not count
    /// towards `min_replicas_to_write` (Redis's default, 10 s).
    #[serde(
        default = "default_max_lag_ms",
        skip_serializing_if = "is_default_max_lag",
        deserialize_with = "duration::ms"
    )]
    pub min_replicas_max_lag_ms: u64,
    /// `replica-priority`: Sentinel promotes the lowest first, never 0 (Redis's default, 100).
    #[serde(
        default = "default_replica_priority",
        skip_serializing_if = "is_default_priority"
    )]
    pub replica_priority: u32,
}

fn default_replica_priority() -> u32 {
    lockcheck_model::sentinel::DEFAULT_PRIORITY
}

fn is_default_priority(priority: &u32) -> bool {
    *priority == default_replica_priority()
}

fn default_max_lag_ms() -> u64 {
    lockcheck_model::node::RedisNode::master().min_replicas_max_lag_ms
}

fn is_default_max_lag(ms: &u64) -> bool {
    *ms == default_max_lag_ms()
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
    /// How many Sentinels: one is named `sentinel` and stands for a quorum that agrees;
    /// several are `sentinel-1`, `sentinel-2`, ... and vote.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
    /// Sentinels that must see the master down (default: a majority of `count`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quorum: Option<u32>,
    /// `failover-timeout`: a Sentinel waits twice this long between its elections (Redis: 3 min).
    #[serde(
        default = "default_failover_timeout_ms",
        skip_serializing_if = "is_default_failover_timeout",
        deserialize_with = "duration::ms"
    )]
    pub failover_timeout_ms: u64,
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn default_failover_timeout_ms() -> u64 {
    180_000
}

fn is_default_failover_timeout(ms: &u64) -> bool {
    *ms == default_failover_timeout_ms()
}

impl SentinelSpec {
    /// One Sentinel (standing for a quorum that agrees) monitoring `master`.
    pub fn one(master: &str, ping_every_ms: u64, down_after_ms: u64) -> Self {
        SentinelSpec {
            master: master.into(),
            ping_every_ms,
            down_after_ms,
            count: 1,
            quorum: None,
            failover_timeout_ms: default_failover_timeout_ms(),
        }
    }

    /// The Sentinels' process names.
    pub fn names(&self) -> Vec<String> {
        match self.count {
            1 => vec!["sentinel".into()],
            n => (1..=n).map(|i| format!("sentinel-{i}")).collect(),
        }
    }
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
    /// The identity the lock records as its holder (Redisson: the `uuid` of
    /// `uuid:thread-id`, or the whole field when it holds a colon). Clients with the same
    /// owner share it, as two tasks on one thread of one process do. Default: the client's
    /// name, one identity per client, or for Redisson `process:thread` (see `threads.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The process this client is a thread of: clients with the same `process` are threads
    /// of one program (one Redisson instance, one redis-py module). Default: a process of
    /// its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    /// Its thread within `process` (Redisson's `threadId`); two clients on one thread are
    /// two tasks of one event loop or pooled executor. Default: the client's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// The lock object it uses (redis-py's `Lock`): threads of one process that name the same
    /// object share its token when the protocol's `thread_local` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_object: Option<String>,
}

/// What a client does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// The shorthand's locks, acquired in order and released in reverse.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locks: Vec<String>,
    #[serde(default = "one")]
    pub rounds: u32,
    #[serde(default)]
    #[serde(deserialize_with = "duration::ms")]
    pub start_after_ms: u64,
    /// The shorthand's work inside the critical section: one of these (a choice).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[serde(deserialize_with = "duration::vec_ms")]
    pub work_ms: Vec<u64>,
    /// Every round's steps (see `steps.rs`), instead of the shorthand.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<String>,
    /// One list of steps per round, instead of the shorthand.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_steps: Vec<Vec<String>>,
    /// Read and debit the account each round.
    #[serde(default)]
    pub uses_account: bool,
    #[serde(default = "default_amount")]
    pub amount: i64,
    #[serde(default)]
    pub checks_stop_event: bool,
    /// What the business code does when it fails to get a lock: `end_round` (the result
    /// is checked), `proceed` (`tryLock()`'s result ignored: the work runs without the lock)
    /// or `unlock` (`unlock()` in `finally` after a failed `lock()`).
    #[serde(default, skip_serializing_if = "OnFailSpec::is_default")]
    pub on_fail: OnFailSpec,
}

impl WorkloadSpec {
    /// The locks the workload names: the shorthand's, or those its steps take, in the order
    /// they first appear (steps that do not read are left to the builder to refuse).
    pub(crate) fn lock_names(&self) -> Vec<String> {
        let mut names = self.locks.clone();
        for step in self.steps.iter().chain(self.round_steps.iter().flatten()) {
            if let Ok(lockcheck_model::lock::NamedStep::Acquire { lock, .. }) =
                steps::read_step(step)
            {
                if !names.contains(&lock) {
                    names.push(lock);
                }
            }
        }
        names
    }
}

/// [`lockcheck_model::lock::OnFail`] in scenario files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFailSpec {
    #[default]
    EndRound,
    Proceed,
    Unlock,
}

impl OnFailSpec {
    fn is_default(&self) -> bool {
        *self == OnFailSpec::default()
    }
}

impl From<OnFailSpec> for lockcheck_model::lock::OnFail {
    fn from(spec: OnFailSpec) -> Self {
        use lockcheck_model::lock::OnFail;
        match spec {
            OnFailSpec::EndRound => OnFail::EndRound,
            OnFailSpec::Proceed => OnFail::Proceed,
            OnFailSpec::Unlock => OnFail::Unlock,
        }
    }
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
    /// One-way delays of every link (default: 1 ms).
    #[serde(default = "default_delays_ms", deserialize_with = "duration::vec_ms")]
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

fn default_delays_ms() -> Vec<u64> {
    vec![1]
}

impl Default for NetworkSpec {
    fn default() -> Self {
        NetworkSpec {
            delays_ms: default_delays_ms(),
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
    /// Disk stalls of nodes with `persistence = "aof_everysec"` (left out of the written
    /// form when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disk_stalls: Vec<DiskStallSpec>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_disk_stalls: u32,
    /// Time from the end of one fault of a process (a pause's resume, a crash's restart)
    /// to the start of its next; 0: none.
    #[serde(
        default,
        skip_serializing_if = "is_zero_ms",
        deserialize_with = "duration::ms"
    )]
    pub min_gap_ms: u64,
    /// At most this many faults on any one process (pauses, crashes, clock steps, disk
    /// stalls); none: only the budgets above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_process: Option<u32>,
    /// What a paused process runs first when it resumes (see `ResumeOrder`).
    #[serde(default, skip_serializing_if = "ResumeOrder::is_any")]
    pub resume_order: ResumeOrder,
}

fn is_zero_ms(ms: &u64) -> bool {
    *ms == 0
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A node whose disk may stop completing AOF fsyncs for one of `durations_ms`, while its
/// writes are still acknowledged (see `lockcheck_model::fault::RedisFault::DiskStall`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskStallSpec {
    pub node: String,
    #[serde(deserialize_with = "duration::vec_ms")]
    pub durations_ms: Vec<u64>,
    /// When it may happen (see [`FaultWhen`]): any time unless given.
    #[serde(default, skip_serializing_if = "FaultWhen::is_any_time")]
    pub when: FaultWhen,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PauseSpec {
    pub process: String,
    #[serde(deserialize_with = "duration::vec_ms")]
    pub durations_ms: Vec<u64>,
    /// When it may happen (see [`FaultWhen`]): any time unless given.
    #[serde(default, skip_serializing_if = "FaultWhen::is_any_time")]
    pub when: FaultWhen,
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
    /// When it may happen (see [`FaultWhen`]): any time unless given.
    #[serde(default, skip_serializing_if = "FaultWhen::is_any_time")]
    pub when: FaultWhen,
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
    /// When it may happen (see [`FaultWhen`]): any time unless given.
    #[serde(default, skip_serializing_if = "FaultWhen::is_any_time")]
    pub when: FaultWhen,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockStepSpec {
    pub process: String,
    #[serde(deserialize_with = "duration::vec_signed_ms")]
    pub deltas_ms: Vec<i64>,
    /// When it may happen (see [`FaultWhen`]): any time unless given.
    #[serde(default, skip_serializing_if = "FaultWhen::is_any_time")]
    pub when: FaultWhen,
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
    /// Bits of each state's fingerprint the search compares: 64 or 128 (see the guide's
    /// "Threads and fingerprints", `docs/guide/search.md`).
    #[serde(
        default = "default_fingerprint_bits",
        skip_serializing_if = "is_default_fingerprint_bits"
    )]
    pub fingerprint_bits: u32,
}

impl Default for ExploreSpec {
    fn default() -> Self {
        ExploreSpec {
            max_depth: None,
            max_states: default_max_states(),
            max_virtual_time_ms: None,
            random_seeds: default_seeds(),
            random_max_steps: default_walk_steps(),
            fingerprint_bits: default_fingerprint_bits(),
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
fn default_fingerprint_bits() -> u32 {
    64
}
fn is_default_fingerprint_bits(bits: &u32) -> bool {
    *bits == default_fingerprint_bits()
}

impl ClockSpecDe {
    pub fn spec(self) -> lockcheck_sim::world::ClockSpec {
        lockcheck_sim::world::ClockSpec::new(self.offset_ms, self.drift_ppm)
    }
}

/// Which clock a protocol measures elapsed time with, as written in scenarios.
pub type ClockKindDe = ClockKind;
