//! The testing API never passes what `check` would not: a search cut short by a limit has no
//! verdict (so no safe one), and an oracle violated after another still counts as violated.

use lockcheck::scenario::{ExpectedVerdict, OracleSpec, Scenario};
use lockcheck::testing::{self, single_node_lock};

/// The panic message of `f`, which must panic.
fn panic_of(f: impl FnOnce()) -> String {
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).expect_err("it fails");
    match panic.downcast_ref::<String>() {
        Some(s) => s.clone(),
        None => panic.downcast_ref::<&str>().unwrap().to_string(),
    }
}

/// A safe single-node world (a 2 s pause under a 10 s TTL) whose search may store only
/// 20 states: far fewer than its space.
fn cut_short() -> Scenario {
    let mut s = single_node_lock("cut-short", 10_000, 1_000, 2_000);
    s.explore.max_states = 20;
    s
}

#[test]
fn a_safe_expectation_fails_on_a_search_cut_short_by_its_state_limit() {
    let s = cut_short();
    assert_eq!(s.expect, ExpectedVerdict::Safe);
    let msg = panic_of(|| {
        testing::check(&s).assert_expected();
    });
    assert!(msg.contains("expected safe, got no verdict"), "{msg}");
    assert!(msg.contains("hint: the search got"), "{msg}");
    let msg = panic_of(|| {
        testing::check(&s).assert_no_violation();
    });
    assert!(msg.contains("no verdict: state limit"), "{msg}");
    assert!(msg.contains("20 unique states"), "{msg}");
    assert!(msg.contains("hint: the search got"), "{msg}");
    assert!(testing::check(&s).as_expected().is_err());
    assert!(testing::check(&s).no_violation().is_err());
    // Uncut, the same world is safe as expected.
    let whole = single_node_lock("whole", 10_000, 1_000, 2_000);
    testing::check(&whole)
        .assert_expected()
        .assert_no_violation();
}

#[test]
fn check_on_the_command_line_says_the_same_of_a_search_cut_short() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cut-short");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cut-short.toml");
    std::fs::write(&file, lockcheck::scenario::to_toml::to_toml(&cut_short())).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lockcheck"))
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("expectation: DIFFERS from expectation: expected safe, got no verdict"),
        "{stdout}"
    );
}

/// Two clients on a single-node lock, the first paused 15 s past its 10 s TTL: the lock's
/// exclusion breaks first, then the account's.
fn two_oracles() -> Scenario {
    let mut s = single_node_lock("two-oracles", 10_000, 1_000, 15_000);
    s.oracles = vec![OracleSpec::MeLock, OracleSpec::MeResource];
    s.expect = ExpectedVerdict::Violated {
        oracle: "me-resource".into(),
    };
    s
}

#[test]
fn an_oracle_violated_after_another_passes_assert_violated() {
    let s = two_oracles();
    let run = testing::check(&s);
    assert_eq!(run.violated(), Some("me-lock"), "me-lock fires first");
    run.assert_violated("me-lock")
        .assert_violated("me-resource");
    run.assert_expected();
    assert!(testing::check(&s).violation_of("me-resource").is_ok());
    assert!(testing::check(&s).as_expected().is_ok());
    let msg = panic_of(|| {
        testing::check(&s).assert_violated("progress");
    });
    assert!(
        msg.contains("expected progress to be violated, found a violation of me-lock, me-resource"),
        "{msg}"
    );
}
