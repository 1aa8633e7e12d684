//! Settings that would do nothing, refused or warned of with their field.
//!
//! **Refused**: settings whose part of the world is missing altogether, so that no value of
//! any other field could make them matter. A scenario that says it defends the account with
//! fencing tokens while no client ever gets one would check an undefended account and
//! report it as fenced (`account.fencing`). An oracle that reads a part of the protocol the
//! scenario does not have would hold, or never be witnessed, whatever happened
//! (`oracles[i]`): `me-resource` without an account, `renewal-failed` without a client that
//! renews its lock, the detector oracles without a detector.
//!
//! **Warned of** ([`Scenario::inert_warnings`]): oracles whose trigger only a fault can
//! cause while the envelope allows none that could (`liveness` and `holder-crashed` without
//! a crash or partition of a client, `pause-while-holding` without a pause of a client).
//! These are not refused, because a sweep or a boundary search sets a fault's budget or
//! value to nothing as its baseline; the check's fault coverage and the hollow witness say
//! the same after the search.

use super::build::{error, ScenarioError};
use super::{OracleSpec, ProtocolSpec, Scenario};

impl Scenario {
    /// `account.fencing` needs some client that gets a fencing token: from a single-node
    /// lock's `fencing_counter`, or from the token service (`token_service_fencing`).
    pub(super) fn check_fencing_has_tokens(&self) -> Result<(), ScenarioError> {
        let Some(account) = &self.account else {
            return Ok(());
        };
        if !account.fencing || self.clients.iter().any(|c| self.gets_tokens(c)) {
            return Ok(());
        }
        Err(error(
            "account.fencing",
            "fencing is on, but no client gets a fencing token, so the account would check \
             none: give a single-node client a `fencing_counter`, or set `token_service = true` \
             and a client's `token_service_fencing = true`",
        ))
    }

    fn gets_tokens(&self, client: &super::ClientSpec) -> bool {
        let counter = matches!(
            client.protocol.resolved(),
            ProtocolSpec::SingleNode {
                fencing_counter: Some(_),
                ..
            }
        );
        counter || (client.token_service_fencing && self.token_service)
    }

    /// Each oracle must see the part of the world it reads; the first that cannot is
    /// refused with its field, `oracles[i]`.
    pub(super) fn check_oracles_see_the_protocol(&self) -> Result<(), ScenarioError> {
        for (i, oracle) in self.oracles.iter().enumerate() {
            if let Some(why) = self.blind(oracle) {
                let name = oracle.name();
                return Err(error(format!("oracles[{i}]"), format!("`{name}` {why}")));
            }
        }
        Ok(())
    }

    /// Why `oracle` cannot see anything in this scenario, if it cannot.
    fn blind(&self, oracle: &OracleSpec) -> Option<&'static str> {
        use OracleSpec as O;
        match oracle {
            O::MeResource if self.account.is_none() => Some(
                "judges the protected account, but the scenario has none, so it would hold \
                 whatever happened: add an `[account]` (and `uses_account = true` in a \
                 client's workload), or check `me-lock` instead",
            ),
            O::RenewalFailed if !self.clients.iter().any(renews) => Some(
                "watches lock renewals, but no client renews its lock, so it could never be \
                 witnessed: give a Redlock client a `watchdog` or an `auto_extension`, or use \
                 Redisson's `lock()` (no `lease_ms`)",
            ),
            O::DetectorFalsePositive | O::DetectorFalseNegative { .. } | O::DetectorReported
                if !self.has_detector() =>
            {
                Some(
                    "judges a deadlock detector's reports, but the scenario has no detector, \
                     so there is nothing to judge: add a `[[detection.detectors]]`, or a \
                     `local_detector` to a `[[detection.services]]` entry",
                )
            }
            _ => None,
        }
    }

    fn has_detector(&self) -> bool {
        self.detection.as_ref().is_some_and(|d| {
            !d.detectors.is_empty() || d.services.iter().any(|s| s.local_detector.is_some())
        })
    }

    /// Oracles whose trigger no fault the envelope allows can cause, each with its field
    /// (`oracles[i]`) and why (see the module documentation).
    pub fn inert_warnings(&self) -> Vec<(String, String)> {
        let f = &self.faults;
        let client = |name: &String| self.clients.iter().any(|c| c.name == *name);
        let pauses = f.max_pauses > 0 && f.pauses.iter().any(|p| client(&p.process));
        let crashes = f.max_crashes > 0 && f.crashes.iter().any(|c| client(&c.process));
        let cut_off = f.max_partitions > 0
            && (f.partitions.iter()).any(|p| p.side_a.iter().chain(&p.side_b).any(client));
        let mut warnings = Vec::new();
        for (i, oracle) in self.oracles.iter().enumerate() {
            let unseen = match oracle {
                OracleSpec::Liveness { .. } | OracleSpec::HolderCrashed if !crashes && !cut_off => {
                    "a client that crashes or is cut off from its nodes"
                }
                OracleSpec::PauseWhileHolding if !pauses => "a pause of a client",
                _ => continue,
            };
            warnings.push((
                format!("oracles[{i}]"),
                format!(
                    "`{}` looks for {unseen}, but the faults allow none (a budget of 0, or no \
                     such rule): it can only hold or go unwitnessed",
                    oracle.name()
                ),
            ));
        }
        warnings
    }
}

/// Whether `client` renews its lock: a Redlock watchdog or automatic extension, or
/// Redisson's watchdog (`lock()` without a lease).
fn renews(client: &super::ClientSpec) -> bool {
    match client.protocol.resolved() {
        ProtocolSpec::Redlock {
            watchdog,
            auto_extension,
            ..
        } => watchdog.is_some() || auto_extension.is_some(),
        ProtocolSpec::Redisson { lease_ms, .. } => lease_ms.is_none(),
        _ => false,
    }
}
