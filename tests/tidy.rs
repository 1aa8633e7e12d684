//! Size limits on the sources, as a ratchet: no Rust file over 600 lines and no function
//! over 70. The functions that were longer when the limit came are listed with their
//! length at the time: each may shrink but not grow, and one that falls under the limit
//! (or goes away) must leave the list, so the list only gets shorter.
//!
//! Functions are found as rustfmt lays them out: a line `[pub ...] fn name` whose body ends
//! at the first later line that is its indentation followed by `}`. A function's length
//! counts its code lines: not blank lines, not comments, and not assertions (a statement
//! `assert!(..)`, `assert_eq!(..)`, `debug_assert!(..)` and the like, however many lines
//! it takes), so that stating an invariant is never the reason a function must be split.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 600;
const MAX_FN_LINES: usize = 70;

/// Functions over the limit when it came: file, name, code lines (measured as the limit
/// measures them now).
const LONGER_FUNCTIONS: &[(&str, &str, usize)] = &[
    ("bench/compare/stateright/src/main.rs", "main", 83),
    ("madsim/src/run.rs", "run_in_runtime", 81),
    (
        "model/tests/redis_fixed_cases.rs",
        "hand_picked_argument_vectors_get_the_real_servers_replies",
        95,
    ),
    ("src/report/heatmap.rs", "svg", 120),
    ("src/report/swimlane.rs", "chart", 123),
    ("src/report/swimlane.rs", "svg", 134),
    (
        "tests/cli_commands.rs",
        "bad_traces_are_refused_with_a_reason",
        81,
    ),
];

/// The Rust sources of the repository (not build output).
fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    dirs.push(path);
                }
            } else if name.ends_with(".rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn relative(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// The name of the function a line declares, if it declares one with a body.
fn declared_fn(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    Some(&rest[..end])
}

/// Whether `line` begins an assertion statement.
fn opens_assertion(line: &str) -> bool {
    let line = line.trim_start();
    ["assert!(", "assert_eq!(", "assert_ne!(", "debug_assert"]
        .iter()
        .any(|a| line.starts_with(a))
}

/// How many of `body`'s lines are code: not blank, not a comment, not in an assertion
/// statement (which ends at the first line, from its own on, that ends with `);`).
fn code_lines(body: &[&str]) -> usize {
    let mut count = 0;
    let mut in_assertion = false;
    for line in body {
        let trimmed = line.trim();
        in_assertion |= opens_assertion(line);
        if !in_assertion && !trimmed.is_empty() && !trimmed.starts_with("//") {
            count += 1;
        }
        if in_assertion && trimmed.ends_with(");") {
            in_assertion = false;
        }
    }
    count
}

/// Every function with a body in `text`: name and length in code lines.
fn functions(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = declared_fn(line) else {
            continue;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        if line.trim_end().ends_with(';') || line.trim_end().ends_with('}') {
            continue;
        }
        let closing = format!("{indent}}}");
        let end = lines[i + 1..].iter().position(|l| l.trim_end() == closing);
        if let Some(end) = end {
            out.push((name.to_string(), code_lines(&lines[i..i + end + 2])));
        }
    }
    out
}

#[test]
fn no_file_is_over_the_limit() {
    let long: Vec<String> = sources()
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).unwrap().lines().count();
            (n > MAX_FILE_LINES).then(|| format!("{}: {n} lines", relative(p)))
        })
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_FILE_LINES} lines (split by idea): {long:#?}"
    );
}

#[test]
fn no_function_grows_over_the_limit() {
    let listed: BTreeMap<(String, String), usize> = LONGER_FUNCTIONS
        .iter()
        .map(|&(file, name, lines)| ((file.to_string(), name.to_string()), lines))
        .collect();
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for path in sources() {
        let file = relative(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        for (name, lines) in functions(&text) {
            if lines <= MAX_FN_LINES {
                continue;
            }
            let key = (file.clone(), name);
            match listed.get(&key) {
                Some(cap) if lines <= *cap => seen.push(key),
                Some(cap) => {
                    problems.push(format!(
                        "{file}: `{}` grew to {lines} lines (listed at {cap}; the limit is {MAX_FN_LINES})",
                        key.1
                    ));
                    seen.push(key);
                }
                None => problems.push(format!(
                    "{file}: `{}` has {lines} lines (the limit is {MAX_FN_LINES})",
                    key.1
                )),
            }
        }
    }
    for (file, name) in listed.keys().filter(|k| !seen.contains(k)) {
        problems.push(format!(
            "{file}: `{name}` is listed as too long but is not (any more): take it off LONGER_FUNCTIONS"
        ));
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn assertions_comments_and_blank_lines_do_not_count() {
    let text = "fn a() {\n    // why\n\n    assert!(\n        ok(),\n        \"said\"\n    );\n    debug_assert_eq!(x, 1);\n    one();\n}\n";
    assert_eq!(functions(text), [("a".to_string(), 3)]);
}

#[test]
fn functions_are_measured_from_signature_to_closing_brace() {
    let text = "fn a() {\n    one();\n}\n\nimpl X {\n    pub(crate) fn b(\n        x: u8,\n    ) -> u8 {\n        x\n    }\n    fn c(&self);\n    fn d() { 1 }\n}\n";
    assert_eq!(
        functions(text),
        [("a".to_string(), 3), ("b".to_string(), 5)]
    );
}
