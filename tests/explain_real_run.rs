//! `explain WITNESS`: a reproduction's witness file (real `redis-server`, installed by
//! `.ci/run`) drawn as the model's run and the real run one above the other, with the step
//! table; a reply that differed is marked; a witness file of another format or with no run is
//! refused naming the file and the field; the trace is found beside the witness file.

mod common;

use common::{json, lockcheck_within, workdir, Out};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

fn lockcheck(dir: &Path, args: &[&str]) -> Out {
    lockcheck_within(dir, args, Duration::from_secs(120))
}

/// Reproduces `scenario`'s counterexample at x10 into `dir/w.json` (three tries at most: a
/// loaded machine may give INCONCLUSIVE); returns the witness.
fn witness(dir: &Path, scenario: &str) -> Value {
    let out = lockcheck(dir, &["check", scenario, "-o", "t.json"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    for _ in 0..3 {
        let out = lockcheck(
            dir,
            &[
                "reproduce",
                "t.json",
                "--speed",
                "10",
                "--witness",
                "w.json",
            ],
        );
        if out.code == 1 {
            let text = std::fs::read_to_string(dir.join("w.json")).unwrap();
            return serde_json::from_str(&text).unwrap();
        }
        assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    }
    panic!("{scenario} did not reproduce in three tries");
}

fn reply_steps(w: &Value) -> Vec<&Value> {
    w["runs"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["match"].is_boolean())
        .collect()
}

#[test]
fn a_witness_is_drawn_beside_the_model_and_a_differing_reply_is_marked() {
    let dir = workdir("explain-real-run");
    let w = witness(&dir, "kleppmann-pause-past-lease");
    let out = lockcheck(&dir, &["--json", "explain", "w.json", "-o", "real.html"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let j = json(&out);
    assert_eq!(j["verdict"], "REPRODUCED");
    assert_eq!(j["differing_steps"], serde_json::json!([]));
    assert_eq!(j["trace_file"], "t.json");
    let page = std::fs::read_to_string(dir.join("real.html")).unwrap();
    assert_eq!(
        page.matches("<svg").count(),
        2,
        "the model's chart and the real one"
    );
    assert!(page.contains(&format!(
        "on real Redis {} at x10",
        w["redis_version"].as_str().unwrap()
    )));
    let steps = w["runs"][0]["steps"].as_array().unwrap().len();
    assert_eq!(
        page.matches("<tr><td>").count(),
        steps,
        "one table row per step"
    );
    assert!(!page.contains("class=\"diverged\""));

    // The same witness with one reply that real Redis gave otherwise.
    let mut tampered = w.clone();
    let k = reply_steps(&w)[0]["step"].as_u64().unwrap();
    for s in tampered["runs"][0]["steps"].as_array_mut().unwrap() {
        if s["step"] == k {
            s["match"] = false.into();
            s["actual"] = "(error) ERR tampered".into();
        }
    }
    std::fs::write(dir.join("t2.json"), tampered.to_string()).unwrap();
    let out = lockcheck(&dir, &["--json", "explain", "t2.json"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(json(&out)["differing_steps"], serde_json::json!([k]));
    let page = std::fs::read_to_string(dir.join("t2.html")).unwrap();
    assert_eq!(page.matches("class=\"diverged\"").count(), 1);
    assert!(page.contains("real Redis: (error) ERR tampered"));
    assert_eq!(page.matches("<tr class=\"differs\">").count(), 1);

    // SVG: the real run's chart alone; the trace found beside a moved witness file.
    std::fs::create_dir_all(dir.join("moved")).unwrap();
    std::fs::rename(dir.join("t.json"), dir.join("moved/t.json")).unwrap();
    std::fs::rename(dir.join("t2.json"), dir.join("moved/t2.json")).unwrap();
    let out = lockcheck(&dir, &["explain", "moved/t2.json", "-o", "real.svg"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let svg = std::fs::read_to_string(dir.join("real.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("class=\"diverged\""));
}

#[test]
fn a_witness_file_of_another_format_or_with_no_run_is_refused() {
    let dir = workdir("explain-real-run-bad");
    let base = serde_json::json!({
        "format": "lockcheck-witness", "format_version": 1, "trace_file": "t.json",
        "scenario": "s", "redis_version": "7.0.15", "speed": 10.0, "oracle": "me-lock",
        "verdict": {"verdict": "reproduced"}, "reproduced_runs": 0, "runs": [],
    });
    let cases = [
        ("format_version", 99.into(), "format version 99"),
        ("runs", serde_json::json!([]), "no run"),
        ("speed", "fast".into(), "not a complete witness file"),
    ];
    for (field, value, words) in cases {
        let mut w = base.clone();
        w[field] = value;
        std::fs::write(dir.join("w.json"), w.to_string()).unwrap();
        let out = lockcheck(&dir, &["explain", "w.json"]);
        assert_eq!(out.code, 2, "{field}: {}{}", out.stdout, out.stderr);
        assert!(out.stderr.contains("w.json"), "{field}: {}", out.stderr);
        assert!(out.stderr.contains(words), "{field}: {}", out.stderr);
        assert!(!dir.join("w.html").exists());
    }
}
