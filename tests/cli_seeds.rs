//! A random walk's violation names its seed and the one command that reruns exactly that
//! walk, in text and JSON; running that command gives the same trace.

mod common;

use common::{json, lockcheck_within, workdir};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

fn trace_steps(file: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(file).expect("trace saved");
    let v: serde_json::Value = serde_json::from_str(&text).expect("trace is JSON");
    v["trace"]["steps"].clone()
}

#[test]
fn the_printed_rerun_command_repeats_the_walk() {
    let dir = workdir("seeds-rerun");
    let args = [
        "--json",
        "check",
        "kleppmann-pause-past-lease",
        "--random",
        "--seeds",
        "50",
        "-o",
        "many.trace.json",
    ];
    let out = lockcheck_within(&dir, &args, LIMIT);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let j = json(&out);
    let seed = j["seed"].as_u64().expect("the JSON carries the seed");
    let rerun = j["rerun_command"].as_str().expect("and the command");
    assert_eq!(
        rerun,
        format!(
            "lockcheck check kleppmann-pause-past-lease --random --first-seed {seed} --seeds 1"
        )
    );
    // The rerun command's own arguments, with an output file of its own.
    let mut again: Vec<&str> = rerun.split(' ').skip(1).collect();
    again.extend(["-o", "one.trace.json"]);
    let out = lockcheck_within(&dir, &again, LIMIT);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stdout.contains(&format!("random walk of seed {seed})")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains(&format!("rerun exactly this walk: {rerun}\n")),
        "{}",
        out.stdout
    );
    let (many, one) = (dir.join("many.trace.json"), dir.join("one.trace.json"));
    assert_eq!(trace_steps(&many), trace_steps(&one));
    assert!(trace_steps(&one).as_array().is_some_and(|s| !s.is_empty()));
}

#[test]
fn an_exhaustive_violation_names_no_seed() {
    let dir = workdir("seeds-exhaustive");
    let args = ["--json", "check", "kleppmann-pause-past-lease"];
    let out = lockcheck_within(&dir, &args, LIMIT);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let j = json(&out);
    assert!(j.get("seed").is_none() && j.get("rerun_command").is_none());
}
