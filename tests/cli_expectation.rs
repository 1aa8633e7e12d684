//! `check` compares its verdict with the scenario's `[expect]` when it is stated, in text and
//! JSON, without changing the exit code; a scenario without `[expect]` checks as before, and
//! one changed with `--set` reports the original's expectation as not applying (unless a
//! `--set expect...` states one).

mod common;

use common::{json, lockcheck_within, repo, workdir, Out};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

/// `scenarios/pause-past-lease.toml` with its `[expect]` section replaced by `expect`.
fn with_expect(dir: &std::path::Path, expect: &str) -> String {
    let text = std::fs::read_to_string(repo("scenarios/pause-past-lease.toml")).unwrap();
    let cut = text
        .find("[expect]")
        .expect("the example states an expectation");
    std::fs::write(dir.join("s.toml"), format!("{}{expect}", &text[..cut])).unwrap();
    "s.toml".into()
}

/// The scenario in `file` with no pause in its envelope: nothing goes wrong.
fn without_pauses(dir: &std::path::Path, file: &str) -> String {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    assert!(text.contains("max_pauses = 1\n"));
    let changed = text.replace("max_pauses = 1\n", "max_pauses = 0\n");
    std::fs::write(dir.join("no-pauses.toml"), changed).unwrap();
    "no-pauses.toml".into()
}

fn check(dir: &std::path::Path, file: &str, extra: &[&str]) -> (Out, Out) {
    let mut text_args = vec!["check", file];
    text_args.extend(extra);
    let text = lockcheck_within(dir, &text_args, LIMIT);
    let mut json_args = vec!["--json"];
    json_args.extend(text_args);
    (text, lockcheck_within(dir, &json_args, LIMIT))
}

#[test]
fn a_violation_that_was_expected_matches() {
    let dir = workdir("expect-matches");
    let file = with_expect(
        &dir,
        "[expect]\nverdict = \"violated\"\noracle = \"me-resource\"\n",
    );
    let (text, j) = check(&dir, &file, &[]);
    assert_eq!(text.code, 1, "{}", text.stderr);
    assert!(
        text.stdout
            .contains("expectation: matches expectation (violation of me-resource)\n"),
        "{}",
        text.stdout
    );
    let j = json(&j);
    assert_eq!(j["expectation"]["status"], "matches");
    assert_eq!(j["expectation"]["expected"], "violation of me-resource");
}

#[test]
fn a_violation_where_safe_was_expected_differs_and_keeps_its_exit_code() {
    let dir = workdir("expect-differs");
    let file = with_expect(&dir, "[expect]\nverdict = \"safe\"\n");
    let (text, j) = check(&dir, &file, &[]);
    assert_eq!(text.code, 1, "a violation exits 1 whatever was expected");
    assert!(
        text.stdout.contains(
            "expectation: DIFFERS from expectation: expected safe, got violation of me-resource\n"
        ),
        "{}",
        text.stdout
    );
    let j = json(&j);
    assert_eq!(j["expectation"]["status"], "differs");
    assert_eq!(j["expectation"]["expected"], "safe");
    assert_eq!(j["expectation"]["got"], "violation of me-resource");
}

#[test]
fn a_safe_run_where_a_violation_was_expected_differs() {
    let dir = workdir("expect-safe-differs");
    let file = with_expect(
        &dir,
        "[expect]\nverdict = \"violated\"\noracle = \"me-resource\"\n",
    );
    let file = without_pauses(&dir, &file);
    let (text, j) = check(&dir, &file, &[]);
    assert_eq!(text.code, 0, "{}\n{}", text.stdout, text.stderr);
    let j = json(&j);
    assert_eq!(j["verdict"], "no_violation");
    assert_eq!(j["expectation"]["status"], "differs");
    assert!(
        text.stdout
            .contains("DIFFERS from expectation: expected violation of me-resource, got"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_search_cut_short_does_not_match_a_safe_expectation() {
    let dir = workdir("expect-cut-short");
    let file = with_expect(&dir, "[expect]\nverdict = \"safe\"\n");
    let file = without_pauses(&dir, &file);
    let (text, j) = check(&dir, &file, &["--max-states", "5"]);
    assert_eq!(text.code, 3, "{}\n{}", text.stdout, text.stderr);
    let j = json(&j);
    assert_eq!(j["expectation"]["status"], "differs");
    assert!(
        j["expectation"]["got"]
            .as_str()
            .unwrap()
            .starts_with("no verdict"),
        "{j}"
    );
}

#[test]
fn without_an_expectation_check_runs_and_says_nothing_about_one() {
    let dir = workdir("expect-unstated");
    let file = with_expect(&dir, "");
    let (text, j) = check(&dir, &file, &[]);
    assert_eq!(text.code, 1, "{}", text.stderr);
    assert!(text.stdout.contains("verdict: VIOLATION of me-resource"));
    assert!(!text.stdout.contains("expectation:"), "{}", text.stdout);
    let j = json(&j);
    assert_eq!(j["expectation"]["status"], "unstated");
    // `show` exports it without an `[expect]` section, and that export loads again.
    let shown = lockcheck_within(&dir, &["show", &file, "--toml"], LIMIT);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(!shown.stdout.contains("[expect]"), "{}", shown.stdout);
    std::fs::write(dir.join("again.toml"), &shown.stdout).unwrap();
    let again = lockcheck_within(&dir, &["check", "again.toml"], LIMIT);
    assert_eq!(again.code, 1, "{}", again.stderr);
}

#[test]
fn a_scenario_changed_with_set_reports_the_expectation_as_not_applying() {
    let dir = workdir("expect-not-applicable");
    let file = with_expect(&dir, "[expect]\nverdict = \"safe\"\n");
    // Still violated, as a plain check exits: 1.
    let (text, j) = check(&dir, &file, &["--set", "ttl=10s"]);
    assert_eq!(text.code, 1, "{}\n{}", text.stdout, text.stderr);
    assert!(
        text.stdout
            .contains("expectation: not applicable, the scenario was changed with --set\n"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("DIFFERS"), "{}", text.stdout);
    let j = json(&j);
    assert_eq!(j["expectation"]["status"], "not_applicable");
    // Safe without the pause: 0, whatever the original expected.
    let (text, j) = check(&dir, &file, &["--set", "faults.max_pauses=0"]);
    assert_eq!(text.code, 0, "{}\n{}", text.stdout, text.stderr);
    assert_eq!(json(&j)["expectation"]["status"], "not_applicable");
    // A set expectation is compared: the exit code still follows the verdict alone.
    let (text, j) = check(
        &dir,
        &file,
        &["--set", "ttl=10s", "--set", "expect.verdict=safe"],
    );
    assert_eq!(text.code, 1, "{}\n{}", text.stdout, text.stderr);
    let j = json(&j);
    assert_eq!(j["expectation"]["status"], "differs");
    assert_eq!(j["expectation"]["expected"], "safe");
    let (_, j) = check(
        &dir,
        &file,
        &[
            "--set",
            r#"expect={verdict = "violated", oracle = "me-resource"}"#,
        ],
    );
    assert_eq!(json(&j)["expectation"]["status"], "matches");
}
