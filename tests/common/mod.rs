//! Running the `lockcheck` binary from tests: its exit code, output and the time it took,
//! in a fresh folder per test, with a time limit so that a hang fails instead of stalling.

#![allow(dead_code)]

pub mod verdicts;
pub mod walks;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

/// Runs `lockcheck args` in `dir`; kills it and panics if it runs longer than `limit`.
pub fn lockcheck_within(dir: &Path, args: &[&str], limit: Duration) -> Out {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lockcheck"));
    command.args(args).current_dir(dir);
    run_within(command, &format!("lockcheck {args:?}"), limit)
}

/// Runs `command`; kills it and panics (naming it `what`) if it runs longer than `limit`.
pub fn run_within(mut command: Command, what: &str, limit: Duration) -> Out {
    let start = Instant::now();
    let mut child = command
        .env_remove("RUST_BACKTRACE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} ran longer than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Out {
        code: status.code().expect("exited normally, not by a signal"),
        stdout: String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
        elapsed: start.elapsed(),
    }
}

/// A fresh folder for one test.
pub fn workdir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A file of the repository.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A bad-input failure: exit 2, one `error:` line naming what is wrong, no panic.
pub fn assert_bad_input(out: &Out, expected: &[&str]) {
    assert_bad_input_error(out, expected);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}

/// Like [`assert_bad_input`], but the error may be followed by lines of help (the
/// argument parser's usage errors are).
pub fn assert_bad_input_error(out: &Out, expected: &[&str]) {
    assert_eq!(
        out.code, 2,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    assert!(out.stderr.starts_with("error:"), "stderr: {}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(!out.stderr.contains("backtrace"), "{}", out.stderr);
    for e in expected {
        assert!(out.stderr.contains(e), "`{e}` not in: {}", out.stderr);
    }
}

/// The one JSON object a `--json` command printed.
pub fn json(out: &Out) -> serde_json::Value {
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", out.stdout))
}

/// The `<svg>` element of an HTML page or SVG file, parsed.
pub fn with_svg(text: &str, f: impl FnOnce(roxmltree::Document)) {
    let start = text.find("<svg").expect("an <svg> element");
    let end = text.rfind("</svg>").expect("a closed <svg>") + "</svg>".len();
    let doc = roxmltree::Document::parse(&text[start..end]).expect("well-formed SVG");
    f(doc)
}

pub fn with_class<'a>(doc: &'a roxmltree::Document, class: &str) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| {
            n.attribute("class")
                .is_some_and(|c| c.split(' ').any(|w| w == class))
        })
        .collect()
}
