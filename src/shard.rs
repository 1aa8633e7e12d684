//! Sharded checks as files: what one shard of a scenario's search writes (a result with the
//! plan's hash, and the sorted keys of the states it stored) and how `merge` combines them.
//!
//! A shard's result says which plan it belongs to (`plan_hash`: the scenario's world, the
//! search's bounds and reductions, the number of shards and the split rule), so that results
//! of different plans are never merged. The merged verdict, counterexample and witnesses are
//! those of the unsharded breadth-first search (see `lockcheck_sim::shard`); the
//! merged unique-state count is the size of the union of the shards' key files.

mod keys;
mod merge;

use crate::input_error::{json_error, read};
use crate::oracles::RedisWorld;
use crate::saved::SavedTrace;
use crate::scenario::Scenario;
use crate::InputError;
use lockcheck_sim::{
    choice_path, FpHasher, Model, Options, ShardPlan, ShardReport, Split, Status, Trace,
};
use serde::{Deserialize, Serialize};
use std::hash::Hasher;
use std::path::Path;

pub use keys::{read_keys, write_keys};

pub use merge::{merge, MergeError, Merged, MergedProperty};

/// The version of the shard result format this build writes and reads.
pub(crate) const SHARD_FORMAT: u32 = 1;

/// What one shard found, as its result file holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardResult {
    pub lockcheck_shard_format: u32,
    pub scenario: String,
    /// The plan this shard is part of, in hex; results of different plans never merge.
    pub plan_hash: String,
    pub shards: u32,
    pub shard: u32,
    /// Whether the shards stop at their first violation.
    pub stop_at_first_violation: bool,
    /// Where the search split: depth, the level's size, this shard's first root and count.
    pub split: Option<SplitRecord>,
    /// `complete`, `bounded`, `stopped_at_violation`, `limit_reached` or `interrupted`.
    pub outcome: String,
    pub stats: ShardStats,
    pub properties: Vec<ShardProperty>,
    /// The sorted keys of the states this shard stored, relative to the result file.
    pub keys_file: String,
    /// For each fault rule, the instants at which this shard's runs used it (left out when
    /// the envelope has no rule); `merge` unions them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fault_coverage: Vec<ShardRuleUse>,
}

/// One fault rule's field, and the instants (ms, ascending) at which a shard used it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardRuleUse {
    pub rule: String,
    pub instants_ms: Vec<u64>,
}

impl ShardRuleUse {
    /// The rule's coverage as `check` reports it.
    pub fn rule_use(&self) -> crate::coverage::RuleUse {
        crate::coverage::RuleUse {
            rule: self.rule.clone(),
            instants: self.instants_ms.len() as u64,
            first_ms: self.instants_ms.first().copied(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitRecord {
    pub depth: u32,
    pub level_states: u64,
    pub first_root: u64,
    pub roots: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardStats {
    pub unique_states: u64,
    pub expanded_states: u64,
    pub transitions: u64,
    pub max_depth: u32,
    pub max_virtual_time_ms: u64,
    pub wall_ms: u64,
    pub peak_memory_bytes: u64,
}

/// One property's verdict in one shard, with the path of its hit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardProperty {
    pub name: String,
    pub kind: String,
    /// `holds`, `violated`, `witnessed` or `never witnessed`.
    pub status: String,
    /// The hit's path as choice indices (initial state first), which orders hits as
    /// breadth-first search admits them.
    pub choices: Option<Vec<u32>>,
    pub labels: Option<Vec<String>>,
    /// A violation's trace, as `check` saves it.
    pub trace: Option<SavedTrace>,
}

/// The hash of a shard plan: the world (its model hash and scenario), the options that shape
/// the search, the number of shards and the split rule. The shard's own index is not in it.
pub fn plan_hash(
    world: &RedisWorld,
    scenario: &Scenario,
    options: &Options,
    plan: ShardPlan,
) -> u64 {
    let mut h = FpHasher::new();
    h.write_u32(SHARD_FORMAT);
    h.write_u64(world.model_hash());
    h.write(
        serde_json::to_string(scenario)
            .expect("a scenario always serialises")
            .as_bytes(),
    );
    h.write_u64(options.limits.max_states.unwrap_or(u64::MAX));
    h.write_u64(options.limits.max_depth.map_or(u64::MAX, u64::from));
    h.write_u64(options.limits.max_virtual_time_ms.unwrap_or(u64::MAX));
    h.write_u8(options.reductions.symmetry as u8);
    h.write_u8((options.stop == lockcheck_sim::Stop::AtFirstViolation) as u8);
    // 128-bit keys are another plan (their key files cannot be merged with 64-bit ones);
    // 64-bit plans hash as they did before the wide mode existed.
    if options.storage.wide_fingerprints {
        h.write_u32(128);
    }
    h.write_u32(plan.shards);
    h.write_u32(plan.roots_per_shard);
    h.finish()
}

impl ShardResult {
    /// The result of shard `plan` of `scenario`'s search, `report` found on `world`.
    pub fn new(
        scenario: &Scenario,
        world: &RedisWorld,
        plan: ShardPlan,
        plan_hash: u64,
        stop_at_first_violation: bool,
        found: &ShardReport<RedisWorld>,
        keys_file: String,
    ) -> Self {
        let report = &found.report;
        let s = &report.stats;
        let properties = report
            .properties
            .iter()
            .map(|p| ShardProperty {
                name: p.name.clone(),
                kind: p.kind.to_string(),
                status: p.status.word().to_lowercase(),
                choices: p.status.path().map(|path| choice_path(world, path)),
                labels: p.status.path().map(|path| path.labels()),
                trace: match &p.status {
                    Status::Violated(path) => Some(SavedTrace::new(
                        scenario,
                        Trace::from_path(world, path, Some(&p.name)),
                    )),
                    _ => None,
                },
            })
            .collect();
        ShardResult {
            lockcheck_shard_format: SHARD_FORMAT,
            scenario: scenario.name.clone(),
            plan_hash: format!("{plan_hash:016x}"),
            shards: plan.shards,
            shard: plan.shard,
            stop_at_first_violation,
            split: found.split.map(split_record),
            outcome: crate::check::outcome_word(&report.outcome).to_string(),
            stats: ShardStats {
                unique_states: s.unique_states,
                expanded_states: s.expanded_states,
                transitions: s.transitions,
                max_depth: s.max_depth,
                max_virtual_time_ms: s.max_virtual_time_ms,
                wall_ms: s.wall_ms.unwrap_or(0),
                peak_memory_bytes: s.peak_memory_bytes,
            },
            properties,
            keys_file,
            fault_coverage: shard_coverage(report),
        }
    }

    /// Whether this shard searched all of its part (complete or within the bounds).
    pub(crate) fn searched_all(&self) -> bool {
        matches!(self.outcome.as_str(), "complete" | "bounded")
    }
}

/// The coverage of a shard's search, by the scenario's fields (none when not kept).
fn shard_coverage(report: &lockcheck_sim::Report<RedisWorld>) -> Vec<ShardRuleUse> {
    let Some(coverage) = &report.fault_coverage else {
        return Vec::new();
    };
    (coverage.rules().iter().enumerate())
        .map(|(i, r)| ShardRuleUse {
            rule: crate::coverage::field_of(&r.rule),
            instants_ms: coverage.instants_of(i).collect(),
        })
        .collect()
}

fn split_record(s: Split) -> SplitRecord {
    SplitRecord {
        depth: s.depth,
        level_states: s.level_states,
        first_root: s.first_root,
        roots: s.roots,
    }
}

/// Reads a shard result file, refused clearly (file, line, field) if it is not one of this
/// format.
pub fn load_result(path: &Path) -> Result<ShardResult, InputError> {
    let file = path.display().to_string();
    let text = read(path)?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let result: ShardResult =
        serde_path_to_error::deserialize(&mut de).map_err(|e| json_error(e).in_file(&file))?;
    if result.lockcheck_shard_format != SHARD_FORMAT {
        return Err(InputError {
            field: Some("lockcheck_shard_format".into()),
            ..InputError::new(format!(
                "shard result format {} is not the format {SHARD_FORMAT} this lockcheck reads",
                result.lockcheck_shard_format
            ))
        }
        .in_file(&file));
    }
    Ok(result)
}
