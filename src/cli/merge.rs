//! `merge`: the result files of a sharded check combined into the verdict of the whole
//! search: one shortest counterexample (saved as a trace with its replay command), every
//! `sometimes` witness, the unique-state count of the union of the shards' key files, the
//! work the shards duplicated (their summed unique states over the merged count), and for a
//! complete merge the chance that two of its states shared a fingerprint, at the width of
//! the key files.

use super::trace_paths::default_trace_path;
use super::words::plural;
use super::{CliError, MergeArgs, Output, EXIT_LIMIT, EXIT_OK, EXIT_VIOLATION};
use lockcheck::coverage;
use lockcheck::saved::save_violation;
use lockcheck::shard::{load_result, merge, read_keys, Merged, ShardResult};
use lockcheck::InputError;
use lockcheck_sim::{collision_probability, union_len};
use serde_json::{json, Value};
use std::path::Path;

pub(super) fn cmd_merge(a: &MergeArgs) -> Result<Output, CliError> {
    let mut results = Vec::new();
    for path in &a.results {
        results.push((path.display().to_string(), load_result(path)?));
    }
    let merged = merge(&results, a.partial).map_err(|e| InputError::new(e.0))?;
    let (unique, bits) = merged_unique(&results)?;
    let duplication = merged.work.unique_states as f64 / unique.max(1) as f64;
    let mut text = format!(
        "scenario: {}\nmerged {} of {} (plan {}){}\noutcome: {}\nstatistics: {} unique states (the union of the shards'), {} states expanded, depth {}\nwork: the shards stored {} states together, {duplication:.2}x the merged count\noracles:\n",
        merged.scenario,
        plural(results.len(), "shard"),
        merged.shards,
        merged.plan_hash,
        missing_note(&merged),
        merged.outcome,
        unique,
        merged.work.expanded_states,
        merged.work.max_depth,
        merged.work.unique_states,
    );
    let mut props = Vec::new();
    for p in &merged.properties {
        let from = p.shard.map_or(String::new(), |k| format!(" (shard {k})"));
        text.push_str(&format!("  {} {}: {}{from}\n", p.kind, p.name, p.status));
        props.push(json!({"name": p.name, "kind": p.kind, "status": p.status, "shard": p.shard, "steps": p.labels.as_ref().map(Vec::len)}));
    }
    let rules: Vec<_> = merged.fault_coverage.iter().map(|r| r.rule_use()).collect();
    text.push_str(&coverage::text(&rules));
    let mut j = json!({
        "command": "merge",
        "scenario": merged.scenario,
        "plan_hash": merged.plan_hash,
        "shards": merged.shards,
        "missing_shards": merged.missing,
        "outcome": merged.outcome,
        "shortest": merged.shortest,
        "statistics": {
            "unique_states": unique,
            "shard_unique_states": merged.work.unique_states,
            "duplication": duplication,
            "states": merged.work.expanded_states,
            "transitions": merged.work.transitions,
            "max_depth": merged.work.max_depth,
            "virtual_time_ms": merged.work.max_virtual_time_ms,
            "shard_wall_ms": merged.work.wall_ms,
            "peak_memory_bytes": merged.work.peak_memory_bytes,
        },
        "oracles": props,
        "fingerprint_bits": bits,
        "fault_coverage": coverage::json(&rules),
    });
    j["unused_fault_rules"] = json!(merged.unused_fault_rules());
    if merged.outcome == "complete" || merged.outcome == "bounded" {
        let p = collision_probability(unique, bits);
        text.push_str(&format!(
            "search: {bits}-bit fingerprints: probability that two of the {unique} states collide {p:.1e}\n"
        ));
        j["collision_probability"] = json!(p);
    }
    let code = verdict(a, &merged, &mut text, &mut j)?;
    Ok(Output {
        text,
        json: j,
        code,
    })
}

/// The size of the union of the shards' key files (found next to their result files), and
/// the bits of their keys (one plan: the same for all).
fn merged_unique(results: &[(String, ShardResult)]) -> Result<(u64, u32), CliError> {
    let mut readers = Vec::new();
    for (file, r) in results {
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        let path = dir.join(&r.keys_file);
        let reader = read_keys(&path).map_err(|m| InputError::new(m).in_file(file))?;
        readers.push((path, reader));
    }
    let bits = if readers.iter().all(|(_, r)| r.is_wide()) {
        128
    } else {
        64
    };
    let unique = union_len(readers.iter_mut().map(|(_, r)| r).collect());
    for (path, reader) in &readers {
        if let Some(problem) = &reader.error {
            return Err(InputError::new(format!("damaged key file: {problem}"))
                .in_file(&path.display().to_string())
                .into());
        }
    }
    Ok((unique, bits))
}

fn missing_note(merged: &Merged) -> String {
    if merged.missing.is_empty() {
        return String::new();
    }
    let ks: Vec<String> = merged.missing.iter().map(u32::to_string).collect();
    format!(", shards missing: {}", ks.join(", "))
}

/// The verdict line (the counterexample saved as a trace), its JSON and the exit code.
fn verdict(
    a: &MergeArgs,
    merged: &Merged,
    text: &mut String,
    j: &mut Value,
) -> Result<u8, CliError> {
    let violated = merged.properties.iter().find(|p| p.status == "violated");
    if let Some(p) = violated {
        let saved = p.trace.as_ref().ok_or_else(|| {
            InputError::new(format!(
                "the violation of {} comes without its trace",
                p.name
            ))
        })?;
        let file = a
            .output
            .clone()
            .unwrap_or_else(|| default_trace_path(&a.trace_dir, &saved.scenario, None));
        if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
            lockcheck::atomic_write::create_dirs(parent)
                .map_err(|e| CliError::write(parent, &e))?;
        }
        let written = save_violation(&saved.scenario, saved.trace.clone(), &file)
            .map_err(|e| CliError::write(&file, &e))?;
        let steps = p.labels.as_ref().map_or(0, Vec::len);
        let which = if merged.shortest { "shortest " } else { "" };
        text.push_str(&format!(
            "verdict: VIOLATION of {} ({which}counterexample: {})\n{}",
            p.name,
            plural(steps, "step"),
            written.note()
        ));
        j["verdict"] = json!("violated");
        j["oracle"] = json!(p.name);
        j["steps"] = json!(steps);
        j["trace_file"] = json!(file.display().to_string());
        j["replay_command"] = json!(written.replay_command);
        return Ok(EXIT_VIOLATION);
    }
    if merged.outcome == "complete" || merged.outcome == "bounded" {
        let hollow: Vec<&str> = merged
            .properties
            .iter()
            .filter(|p| p.status == "never witnessed")
            .map(|p| p.name.as_str())
            .collect();
        text.push_str("verdict: no violation found (every state within the bounds explored)\n");
        if !hollow.is_empty() {
            text.push_str(&format!(
                "warning: never witnessed: {} (the green verdict is hollow)\n",
                hollow.join(", ")
            ));
        }
        text.extend(coverage::warning(&merged.unused_fault_rules()));
        j["verdict"] = json!("no_violation");
        j["never_witnessed"] = json!(hollow);
        return Ok(EXIT_OK);
    }
    text.push_str(&format!(
        "verdict: NO VERDICT: the merged search is {} (no violation among the states explored)\n",
        merged.outcome
    ));
    j["verdict"] = json!("no_verdict");
    Ok(EXIT_LIMIT)
}
