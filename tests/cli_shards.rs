//! Sharded checks as processes: N `lockcheck check --shards N --shard K` processes run side by
//! side on this machine, and `lockcheck merge` of their result files gives the unsharded
//! check's verdict, counterexample (step for step), oracles and unique-state count. Bad input
//! (K >= N, results of different plans, missing shards, a damaged key file) is a clear error
//! with exit code 2.

mod common;

use common::{assert_bad_input, assert_bad_input_error, json, lockcheck_within, workdir, Out};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

fn run(dir: &Path, args: &[&str]) -> Out {
    lockcheck_within(dir, args, LIMIT)
}

/// Runs the `shards` shards of `scenario` as processes at once; their result files.
fn run_shards(dir: &Path, scenario: &str, shards: u32, extra: &[&str]) -> Vec<PathBuf> {
    let handles: Vec<_> = (0..shards)
        .map(|k| {
            let dir = dir.to_path_buf();
            let (scenario, extra) = (scenario.to_string(), extra.join(" "));
            std::thread::spawn(move || {
                let (n, k) = (shards.to_string(), k.to_string());
                let mut args = vec!["--json", "check", &scenario, "--shards", &n, "--shard", &k];
                args.extend(extra.split_whitespace());
                let out = run(&dir, &args);
                assert!(matches!(out.code, 0 | 1), "shard {k}: {}", out.stderr);
                dir.join(json(&out)["result_file"].as_str().unwrap())
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

fn merge(dir: &Path, files: &[PathBuf]) -> (Out, Value) {
    let mut args = vec!["--json", "merge"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let out = run(dir, &args);
    let j = json(&out);
    (out, j)
}

fn steps_of(dir: &Path, trace_file: &Value) -> Value {
    let text = std::fs::read_to_string(dir.join(trace_file.as_str().unwrap())).unwrap();
    let saved: Value = serde_json::from_str(&text).unwrap();
    saved["trace"]["steps"].clone()
}

fn oracles(j: &Value) -> Vec<(String, String)> {
    j["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["name"].to_string(), o["status"].to_string()))
        .collect()
}

/// The merge of 3 shard processes against the unsharded check (both without partial-order
/// reduction, under which the shards' counts and paths are their own), stopping at the first
/// violation or exploring all.
fn compare(scenario: &str, expect_code: i32) {
    let dir = workdir(&format!("shards-{scenario}"));
    let whole_dir = dir.join("whole");
    std::fs::create_dir_all(&whole_dir).unwrap();
    let whole = run(
        &whole_dir,
        &["--json", "check", scenario, "--no-partial-order"],
    );
    assert_eq!(whole.code, expect_code, "{}", whole.stderr);
    let whole = json(&whole);
    let files = run_shards(&dir, scenario, 3, &["--no-partial-order"]);
    let (out, merged) = merge(&dir, &files);
    assert_eq!(out.code, expect_code, "{}", out.stderr);
    assert_eq!(merged["verdict"], whole["verdict"], "{scenario}");
    assert_eq!(oracles(&merged), oracles(&whole), "{scenario}");
    assert_eq!(merged["shortest"], true);
    if expect_code == 1 {
        assert_eq!(merged["oracle"], whole["oracle"]);
        assert_eq!(merged["steps"], whole["steps"]);
        assert_eq!(
            steps_of(&dir, &merged["trace_file"]),
            steps_of(&whole_dir, &whole["trace_file"]),
            "{scenario}: the same counterexample"
        );
        let replay = run(&dir, &["replay", merged["trace_file"].as_str().unwrap()]);
        assert_eq!(
            replay.code, 1,
            "the merged trace replays: {}",
            replay.stderr
        );
    } else {
        let unique = &whole["statistics"]["unique_states"];
        assert_eq!(&merged["statistics"]["unique_states"], unique, "{scenario}");
        let summed = merged["statistics"]["shard_unique_states"]
            .as_u64()
            .unwrap();
        assert!(summed >= unique.as_u64().unwrap());
        // Each fault rule's instants: the union of the shards' is the whole search's.
        let rules = merged["fault_coverage"].as_array().unwrap();
        assert!(
            rules.iter().all(|r| r["instants"].as_u64() > Some(0)),
            "{merged}"
        );
        assert_eq!(
            merged["fault_coverage"], whole["fault_coverage"],
            "{scenario}"
        );
    }
}

#[test]
fn three_shard_processes_merge_to_the_unsharded_violation() {
    compare("kleppmann-pause-past-lease", 1);
}

#[test]
fn three_shard_processes_merge_to_the_unsharded_safe_verdict_and_state_count() {
    compare("redisson-gc-past-lease-defended", 0);
}

/// With partial-order reduction (the default), 3 shard processes merge to the reduced
/// check's verdict and oracles, and the merged counterexample replays.
#[test]
fn reduced_shard_processes_merge_to_the_reduced_verdict_and_a_real_counterexample() {
    let scenario = "kleppmann-pause-past-lease";
    let dir = workdir("shards-reduced");
    let whole_dir = dir.join("whole");
    std::fs::create_dir_all(&whole_dir).unwrap();
    let whole = json(&run(
        &whole_dir,
        &["--json", "check", scenario, "--all-oracles"],
    ));
    let files = run_shards(&dir, scenario, 3, &["--all-oracles"]);
    let (out, merged) = merge(&dir, &files);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(merged["verdict"], whole["verdict"]);
    assert_eq!(oracles(&merged), oracles(&whole));
    let replay = run(&dir, &["replay", merged["trace_file"].as_str().unwrap()]);
    assert_eq!(
        replay.code, 1,
        "the merged trace replays: {}",
        replay.stderr
    );
}

#[test]
fn a_shard_out_of_range_is_refused() {
    let dir = workdir("shards-out-of-range");
    let out = run(
        &dir,
        &["check", "delayed-restart", "--shards", "2", "--shard", "2"],
    );
    assert_bad_input(&out, &["--shard 2 is out of range", "0 to 1"]);
    let out = run(&dir, &["check", "delayed-restart", "--shards", "2"]);
    assert_bad_input_error(&out, &["--shard"]);
}

#[test]
fn merging_missing_shards_or_different_plans_is_refused() {
    let dir = workdir("shards-bad-merge");
    let two = run_shards(&dir, "delayed-restart", 2, &[]);
    let (out, _) = merge_text(&dir, &two[..1]);
    assert_bad_input(&out, &["shards missing", "1", "--partial"]);
    let other = run_shards(
        &dir,
        "delayed-restart",
        2,
        &["--max-depth", "30", "--shard-dir", "other"],
    );
    let (out, _) = merge_text(&dir, &[two[0].clone(), other[1].clone()]);
    assert_bad_input(&out, &["not of the same plan", "plan hash"]);
    let (out, _) = merge_text(&dir, &[two[0].clone(), two[0].clone()]);
    assert_bad_input(&out, &["are both shard 0"]);
    let mut args = vec!["merge", "--partial"];
    args.push(two[0].to_str().unwrap());
    let partial = run(&dir, &args);
    assert_eq!(
        partial.code, 3,
        "no verdict from part of the search: {}",
        partial.stdout
    );
}

#[test]
fn a_damaged_result_or_key_file_is_refused_with_its_name() {
    let dir = workdir("shards-damaged");
    let files = run_shards(&dir, "delayed-restart", 2, &[]);
    let keys = files[1].with_extension("keys");
    let bytes = std::fs::read(&keys).unwrap();
    std::fs::write(&keys, &bytes[..bytes.len() - 3]).unwrap();
    let (out, _) = merge_text(&dir, &files);
    assert_bad_input(&out, &["damaged key file", "ends 1 keys early", ".keys"]);
    std::fs::write(&files[0], "{\"lockcheck_shard_format\": 1}").unwrap();
    let (out, _) = merge_text(&dir, &files);
    assert_bad_input(&out, &["shard-0-of-2.json", "missing field"]);
}

fn merge_text(dir: &Path, files: &[PathBuf]) -> (Out, ()) {
    let mut args = vec!["merge"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    (run(dir, &args), ())
}

/// Shards of a 128-bit plan write 128-bit key files and merge to the unsharded 128-bit
/// check's state count; a 64-bit shard is another plan and is refused.
#[test]
fn shards_with_128_bit_fingerprints_merge_to_the_unsharded_count_and_never_mix_widths() {
    let dir = workdir("shards-wide");
    let wide = ["--no-partial-order", "--fingerprint-bits", "128"];
    let mut args = vec!["--json", "check", "redisson-gc-past-lease-defended"];
    args.extend(wide);
    let whole = run(&dir, &args);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    let whole = json(&whole);
    assert_eq!(whole["search"]["fingerprint_bits"], 128);
    let files = run_shards(&dir, "redisson-gc-past-lease-defended", 3, &wide);
    for file in &files {
        let result: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let keys = file.with_file_name(result["keys_file"].as_str().unwrap());
        let bytes = std::fs::read(&keys).unwrap();
        assert_eq!(&bytes[..8], b"LCKEYS02", "{}", keys.display());
        let count = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
        assert_eq!(bytes.len() as u64, 16 + 16 * count, "{}", keys.display());
    }
    let (out, merged) = merge(&dir, &files);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(merged["verdict"], whole["verdict"]);
    assert_eq!(
        merged["statistics"]["unique_states"],
        whole["statistics"]["unique_states"]
    );
    assert_eq!(merged["fingerprint_bits"], 128);
    let p = merged["collision_probability"].as_f64().unwrap();
    assert!(p > 0.0 && p < 1e-20, "{p}");
    let narrow = run_shards(
        &dir,
        "redisson-gc-past-lease-defended",
        3,
        &["--no-partial-order", "--shard-dir", "narrow"],
    );
    let (out, narrow_merged) = merge(&dir, &narrow);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(narrow_merged["fingerprint_bits"], 64);
    assert!(narrow_merged["collision_probability"].as_f64().unwrap() > p);
    let (out, _) = merge_text(
        &dir,
        &[files[0].clone(), narrow[1].clone(), files[2].clone()],
    );
    assert_bad_input(&out, &["not of the same plan", "plan hash"]);
}
