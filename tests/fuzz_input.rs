//! A fuzz test over everything a user hands in: real scenario files (TOML, and built-ins as
//! JSON) and saved traces, mutated by byte flips, truncation, huge numbers, deleted and
//! duplicated lines (zero to three mutations a case), then run through the `lockcheck`
//! binary (`check` with small limits; `replay`, `shrink` and `explain` for traces).
//!
//! Half the cases instead get one edit that makes any file nonsense (see [`Nonsense`]): a
//! non-finite number, an unknown key, a key given twice, data after a JSON file's value, an
//! inner `tool_version` other than the trace's; those cases must be refused.
//!
//! Asserted for every case: no panic; the command ends within a time bound; the exit code is
//! one of the documented ones (0 to 3); an error is one line naming what is wrong, of
//! bounded length; `replay`, `shrink` and `explain` accept or refuse a trace together; a
//! nonsense edit is refused.
//!
//! `cargo test` runs 300 scenario and 120 trace cases. `LOCKCHECK_FUZZ_CASES=N` runs N of
//! each, e.g. `LOCKCHECK_FUZZ_CASES=5000 cargo test --test fuzz_input -- --nocapture` (a
//! debug build, so that arithmetic overflow panics), which prints how the cases ended.

mod common;

use lockcheck::scenario::builtin;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one command may take (a debug build on a shared machine; `check` itself is
/// limited to 2 s and 300 states).
const CASE_LIMIT: Duration = Duration::from_secs(60);

/// Numbers that broke or could break arithmetic, written as a user might.
const HUGE: &[&str] = &[
    "0",
    "-1",
    "9223372036854775807",
    "9223372036854775000",
    "-9223372036854775808",
    "18446744073709551615",
    "99999999999999999999",
    "1e30",
    "4294967296",
    "\"9999999999999h\"",
];

#[derive(Clone, Debug)]
enum Mutation {
    FlipByte { at: u64, xor: u8 },
    Truncate { at: u64 },
    HugeNumber { which: u64, value: usize },
    DeleteLine { which: u64 },
    DuplicateLine { which: u64 },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<u64>(), 1u8..=255).prop_map(|(at, xor)| Mutation::FlipByte { at, xor }),
        any::<u64>().prop_map(|at| Mutation::Truncate { at }),
        (any::<u64>(), 0..HUGE.len())
            .prop_map(|(which, value)| Mutation::HugeNumber { which, value }),
        any::<u64>().prop_map(|which| Mutation::DeleteLine { which }),
        any::<u64>().prop_map(|which| Mutation::DuplicateLine { which }),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len().max(1) as u64;
    match m {
        Mutation::FlipByte { at, xor } => {
            if let Some(b) = bytes.get_mut((at % len) as usize) {
                *b ^= xor;
            }
        }
        Mutation::Truncate { at } => bytes.truncate((at % len) as usize),
        Mutation::HugeNumber { which, value } => {
            let runs = digit_runs(bytes);
            if !runs.is_empty() {
                let (start, end) = runs[(which % runs.len() as u64) as usize];
                bytes.splice(start..end, HUGE[*value].bytes());
            }
        }
        Mutation::DeleteLine { which } | Mutation::DuplicateLine { which } => {
            let lines = line_spans(bytes);
            let (start, end) = lines[(which % lines.len() as u64) as usize];
            if matches!(m, Mutation::DeleteLine { .. }) {
                bytes.drain(start..end);
            } else {
                let line = bytes[start..end].to_vec();
                bytes.splice(end..end, line);
            }
        }
    }
}

/// An edit no reader may accept, wherever it lands.
#[derive(Clone, Debug)]
enum Nonsense {
    /// A TOML `key = value` line's value replaced by `nan`, `inf` or `-inf`.
    NonFinite { which: u64, value: usize },
    /// A key no table has, first in a table (after a TOML header or a JSON `{` line).
    UnknownKey { which: u64 },
    /// A `key = value` (TOML) or `"key": value` (JSON) line written twice.
    DuplicateKey { which: u64 },
    /// Data after a file's value.
    TrailingData,
    /// A trace's inner `tool_version` other than its `lockcheck_version`.
    OtherToolVersion,
}

fn nonsense() -> impl Strategy<Value = Option<Nonsense>> {
    let edit = prop_oneof![
        (any::<u64>(), 0..3usize).prop_map(|(which, value)| Nonsense::NonFinite { which, value }),
        any::<u64>().prop_map(|which| Nonsense::UnknownKey { which }),
        any::<u64>().prop_map(|which| Nonsense::DuplicateKey { which }),
        Just(Nonsense::TrailingData),
        Just(Nonsense::OtherToolVersion),
    ];
    proptest::option::weighted(0.5, edit)
}

/// Applies `edit` to a file of extension `ext`; whether it found a place to apply.
fn apply_nonsense(bytes: &mut Vec<u8>, ext: &str, edit: &Nonsense) -> bool {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let json = ext == "json";
    let pick = |which: &u64, keep: &dyn Fn(&str) -> bool| -> Option<usize> {
        let found: Vec<usize> = (0..lines.len()).filter(|&i| keep(&lines[i])).collect();
        (!found.is_empty()).then(|| found[(which % found.len() as u64) as usize])
    };
    let toml_key = |l: &str| {
        let t = l.trim_start();
        !t.starts_with(['#', '['])
            && t.split_once('=').is_some_and(|(k, v)| {
                !k.trim().is_empty() && !k.contains(['"', '{']) && !v.trim().is_empty()
            })
    };
    let json_key = |l: &str| l.trim_start().starts_with('"') && l.contains("\": ");
    match edit {
        Nonsense::NonFinite { which, value } if !json => {
            let Some(i) = pick(which, &toml_key) else {
                return false;
            };
            let key = lines[i].split_once('=').unwrap().0.to_string();
            lines[i] = format!("{key}= {}", ["nan", "inf", "-inf"][*value]);
        }
        Nonsense::UnknownKey { which } => {
            let opens = |l: &str| match json {
                true => l.trim_end().ends_with('{'),
                false => l.trim_start().starts_with('[') && l.trim_end().ends_with(']'),
            };
            let Some(i) = pick(which, &opens) else {
                return false;
            };
            let key = if json {
                "\"fuzz_unknown_key\": 1,"
            } else {
                "fuzz_unknown_key = 1"
            };
            lines.insert(i + 1, key.to_string());
        }
        Nonsense::DuplicateKey { which } => {
            let Some(i) = pick(which, if json { &json_key } else { &toml_key }) else {
                return false;
            };
            lines.insert(i + 1, lines[i].clone());
        }
        Nonsense::TrailingData => lines.push(if json { "{}" } else { "}" }.to_string()),
        Nonsense::OtherToolVersion => {
            let Some(i) = pick(&0, &|l: &str| {
                l.trim_start().starts_with("\"tool_version\": ")
            }) else {
                return false;
            };
            lines[i] = "\"tool_version\": \"0.0.0-other\",".to_string();
        }
        Nonsense::NonFinite { .. } => return false,
    }
    *bytes = lines.join("\n").into_bytes();
    true
}

fn digit_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    runs
}

/// Each line with its newline.
fn line_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            spans.push((start, i + 1));
            start = i + 1;
        }
    }
    spans.push((start, bytes.len()));
    spans
}

fn cases() -> Option<u32> {
    std::env::var("LOCKCHECK_FUZZ_CASES").ok()?.parse().ok()
}

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-input");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What one command ended in.
#[derive(Debug)]
enum Ended {
    Code(u8),
    Error(String),
}

/// Runs the `lockcheck` binary with `args`; a panic (exit code 101) or a run past
/// [`CASE_LIMIT`] fails the case. An error is what the binary prints after `error: `.
fn lockcheck(args: Vec<String>) -> Result<Ended, TestCaseError> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = std::panic::catch_unwind(|| common::lockcheck_within(&dir(), &words, CASE_LIMIT))
        .map_err(|_| TestCaseError::fail(format!("{args:?} ran longer than {CASE_LIMIT:?}")))?;
    if out.stderr.contains("\nUsage:") {
        return Err(TestCaseError::fail(format!(
            "usage error for {args:?}: {}",
            out.stderr
        )));
    }
    let ended = match out.stderr.find("error: ") {
        Some(at) if out.code != 101 => {
            Ended::Error(out.stderr[at + "error: ".len()..].trim_end().to_string())
        }
        _ => Ended::Code(u8::try_from(out.code).unwrap_or(u8::MAX)),
    };
    match &ended {
        Ended::Code(c) => prop_assert!(*c <= 3, "{args:?}: exit code {c}"),
        Ended::Error(e) => {
            prop_assert!(!e.is_empty() && !e.contains('\n'), "{args:?}: error {e:?}");
            prop_assert!(e.len() < 2_500, "{args:?}: {} bytes of error", e.len());
        }
    }
    Ok(ended)
}

/// Counts of how cases ended, printed at the end of each test.
#[derive(Default, Debug)]
struct Tally {
    cases: u64,
    by_code: [u64; 4],
    refused: u64,
}

impl Tally {
    fn add(&mut self, e: &Ended) {
        self.cases += 1;
        match e {
            Ended::Code(c) => self.by_code[*c as usize] += 1,
            Ended::Error(_) => self.refused += 1,
        }
    }
}

fn scenario_seeds() -> Vec<(String, Vec<u8>)> {
    let mut seeds: Vec<(String, Vec<u8>)> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .map(|p| ("toml".to_string(), std::fs::read(p).unwrap()))
            .collect();
    seeds.sort();
    for name in ["kleppmann-pause-past-lease", "failover-loses-lock"] {
        let s = builtin::by_name(name).expect("a built-in");
        seeds.push(("json".into(), serde_json::to_vec_pretty(&s).unwrap()));
    }
    seeds
}

fn run_cases(
    name: &str,
    default_cases: u32,
    seeds: Vec<(String, Vec<u8>)>,
    command: impl Fn(&Path, usize) -> Vec<Vec<String>>,
) -> Tally {
    let config = Config {
        cases: cases().unwrap_or(default_cases),
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let tally = std::cell::RefCell::new(Tally::default());
    let mutations = proptest::collection::vec(mutation(), 0..4);
    let strategy = (0..seeds.len(), mutations, nonsense());
    let result = runner.run(&strategy, |(seed, mutations, edit)| {
        let (ext, text) = &seeds[seed];
        let mut bytes = text.clone();
        // A nonsense edit goes to the file as it was, so that nothing else refuses it.
        let nonsense = edit.is_some_and(|e| apply_nonsense(&mut bytes, ext, &e));
        if !nonsense {
            for m in &mutations {
                apply(&mut bytes, m);
            }
        }
        let n = tally.borrow().cases as usize;
        let file = dir().join(format!("{name}-{n}.{ext}"));
        std::fs::write(&file, &bytes).unwrap();
        let mut refused = Vec::new();
        for args in command(&file, n) {
            let ended = lockcheck(args)?;
            refused.push(matches!(ended, Ended::Error(_)));
            tally.borrow_mut().add(&ended);
        }
        // Commands reading the same file accept it or refuse it together.
        prop_assert!(
            refused.iter().all(|r| *r == refused[0]),
            "{}: accepted by some commands only: {refused:?}",
            file.display()
        );
        prop_assert!(
            !nonsense || refused[0],
            "{}: nonsense accepted",
            file.display()
        );
        Ok(())
    });
    let tally = tally.into_inner();
    eprintln!("{name}: {tally:?}");
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    tally
}

#[test]
fn mutated_scenarios_load_or_fail_clearly_and_check_within_limits() {
    let tally = run_cases("scenario", 300, scenario_seeds(), |file, n| {
        let out = dir().join(format!("scenario-{n}.trace.json"));
        vec![vec![
            "check".into(),
            file.display().to_string(),
            "--max-states".into(),
            "300".into(),
            "--time-limit".into(),
            "2s".into(),
            "-o".into(),
            out.display().to_string(),
        ]]
    });
    assert!(
        tally.refused > 0,
        "some mutations must be refused: {tally:?}"
    );
}

/// Saved traces of the example scenarios, as `check` writes them.
fn trace_seeds() -> Vec<(String, Vec<u8>)> {
    ["kleppmann-pause-past-lease", "failover-loses-lock"]
        .iter()
        .map(|name| {
            let file = dir().join(format!("{name}.seed.trace.json"));
            let args = vec![
                "check".into(),
                name.to_string(),
                "-o".into(),
                file.display().to_string(),
            ];
            let ended = lockcheck(args).expect("check runs");
            assert!(matches!(ended, Ended::Code(1)), "{name}: {ended:?}");
            ("json".to_string(), std::fs::read(&file).unwrap())
        })
        .collect()
}

#[test]
fn mutated_traces_replay_or_are_refused_clearly() {
    let tally = run_cases("trace", 120, trace_seeds(), |file, n| {
        let f = file.display().to_string();
        let out = |ext: &str| {
            dir()
                .join(format!("trace-{n}.out.{ext}"))
                .display()
                .to_string()
        };
        vec![
            vec!["replay".into(), f.clone()],
            vec![
                "shrink".into(),
                f.clone(),
                "--max-attempts".into(),
                "50".into(),
                "-o".into(),
                out("json"),
            ],
            vec!["explain".into(), f, "-o".into(), out("svg")],
        ]
    });
    assert!(
        tally.refused > 0,
        "some mutations must be refused: {tally:?}"
    );
}
