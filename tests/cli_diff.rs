//! "Why is this safe?": `boundary --explain` follows the violating neighbour's counterexample
//! in the safe neighbour and shows where the runs part; `diff` compares two saved runs and
//! draws both.

mod common;

use common::{json, lockcheck_within, repo, workdir};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn the_one_millisecond_cliff_is_explained() {
    let dir = workdir("diff-cliff");
    let file = repo("scenarios/pause-past-lease.toml")
        .display()
        .to_string();
    let args = [
        "--json",
        "boundary",
        file.as_str(),
        "--vary",
        "pause=0s..60s",
        "--explain",
    ];
    let out = lockcheck_within(&dir, &args, LIMIT);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let j = json(&out);
    assert_eq!(j["flip"]["at_ms"], 9_108);
    let e = &j["explanation"];
    // The runs agree up to the instant client-1's work ends, 1 ms apart.
    assert_eq!(e["common_steps"], 45);
    assert_eq!(e["parting_ms"], 10_111);
    assert_eq!(e["a"]["account_damaged"], true);
    assert_eq!(e["b"]["account_damaged"], false);
    assert_eq!(e["b"]["two_holders"], true, "the lock breaks on both sides");
    let (broken, safe) = (
        e["violating_trace"].as_str().unwrap(),
        e["safe_trace"].as_str().unwrap(),
    );
    assert_eq!(
        broken,
        "lockcheck-traces/pause-past-lease-pause=9.108s.trace.json"
    );
    assert_eq!(
        safe,
        "lockcheck-traces/pause-past-lease-pause=9.107s.trace.json"
    );

    let out = lockcheck_within(&dir, &["diff", broken, safe, "--html", "p.html"], LIMIT);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with(&format!(
        "{broken} and {safe} agree for 45 steps (to t=10111 ms); they part at step 46:\n"
    )));
    // On the safe side client-2 reads the balance after client-1's debit.
    assert!(out
        .stdout
        .contains("deliver account -> client-2: balance 90 (version 1, op done: true)"));
    let page = std::fs::read_to_string(dir.join("p.html")).unwrap();
    assert_eq!(page.matches("<svg").count(), 2);
    assert!(
        page.matches("class=\"parting\"").count() >= 8,
        "a line on every lane"
    );
}
