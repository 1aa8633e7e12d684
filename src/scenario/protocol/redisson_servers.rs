//! Redisson's server configuration as a scenario writes it (`[clients.protocol.servers]`):
//! `useSingleServer()`, `useMasterSlaveServers()` or `useSentinelServers()`, with the
//! `Config` fields that govern the `WAIT` after each lock script. The model's
//! [`Servers`] holds what they mean; this is their spelling and their defaults, which are
//! the model's.

use crate::scenario::build::{error, ScenarioError};
use crate::scenario::duration;
use crate::scenario::Scenario;
use lockcheck_model::lock::redisson::{NoneSynced, ReplicaSync, Servers};
use lockcheck_sim::world::ProcessId;
use serde::{Deserialize, Serialize};

/// Which of Redisson's server configurations the client uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServersMode {
    /// `useSingleServer()`: no `WAIT`.
    Single,
    /// `useMasterSlaveServers()`: `node` is the master for good; `WAIT` for its replicas.
    MasterSlave,
    /// `useSentinelServers()`: the master is asked of the scenario's Sentinel every
    /// `scan_interval_ms`; `WAIT` for the replicas it sees up.
    Sentinel,
}

/// `[clients.protocol.servers]` of a Redisson client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServersSpec {
    #[serde(default = "single")]
    pub mode: ServersMode,
    /// The Sentinel it asks for the master (default: the first). Redisson asks them in a
    /// shuffled order; which one answers is what a partition decides, and a scenario says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentinel: Option<String>,
    /// `SentinelServersConfig.scanInterval`.
    #[serde(
        default = "default_scan_interval_ms",
        deserialize_with = "duration::ms"
    )]
    pub scan_interval_ms: u64,
    /// `Config.slavesSyncTimeout`: the `WAIT`'s timeout.
    #[serde(default = "default_sync_timeout_ms", deserialize_with = "duration::ms")]
    pub slaves_sync_timeout_ms: u64,
    /// `Config.checkLockSyncedSlaves`: a `WAIT` that counted no replica fails the call.
    #[serde(default = "checked")]
    pub check_lock_synced_slaves: bool,
    /// What a failed acquire does when no replica was synced (the version decides).
    #[serde(default = "default_none_synced")]
    pub none_synced: NoneSynced,
}

fn single() -> ServersMode {
    ServersMode::Single
}
fn default_scan_interval_ms() -> u64 {
    1_000
}
fn default_sync_timeout_ms() -> u64 {
    ReplicaSync::new(0).timeout_ms
}
fn checked() -> bool {
    ReplicaSync::new(0).check_synced
}
fn default_none_synced() -> NoneSynced {
    ReplicaSync::new(0).none_synced
}

impl Default for ServersSpec {
    fn default() -> Self {
        ServersSpec {
            mode: single(),
            sentinel: None,
            scan_interval_ms: default_scan_interval_ms(),
            slaves_sync_timeout_ms: default_sync_timeout_ms(),
            check_lock_synced_slaves: checked(),
            none_synced: default_none_synced(),
        }
    }
}

impl ServersSpec {
    /// Redisson's defaults on one server: what a scenario that says nothing gets.
    pub fn is_default(&self) -> bool {
        *self == ServersSpec::default()
    }

    /// The model's servers for a client whose master is `node`; `field` names this table.
    pub fn build(
        &self,
        scenario: &Scenario,
        node: ProcessId,
        sentinel: Option<ProcessId>,
        field: &str,
    ) -> Result<Servers, ScenarioError> {
        let master = &scenario.nodes[node].name;
        let replicas = scenario
            .nodes
            .iter()
            .filter(|n| n.replica_of.as_deref() == Some(master.as_str()))
            .count();
        let sync = ReplicaSync {
            replicas: replicas.min(u8::MAX as usize) as u8,
            timeout_ms: positive(self.slaves_sync_timeout_ms, field, "slaves_sync_timeout_ms")?,
            check_synced: self.check_lock_synced_slaves,
            none_synced: self.none_synced,
        };
        Ok(match self.mode {
            ServersMode::Single => Servers::Single,
            ServersMode::MasterSlave => Servers::MasterSlave { sync },
            ServersMode::Sentinel => Servers::Sentinel {
                sentinel: sentinel.ok_or_else(|| {
                    error(
                        format!("{field}.mode"),
                        "`sentinel` needs the scenario's [sentinel]; it has none",
                    )
                })?,
                scan_interval_ms: positive(self.scan_interval_ms, field, "scan_interval_ms")?,
                sync,
            },
        })
    }
}

fn positive(v: u64, field: &str, name: &str) -> Result<u64, ScenarioError> {
    crate::scenario::build::positive(v, &format!("{field}.{name}"))
}
