//! `check --shards N --shard K`: one shard of a scenario's exhaustive search. It writes its
//! result file and key file (`<scenario>.shard-K-of-N.json`, `.keys`) in the shard folder for
//! `lockcheck merge`, and exits as `check` does (1 when it found a violation), so that a batch
//! engine can stop the other shards; shards never talk to each other.

use super::search::{self, build_error, outcome_text, per_second};
use super::words::file_safe;
use super::{CheckArgs, CliError, Output, EXIT_LIMIT, EXIT_OK, EXIT_VIOLATION};
use lockcheck::check::outcome_word;
use lockcheck::interrupt;
use lockcheck::oracles::RedisWorld;
use lockcheck::scenario::Scenario;
use lockcheck::shard::{plan_hash, write_keys, ShardResult};
use lockcheck::InputError;
use lockcheck_sim::{explore_shard, Outcome, Report, ShardPlan};
use serde_json::json;
use std::path::{Path, PathBuf};

pub(super) fn cmd_check_shard(
    a: &CheckArgs,
    scenario: &Scenario,
    shards: u32,
    shard: u32,
    json_out: bool,
) -> Result<Output, CliError> {
    let plan = ShardPlan::new(shards, shard).map_err(|message| InputError {
        field: Some("--shard".into()),
        ..InputError::new(message)
    })?;
    let bar = search::spinner(json_out);
    let mut options = search::options(scenario, &a.limits, bar.clone());
    options.fault_coverage = true;
    let world = scenario
        .build()
        .map_err(build_error)?
        .with_wide_fingerprints(options.storage.wide_fingerprints);
    let stop_at_first = options.stop == lockcheck_sim::Stop::AtFirstViolation;
    let hash = plan_hash(&world, scenario, &options, plan);
    let found = explore_shard(&world, plan, options);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let (json_file, keys_file) = result_files(a, scenario, plan)?;
    let keys_name = keys_file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    write_keys(&keys_file, &found.keys, found.report.plan.width.is_wide())
        .map_err(|e| CliError::write(&keys_file, &e))?;
    let result = ShardResult::new(
        scenario,
        &world,
        plan,
        hash,
        stop_at_first,
        &found,
        keys_name,
    );
    let text = serde_json::to_string_pretty(&result).expect("a shard result serialises") + "\n";
    lockcheck::atomic_write::write_whole(&json_file, text)
        .map_err(|e| CliError::write(&json_file, &e))?;
    let report = &found.report;
    let text = shard_text(a, scenario, &result, report, &json_file);
    let code = match report.outcome {
        _ if report.first_violation().is_some() => EXIT_VIOLATION,
        Outcome::Interrupted => interrupt::exit_code(),
        Outcome::LimitReached(_) => EXIT_LIMIT,
        _ => EXIT_OK,
    };
    let mut j = serde_json::to_value(&result).expect("a shard result serialises");
    j["command"] = json!("check");
    j["result_file"] = json!(json_file.display().to_string());
    j["outcome"] = json!(outcome_word(&report.outcome));
    Ok(Output {
        text,
        json: j,
        code,
    })
}

/// What a shard prints: the plan and split, outcome, statistics, oracles and result file.
fn shard_text(
    a: &CheckArgs,
    scenario: &Scenario,
    result: &ShardResult,
    report: &Report<RedisWorld>,
    json_file: &Path,
) -> String {
    let s = &report.stats;
    let split = match &result.split {
        Some(sp) => format!(
            "split at depth {} ({} states): roots {}..{}",
            sp.depth,
            sp.level_states,
            sp.first_root,
            sp.first_root + sp.roots
        ),
        None => "no split: the search ended before a level was large enough".into(),
    };
    let mut text = format!(
        "scenario: {}\nshard {} of {} (plan {}), {split}\noutcome: {}\nstatistics: {} states, {} unique, depth {}, {} states/s\noracles:\n",
        scenario.name,
        result.shard,
        result.shards,
        result.plan_hash,
        outcome_text(&report.outcome, &a.limits),
        s.expanded_states,
        s.unique_states,
        s.max_depth,
        per_second(s.unique_states, s.wall_ms.unwrap_or(0)),
    );
    for p in &report.properties {
        text.push_str(&format!("  {} {}: {}\n", p.kind, p.name, p.status.word()));
    }
    text.push_str(&super::stats::reductions_text(report));
    text.push_str(&format!(
        "result: {} (merge every shard's with `lockcheck merge`)\n",
        json_file.display()
    ));
    text
}

/// The result and key files of shard `plan` in the shard folder (created if need be).
fn result_files(
    a: &CheckArgs,
    scenario: &Scenario,
    plan: ShardPlan,
) -> Result<(PathBuf, PathBuf), CliError> {
    lockcheck::atomic_write::create_dirs(&a.shard_dir)
        .map_err(|e| CliError::write(&a.shard_dir, &e))?;
    let stem = format!(
        "{}.shard-{}-of-{}",
        file_safe(&scenario.name),
        plan.shard,
        plan.shards
    );
    Ok((
        a.shard_dir.join(format!("{stem}.json")),
        a.shard_dir.join(format!("{stem}.keys")),
    ))
}
