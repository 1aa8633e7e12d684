//! `sweep` saves a trace for every violating point, and with `--html` its swimlane chart,
//! which the heat map's cell links to; a large two-parameter sweep prints a compact grid.

mod common;

use common::{json, lockcheck_within, repo, workdir};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn every_violating_point_has_a_trace_and_a_linked_chart() {
    let dir = workdir("sweep-traces");
    let file = repo("scenarios/pause-past-lease.toml")
        .display()
        .to_string();
    let args = [
        "--json",
        "sweep",
        &file,
        "--vary",
        "ttl=2s..14s:2s",
        "--vary",
        "pause=0s..24s:4s",
        "--html",
        "heat.html",
    ];
    let out = lockcheck_within(&dir, &args, LIMIT);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let j = json(&out);
    let cells = j["cells"].as_array().expect("cells");
    assert_eq!(cells.len(), 49);
    let heat = std::fs::read_to_string(dir.join("heat.html")).unwrap();
    let mut violated = 0;
    for c in cells {
        if c["verdict"] != "violated" {
            assert!(c.get("trace").is_none() && c.get("chart").is_none(), "{c}");
            continue;
        }
        violated += 1;
        let trace = c["trace"].as_str().expect("a violating point's trace");
        let chart = c["chart"].as_str().expect("and its chart");
        assert!(trace.starts_with("lockcheck-traces/"), "{trace}");
        assert!(dir.join(chart).is_file(), "{chart}");
        assert!(
            heat.contains(&format!("<a href=\"{chart}\">")),
            "{chart} not linked"
        );
        let replay = lockcheck_within(&dir, &["replay", trace], LIMIT);
        assert_eq!(replay.code, 1, "{}", replay.stderr);
    }
    assert!(violated > 5, "{violated}");

    let out = lockcheck_within(&dir, &args[1..], LIMIT);
    let grid: Vec<&str> = out.stdout.lines().skip(2).take(7).collect();
    // pause 24 s (top row) breaks every TTL here; pause 0 s (bottom row) none.
    assert_eq!(grid[0], "24s XXXXXXX", "{}", out.stdout);
    assert_eq!(grid[6], " 0s .......", "{}", out.stdout);
    assert!(out.stdout.contains(
        "traces of the violating points saved under lockcheck-traces, with their charts"
    ));
}
