//! Input that used to hang the binary or flood the terminal now ends in one short, located
//! error line and exit 2.

mod common;

use common::{assert_bad_input, lockcheck_within, repo, workdir};
use std::time::Duration;

fn example() -> String {
    std::fs::read_to_string(repo("scenarios/pause-past-lease.toml")).unwrap()
}

/// Before durations were bounded, this scenario made `check --time-limit 2s --max-states
/// 100` run until killed: the second client's work timer overflowed the clock arithmetic.
#[test]
fn a_duration_near_i64_max_is_a_quick_load_error_not_a_hang() {
    let dir = workdir("huge-work");
    let text = example()
        .replace("work_ms = [\"1s\"]", "work_ms = [9223372036854775000]")
        .replace("start_after_ms = \"100ms\"", "start_after_ms = \"2s\"");
    std::fs::write(dir.join("huge.toml"), text).unwrap();
    let args = [
        "check",
        "huge.toml",
        "--time-limit",
        "2s",
        "--max-states",
        "100",
    ];
    let out = lockcheck_within(&dir, &args, Duration::from_secs(60));
    assert_bad_input(
        &out,
        &[
            "huge.toml:23:12:",
            "field `clients[0].workload.work_ms[0]`",
            "9223372036854775000 ms is more than the largest accepted duration, 100 years (3155760000000 ms)",
        ],
    );
    assert!(out.elapsed < Duration::from_secs(10), "{:?}", out.elapsed);
}

#[test]
fn a_million_character_value_is_not_echoed_whole() {
    let dir = workdir("long-value");
    let long = "x".repeat(1_000_000);
    let text = example().replace(
        "release = \"owner_checked\"",
        &format!("release = \"{long}\""),
    );
    std::fs::write(dir.join("long.toml"), text).unwrap();
    let out = lockcheck_within(&dir, &["check", "long.toml"], Duration::from_secs(60));
    assert_bad_input(
        &out,
        &[
            "long.toml:18:",
            "clients[0].protocol.release",
            "unknown variant",
            "(1000003 characters)",
        ],
    );
    assert!(out.stderr.len() < 400, "{} bytes", out.stderr.len());
    let out = lockcheck_within(
        &dir,
        &["check", "long.toml", "--json"],
        Duration::from_secs(60),
    );
    assert!(out.stdout.len() < 1_000, "{} bytes", out.stdout.len());
}

#[test]
fn invalid_utf8_is_reported_with_its_byte_offset() {
    let dir = workdir("utf8");
    let mut bytes = example().into_bytes();
    let at = bytes.windows(6).position(|w| w == b"client").unwrap();
    bytes[at] = 0xff;
    std::fs::write(dir.join("bad.toml"), bytes).unwrap();
    let out = lockcheck_within(&dir, &["check", "bad.toml"], Duration::from_secs(60));
    assert_bad_input(
        &out,
        &[
            &format!("bad.toml:1:{}:", at + 1),
            &format!("not valid UTF-8: byte {at} (0xff)"),
        ],
    );
}

#[test]
fn a_duplicate_key_is_named() {
    let dir = workdir("duplicate");
    let text = example().replacen("ttl_ms = \"10s\"", "ttl_ms = \"10s\"\nttl_ms = \"5s\"", 1);
    std::fs::write(dir.join("dup.toml"), text).unwrap();
    let out = lockcheck_within(&dir, &["check", "dup.toml"], Duration::from_secs(60));
    assert_bad_input(&out, &["dup.toml:18:", "duplicate key `ttl_ms`"]);
}

/// TOML's `nan` and `inf` are numbers; read into a table they used to become null, which a
/// duration takes for "never".
#[test]
fn a_non_finite_number_is_refused_with_its_field() {
    let dir = workdir("non-finite");
    for value in ["nan", "+inf", "-inf"] {
        let text = example().replacen(
            "request_timeout_ms = \"2s\"",
            &format!("request_timeout_ms = {value}"),
            1,
        );
        std::fs::write(dir.join("nan.toml"), text).unwrap();
        let out = lockcheck_within(&dir, &["check", "nan.toml"], Duration::from_secs(60));
        assert_bad_input(
            &out,
            &[
                "nan.toml:20:",
                "field `clients[0].protocol.request_timeout_ms`",
                "is not a finite number",
            ],
        );
        let set = format!("clients[0].protocol.request_timeout_ms={value}");
        let args = ["check", "kleppmann-pause-past-lease", "--set", &set];
        let out = lockcheck_within(&dir, &args, Duration::from_secs(60));
        assert_bad_input(
            &out,
            &[
                "field `clients[0].protocol.request_timeout_ms`",
                "cannot set it",
            ],
        );
    }
}

/// An oracle kind without parameters takes no other key (serde's tagged enums accepted any).
#[test]
fn an_unknown_key_in_an_oracle_table_is_refused() {
    let dir = workdir("oracle-key");
    for kind in ["me-resource", "pause-while-holding"] {
        let text = example().replacen(
            &format!("kind = \"{kind}\""),
            &format!("kind = \"{kind}\"\nbound = \"1s\""),
            1,
        );
        std::fs::write(dir.join("oracle.toml"), text).unwrap();
        let out = lockcheck_within(&dir, &["check", "oracle.toml"], Duration::from_secs(60));
        assert_bad_input(
            &out,
            &["oracle.toml:", "unknown field `bound`, expected `kind`"],
        );
    }
    let text = example().replacen("[expect]", "[expect]\nbogus = 1", 1);
    std::fs::write(dir.join("expect.toml"), text).unwrap();
    let out = lockcheck_within(&dir, &["check", "expect.toml"], Duration::from_secs(60));
    assert_bad_input(&out, &["field `expect.bogus`", "unknown field `bogus`"]);
}

fn json_scenario() -> String {
    let out = lockcheck_within(
        &workdir("json-show"),
        &["show", "kleppmann-pause-past-lease", "--json"],
        Duration::from_secs(60),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let shown: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    serde_json::to_string_pretty(&shown["definition"]).unwrap()
}

/// A JSON scenario file is one value: anything after it, or a key given twice (in a
/// protocol's table too, which is read as data first), is refused.
#[test]
fn trailing_data_and_duplicate_keys_in_json_are_refused() {
    let dir = workdir("json-strict");
    let text = json_scenario();
    std::fs::write(dir.join("good.json"), &text).unwrap();
    let out = lockcheck_within(&dir, &["check", "good.json"], Duration::from_secs(120));
    assert_eq!(out.code, 1, "{}", out.stderr);
    std::fs::write(dir.join("trailing.json"), format!("{text}\n{{}}")).unwrap();
    let out = lockcheck_within(&dir, &["check", "trailing.json"], Duration::from_secs(60));
    assert_bad_input(&out, &["trailing.json:", "trailing characters"]);
    let dup = text.replacen("\"ttl_ms\": ", "\"ttl_ms\": 1, \"ttl_ms\": ", 1);
    assert_ne!(dup, text);
    std::fs::write(dir.join("dup.json"), dup).unwrap();
    let out = lockcheck_within(&dir, &["check", "dup.json"], Duration::from_secs(60));
    assert_bad_input(&out, &["dup.json:", "protocol", "duplicate key `ttl_ms`"]);
}
