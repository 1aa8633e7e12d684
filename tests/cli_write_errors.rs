//! An output file that cannot be written is an I/O failure with its own exit code (4),
//! not bad input (2), in text and in `--json`.

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
        out.stderr.starts_with("error: taken.json: cannot write:"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);

    let out = lockcheck_within(&dir, &["--json", "check", SMALL, "-o", "taken.json"], LIMIT);
    assert_eq!(out.code, 4);
    let j = json(&out);
    assert_eq!(j["error"]["kind"], "io");
    assert_eq!(j["error"]["file"], "taken.json");

    // Bad input keeps its own code and says so in `--json`.
    let out = lockcheck_within(&dir, &["--json", "check", "no-such-scenario"], LIMIT);
    assert_eq!(out.code, 2);
    assert_eq!(json(&out)["error"]["kind"], "bad_input");
}
