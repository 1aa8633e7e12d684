//! Merging shard results: one plan, every shard once, then per property the hit (violation
//! or witness) that breadth-first search would have admitted first, the outcome of the whole
//! search, and the shards' statistics summed.
//!
//! When the shards stop at their first violation, the unsharded search would have stopped at
//! the smallest one, V; a hit of another shard that comes after V in breadth-first order was
//! never reached by it and is dropped, so the merged witnesses equal the unsharded ones too.

use super::{ShardProperty, ShardResult, ShardRuleUse, ShardStats};
use lockcheck_sim::bfs_order;
use std::cmp::Ordering;
use std::fmt;

/// Why results cannot be merged (each names the files concerned).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeError(pub String);

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One property's merged verdict: the hit admitted first, as its shard reported it.
#[derive(Clone, Debug, PartialEq)]
pub struct MergedProperty {
    pub found: ShardProperty,
    /// The shard whose hit this is.
    pub shard: Option<u32>,
}

impl std::ops::Deref for MergedProperty {
    type Target = ShardProperty;
    fn deref(&self) -> &ShardProperty {
        &self.found
    }
}

/// The merged result of a plan's shards.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    pub scenario: String,
    pub plan_hash: String,
    pub shards: u32,
    /// Shards with no result (only when merging partially).
    pub missing: Vec<u32>,
    /// `complete`, `bounded`, `stopped_at_violation`, `limit_reached`, `interrupted`, or
    /// `incomplete` (shards missing).
    pub outcome: String,
    pub properties: Vec<MergedProperty>,
    /// Whether the hits are the shortest the whole search has: every shard present and done.
    /// Without partial-order reduction they are the unsharded search's; with it, the shortest
    /// the shards' reduced searches found (see `lockcheck_sim::explore_shard`).
    pub shortest: bool,
    /// The shards' statistics: counts summed (the work done), depth and time the largest.
    pub work: ShardStats,
    /// Each fault rule's instants: the union of the shards'.
    pub fault_coverage: Vec<ShardRuleUse>,
}

impl Merged {
    /// The fault rules no shard used.
    pub fn unused_fault_rules(&self) -> Vec<String> {
        (self.fault_coverage.iter())
            .filter(|r| r.instants_ms.is_empty())
            .map(|r| r.rule.clone())
            .collect()
    }
}

/// Merges `results` (each with the file it came from). With `partial`, missing shards are
/// allowed (the merge then never claims more than the shards present found).
pub fn merge(results: &[(String, ShardResult)], partial: bool) -> Result<Merged, MergeError> {
    let Some((first_file, first)) = results.first() else {
        return Err(MergeError("no shard results to merge".into()));
    };
    let mut seen: Vec<Option<&str>> = vec![None; first.shards as usize];
    for (file, r) in results {
        same_plan(first_file, first, file, r)?;
        let slot = seen.get_mut(r.shard as usize).ok_or_else(|| {
            MergeError(format!(
                "{file}: shard {} is out of range for {} shards",
                r.shard, r.shards
            ))
        })?;
        if let Some(other) = slot.replace(file) {
            return Err(MergeError(format!(
                "{other} and {file} are both shard {} of plan {}",
                r.shard, r.plan_hash
            )));
        }
    }
    let missing: Vec<u32> = (0..first.shards)
        .filter(|&k| seen[k as usize].is_none())
        .collect();
    if !missing.is_empty() && !partial {
        return Err(MergeError(format!(
            "shards missing from plan {} of {}: {} (of 0..{}); run them, or merge with --partial",
            first.plan_hash,
            first.scenario,
            numbers(&missing),
            first.shards
        )));
    }
    let shards: Vec<&ShardResult> = results.iter().map(|(_, r)| r).collect();
    let shortest = missing.is_empty()
        && shards
            .iter()
            .all(|r| r.searched_all() || r.outcome == "stopped_at_violation");
    let properties = merge_properties(&shards);
    let violated = properties.iter().any(|p| p.status == "violated");
    Ok(Merged {
        scenario: first.scenario.clone(),
        plan_hash: first.plan_hash.clone(),
        shards: first.shards,
        outcome: merged_outcome(&shards, &missing, violated),
        missing,
        properties,
        shortest,
        work: summed(&shards),
        fault_coverage: united_coverage(&shards),
    })
}

fn same_plan(
    first_file: &str,
    first: &ShardResult,
    file: &str,
    r: &ShardResult,
) -> Result<(), MergeError> {
    let differ = |what: &str, a: String, b: String| {
        Err(MergeError(format!(
            "{file} is not of the same plan as {first_file}: {what} {b} here, {a} there"
        )))
    };
    if r.scenario != first.scenario {
        return differ("scenario", first.scenario.clone(), r.scenario.clone());
    }
    if r.shards != first.shards {
        return differ("shards", first.shards.to_string(), r.shards.to_string());
    }
    if r.plan_hash != first.plan_hash {
        return differ("plan hash", first.plan_hash.clone(), r.plan_hash.clone());
    }
    let names = |r: &ShardResult| {
        r.properties
            .iter()
            .map(|p| p.name.clone())
            .collect::<Vec<_>>()
    };
    if names(r) != names(first) {
        return differ("properties", names(first).join(","), names(r).join(","));
    }
    Ok(())
}

fn numbers(ks: &[u32]) -> String {
    ks.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// Per property, the hit admitted first; under stop-at-first, none after the first violation.
fn merge_properties(shards: &[&ShardResult]) -> Vec<MergedProperty> {
    let first_of = |i: usize, wanted: &[&str]| {
        shards
            .iter()
            .filter_map(|r| {
                let p = &r.properties[i];
                let choices = p.choices.as_ref()?;
                wanted
                    .contains(&p.status.as_str())
                    .then_some((choices, r, p))
            })
            .min_by(|a, b| bfs_order(a.0, b.0).then(a.1.shard.cmp(&b.1.shard)))
    };
    let count = shards[0].properties.len();
    let stop_at = shards[0].stop_at_first_violation;
    let first_violation = (0..count)
        .filter_map(|i| first_of(i, &["violated"]).map(|hit| hit.0.clone()))
        .min_by(|a, b| bfs_order(a, b));
    (0..count)
        .map(|i| {
            let any = &shards[0].properties[i];
            let hit = first_of(i, &["violated", "witnessed"]).filter(|(choices, _, _)| {
                !stop_at
                    || first_violation
                        .as_ref()
                        .is_none_or(|v| bfs_order(choices, v) != Ordering::Greater)
            });
            match hit {
                Some((_, r, p)) => MergedProperty {
                    found: p.clone(),
                    shard: Some(r.shard),
                },
                None => MergedProperty {
                    found: ShardProperty {
                        status: if any.status == "violated" || any.status == "holds" {
                            "holds".into()
                        } else {
                            "never witnessed".into()
                        },
                        choices: None,
                        labels: None,
                        trace: None,
                        ..any.clone()
                    },
                    shard: None,
                },
            }
        })
        .collect()
}

fn merged_outcome(shards: &[&ShardResult], missing: &[u32], violated: bool) -> String {
    let stop_at = shards[0].stop_at_first_violation;
    let any = |word: &str| shards.iter().any(|r| r.outcome == word);
    let word = if violated && stop_at {
        "stopped_at_violation"
    } else if !missing.is_empty() {
        "incomplete"
    } else if any("interrupted") {
        "interrupted"
    } else if any("limit_reached") {
        "limit_reached"
    } else if any("bounded") {
        "bounded"
    } else {
        "complete"
    };
    word.into()
}

/// Each rule's instants over every shard (one plan: the same rules, in the same order).
fn united_coverage(shards: &[&ShardResult]) -> Vec<ShardRuleUse> {
    let mut united = shards[0].fault_coverage.clone();
    for r in &shards[1..] {
        for (mine, theirs) in united.iter_mut().zip(&r.fault_coverage) {
            mine.instants_ms.extend(&theirs.instants_ms);
        }
    }
    for rule in &mut united {
        rule.instants_ms.sort_unstable();
        rule.instants_ms.dedup();
    }
    united
}

fn summed(shards: &[&ShardResult]) -> ShardStats {
    let mut w = ShardStats::default();
    for r in shards {
        let s = &r.stats;
        w.unique_states += s.unique_states;
        w.expanded_states += s.expanded_states;
        w.transitions += s.transitions;
        w.max_depth = w.max_depth.max(s.max_depth);
        w.max_virtual_time_ms = w.max_virtual_time_ms.max(s.max_virtual_time_ms);
        w.wall_ms += s.wall_ms;
        w.peak_memory_bytes = w.peak_memory_bytes.max(s.peak_memory_bytes);
    }
    w
}
