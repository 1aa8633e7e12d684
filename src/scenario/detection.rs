//! Deadlock detection in scenarios: which clients run inside seed 000's lock service (with
//! its in-process detector, or writing wait-edge keys for a shared detector), and the shared
//! detector processes.
//!
//! Durations take units as everywhere in scenario files (`ttl_ms = "1.5s"`). Shared
//! detectors come after the clients in process order; each watches every client that
//! writes wait-edge keys and every lock those clients use.

use super::build::{error, Names, ScenarioError};
use super::duration;
use super::Scenario;
use lockcheck_model::lock::detector::{
    Detector, LocalDetector, Reads, Resolution, WaitRecord, SEED_MAX_CHAIN,
};
use lockcheck_model::lock::service::{LockService, WaitEdges};
use lockcheck_model::lock::LockClient;
use lockcheck_model::process::Process;
use lockcheck_sim::world::ProcessSpec;
use serde::{Deserialize, Serialize};

/// Deadlock detection in a scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectionSpec {
    /// Clients that run inside seed 000's lock service.
    #[serde(default)]
    pub services: Vec<ServiceSpec>,
    /// Shared detector processes.
    #[serde(default)]
    pub detectors: Vec<DetectorSpec>,
}

/// A client inside seed 000's lock service.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceSpec {
    /// The client's name.
    pub client: String,
    /// Seed 000's in-process detector.
    #[serde(default)]
    pub local_detector: Option<LocalDetectorSpec>,
    /// Wait-edge keys for shared detectors.
    #[serde(default)]
    pub wait_edges: Option<WaitEdgesSpec>,
}

/// Seed 000's in-process detector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalDetectorSpec {
    #[serde(default = "seed_max_chain")]
    pub max_chain: usize,
    /// `as_written`: a wait registration lasts until release; `dropped_on_acquire`.
    #[serde(default = "as_written")]
    pub wait_record: WaitRecord,
}

/// Wait-edge keys `wait:<owner>` on a node, with a TTL refreshed at every attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitEdgesSpec {
    pub node: String,
    #[serde(deserialize_with = "duration::ms")]
    pub ttl_ms: u64,
}

/// A shared detector process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectorSpec {
    pub name: String,
    /// The Redis node with the lock and wait-edge keys.
    pub node: String,
    #[serde(deserialize_with = "duration::ms")]
    pub interval_ms: u64,
    #[serde(default)]
    #[serde(deserialize_with = "duration::ms")]
    pub start_after_ms: u64,
    /// `atomic` (one `MGET`) or `separate` (one `GET` per key).
    pub reads: Reads,
    /// Act only on a cycle a second read confirms.
    #[serde(default)]
    pub confirm: bool,
    /// `report_only`, `abort_victim`, `force_del` or `force_owner_checked`.
    pub resolution: Resolution,
    #[serde(default = "seed_max_chain")]
    pub max_chain: usize,
    #[serde(default = "default_request_timeout_ms")]
    #[serde(deserialize_with = "duration::ms")]
    pub request_timeout_ms: u64,
}

fn seed_max_chain() -> usize {
    SEED_MAX_CHAIN
}
fn as_written() -> WaitRecord {
    WaitRecord::AsWritten
}
fn default_request_timeout_ms() -> u64 {
    1_000
}

impl Scenario {
    fn detection(&self) -> DetectionSpec {
        self.detection.clone().unwrap_or_default()
    }

    /// The process of client `i`: the client alone, or inside seed 000's lock service.
    pub(super) fn client_process(
        &self,
        i: usize,
        client: LockClient,
        names: &Names,
    ) -> Result<Process, ScenarioError> {
        let name = &self.clients[i].name;
        let detection = self.detection();
        let Some((k, s)) = detection
            .services
            .iter()
            .enumerate()
            .find(|(_, s)| &s.client == name)
        else {
            return Ok(Process::Client(client));
        };
        let field = |f: &str| format!("detection.services[{k}].{f}");
        let wait_edges = match &s.wait_edges {
            None => None,
            Some(e) => Some(WaitEdges {
                node: self.redis_node(&e.node, &field("wait_edges.node"), names)?,
                ttl_ms: nonzero(e.ttl_ms, &field("wait_edges.ttl_ms"))?,
            }),
        };
        let detector = s.local_detector.as_ref().map(|d| LocalDetector {
            max_chain: d.max_chain,
            wait_record: d.wait_record,
        });
        Ok(Process::Service(LockService {
            client,
            detector,
            wait_edges,
        }))
    }

    /// Checks that every service names a client, once.
    pub(super) fn check_services(&self) -> Result<(), ScenarioError> {
        let detection = self.detection();
        for (k, s) in detection.services.iter().enumerate() {
            let field = format!("detection.services[{k}].client");
            if !self.clients.iter().any(|c| c.name == s.client) {
                return Err(error(field, format!("no client named `{}`", s.client)));
            }
            if detection.services[..k].iter().any(|o| o.client == s.client) {
                return Err(error(field, format!("`{}` has two services", s.client)));
            }
        }
        Ok(())
    }

    /// The names of the shared detectors, in process order.
    pub(super) fn detector_names(&self) -> Vec<String> {
        let detection = self.detection();
        detection.detectors.iter().map(|d| d.name.clone()).collect()
    }

    /// The shared detector processes.
    pub(super) fn detector_processes(
        &self,
        names: &Names,
    ) -> Result<Vec<ProcessSpec<Process>>, ScenarioError> {
        let detection = self.detection();
        let mut clients = Vec::new();
        let mut locks: Vec<Vec<u8>> = Vec::new();
        for s in detection.services.iter().filter(|s| s.wait_edges.is_some()) {
            let c = self.clients.iter().find(|c| c.name == s.client);
            let Some(c) = c else { continue };
            clients.push((names.id(&c.name, "detection.services")?, c.name.clone()));
            for l in c.workload.lock_names() {
                if !locks.contains(&l.as_bytes().to_vec()) {
                    locks.push(l.as_bytes().to_vec());
                }
            }
        }
        let mut processes = Vec::new();
        for (k, d) in detection.detectors.iter().enumerate() {
            let field = |f: &str| format!("detection.detectors[{k}].{f}");
            if clients.is_empty() {
                return Err(error(
                    field("name"),
                    "no client writes wait-edge keys (give a service `wait_edges`)",
                ));
            }
            let detector = Detector {
                node: self.redis_node(&d.node, &field("node"), names)?,
                clients: clients
                    .iter()
                    .map(|(p, n)| (*p, n.as_bytes().to_vec()))
                    .collect(),
                locks: locks.clone(),
                interval_ms: nonzero(d.interval_ms, &field("interval_ms"))?,
                start_after_ms: d.start_after_ms,
                reads: d.reads,
                confirm: d.confirm,
                resolution: d.resolution,
                max_chain: d.max_chain,
                request_timeout_ms: nonzero(d.request_timeout_ms, &field("request_timeout_ms"))?,
            };
            processes.push(ProcessSpec {
                name: d.name.clone(),
                actor: Process::Detector(detector),
                clock: Default::default(),
            });
        }
        Ok(processes)
    }

    fn redis_node(
        &self,
        name: &str,
        field: &str,
        names: &Names,
    ) -> Result<lockcheck_sim::world::ProcessId, ScenarioError> {
        let id = names.id(name, field)?;
        if id >= self.nodes.len() {
            return Err(error(field, format!("`{name}` is not a Redis node")));
        }
        Ok(id)
    }
}

fn nonzero(v: u64, field: &str) -> Result<u64, ScenarioError> {
    if v == 0 {
        return Err(error(field, "must be greater than 0"));
    }
    Ok(v)
}
