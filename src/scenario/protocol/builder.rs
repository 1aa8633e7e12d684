//! A protocol spec made the model's [`Protocol`]: each value checked, with the field named
//! in the error (`clients[1].protocol.retry_ms[0]`), the names resolved to processes.

use super::{AutoExtensionSpec, ProtocolSpec, WatchdogSpec};
use crate::scenario::build::{error, positive, Names, ScenarioError};
use crate::scenario::Scenario;
use lockcheck_model::lock::engine::Belief;
use lockcheck_model::lock::redisson::{FairLock, Redisson, Retries};
use lockcheck_model::lock::redlock::{AutoExtension, Redlock, Watchdog};
use lockcheck_model::lock::single::{GiveUpCheck, SingleNode};
use lockcheck_model::lock::Protocol;
use lockcheck_sim::world::ProcessId;

/// Builds one client's protocol; errors name fields below `field` (`clients[1].protocol`).
struct Builder<'a> {
    scenario: &'a Scenario,
    field: &'a str,
    names: &'a Names,
}

impl Builder<'_> {
    fn at(&self, f: &str) -> String {
        format!("{}.{f}", self.field)
    }

    fn positive(&self, v: u64, f: &str) -> Result<u64, ScenarioError> {
        positive(v, &self.at(f))
    }

    /// A retry delay set: at least one delay, each positive.
    fn retry_delays(&self, retry_ms: &[u64]) -> Result<Vec<u64>, ScenarioError> {
        if retry_ms.is_empty() {
            return Err(error(self.at("retry_ms"), "give at least one retry delay"));
        }
        retry_ms
            .iter()
            .enumerate()
            .map(|(i, &ms)| self.positive(ms, &format!("retry_ms[{i}]")))
            .collect()
    }

    /// An attempt limit: 1 to 65,535 attempts.
    fn max_attempts(&self, max: Option<u64>) -> Result<Option<u16>, ScenarioError> {
        let Some(max) = max else {
            return Ok(None);
        };
        match u16::try_from(max) {
            Ok(0) => Err(error(
                self.at("max_attempts"),
                "must be at least 1 (leave it out for no limit)",
            )),
            Ok(max) => Ok(Some(max)),
            Err(_) => Err(error(
                self.at("max_attempts"),
                format!("{max} attempts: at most 65535 (leave it out for no limit)"),
            )),
        }
    }

    /// The Redis node called `name`, written at field `f`.
    fn redis_node(&self, name: &str, f: &str) -> Result<ProcessId, ScenarioError> {
        let id = self.names.id(name, &self.at(f))?;
        if id >= self.scenario.nodes.len() {
            return Err(error(self.at(f), format!("`{name}` is not a Redis node")));
        }
        Ok(id)
    }

    fn build(&self, p: &ProtocolSpec) -> Result<Protocol, ScenarioError> {
        let p = p.resolved();
        Ok(match p {
            ProtocolSpec::Redlock { .. } => Protocol::Redlock(self.redlock(p)?),
            ProtocolSpec::Redisson { .. } => Protocol::Redisson(self.redisson(p)?),
            ProtocolSpec::SingleNode { .. } => Protocol::SingleNode(self.single_node(p)?),
            ProtocolSpec::Library(_) => unreachable!("a profile resolves to a protocol kind"),
        })
    }

    fn redlock(&self, p: &ProtocolSpec) -> Result<Redlock, ScenarioError> {
        let ProtocolSpec::Redlock {
            nodes,
            ttl_ms,
            drift_ppm,
            drift_extra_ms,
            drift_rounding,
            clock,
            dispatch,
            attempt,
            node_timeout_ms,
            retry_ms,
            acquire_timeout_ms,
            max_attempts,
            watchdog,
            auto_extension,
            extend,
            belief,
            on_refused,
        } = p
        else {
            unreachable!("Builder::build hands Redlock specs only to Builder::redlock")
        };
        let mut r = Redlock::seed_000(self.redlock_nodes(nodes)?);
        r.ttl_ms = self.positive(*ttl_ms, "ttl_ms")?;
        r.drift_ppm = *drift_ppm;
        r.drift_extra_ms = *drift_extra_ms;
        r.drift_rounding = *drift_rounding;
        r.clock = *clock;
        r.dispatch = *dispatch;
        r.rules = *attempt;
        r.node_timeout_ms = node_timeout_ms
            .map(|ms| self.positive(ms, "node_timeout_ms"))
            .transpose()?;
        r.retry_ms = self.retry_delays(retry_ms)?;
        r.acquire_timeout_ms = *acquire_timeout_ms;
        r.max_attempts = self.max_attempts(*max_attempts)?;
        r.watchdog = watchdog.as_ref().map(|w| self.watchdog(w)).transpose()?;
        r.auto_extension = auto_extension
            .as_ref()
            .map(|e| self.auto_extension(e, r.ttl_ms, r.watchdog.is_some()))
            .transpose()?;
        r.extend = *extend;
        r.on_refused = *on_refused;
        if *belief == Belief::UntilAborted && r.auto_extension.is_none() {
            return Err(error(
                self.at("belief"),
                "`until_aborted` is the belief of node-redlock 5's `using()`, which gives the routine an abort signal: it needs `auto_extension`",
            ));
        }
        r.belief = *belief;
        Ok(r)
    }

    /// Redlock's masters: at least one, each a node of the scenario, none twice (an answer
    /// is told apart by its sender).
    fn redlock_nodes(&self, nodes: &[String]) -> Result<Vec<ProcessId>, ScenarioError> {
        let ids = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| self.redis_node(n, &format!("nodes[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        if ids.is_empty() {
            return Err(error(self.at("nodes"), "Redlock needs at least one node"));
        }
        if let Some(i) = (1..ids.len()).find(|&i| ids[..i].contains(&ids[i])) {
            return Err(error(
                self.at(&format!("nodes[{i}]")),
                format!(
                    "`{}` is listed twice: Redlock needs distinct nodes",
                    nodes[i]
                ),
            ));
        }
        Ok(ids)
    }

    /// Seed 000's watchdog, its values checked.
    fn watchdog(&self, w: &WatchdogSpec) -> Result<Watchdog, ScenarioError> {
        if !(1..=4).contains(&w.tries) {
            return Err(error(self.at("watchdog.tries"), "must be 1 to 4"));
        }
        Ok(Watchdog {
            interval_permille: w.interval_permille,
            tries: w.tries,
            timeout_ms: self.positive(w.timeout_ms, "watchdog.timeout_ms")?,
            counts: w.counts,
        })
    }

    /// node-redlock 5's rule: the TTL exceeds the threshold by at least 100 ms; and one way
    /// of renewing at a time.
    fn auto_extension(
        &self,
        e: &AutoExtensionSpec,
        ttl_ms: u64,
        watchdog: bool,
    ) -> Result<AutoExtension, ScenarioError> {
        if watchdog {
            return Err(error(
                self.at("auto_extension"),
                "a lock is renewed by the watchdog or extended automatically, not both: remove one",
            ));
        }
        if e.threshold_ms + 100 > ttl_ms {
            return Err(error(
                self.at("auto_extension.threshold_ms"),
                format!(
                    "the TTL ({ttl_ms} ms) must be at least 100 ms longer than the threshold ({} ms), as node-redlock's `using` requires",
                    e.threshold_ms
                ),
            ));
        }
        Ok(AutoExtension {
            threshold_ms: e.threshold_ms,
        })
    }

    fn redisson(&self, p: &ProtocolSpec) -> Result<Redisson, ScenarioError> {
        let ProtocolSpec::Redisson {
            node,
            lease_ms,
            watchdog_timeout_ms,
            wait_ms,
            generation,
            request_timeout_ms,
            servers,
            fair,
            retry_attempts,
            retry_interval_ms,
        } = p
        else {
            unreachable!("Builder::build hands Redisson specs only to Builder::redisson")
        };
        let node = self.redis_node(node, "node")?;
        let sentinel = self.redisson_sentinel(servers)?;
        let servers = servers.build(self.scenario, node, sentinel, &self.at("servers"))?;
        let mut r = Redisson::lock(node)
            .with_servers(servers)
            .with_watchdog_timeout_ms(self.positive(*watchdog_timeout_ms, "watchdog_timeout_ms")?)
            .with_generation(*generation)
            .with_request_timeout_ms(self.positive(*request_timeout_ms, "request_timeout_ms")?);
        if let Some(lease) = lease_ms {
            r = r.with_lease_ms(self.positive(*lease, "lease_ms")?);
        }
        if let Some(wait) = wait_ms {
            r = r.with_wait_ms(*wait);
        }
        if *retry_attempts > 0 {
            r = r.with_retries(Retries {
                attempts: *retry_attempts,
                interval_ms: self.positive(*retry_interval_ms, "retry_interval_ms")?,
            });
        }
        if let Some(fair) = fair {
            r.fair = Some(FairLock {
                thread_wait_ms: self.positive(fair.thread_wait_ms, "fair.thread_wait_ms")?,
            });
        }
        Ok(r)
    }

    /// The Sentinel a Redisson client asks: the one `servers.sentinel` names, else the first.
    fn redisson_sentinel(
        &self,
        servers: &super::ServersSpec,
    ) -> Result<Option<ProcessId>, ScenarioError> {
        let Some(spec) = &self.scenario.sentinel else {
            return Ok(None);
        };
        let field = self.at("servers.sentinel");
        let sentinels = spec.names();
        let name = servers.sentinel.as_ref().unwrap_or(&sentinels[0]);
        if !sentinels.contains(name) {
            return Err(error(
                field,
                format!(
                    "`{name}` is not a Sentinel (they are {})",
                    sentinels.join(", ")
                ),
            ));
        }
        Ok(Some(self.names.id(name, &field)?))
    }

    fn single_node(&self, p: &ProtocolSpec) -> Result<SingleNode, ScenarioError> {
        let ProtocolSpec::SingleNode {
            node,
            ttl_ms,
            release,
            retry_ms,
            acquire_timeout_ms,
            give_up_check,
            max_attempts,
            request_timeout_ms,
            fencing_counter,
            via_sentinel,
            thread_local: _,
            on_refused,
        } = p
        else {
            unreachable!("Builder::build hands single-node specs only to Builder::single_node")
        };
        if *give_up_check == GiveUpCheck::BeforeSleep && retry_ms.len() > 1 {
            return Err(error(
                self.at("give_up_check"),
                "`before_sleep` compares the next attempt's start with the timeout, which needs one retry delay (redis-py sleeps a fixed `sleep`); give `retry_ms` one value",
            ));
        }
        if ttl_ms.is_none() && fencing_counter.is_some() {
            return Err(error(
                self.at("ttl_ms"),
                "the fenced acquire script sets a TTL: give `ttl_ms` a duration, or leave out `fencing_counter`",
            ));
        }
        Ok(SingleNode {
            node: self.redis_node(node, "node")?,
            ttl_ms: ttl_ms.map(|ms| self.positive(ms, "ttl_ms")).transpose()?,
            release: *release,
            retry_ms: self.retry_delays(retry_ms)?,
            acquire_timeout_ms: *acquire_timeout_ms,
            give_up_check: *give_up_check,
            max_attempts: self.max_attempts(*max_attempts)?,
            request_timeout_ms: request_timeout_ms
                .map(|ms| self.positive(ms, "request_timeout_ms"))
                .transpose()?,
            fencing_counter: fencing_counter.as_ref().map(|k| k.as_bytes().to_vec()),
            on_refused: *on_refused,
            sentinel: match (via_sentinel, &self.scenario.sentinel) {
                (false, _) => None,
                (true, Some(s)) => Some(self.names.id(&s.names()[0], &self.at("via_sentinel"))?),
                (true, None) => {
                    return Err(error(
                        self.at("via_sentinel"),
                        "the scenario has no sentinel",
                    ))
                }
            },
        })
    }
}

impl Scenario {
    /// The model's protocol for `p`, written at `field`.
    pub(in crate::scenario) fn protocol(
        &self,
        p: &ProtocolSpec,
        field: &str,
        names: &Names,
    ) -> Result<Protocol, ScenarioError> {
        Builder {
            scenario: self,
            field,
            names,
        }
        .build(p)
    }
}
