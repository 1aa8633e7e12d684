//! Scenario files that make no sense, or whose values are out of range, are refused at load
//! with the field named (one test per case). Each case edits the example
//! `scenarios/pause-past-lease.toml`, which itself loads.

use lockcheck::scenario::file::{scenario_from_json, scenario_from_toml};
use lockcheck::InputError;

fn example() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/pause-past-lease.toml"
    );
    std::fs::read_to_string(path).unwrap()
}

/// The example with each `(from, to)` replaced once.
fn edited(edits: &[(&str, &str)]) -> String {
    edits.iter().fold(example(), |text, (from, to)| {
        assert!(text.contains(from), "`{from}` not in the example");
        text.replacen(from, to, 1)
    })
}

/// Loading fails at `field`, with every word of `expected` in the message.
fn refused(text: &str, field: &str, expected: &[&str]) -> InputError {
    let e = scenario_from_toml(text).expect_err("refused");
    assert_eq!(e.field.as_deref(), Some(field), "{e}");
    for w in expected {
        assert!(e.message.contains(w), "`{w}` not in: {e}");
    }
    e
}

const PARTITION: &str = "\n[[faults.partitions]]\nname = \"cut\"\nside_a = [\"client-1\"]\nside_b = [\"redis\"]\ndurations_ms = [\"1s\"]\n";

#[test]
fn the_example_itself_loads() {
    scenario_from_toml(&example()).expect("loads");
    scenario_from_toml(&(example() + PARTITION)).expect("loads with a partition");
}

#[test]
fn an_empty_oracle_list_is_refused() {
    let text = edited(&[
        ("[[oracles]]\nkind = \"me-resource\"\n", ""),
        ("[[oracles]]\nkind = \"pause-while-holding\"\n", ""),
        ("description =", "oracles = []\ndescription ="),
    ]);
    refused(&text, "oracles", &["no oracles to check"]);
}

#[test]
fn zero_rounds_are_refused() {
    let text = edited(&[("uses_account = true", "uses_account = true\nrounds = 0")]);
    refused(&text, "clients[0].workload.rounds", &["at least 1"]);
}

#[test]
fn an_empty_list_of_pause_durations_is_refused() {
    let text = edited(&[("durations_ms = [\"15s\"]", "durations_ms = []")]);
    refused(
        &text,
        "faults.pauses[0].durations_ms",
        &["at least one value"],
    );
}

#[test]
fn an_empty_list_of_restart_delays_is_refused() {
    let crash = "\n[[faults.crashes]]\nprocess = \"redis\"\nrestart_after_ms = []\n";
    refused(
        &(example() + crash),
        "faults.crashes[0].restart_after_ms",
        &["at least one value"],
    );
}

#[test]
fn a_zero_depth_is_refused() {
    refused(
        &(example() + "\n[explore]\nmax_depth = 0\n"),
        "explore.max_depth",
        &["at least 1"],
    );
}

#[test]
fn zero_random_seeds_are_refused() {
    refused(
        &(example() + "\n[explore]\nrandom_seeds = 0\n"),
        "explore.random_seeds",
        &["at least 1", "no random walk"],
    );
}

#[test]
fn a_zero_ms_pause_is_refused() {
    let text = edited(&[(
        "durations_ms = [\"15s\"]",
        "durations_ms = [\"15s\", \"0ms\"]",
    )]);
    let e = refused(&text, "faults.pauses[0].durations_ms[1]", &["0 ms pause"]);
    assert_eq!(e.line, Some(47), "located at the list: {e}");
}

#[test]
fn a_zero_ms_partition_is_refused() {
    let text = example() + &PARTITION.replace("[\"1s\"]", "[0]");
    refused(
        &text,
        "faults.partitions[0].durations_ms[0]",
        &["0 ms partition"],
    );
}

#[test]
fn a_zero_ms_clock_step_is_refused() {
    let step = "\n[[faults.clock_steps]]\nprocess = \"client-1\"\ndeltas_ms = [\"-1s\", 0]\n";
    refused(
        &(example() + step),
        "faults.clock_steps[0].deltas_ms[1]",
        &["0 ms clock step"],
    );
}

#[test]
fn an_expected_oracle_the_scenario_does_not_check_is_refused() {
    let text = edited(&[("oracle = \"me-resource\"", "oracle = \"me-resorce\"")]);
    refused(
        &text,
        "expect.oracle",
        &["`me-resorce`", "me-resource, pause-while-holding"],
    );
}

#[test]
fn an_empty_lock_name_is_refused() {
    let text = edited(&[("locks = [\"order_lock\"]", "locks = [\"\"]")]);
    refused(
        &text,
        "clients[0].workload.locks[0]",
        &["must not be empty"],
    );
}

#[test]
fn an_empty_process_name_is_refused() {
    let text = edited(&[("name = \"client-2\"", "name = \" \"")]);
    refused(&text, "clients[1].name", &["must not be empty"]);
    let text = edited(&[("name = \"redis\"", "name = \"\"")]);
    refused(&text, "nodes[0].name", &["must not be empty"]);
}

#[test]
fn a_partition_with_an_empty_side_is_refused() {
    let text = example() + &PARTITION.replace("side_b = [\"redis\"]", "side_b = []");
    refused(
        &text,
        "faults.partitions[0].side_b",
        &["at least one process"],
    );
}

#[test]
fn a_process_on_both_sides_of_a_partition_is_refused() {
    let text = example()
        + &PARTITION.replace("side_b = [\"redis\"]", "side_b = [\"redis\", \"client-1\"]");
    refused(
        &text,
        "faults.partitions[0].side_b[1]",
        &["`client-1` is on both sides"],
    );
}

#[test]
fn a_duration_beyond_100_years_is_refused_with_the_bound() {
    let text = edited(&[(
        "work_ms = [\"1s\"]",
        "work_ms = [\"1s\", 9223372036854775000]",
    )]);
    let e = refused(
        &text,
        "clients[0].workload.work_ms[1]",
        &["9223372036854775000 ms", "100 years (3155760000000 ms)"],
    );
    assert_eq!(e.line, Some(23), "{e}");
    // Exactly 100 years is accepted, one ms more is not.
    let at = |ms: u64| {
        edited(&[(
            "start_after_ms = \"100ms\"",
            &format!("start_after_ms = {ms}"),
        )])
    };
    scenario_from_toml(&at(3_155_760_000_000)).expect("100 years is accepted");
    refused(
        &at(3_155_760_000_001),
        "clients[1].workload.start_after_ms",
        &["100 years"],
    );
}

#[test]
fn a_negative_clock_offset_beyond_100_years_is_refused() {
    let text = edited(&[(
        "[[clients]]\nname = \"client-2\"",
        "[[clients]]\nname = \"client-2\"\nclock = { offset_ms = -9000000000000000 }",
    )]);
    refused(&text, "clients[1].clock.offset_ms", &["100 years"]);
}

#[test]
fn a_huge_ttl_in_json_is_reported_at_the_ttl() {
    let scenario = scenario_from_toml(&example()).unwrap();
    let mut form = serde_json::to_value(&scenario).unwrap();
    form["clients"][0]["protocol"]["ttl_ms"] = serde_json::json!(u64::MAX);
    let e = scenario_from_json(&form.to_string()).expect_err("refused");
    assert_eq!(
        e.field.as_deref(),
        Some("clients[0].protocol.ttl_ms"),
        "{e}"
    );
    assert!(e.message.contains("18446744073709551615 ms"), "{e}");
}

#[test]
fn a_drift_factor_beyond_the_ttl_and_huge_amounts_are_refused() {
    let text = edited(&[
        ("kind = \"single_node\"", "kind = \"redlock\"\nnodes = [\"redis\"]\ndrift_ppm = 4000000000"),
        ("node = \"redis\"\nttl_ms", "ttl_ms"),
        ("release = \"owner_checked\"       # owner_checked (compare-and-delete script) | plain_del\nretry_ms = \"2s\"\nrequest_timeout_ms = \"2s\"\n", ""),
    ]);
    refused(&text, "clients[0].protocol.drift_ppm", &["1000000 ppm"]);
    let text = edited(&[(
        "uses_account = true",
        "uses_account = true\namount = -9000000000000000000",
    )]);
    refused(&text, "clients[0].workload.amount", &["out of range"]);
}

/// Found by `tests/fuzz_input.rs`: `i64::MIN` overflowed the magnitude checks themselves.
#[test]
fn the_most_negative_numbers_are_refused_not_a_panic() {
    let text = edited(&[(
        "initial_balance = 100",
        "initial_balance = -9223372036854775808",
    )]);
    refused(&text, "account.initial_balance", &["out of range"]);
    let text = edited(&[(
        "[[clients]]\nname = \"client-2\"",
        "[[clients]]\nname = \"client-2\"\nclock = { drift_ppm = -9223372036854775808 }",
    )]);
    refused(&text, "clients[1].clock.drift_ppm", &["±999,999 ppm"]);
    let text = edited(&[(
        "durations_ms = [\"15s\"]",
        "durations_ms = [-9223372036854775808]",
    )]);
    refused(&text, "faults.pauses[0].durations_ms", &["negative"]);
}

/// A disk stall of `node` lasting `durations`, allowed once.
fn disk_stall(node: &str, durations: &str) -> String {
    format!("\n[[faults.disk_stalls]]\nnode = \"{node}\"\ndurations_ms = {durations}\n")
}

#[test]
fn a_disk_stall_needs_a_node_with_aof_everysec() {
    // The example's node keeps no AOF: a stalled fsync would change nothing.
    let e = refused(
        &(example() + &disk_stall("redis", "[\"3s\"]")),
        "faults.disk_stalls[0].node",
        &["`redis`", "aof_everysec"],
    );
    assert!(e.line.is_some(), "located in the file: {e}");
    let everysec = example().replacen(
        "name = \"redis\"",
        "name = \"redis\"\npersistence = \"aof_everysec\"",
        1,
    );
    scenario_from_toml(&(everysec.clone() + &disk_stall("redis", "[\"3s\"]")))
        .expect("a stall of an AOF everysec node loads");
    refused(
        &(everysec + &disk_stall("client-1", "[\"3s\"]")),
        "faults.disk_stalls[0].node",
        &["`client-1`", "aof_everysec"],
    );
}

#[test]
fn a_zero_or_missing_disk_stall_duration_is_refused() {
    refused(
        &(example() + &disk_stall("redis", "[\"0s\"]")),
        "faults.disk_stalls[0].durations_ms[0]",
        &["disk stall"],
    );
    refused(
        &(example() + &disk_stall("redis", "[]")),
        "faults.disk_stalls[0].durations_ms",
        &["at least one value"],
    );
    refused(
        &(example() + &disk_stall("redis", "[\"soon\"]")),
        "faults.disk_stalls[0].durations_ms[0]",
        &[],
    );
}

#[test]
fn a_retry_delay_set_must_hold_positive_delays() {
    let set = edited(&[("retry_ms = \"2s\"", "retry_ms = [\"1s\", \"2s\"]")]);
    let s = scenario_from_toml(&set).expect("a set of delays loads");
    let lockcheck::scenario::ProtocolSpec::SingleNode { retry_ms, .. } = &s.clients[0].protocol
    else {
        panic!("the example is single-node")
    };
    assert_eq!(retry_ms, &[1_000, 2_000]);
    refused(
        &edited(&[("retry_ms = \"2s\"", "retry_ms = []")]),
        "clients[0].protocol.retry_ms",
        &["at least one retry delay"],
    );
    refused(
        &edited(&[("retry_ms = \"2s\"", "retry_ms = [\"2s\", 0]")]),
        "clients[0].protocol.retry_ms[1]",
        &["greater than 0"],
    );
}

#[test]
fn an_attempt_limit_allows_at_least_one_attempt() {
    let text = edited(&[("retry_ms = \"2s\"", "retry_ms = \"2s\"\nmax_attempts = 0")]);
    refused(&text, "clients[0].protocol.max_attempts", &["at least 1"]);
    let text = edited(&[(
        "retry_ms = \"2s\"",
        "retry_ms = \"2s\"\nmax_attempts = 70000",
    )]);
    refused(
        &text,
        "clients[0].protocol.max_attempts",
        &["at most 65535"],
    );
}

#[test]
fn a_redlock_node_listed_twice_is_refused() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/redlock-baseline-safe.toml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let from = r#"nodes = ["redis-1", "redis-2", "redis-3", "redis-4", "redis-5"]"#;
    assert!(text.contains(from));
    let text = text.replacen(
        from,
        r#"nodes = ["redis-1", "redis-2", "redis-3", "redis-2", "redis-5"]"#,
        1,
    );
    let e = refused(
        &text,
        "clients[0].protocol.nodes[3]",
        &["`redis-2` is listed twice", "distinct nodes"],
    );
    assert!(e.line.is_some(), "{e}");
}

#[test]
fn fencing_without_any_client_that_gets_a_token_is_refused() {
    let unfenced = edited(&[(
        "initial_balance = 100",
        "initial_balance = 100\nfencing = true",
    )]);
    refused(
        &unfenced,
        "account.fencing",
        &["no client gets a fencing token", "fencing_counter"],
    );
    let fenced = edited(&[
        (
            "initial_balance = 100",
            "initial_balance = 100\nfencing = true",
        ),
        (
            "request_timeout_ms = \"2s\"",
            "request_timeout_ms = \"2s\"\nfencing_counter = \"order_lock:token\"",
        ),
    ]);
    scenario_from_toml(&fenced).expect("one client with a counter is enough");
}
