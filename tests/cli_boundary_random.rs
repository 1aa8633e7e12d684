//! `boundary` says which search it used: exhaustive, random walks when asked (`--random`),
//! or random walks from the value where the exhaustive search reached a limit.

mod common;

use common::{json, lockcheck_within, repo, workdir};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

fn boundary(extra: &[&str]) -> serde_json::Value {
    let dir = workdir("boundary-random");
    let file = repo("scenarios/pause-past-lease.toml")
        .display()
        .to_string();
    let mut args = vec![
        "--json",
        "boundary",
        file.as_str(),
        "--vary",
        "pause=0s..60s",
    ];
    args.extend_from_slice(extra);
    let out = lockcheck_within(&dir, &args, LIMIT);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    json(&out)
}

#[test]
fn each_search_finds_the_same_flip_and_says_which_it_was() {
    let exhaustive = boundary(&[]);
    assert_eq!(exhaustive["search"]["kind"], "exhaustive");
    assert_eq!(exhaustive["flip"]["at_ms"], 9_108);

    let random = boundary(&["--random", "--seeds", "50"]);
    assert_eq!(random["search"]["kind"], "random");
    assert_eq!(random["search"]["seeds"], 50);
    assert_eq!(random["flip"]["at_ms"], 9_108);

    // 200 states are too few for an exhaustive verdict at the range's end.
    let fallback = boundary(&["--max-states", "200", "--seeds", "50"]);
    assert_eq!(fallback["search"]["kind"], "exhaustive_then_random");
    assert_eq!(fallback["search"]["fell_back_at_ms"], 60_000);
    assert_eq!(fallback["flip"]["at_ms"], 9_108);
}
