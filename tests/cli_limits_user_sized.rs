//! Limits on inputs whose size the user chooses: a million `work_ms` values, 2,000 pause
//! rules, a 100,000-entry lock list, 10,000 oracles, a four-billion-ms delay. Each input is
//! built here; under `--time-limit` the command ends within the limit plus max(10 %, 200 ms)
//! of what loading the input and printing the report take (measured by a run that stops
//! after one state), and the first SIGINT is answered within 200 ms with the report printed
//! (in one of two runs, so that a stall of a loaded machine is not taken for a late answer).
#![cfg(target_os = "linux")]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(1);

fn client(name: &str, locks: &str, work: &str) -> String {
    format!(
        r#"
[[clients]]
name = "{name}"
[clients.protocol]
kind = "single_node"
node = "redis"
ttl_ms = "30s"
retry_ms = "2s"
request_timeout_ms = "2s"
[clients.workload]
locks = {locks}
rounds = 1
work_ms = {work}
"#
    )
}

/// Two clients of one node, with `a_locks` and `a_work` for the first, then `tail`.
fn scenario(a_locks: &str, a_work: &str, tail: &str) -> String {
    let head = "name = \"user-sized\"\ndescription = \"built by the test\"\n\n[[nodes]]\nname = \"redis\"\n";
    let a = client("a", a_locks, a_work);
    let b = client("b", r#"["order_lock"]"#, r#"["5s"]"#);
    format!("{head}{a}{b}{tail}")
}

fn list(n: usize, item: impl Fn(usize) -> String) -> String {
    let items: Vec<String> = (0..n).map(item).collect();
    format!("[{}]", items.join(","))
}

fn me_lock(n: usize) -> String {
    "\n[[oracles]]\nkind = \"me-lock\"\n".repeat(n)
}

fn write(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("lockcheck-user-sized-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs `lockcheck args`, sending SIGINT after `signal_after` if given: its exit code,
/// stdout, and the time from the start (or from the signal) to its exit.
fn run(args: &[&str], signal_after: Option<Duration>) -> (i32, String, Duration) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lockcheck"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut started = Instant::now();
    if let Some(after) = signal_after {
        std::thread::sleep(after);
        // SAFETY: our own child, not yet waited for.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
        started = Instant::now();
    }
    let stdout = std::io::read_to_string(child.stdout.take().unwrap()).unwrap();
    let status = child.wait().unwrap();
    (status.code().unwrap_or(-1), stdout, started.elapsed())
}

/// What loading `file` and reporting take: a run that stops after one state.
fn overhead(file: &str, extra: &[&str]) -> Duration {
    let args = [&["check", file, "--max-states", "1"], extra].concat();
    let (code, out, took) = run(&args, None);
    assert!(code == 3 || code == 0, "{code}: {out}");
    took
}

fn slack(limit: Duration) -> Duration {
    (limit / 10).max(Duration::from_millis(200))
}

/// One timed run at a time: the bounds are about the command, not about tests that share
/// the cores.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `file` under a one-second time limit, and under SIGINT once loaded.
fn holds_both_limits(file: &str, extra: &[&str]) {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let before = overhead(file, extra);
    let args = [
        &[
            "check",
            file,
            "--time-limit",
            "1s",
            "--max-states",
            "1000000000",
        ],
        extra,
    ]
    .concat();
    // A second try only when the first was late, as for the interrupt below: a loaded
    // machine may stall a process for a moment, a search that ignores its limit is late
    // both times.
    let mut took = Vec::new();
    for _ in 0..2 {
        let (code, out, t) = run(&args, None);
        assert_eq!(code, 3, "{out}");
        assert!(out.contains("wall-time limit reached"), "{out}");
        took.push(t);
        if t <= before + LIMIT + slack(LIMIT) {
            break;
        }
    }
    let best = *took.iter().min().unwrap();
    assert!(
        best <= before + LIMIT + slack(LIMIT),
        "{file}: {took:?} under a {LIMIT:?} limit ({before:?} to load and report)"
    );
    let args = [&["check", file, "--max-states", "1000000000"], extra].concat();
    let mut answers = Vec::new();
    // A second try only when the first was late: a loaded machine may stall a process for
    // a moment, but a search that does not look at its interrupt flag is late both times.
    for _ in 0..2 {
        let (code, out, answered) = run(&args, Some(before + Duration::from_millis(500)));
        assert_eq!(code, 130, "{out}");
        assert!(
            out.contains("verdict: NO VERDICT: interrupted by SIGINT"),
            "{out}"
        );
        answers.push(answered);
        if answered <= Duration::from_millis(200) {
            return;
        }
    }
    panic!("{file}: SIGINT answered after {answers:?}");
}

/// As many work durations as a state may offer choices: one list, shared by the states
/// (not copied per choice, which made one expansion cost the square of its length).
#[test]
fn the_most_work_durations_are_shared_not_copied_per_choice() {
    let work = list(65_535, |i| format!("\"{}ms\"", i + 1));
    let file = write(
        "work.toml",
        &scenario(r#"["order_lock"]"#, &work, &me_lock(1)),
    );
    holds_both_limits(&file, &[]);
}

/// A million are more choices than a state can offer: refused at once, with the field.
#[test]
fn a_million_work_durations_are_refused_with_the_field() {
    let work = list(1_000_000, |i| format!("\"{}ms\"", i + 1));
    let file = write(
        "million.toml",
        &scenario(r#"["order_lock"]"#, &work, &me_lock(1)),
    );
    let (code, out, _) = run(&["check", &file, "--json"], None);
    assert_eq!(code, 2, "{out}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let message = j["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("1000000 durations: at most 65535"),
        "{message}"
    );
    assert!(
        j["error"]["field"].as_str().unwrap().contains("work_ms"),
        "{j}"
    );
}

#[test]
fn two_thousand_pause_rules() {
    let mut tail = String::from("\n[faults]\nmax_pauses = 3\n");
    for i in 0..2_000 {
        tail += &format!(
            "[[faults.pauses]]\nprocess = \"a\"\ndurations_ms = [\"{}ms\"]\n",
            i + 1
        );
    }
    tail += &me_lock(1);
    let file = write(
        "pauses.toml",
        &scenario(r#"["order_lock"]"#, r#"["5s"]"#, &tail),
    );
    holds_both_limits(&file, &[]);
}

#[test]
fn a_hundred_thousand_locks() {
    let locks = list(100_000, |i| format!("\"l{i}\""));
    let file = write("locks.toml", &scenario(&locks, r#"["5s"]"#, &me_lock(1)));
    holds_both_limits(&file, &[]);
}

#[test]
fn a_hundred_thousand_locks_on_two_threads() {
    let locks = list(100_000, |i| format!("\"l{i}\""));
    let file = write("locks2.toml", &scenario(&locks, r#"["5s"]"#, &me_lock(1)));
    holds_both_limits(&file, &["--threads", "2", "--no-partial-order"]);
}

#[test]
fn ten_thousand_oracles() {
    let pauses = "\n[faults]\nmax_pauses = 2\n[[faults.pauses]]\nprocess = \"a\"\ndurations_ms = [\"1s\", \"2s\", \"3s\"]\n";
    let tail = format!("{pauses}{}", me_lock(10_000));
    let file = write(
        "oracles.toml",
        &scenario(r#"["order_lock"]"#, r#"["5s"]"#, &tail),
    );
    holds_both_limits(&file, &[]);
}

#[test]
fn a_four_billion_ms_delay() {
    holds_both_limits("redlock-split-vote", &["--set", "delay=4294967296"]);
}

/// A grid is built point by point before it is checked: more points than a sweep may have
/// are refused at once, and an interrupt while they are built is answered at once.
#[test]
fn a_large_grid_is_bounded_and_answers_sigint_while_it_is_built() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let too_many = [
        "sweep",
        "kleppmann-pause-past-lease",
        "--vary",
        "ttl=1ms..10000ms:1ms",
        "--vary",
        "pause=1ms..10000ms:1ms",
        "--json",
    ];
    let (code, out, took) = run(&too_many, None);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("make 100000000 points: at most 100000"),
        "{out}"
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
    let most = [
        "sweep",
        "kleppmann-pause-past-lease",
        "--vary",
        "ttl=1ms..10000ms:1ms",
        "--vary",
        "pause=1ms..10ms:1ms",
        "--json",
    ];
    let (code, out, answered) = run(&most, Some(Duration::from_millis(1_500)));
    assert_eq!(code, 130, "{out}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["outcome"], "interrupted");
    assert_eq!(j["points"], 100_000);
    assert!(
        answered <= Duration::from_millis(200),
        "SIGINT answered after {answered:?}"
    );
}

/// Loading a large scenario file looks at no flag itself; `check` loads it on another
/// thread and answers a signal while it does.
#[test]
fn sigint_while_a_large_scenario_loads_is_answered() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Large enough that loading outlasts the signal's 100 ms with room on a fast machine
    // (100,000 locks loaded in 230 ms once).
    let locks = list(300_000, |i| format!("\"l{i}\""));
    let file = write(
        "locks-load.toml",
        &scenario(&locks, r#"["5s"]"#, &me_lock(1)),
    );
    let loading = overhead(&file, &[]);
    assert!(
        loading > Duration::from_millis(250),
        "{loading:?}: too quick to interrupt"
    );
    let (code, out, answered) = run(&["check", &file], Some(Duration::from_millis(100)));
    assert_eq!(code, 130, "{out}");
    assert!(
        out.contains("outcome: interrupted by SIGINT while loading"),
        "{out}"
    );
    assert!(
        out.contains("verdict: NO VERDICT: interrupted by SIGINT"),
        "{out}"
    );
    assert!(
        answered <= Duration::from_millis(200),
        "SIGINT answered after {answered:?}"
    );
}
