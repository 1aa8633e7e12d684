//! The cause first on the command line: `check`, `replay` and `shrink` print the `why` block
//! right after their verdict line, `--full` unfolds it, `--json` carries it, `explain`'s HTML
//! lists the same lines under the chart, and the README shows what `check` prints.

mod common;

use common::{lockcheck_within, workdir, Out};
use std::path::Path;
use std::time::Duration;

fn lockcheck_in(dir: &Path, args: &[&str]) -> Out {
    lockcheck_within(dir, args, Duration::from_secs(300))
}

/// The lines of the `why` block that follows line `after` (0-based), without their
/// indentation; panics unless the block starts right there.
fn why_block(stdout: &str, after: usize) -> Vec<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[after + 1].starts_with("why (the events the violation depends on, in order):"),
        "no why block after line {after}:\n{stdout}"
    );
    lines[after + 2..]
        .iter()
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim_start().to_string())
        .collect()
}

fn unescape(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[test]
fn check_replay_shrink_and_explain_open_with_the_same_why() {
    let dir = workdir("why");
    let out = lockcheck_in(&dir, &["check", "seed-003-incident", "-o", "t.json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let verdict = out.stdout.lines().position(|l| l.starts_with("verdict: "));
    let why = why_block(&out.stdout, verdict.expect("a verdict"));
    assert!(why.len() <= 15, "{why:#?}");
    assert!(why[0].ends_with("EVAL redisson-acquire account:lock:10086 30000 instance-a:1"));
    assert!(why
        .iter()
        .any(|l| l.ends_with("FAULT pause instance-a for 2900 ms")));
    let mechanism = why.last().unwrap();
    assert!(
        mechanism.starts_with("mechanism: instance-a's renewal failed"),
        "{mechanism}"
    );

    let replay = lockcheck_in(&dir, &["replay", "t.json"]);
    assert_eq!(replay.code, 1, "{}", replay.stderr);
    let second = replay.stdout.lines().nth(1).unwrap();
    assert!(
        second.starts_with("verdict: VIOLATION of me-resource reproduced"),
        "{second}"
    );
    assert_eq!(why_block(&replay.stdout, 1), why);

    let explain = lockcheck_in(&dir, &["explain", "t.json", "-o", "t.html"]);
    assert_eq!(explain.code, 0, "{}", explain.stderr);
    let html = std::fs::read_to_string(dir.join("t.html")).unwrap();
    let list = html
        .split("<ul class=\"causes\">\n")
        .nth(1)
        .and_then(|rest| rest.split("</ul>").next())
        .expect("the list of causes");
    let items: Vec<String> = list
        .lines()
        .map(|l| unescape(l.trim_start_matches("<li>").trim_end_matches("</li>")))
        .collect();
    assert_eq!(items, why);

    let shrink = lockcheck_in(&dir, &["shrink", "t.json", "-o", "small.json"]);
    assert_eq!(shrink.code, 1, "{}", shrink.stderr);
    let small = why_block(&shrink.stdout, 0);
    assert!(
        small.last().unwrap().starts_with("mechanism: "),
        "{small:#?}"
    );
}

#[test]
fn full_lists_every_renewal() {
    let dir = workdir("why-full");
    let renew = "deliver p1 -> redis: EVAL compare-and-pexpire order_lock p1 3000";
    let count = |out: &Out| out.stdout.lines().filter(|l| l.contains(renew)).count();
    let folded = lockcheck_in(&dir, &["check", "aof-stall-power-loss"]);
    let full = lockcheck_in(&dir, &["check", "aof-stall-power-loss", "--full"]);
    assert_eq!((folded.code, full.code), (1, 1), "{}", full.stderr);
    let at = |out: &Out| out.stdout.lines().position(|l| l.starts_with("verdict: "));
    let folded_why = why_block(&folded.stdout, at(&folded).unwrap());
    let full_why = why_block(&full.stdout, at(&full).unwrap());
    let renewals = full_why.iter().filter(|l| l.ends_with(renew)).count();
    assert!(renewals >= 3, "{full_why:#?}");
    let folded_line: Vec<&String> = folded_why.iter().filter(|l| l.contains(renew)).collect();
    assert_eq!(folded_line.len(), 1, "{folded_why:#?}");
    assert!(folded_line[0].contains(&format!("({renewals} times from t=")));
    // The timeline after the block is the same either way.
    assert_eq!(count(&full) - renewals, count(&folded) - 1);
}

/// The README's example of `check`'s output shows the `why` block `check` prints.
#[test]
fn the_readme_shows_the_why_block_check_prints() {
    let dir = workdir("why-readme");
    let out = lockcheck_in(&dir, &["check", "seed-003-incident"]);
    let at = out.stdout.lines().position(|l| l.starts_with("verdict: "));
    let printed = why_block(&out.stdout, at.expect("a verdict"));
    let readme = std::fs::read_to_string(common::repo("README.md")).unwrap();
    let at = readme
        .lines()
        .position(|l| l.starts_with("verdict: VIOLATION of me-resource"));
    assert_eq!(why_block(&readme, at.expect("the example")), printed);
}

/// `--json` carries the same list and mechanism.
#[test]
fn json_carries_the_why() {
    let dir = workdir("why-json");
    let out = lockcheck_in(
        &dir,
        &["--json", "check", "single-node-plain-del-late-unlock"],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let j: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let events = j["why"]["events"].as_array().expect("why.events");
    let labels: Vec<&str> = events.iter().filter_map(|e| e["label"].as_str()).collect();
    assert_eq!(labels[6], "deliver client-1 -> redis: DEL order_lock");
    assert_eq!(events.last().unwrap()["root"], true);
    let mechanism = j["why"]["mechanisms"][0].as_str().unwrap();
    assert!(
        mechanism.starts_with("client-1's plain DEL order_lock"),
        "{mechanism}"
    );
}
