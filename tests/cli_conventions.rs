//! Command-line conventions: completions, the man page, the version with its trace
//! formats, no colour codes when stdout is not a terminal, traces in `lockcheck-traces/`.

mod common;

use common::{lockcheck_within, workdir};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn completions_and_the_man_page_cover_every_command() {
    let dir = workdir("conventions");
    let commands = [
        "scenarios",
        "show",
        "check",
        "replay",
        "shrink",
        "sweep",
        "boundary",
        "explain",
    ];
    for shell in ["bash", "zsh", "fish"] {
        let out = lockcheck_within(&dir, &["completions", shell], LIMIT);
        assert_eq!(out.code, 0, "{}", out.stderr);
        for c in commands {
            assert!(out.stdout.contains(c), "{shell}: {c}");
        }
        assert!(out.stdout.contains("trace-dir"), "{shell}");
    }
    let out = lockcheck_within(&dir, &["completions", "tcsh"], LIMIT);
    assert_eq!(out.code, 2);
    let man = lockcheck_within(&dir, &["man"], LIMIT);
    assert_eq!(man.code, 0);
    assert!(man.stdout.contains(".TH lockcheck 1"), "{}", man.stdout);
    for c in commands {
        assert!(man.stdout.contains(c), "man: {c}");
    }
}

#[test]
fn version_names_the_trace_formats() {
    let out = lockcheck_within(&workdir("version"), &["--version"], LIMIT);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout
            .contains("(trace file format 1, kernel trace format 1)"),
        "{}",
        out.stdout
    );
}

#[test]
fn piped_output_has_no_colour_and_traces_go_to_their_folder() {
    let dir = workdir("no-colour");
    let out = lockcheck_within(&dir, &["check", "kleppmann-pause-past-lease"], LIMIT);
    assert_eq!(out.code, 1);
    assert!(!out.stdout.contains('\x1b'), "{}", out.stdout);
    assert!(out.stdout.contains("verdict: VIOLATION of"));
    assert!(dir
        .join("lockcheck-traces/kleppmann-pause-past-lease.trace.json")
        .is_file());
    let out = lockcheck_within(
        &dir,
        &[
            "check",
            "kleppmann-pause-past-lease",
            "--trace-dir",
            "elsewhere",
        ],
        LIMIT,
    );
    assert!(out
        .stdout
        .contains("trace saved to elsewhere/kleppmann-pause-past-lease.trace.json"));
}
