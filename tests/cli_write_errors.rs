//! An output file that cannot be written is an I/O failure with its own exit code (4),
//! not bad input (2), in text and in `--json`; the verdict is printed all the same, the
//! message names the real cause, and no partial file is left behind.

mod common;

use common::{json, lockcheck_within, workdir};
use std::time::Duration;

const SMALL: &str = "kleppmann-pause-past-lease";
const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn an_unwritable_output_path_exits_four_not_bad_input() {
    let dir = workdir("unwritable");
    // A folder where the trace file should go: writing it fails on any platform and user.
    std::fs::create_dir_all(dir.join("taken.json")).unwrap();
    let out = lockcheck_within(&dir, &["check", SMALL, "-o", "taken.json"], LIMIT);
    assert_eq!(
        out.code, 4,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    assert!(
        out.stdout.contains("verdict: VIOLATION of me-resource"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("trace not saved: taken.json: cannot write:"),
        "{}",
        out.stdout
    );

    let out = lockcheck_within(&dir, &["--json", "check", SMALL, "-o", "taken.json"], LIMIT);
    assert_eq!(out.code, 4);
    let j = json(&out);
    assert_eq!(j["verdict"], "violated");
    assert_eq!(j["trace_error"]["file"], "taken.json");
    assert!(j.get("trace_file").is_none(), "{j}");

    // Bad input keeps its own code and says so in `--json`.
    let out = lockcheck_within(&dir, &["--json", "check", "no-such-scenario"], LIMIT);
    assert_eq!(out.code, 2);
    assert_eq!(json(&out)["error"]["kind"], "bad_input");
}

/// A full device: the cause is named, the verdict printed in text and JSON.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_named_and_the_verdict_still_printed() {
    let dir = workdir("full");
    let out = lockcheck_within(&dir, &["check", SMALL, "-o", "/dev/full"], LIMIT);
    assert_eq!(out.code, 4, "{}", out.stdout);
    assert!(
        out.stdout.contains("verdict: VIOLATION of me-resource"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("trace not saved: /dev/full: cannot write: No space left on device"),
        "{}",
        out.stdout
    );
    let out = lockcheck_within(&dir, &["--json", "check", SMALL, "-o", "/dev/full"], LIMIT);
    assert_eq!(out.code, 4);
    let j = json(&out);
    assert_eq!(j["verdict"], "violated");
    let message = j["trace_error"]["message"].as_str().unwrap();
    assert!(message.contains("No space left on device"), "{message}");
    // A trace folder that is the device is not a folder, and says so.
    let args = ["--json", "check", SMALL, "--trace-dir", "/dev/full"];
    let j = json(&lockcheck_within(&dir, &args, LIMIT));
    let message = j["trace_error"]["message"].as_str().unwrap();
    assert_eq!(message, "cannot write: /dev/full is not a directory");
}

/// A path below a regular file: "not a directory", not "File exists"; nothing written.
#[test]
fn a_path_below_a_regular_file_is_named_and_nothing_is_left() {
    let dir = workdir("below-a-file");
    std::fs::write(dir.join("plain"), "x").unwrap();
    for args in [
        ["--json", "check", SMALL, "-o", "plain/x.json"],
        ["--json", "check", SMALL, "--trace-dir", "plain/sub"],
    ] {
        let out = lockcheck_within(&dir, &args, LIMIT);
        assert_eq!(out.code, 4, "{}", out.stdout);
        let j = json(&out);
        assert_eq!(j["verdict"], "violated");
        assert_eq!(
            j["trace_error"]["message"],
            "cannot write: plain is not a directory"
        );
    }
    // A sweep prints its verdicts, then what it could not write.
    let args = [
        "sweep",
        SMALL,
        "--vary",
        "ttl=1s,20s",
        "--svg",
        "plain/m.svg",
    ];
    let out = lockcheck_within(&dir, &args, LIMIT);
    assert_eq!(out.code, 4, "{}", out.stdout);
    assert!(out.stdout.contains("1 safe, 1 violated"), "{}", out.stdout);
    let not_written = "not written: plain/m.svg: cannot write: plain is not a directory";
    assert!(out.stdout.contains(not_written), "{}", out.stdout);
    let args = [
        "--json",
        "sweep",
        SMALL,
        "--vary",
        "ttl=1s,20s",
        "--trace-dir",
        "plain/t",
    ];
    let j = json(&lockcheck_within(&dir, &args, LIMIT));
    assert_eq!(j["violated"], 1, "{j}");
    let message = &j["write_errors"][0]["message"];
    assert_eq!(message, "cannot write: plain is not a directory");
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "lockcheck-traces")
        .collect();
    left.sort();
    assert_eq!(left, ["plain"]);
    assert_eq!(std::fs::read_to_string(dir.join("plain")).unwrap(), "x");
}

/// A long non-ASCII scenario name gives a short file name that says whose it is.
#[test]
fn a_long_non_ascii_name_becomes_a_bounded_file_name() {
    let dir = workdir("long-name");
    let text = std::fs::read_to_string(common::repo("scenarios/pause-past-lease.toml")).unwrap();
    let name = "сценарий-".repeat(40);
    let text = text.replacen(
        "name = \"pause-past-lease\"",
        &format!("name = \"{name}\""),
        1,
    );
    assert!(text.contains(&name));
    std::fs::write(dir.join("long.toml"), text).unwrap();
    let out = lockcheck_within(&dir, &["--json", "check", "long.toml"], LIMIT);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let file = json(&out)["trace_file"].as_str().unwrap().to_string();
    let stem = std::path::Path::new(&file)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(stem.len() <= 96 + ".trace.json".len(), "{stem}");
    assert!(!stem.contains("__"), "{stem}");
    assert!(dir.join(&file).is_file(), "{file}");
}

/// `shrink` whose output cannot be written still prints the shrunk run, then exits 4.
#[test]
fn a_shrunk_trace_that_cannot_be_saved_is_printed_all_the_same() {
    let dir = workdir("shrink-unwritable");
    let out = lockcheck_within(&dir, &["check", SMALL, "-o", "found.json"], LIMIT);
    assert_eq!(out.code, 1, "{}", out.stdout);
    std::fs::create_dir_all(dir.join("taken.json")).unwrap();
    let out = lockcheck_within(&dir, &["shrink", "found.json", "-o", "taken.json"], LIMIT);
    assert_eq!(out.code, 4, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("still violates me-resource"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("shrunk trace not saved: taken.json: cannot write:"),
        "{}",
        out.stdout
    );
    let out = lockcheck_within(
        &dir,
        &["--json", "shrink", "found.json", "-o", "taken.json"],
        LIMIT,
    );
    assert_eq!(out.code, 4);
    let j = json(&out);
    assert_eq!(j["oracle"], "me-resource");
    assert_eq!(j["write_error"]["file"], "taken.json");
}
