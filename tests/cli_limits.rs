//! The binary under limits it cannot see coming: a memory limit checked against the child's
//! own peak resident memory (from the kernel, via `wait4`), exactly N states, and SIGINT or
//! SIGTERM in the middle of `check`, `sweep` and `boundary`, each reported with what was
//! found so far and a documented exit code.
#![cfg(target_os = "linux")]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Three clients of one Redis node, no faults, 1/5/20 ms delays with reordering: millions
/// of states, with states that own kilobytes each.
const LARGE: &str = r#"
name = "three-clients-reordering"
description = "three clients of a single-node lock, two rounds each, reordering network"

[[nodes]]
name = "redis"

[[clients]]
name = "service-a"
[clients.protocol]
kind = "single_node"
node = "redis"
ttl_ms = "30s"
retry_ms = "2s"
request_timeout_ms = "2s"
[clients.workload]
locks = ["order_lock"]
rounds = 2
work_ms = ["5s"]

[[clients]]
name = "service-b"
[clients.protocol]
kind = "single_node"
node = "redis"
ttl_ms = "30s"
retry_ms = "2s"
request_timeout_ms = "2s"
[clients.workload]
locks = ["order_lock"]
rounds = 2
start_after_ms = "100ms"
work_ms = ["5s"]

[[clients]]
name = "service-c"
[clients.protocol]
kind = "single_node"
node = "redis"
ttl_ms = "30s"
retry_ms = "2s"
request_timeout_ms = "2s"
[clients.workload]
locks = ["order_lock"]
rounds = 2
start_after_ms = "200ms"
work_ms = ["5s"]

[network]
delays_ms = ["1ms", "5ms", "20ms"]
reordering = true

[[oracles]]
kind = "me-lock"

[expect]
verdict = "safe"
"#;

/// Two clients that may pause up to `max_pauses` times: a few thousand states with none,
/// far too many to finish in a test with three.
const PAUSES: &str = r#"
name = "two-clients-pausing"
description = "two clients of a single-node lock that may pause for 1 or 2 s"

[[nodes]]
name = "redis"

[[clients]]
name = "service-a"
[clients.protocol]
kind = "single_node"
node = "redis"
ttl_ms = "30s"
retry_ms = "2s"
request_timeout_ms = "2s"
[clients.workload]
locks = ["order_lock"]
rounds = 1
work_ms = ["5s"]

[[clients]]
name = "service-b"
[clients.protocol]
kind = "single_node"
node = "redis"
ttl_ms = "30s"
retry_ms = "2s"
request_timeout_ms = "2s"
[clients.workload]
locks = ["order_lock"]
rounds = 1
start_after_ms = "100ms"
work_ms = ["5s"]

[network]
delays_ms = ["1ms", "5ms", "20ms"]
reordering = true

[faults]
max_pauses = 0
[[faults.pauses]]
process = "service-a"
durations_ms = ["1s", "2s"]
[[faults.pauses]]
process = "service-b"
durations_ms = ["1s", "2s"]

[[oracles]]
kind = "me-lock"

[expect]
verdict = "safe"
"#;

fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lockcheck-limits-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A finished child: its exit code, stdout, and its peak resident memory in bytes.
struct Finished {
    code: i32,
    stdout: String,
    max_rss_bytes: u64,
}

/// Runs `lockcheck args` in `dir`; after `signal_after` (if given), sends it that signal.
/// Waits for it with `wait4`, which gives this child's own resource usage.
// The child is waited for, by `wait4` rather than `Child::wait`.
#[allow(clippy::zombie_processes)]
fn lockcheck(dir: &Path, args: &[&str], signal_after: Option<(Duration, i32)>) -> Finished {
    let out_path = dir.join(format!("stdout-{}.txt", args.join("_").replace('/', "_")));
    let child = Command::new(env!("CARGO_BIN_EXE_lockcheck"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    if let Some((after, signal)) = signal_after {
        std::thread::sleep(after);
        // SAFETY: `pid` is our own child, not yet waited for.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    }
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let started = Instant::now();
    // SAFETY: waits for our own child; status and usage are valid for writes.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4 failed");
    assert!(started.elapsed() < Duration::from_secs(120));
    assert!(
        libc::WIFEXITED(status),
        "the child did not exit by itself (status {status})"
    );
    Finished {
        code: libc::WEXITSTATUS(status),
        stdout: std::fs::read_to_string(&out_path).unwrap(),
        // ru_maxrss is in KiB on Linux.
        max_rss_bytes: usage.ru_maxrss as u64 * 1024,
    }
}

fn json(f: &Finished) -> Value {
    serde_json::from_str(&f.stdout).unwrap_or_else(|e| panic!("{e}: {}", f.stdout))
}

const MIB: u64 = 1 << 20;

#[test]
fn a_memory_limit_bounds_the_real_peak_resident_memory_within_ten_percent() {
    let dir = workdir("memory");
    let scenario = write(&dir, "large.toml", LARGE);
    let limit = 100 * MIB;
    let args = [
        "check",
        &scenario,
        "--max-states",
        "1000000000",
        "--memory-limit",
        "100MiB",
        "--json",
    ];
    let f = lockcheck(&dir, &args, None);
    assert_eq!(f.code, 3, "{}", f.stdout);
    let j = json(&f);
    assert_eq!(j["outcome"], "limit_reached");
    assert_eq!(j["limit"], "memory limit");
    assert_eq!(j["memory_limit_bytes"], limit);
    assert_eq!(j["memory_limit_is_default"], false);
    let stats = &j["statistics"];
    assert!(stats["unique_states"].as_u64().unwrap() > 10_000, "{stats}");
    assert!(stats["transitions"].as_u64().unwrap() > 0, "{stats}");
    // The kernel's own account of the child's peak, independent of the child's readings.
    let peak = f.max_rss_bytes;
    assert!(
        peak <= limit + limit / 10,
        "peak RSS {peak} bytes against a limit of {limit}"
    );
    assert!(
        peak >= limit - limit / 5,
        "peak RSS {peak} bytes: the search stopped long before its limit"
    );
    // The figure reported is the process's own, as the kernel saw it (give or take the
    // kernel's lazily synchronised per-thread counters).
    let reported = stats["peak_memory_bytes"].as_u64().unwrap();
    assert!(
        reported <= peak + peak / 50 && reported >= peak - peak / 10,
        "{reported} vs {peak}"
    );
}

/// On two threads, with either engine that uses them (expansions prepared ahead, with the
/// reductions; batches expanded and deduplicated on both, without), ten runs in a row stay
/// within 10 % of the limit and report the real peak: the search counts the tables' next
/// doublings and the batch it is about to expand before it reads the gauge.
#[test]
fn on_two_threads_ten_searches_in_a_row_stay_within_ten_percent_of_the_memory_limit() {
    let dir = workdir("memory-threads");
    let scenario = write(&dir, "large.toml", LARGE);
    let limit = 128 * MIB;
    for run in 0..10 {
        let mut args = vec![
            "check",
            &scenario,
            "--max-states",
            "1000000000",
            "--memory-limit",
            "128MiB",
            "--threads",
            "2",
            "--json",
        ];
        if run % 2 == 1 {
            args.extend(["--no-partial-order", "--no-dead-values"]);
        }
        let f = lockcheck(&dir, &args, None);
        let j = json(&f);
        let engine = j["plan"]["engine"].as_str().unwrap().to_string();
        let what = format!("run {run} ({engine})");
        assert_eq!(j["limit"], "memory limit", "{what}: {}", f.stdout);
        assert_eq!(engine, if run % 2 == 1 { "batches" } else { "lookahead" });
        let peak = f.max_rss_bytes;
        assert!(
            peak <= limit + limit / 10,
            "{what}: peak RSS {peak} bytes against a limit of {limit}"
        );
        let reported = j["statistics"]["peak_memory_bytes"].as_u64().unwrap();
        eprintln!("{what}: peak {peak} bytes by the kernel, {reported} reported");
        assert!(
            reported <= peak + peak / 50 && reported >= peak - peak / 20,
            "{what}: {reported} reported, {peak} by the kernel"
        );
    }
}

#[test]
fn without_a_memory_limit_a_search_gets_the_default_from_available_memory() {
    let dir = workdir("default");
    let f = lockcheck(&dir, &["check", "seed-000-single-node", "--json"], None);
    assert_eq!(f.code, 1, "{}", f.stdout);
    let j = json(&f);
    assert_eq!(j["memory_limit_is_default"], true);
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let available_kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap();
    let default = j["memory_limit_bytes"].as_u64().unwrap();
    let three_quarters = available_kib * 1024 / 4 * 3;
    // Available memory moves a little between the child's reading and ours.
    assert!(
        default.abs_diff(three_quarters) < three_quarters / 4,
        "{default} vs {three_quarters}"
    );
}

#[test]
fn a_short_check_reports_its_real_peak_memory() {
    let dir = workdir("short");
    let f = lockcheck(&dir, &["check", "seed-000-single-node", "--json"], None);
    let reported = json(&f)["statistics"]["peak_memory_bytes"]
        .as_u64()
        .unwrap();
    assert!(reported > MIB, "{reported}");
    let peak = f.max_rss_bytes;
    assert!(reported <= peak + peak / 50, "{reported} vs {peak}");
}

#[test]
fn max_states_stops_at_exactly_that_many_unique_states() {
    let dir = workdir("states");
    for n in ["500", "1"] {
        let f = lockcheck(
            &dir,
            &["check", "seed-000-single-node", "--max-states", n, "--json"],
            None,
        );
        assert_eq!(f.code, 3, "{}", f.stdout);
        let j = json(&f);
        assert_eq!(j["limit"], "state limit");
        assert_eq!(j["statistics"]["unique_states"].to_string(), n);
    }
}

/// Long enough for the handlers to be installed and the search to be well under way.
const AFTER: Duration = Duration::from_secs(4);

#[test]
fn sigint_stops_a_check_and_prints_its_statistics() {
    let dir = workdir("sigint");
    let scenario = write(&dir, "large.toml", LARGE);
    let args = ["check", &scenario, "--max-states", "1000000000"];
    let f = lockcheck(&dir, &args, Some((AFTER, libc::SIGINT)));
    assert_eq!(f.code, 130, "{}", f.stdout);
    let text = &f.stdout;
    assert!(
        text.contains("outcome: interrupted by SIGINT before the search was done"),
        "{text}"
    );
    assert!(
        text.contains("verdict: NO VERDICT: interrupted by SIGINT"),
        "{text}"
    );
    let stats = text
        .lines()
        .find_map(|l| l.strip_prefix("statistics: "))
        .unwrap_or_else(|| panic!("no statistics: {text}"));
    let states: u64 = stats.split(' ').next().unwrap().parse().unwrap();
    assert!(states > 0, "{stats}");
    assert!(text.contains("always me-lock: holds"), "{text}");
}

#[test]
fn sigterm_stops_a_check_and_emits_its_statistics_as_json() {
    let dir = workdir("sigterm");
    let scenario = write(&dir, "large.toml", LARGE);
    let args = ["check", &scenario, "--max-states", "1000000000", "--json"];
    let f = lockcheck(&dir, &args, Some((AFTER, libc::SIGTERM)));
    assert_eq!(f.code, 143, "{}", f.stdout);
    let j = json(&f);
    assert_eq!(j["outcome"], "interrupted");
    assert_eq!(j["verdict"], "interrupted");
    assert_eq!(j["signal"], "SIGTERM");
    let stats = &j["statistics"];
    assert!(stats["unique_states"].as_u64().unwrap() > 0, "{stats}");
    assert!(stats["states"].as_u64().unwrap() > 0, "{stats}");
    assert!(stats["wall_ms"].as_u64().unwrap() >= 1_000, "{stats}");
    assert!(
        stats["peak_memory_bytes"].as_u64().unwrap() > MIB,
        "{stats}"
    );
}

#[test]
fn an_interrupted_sweep_reports_the_points_it_finished() {
    let dir = workdir("sweep");
    let scenario = write(&dir, "pauses.toml", PAUSES);
    let args = [
        "sweep",
        &scenario,
        "--vary",
        "faults.max_pauses=0,3",
        "--max-states",
        "1000000000",
        "--json",
    ];
    let f = lockcheck(&dir, &args, Some((AFTER, libc::SIGINT)));
    assert_eq!(f.code, 130, "{}", f.stdout);
    let j = json(&f);
    assert_eq!(j["outcome"], "interrupted");
    assert_eq!(j["signal"], "SIGINT");
    assert_eq!(j["points"], 2);
    // The point without pauses finished in well under a second; the other cannot finish.
    let cells = j["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "{j}");
    assert_eq!(cells[0]["values_ms"][0], 0);
    assert_eq!(cells[0]["verdict"], "safe");
    assert!(cells[0]["states"].as_u64().unwrap() > 100);
}

#[test]
fn an_interrupted_boundary_says_where_the_flip_may_still_be() {
    let dir = workdir("boundary");
    let scenario = write(&dir, "pauses.toml", PAUSES);
    let args = [
        "boundary",
        &scenario,
        "--vary",
        "faults.max_pauses=0..3",
        "--max-states",
        "1000000000",
    ];
    let f = lockcheck(&dir, &args, Some((AFTER, libc::SIGTERM)));
    assert_eq!(f.code, 143, "{}", f.stdout);
    assert!(
        f.stdout
            .contains("no verdict: interrupted by SIGTERM in check 2: the verdict flips between faults.max_pauses = 0 s and 3 ms, if at all"),
        "{}",
        f.stdout
    );
}

#[test]
fn an_interrupted_boundary_names_its_signal_in_json_as_check_does() {
    let dir = workdir("boundary-json");
    let scenario = write(&dir, "pauses.toml", PAUSES);
    let args = [
        "boundary",
        &scenario,
        "--vary",
        "faults.max_pauses=0..3",
        "--max-states",
        "1000000000",
        "--json",
    ];
    let f = lockcheck(&dir, &args, Some((AFTER, libc::SIGINT)));
    assert_eq!(f.code, 130, "{}", f.stdout);
    let j = json(&f);
    assert_eq!(j["outcome"], "interrupted");
    assert_eq!(j["verdict"], "interrupted");
    assert_eq!(j["signal"], "SIGINT");
}

/// `--time-limit` bounds each point; `--total-time-limit` the whole sweep: the first point
/// (three pauses, far too many states) gets what is left of two seconds, the second none.
#[test]
fn a_total_time_limit_bounds_the_whole_sweep() {
    let dir = workdir("sweep-total");
    let scenario = write(&dir, "pauses.toml", PAUSES);
    let args = [
        "sweep",
        &scenario,
        "--vary",
        "faults.max_pauses=3,0",
        "--max-states",
        "1000000000",
        "--time-limit",
        "1h",
        "--total-time-limit",
        "2s",
        "--json",
    ];
    let started = Instant::now();
    let f = lockcheck(&dir, &args, None);
    let took = started.elapsed();
    assert_eq!(f.code, 3, "{}", f.stdout);
    assert!(took < Duration::from_millis(2_000 + 1_000), "{took:?}");
    let j = json(&f);
    assert_eq!(j["outcome"], "complete");
    assert_eq!(j["limit_reached"], 2, "{j}");
    let cells = j["cells"].as_array().unwrap();
    assert_eq!(cells[0]["values_ms"][0], 3, "{j}");
    assert!(cells[0]["states"].as_u64().unwrap() > 1_000, "{j}");
    assert_eq!(cells[1]["states"], 0, "{j}");
    let help = Command::new(env!("CARGO_BIN_EXE_lockcheck"))
        .args(["sweep", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).replace('\n', " ");
    assert!(help.contains("apply to each point"), "{help}");
    assert!(help.contains("--total-time-limit"), "{help}");
}
