//! What a scenario must satisfy before it is built: every value within range, and nothing
//! that would make a run hollow or meaningless.
//!
//! **Ranges.** Every duration (any field whose name ends in `_ms`, in lists too) lies within
//! ±[`MAX_DURATION_MS`], 100 years. The check walks the scenario's serialized form, so a
//! duration field added later is covered without being listed here. With that bound, and the
//! kernel saturating instants at 2^60 ms, no sum the kernel or the model forms overflows. The
//! other numbers that enter arithmetic are bounded too: a Redlock drift factor at most
//! 1,000,000 ppm (100 % of the TTL), a debit `amount` within ±10^9 and an initial balance
//! within ±10^15 (a path has fewer than 2^32 steps, so the balance stays far from `i64`'s
//! ends).
//!
//! **Nonsense.** Refused with the field named: no oracles (the run could only be hollow),
//! zero rounds, an empty list of choices (pause, partition, restart or clock-step values),
//! zero-length faults (a 0 ms pause or partition, a 0 ms clock step), zero exploration bounds
//! (`max_depth`, `max_states`, `random_seeds`, `random_max_steps`), an expected oracle the
//! scenario does not check, empty names (the scenario, processes, partitions, locks, a
//! fencing counter), degenerate partitions (an empty side, a process on both sides) and
//! fencing without any client that gets a token, and an oracle that cannot see the
//! protocol (an account oracle without an account, a renewal witness without renewals, a
//! detector oracle without a detector; `inert`).
//!
//! [`Scenario::build`] runs every check but two, which run when a scenario is read from a file
//! or a trace ([`Scenario::check_as_read`]): a fault of zero length, since a sweep may set a
//! fault to 0 ms as its baseline (that point is judged as usual, and its witness of the
//! fault reports it hollow); and an empty oracle list, since code may build a scenario's
//! world and add properties of its own.

use super::build::{error, ScenarioError};
use super::{
    ExpectedVerdict, ExploreSpec, FaultsSpec, OracleSpec, PartitionSpec, ProtocolSpec, Scenario,
};
use crate::text::clip;
use serde_json::Value;

/// The largest duration a scenario may give, either sign: 100 years (36,525 days).
pub const MAX_DURATION_MS: u64 = 36_525 * 24 * 3_600 * 1_000;

/// The largest Redlock drift factor, in parts per million of the TTL.
pub(crate) const MAX_DRIFT_PPM: u32 = 1_000_000;

/// The largest debit amount, either sign.
pub(crate) const MAX_AMOUNT: i64 = 1_000_000_000;

/// The largest initial balance, either sign.
pub(crate) const MAX_BALANCE: i64 = 1_000_000_000_000_000;

impl Scenario {
    /// Every check of this module but those of [`Scenario::check_as_read`]; the first failure
    /// names its field.
    pub(super) fn check_values(&self) -> Result<(), ScenarioError> {
        let form = serde_json::to_value(self).expect("a scenario always serialises");
        check_durations(&form, "")?;
        self.check_numbers()?;
        self.check_names()?;
        self.check_oracles()?;
        self.check_fencing_has_tokens()?;
        self.check_oracles_see_the_protocol()?;
        self.faults.check()?;
        self.explore.check()
    }

    /// The checks for a scenario as a user writes it: some oracle to check, and no fault of
    /// zero length (a 0 ms pause or partition, a 0 ms clock step).
    pub fn check_as_read(&self) -> Result<(), ScenarioError> {
        if self.oracles.is_empty() {
            return Err(error(
                "oracles",
                "no oracles to check: every run would pass without judging anything (add e.g. `[[oracles]]` with `kind = \"me-lock\"`)",
            ));
        }
        let f = &self.faults;
        for (i, p) in f.pauses.iter().enumerate() {
            if let Some(j) = p.durations_ms.iter().position(|d| *d == 0) {
                return Err(zero_length(
                    &format!("faults.pauses[{i}].durations_ms[{j}]"),
                    "pause",
                ));
            }
        }
        for (i, p) in f.partitions.iter().enumerate() {
            if let Some(j) = p.durations_ms.iter().position(|d| *d == Some(0)) {
                return Err(zero_length(
                    &format!("faults.partitions[{i}].durations_ms[{j}]"),
                    "partition",
                ));
            }
        }
        for (i, s) in f.disk_stalls.iter().enumerate() {
            if let Some(j) = s.durations_ms.iter().position(|d| *d == 0) {
                return Err(zero_length(
                    &format!("faults.disk_stalls[{i}].durations_ms[{j}]"),
                    "disk stall",
                ));
            }
        }
        for (i, s) in f.clock_steps.iter().enumerate() {
            if let Some(j) = s.deltas_ms.iter().position(|d| *d == 0) {
                return Err(zero_length(
                    &format!("faults.clock_steps[{i}].deltas_ms[{j}]"),
                    "clock step",
                ));
            }
        }
        Ok(())
    }

    fn check_numbers(&self) -> Result<(), ScenarioError> {
        if let Some(a) = &self.account {
            if a.initial_balance.unsigned_abs() > MAX_BALANCE.unsigned_abs() {
                return Err(error(
                    "account.initial_balance",
                    format!(
                        "{} is out of range (at most ±{MAX_BALANCE})",
                        a.initial_balance
                    ),
                ));
            }
        }
        for (i, c) in self.clients.iter().enumerate() {
            let w = &c.workload;
            if w.rounds == 0 {
                return Err(error(
                    format!("clients[{i}].workload.rounds"),
                    "must be at least 1 (a client with no rounds never takes the lock)",
                ));
            }
            if w.amount.unsigned_abs() > MAX_AMOUNT.unsigned_abs() {
                return Err(error(
                    format!("clients[{i}].workload.amount"),
                    format!("{} is out of range (at most ±{MAX_AMOUNT})", w.amount),
                ));
            }
            if let ProtocolSpec::Redlock { drift_ppm, .. } = &c.protocol {
                if *drift_ppm > MAX_DRIFT_PPM {
                    return Err(error(
                        format!("clients[{i}].protocol.drift_ppm"),
                        format!("{drift_ppm} is more than the largest accepted drift factor, {MAX_DRIFT_PPM} ppm (the whole TTL)"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_names(&self) -> Result<(), ScenarioError> {
        nonempty(&self.name, "name")?;
        for (i, n) in self.nodes.iter().enumerate() {
            nonempty(&n.name, &format!("nodes[{i}].name"))?;
        }
        for (i, c) in self.clients.iter().enumerate() {
            nonempty(&c.name, &format!("clients[{i}].name"))?;
            for (j, lock) in c.workload.locks.iter().enumerate() {
                nonempty(lock, &format!("clients[{i}].workload.locks[{j}]"))?;
            }
            if let ProtocolSpec::SingleNode {
                fencing_counter: Some(key),
                ..
            } = &c.protocol
            {
                nonempty(key, &format!("clients[{i}].protocol.fencing_counter"))?;
            }
        }
        for (i, d) in self.detection.iter().flat_map(|d| &d.detectors).enumerate() {
            nonempty(&d.name, &format!("detection.detectors[{i}].name"))?;
        }
        for (i, p) in self.faults.partitions.iter().enumerate() {
            nonempty(&p.name, &format!("faults.partitions[{i}].name"))?;
        }
        Ok(())
    }

    fn check_oracles(&self) -> Result<(), ScenarioError> {
        for (i, o) in self.oracles.iter().enumerate() {
            if let OracleSpec::Progress { bound_ms: 0 } = o {
                return Err(error(
                    format!("oracles[{i}].bound_ms"),
                    "must be greater than 0 (no lock can be taken in no time)",
                ));
            }
        }
        let ExpectedVerdict::Violated { oracle } = &self.expect else {
            return Ok(());
        };
        let names: Vec<&str> = self.oracles.iter().map(OracleSpec::name).collect();
        if !names.contains(&oracle.as_str()) {
            return Err(error(
                "expect.oracle",
                format!(
                    "`{}` is not one of this scenario's oracles ({})",
                    clip(oracle, 60),
                    names.join(", ")
                ),
            ));
        }
        Ok(())
    }
}

impl FaultsSpec {
    fn check(&self) -> Result<(), ScenarioError> {
        for (i, p) in self.pauses.iter().enumerate() {
            choices(
                p.durations_ms.len(),
                &format!("faults.pauses[{i}].durations_ms"),
            )?;
        }
        for (i, p) in self.partitions.iter().enumerate() {
            p.check(&format!("faults.partitions[{i}]"))?;
        }
        for (i, c) in self.crashes.iter().enumerate() {
            choices(
                c.restart_after_ms.len(),
                &format!("faults.crashes[{i}].restart_after_ms"),
            )?;
        }
        for (i, s) in self.clock_steps.iter().enumerate() {
            choices(
                s.deltas_ms.len(),
                &format!("faults.clock_steps[{i}].deltas_ms"),
            )?;
        }
        for (i, s) in self.disk_stalls.iter().enumerate() {
            choices(
                s.durations_ms.len(),
                &format!("faults.disk_stalls[{i}].durations_ms"),
            )?;
        }
        Ok(())
    }
}

impl PartitionSpec {
    fn check(&self, field: &str) -> Result<(), ScenarioError> {
        for (side, names) in [("side_a", &self.side_a), ("side_b", &self.side_b)] {
            if names.is_empty() {
                return Err(error(
                    format!("{field}.{side}"),
                    "a partition side needs at least one process (an empty side cuts nothing)",
                ));
            }
        }
        if let Some(j) = self.side_b.iter().position(|n| self.side_a.contains(n)) {
            return Err(error(
                format!("{field}.side_b[{j}]"),
                format!(
                    "`{}` is on both sides: a process cannot be cut off from itself",
                    clip(&self.side_b[j], 60)
                ),
            ));
        }
        choices(self.durations_ms.len(), &format!("{field}.durations_ms"))
    }
}

impl ExploreSpec {
    fn check(&self) -> Result<(), ScenarioError> {
        let zero = |field: &str, what: &str| {
            error(
                format!("explore.{field}"),
                format!("must be at least 1 (0 would {what})"),
            )
        };
        if self.max_depth == Some(0) {
            return Err(zero("max_depth", "explore nothing past the initial state"));
        }
        if self.max_states == 0 {
            return Err(zero("max_states", "explore nothing"));
        }
        if self.random_seeds == 0 {
            return Err(zero("random_seeds", "run no random walk"));
        }
        if self.random_max_steps == 0 {
            return Err(zero(
                "random_max_steps",
                "end every walk before its first step",
            ));
        }
        if ![64, 128].contains(&self.fingerprint_bits) {
            return Err(error(
                "explore.fingerprint_bits",
                format!(
                    "fingerprints have 64 or 128 bits, not {}",
                    self.fingerprint_bits
                ),
            ));
        }
        Ok(())
    }
}

/// Every `*_ms` number (or list of them) in `form`, at any depth, within the bound.
fn check_durations(form: &Value, path: &str) -> Result<(), ScenarioError> {
    match form {
        Value::Object(fields) => {
            for (key, value) in fields {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if key.ends_with("_ms") {
                    check_duration_value(value, &at)?;
                }
                check_durations(value, &at)?;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_durations(item, &format!("{path}[{i}]"))?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn check_duration_value(value: &Value, field: &str) -> Result<(), ScenarioError> {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_duration_value(item, &format!("{field}[{i}]"))?;
            }
            Ok(())
        }
        Value::Number(n) => {
            let magnitude = n
                .as_u64()
                .or_else(|| n.as_i64().map(i64::unsigned_abs))
                .unwrap_or(u64::MAX);
            if magnitude > MAX_DURATION_MS {
                return Err(error(
                    field,
                    format!(
                        "{n} ms is more than the largest accepted duration, 100 years ({MAX_DURATION_MS} ms)"
                    ),
                ));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn nonempty(name: &str, field: &str) -> Result<(), ScenarioError> {
    if name.trim().is_empty() {
        return Err(error(field, "must not be empty"));
    }
    Ok(())
}

fn choices(count: usize, field: &str) -> Result<(), ScenarioError> {
    if count == 0 {
        return Err(error(
            field,
            "give at least one value (an empty list offers the fault no choice, so it never happens)",
        ));
    }
    Ok(())
}

fn zero_length(field: &str, what: &str) -> ScenarioError {
    error(
        field,
        format!("a 0 ms {what} changes nothing; give a positive value or leave the fault out"),
    )
}
