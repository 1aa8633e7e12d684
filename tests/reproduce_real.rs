//! `lockcheck reproduce` against real `redis-server` 7 (installed by `.ci/run`; a missing
//! server fails these tests with the reason): a fast set of violating built-ins reproduces
//! at x10, a trace whose reply cannot happen diverges at that step, a loaded machine gives
//! INCONCLUSIVE rather than a false verdict, the clock library moves a key's PTTL, bad
//! environments exit 2 or 3 with the reason, and no server is left running after any run.

mod common;

use common::{json, lockcheck_within, workdir, Out};
use lockcheck::model::msg::Msg;
use lockcheck::model::redis::Reply;
use lockcheck::reproduce::verdict::Verdict;
use lockcheck::reproduce::{reproduce, RunOptions, ServerOptions};
use lockcheck::scenario::builtin;
use lockcheck::sim::world::WorldAction;
use lockcheck::testing;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

fn lockcheck(dir: &Path, args: &[&str]) -> Out {
    lockcheck_within(dir, args, Duration::from_secs(120))
}

/// Saves `scenario`'s counterexample in `dir`; returns the trace's file name.
fn trace(dir: &Path, scenario: &str) -> String {
    let file = format!("{scenario}.json");
    let out = lockcheck(dir, &["check", scenario, "-o", &file]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    file
}

/// Whether process `pid` is a live redis-server.
fn server_alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "redis-server")
}

fn assert_no_server_left(pids: &[u64]) {
    assert!(!pids.is_empty(), "the run started servers");
    for &pid in pids {
        assert!(!server_alive(pid), "redis-server {pid} was left running");
    }
}

fn options(speed: f64) -> RunOptions {
    RunOptions {
        speed,
        server: ServerOptions {
            program: PathBuf::from("redis-server"),
            first_port: None,
        },
        stall_before: None,
    }
}

#[test]
fn fast_violating_built_ins_reproduce_at_x10_and_leave_no_server_behind() {
    let dir = workdir("reproduce-fast-set");
    // A client pause, a crash and restart, a node clock step (clock library), five nodes with
    // three crashes, two detectors' DELs, Redisson's fair lock with pub/sub, a replica cut off, a Sentinel failover.
    for scenario in [
        "kleppmann-pause-past-lease",
        "restart-without-persistence",
        "kleppmann-clock-jump",
        "seed-000-redlock-majority-failure",
        "two-detectors-double-release",
        "redisson-fair-lock-dead-waiter",
        "min-replicas-lag-refuses-writes",
        "failover-loses-lock",
    ] {
        let file = trace(&dir, scenario);
        let out = reproduced_within_three_tries(&dir, &file);
        assert_eq!(out.code, 1, "{scenario}: {}{}", out.stdout, out.stderr);
        let j = json(&out);
        assert_eq!(j["verdict"]["verdict"], "reproduced", "{scenario}: {j}");
        let run = &j["runs"][0];
        let replies: Vec<&serde_json::Value> = run["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| !s["match"].is_null())
            .collect();
        assert!(!replies.is_empty());
        assert!(
            replies.iter().all(|s| s["match"] == true),
            "{scenario}: {run}"
        );
        let pids: Vec<u64> = run["server_pids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_u64().unwrap())
            .collect();
        assert_no_server_left(&pids);
    }
}

/// `reproduce FILE --speed 10 --json`, run again while it is INCONCLUSIVE (a loaded machine
/// could not hold a step's timing: no verdict, not a failure), three times at most.
fn reproduced_within_three_tries(dir: &Path, file: &str) -> Out {
    let mut out = lockcheck(dir, &["reproduce", file, "--speed", "10", "--json"]);
    for _ in 0..2 {
        if out.code != 3 {
            break;
        }
        out = lockcheck(dir, &["reproduce", file, "--speed", "10", "--json"]);
    }
    out
}

#[test]
fn the_step_table_shows_every_step_and_the_verdict() {
    let dir = workdir("reproduce-table");
    let file = trace(&dir, "restart-without-persistence");
    let out = lockcheck(
        &dir,
        &[
            "reproduce",
            &file,
            "--speed",
            "10",
            "--repeat",
            "2",
            "--witness",
            "w.json",
        ],
    );
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    for word in [
        "step", "label", "model ms", "real ms", "expected", "actual", "match",
    ] {
        assert!(out.stdout.contains(word), "{}", out.stdout);
    }
    assert!(
        out.stdout.contains("crash redis, restart after 1000 ms"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("(restart of redis)"), "{}", out.stdout);
    // Two runs, each with its table; a run on a loaded machine may be INCONCLUSIVE.
    assert_eq!(
        out.stdout.matches("worst lateness").count(),
        2,
        "{}",
        out.stdout
    );
    let reproduced = ["2/2", "1/2"]
        .map(|k| format!("verdict: REPRODUCED ({k} runs reproduced)"))
        .iter()
        .any(|line| out.stdout.contains(line.as_str()));
    assert!(reproduced, "{}", out.stdout);
    let witness: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("w.json")).unwrap()).unwrap();
    assert_eq!(witness["format"], "lockcheck-witness");
    assert!(witness["redis_version"].as_str().unwrap().starts_with("7."));
    assert_eq!(witness["speed"], 10.0);
    assert_eq!(witness["runs"].as_array().unwrap().len(), 2);
    let crash = &witness["runs"][0]["steps"][3];
    assert_eq!(
        crash["label"], "crash redis, restart after 1000 ms",
        "{witness}"
    );
    assert!(
        crash["real_ms"].as_f64().is_some(),
        "each action's real time is kept"
    );
}

/// The model's counterexample of a built-in.
fn counterexample(name: &str) -> testing::CheckedScenario {
    testing::check(&builtin::by_name(name).unwrap())
}

#[test]
fn a_reply_that_cannot_happen_diverges_at_its_step() {
    let checked = counterexample("kleppmann-pause-past-lease");
    let world = &checked.checked.world;
    let (oracle, path) = checked.checked.report.first_violation().unwrap();
    let mut path = path.clone();
    // client-1's first grant: the trace claims Redis answered nil to its SET NX.
    let k = path
        .steps
        .iter()
        .position(|s| s.label == "deliver redis -> client-1: OK")
        .unwrap();
    let WorldAction::Deliver { from, to, msg } = &path.steps[k].action else {
        unreachable!()
    };
    let Msg::Response { id, .. } = &**msg else {
        unreachable!()
    };
    let tampered = Arc::new(Msg::Response {
        id: *id,
        reply: Reply::Bulk(None),
    });
    path.steps[k].action = WorldAction::Deliver {
        from: *from,
        to: *to,
        msg: tampered,
    };
    path.steps[k].label = "deliver redis -> client-1: nil".into();
    let r = reproduce(world, &path, oracle, true, 1, &options(10.0)).unwrap();
    match r.verdict() {
        Verdict::Diverged {
            step,
            expected,
            actual,
            ..
        } => {
            assert_eq!(*step, k + 1);
            assert_eq!((expected.as_str(), actual.as_str()), ("nil", "OK"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        r.runs[0].records.last().unwrap().step,
        k + 1,
        "the run stops at the divergence"
    );
    assert_no_server_left(
        &r.runs[0]
            .pids
            .iter()
            .map(|&p| p.into())
            .collect::<Vec<u64>>(),
    );
}

#[test]
fn a_loaded_machine_gives_inconclusive_not_a_false_verdict() {
    let checked = counterexample("kleppmann-pause-past-lease");
    let world = &checked.checked.world;
    let (oracle, path) = checked.checked.report.first_violation().unwrap();
    // client-2's last refused retry comes 1,892 ms before client-1's lock expires; stall the
    // replayer 3 s (virtual, at x10) before it, and the real retry finds the lock gone.
    let refused = path
        .steps
        .iter()
        .rposition(|s| s.label == "deliver redis -> client-2: nil")
        .unwrap();
    let retry = path.steps[..refused]
        .iter()
        .rposition(|s| s.label.starts_with("deliver client-2 -> redis: SET"))
        .unwrap();
    let mut loaded = options(10.0);
    loaded.stall_before = Some((retry + 1, 300));
    let r = reproduce(world, path, oracle, true, 1, &loaded).unwrap();
    let run = &r.runs[0];
    let reply = run.records.iter().find(|s| s.step == refused + 1).unwrap();
    assert_eq!(
        reply.actual.as_deref(),
        Some("OK"),
        "the late retry did get the lock"
    );
    let Verdict::Inconclusive { why } = r.verdict() else {
        panic!("{:?}", r.verdict())
    };
    assert!(
        why.contains("timing not held") && why.contains("slack is 1892 ms"),
        "{why}"
    );
    assert_no_server_left(&run.pids.iter().map(|&p| p.into()).collect::<Vec<u64>>());
}

#[test]
fn the_clock_library_steps_a_key_s_pttl_and_scales_time() {
    use lockcheck::model::node::Persistence;
    use lockcheck::reproduce::clock::{self, ClockFiles, VirtualClock};
    use lockcheck::reproduce::resp;
    use lockcheck::reproduce::server::{NodeSetup, Supervisor};
    for (speed, first_ms) in [(1.0, 60_000), (10.0, 20_000)] {
        let root = workdir(&format!("reproduce-clock-x{speed}")).join("servers");
        let files = ClockFiles::install(root.parent().unwrap(), VirtualClock::new(speed)).unwrap();
        let node = NodeSetup {
            name: "n".into(),
            persistence: Persistence::None,
            replica_of: None,
            min_replicas_to_write: 0,
            min_replicas_max_lag_s: 0,
            priority: 100,
        };
        let supervisor = Supervisor::start(
            &[node],
            &[],
            &options(speed).server,
            root.clone(),
            Some(&files),
        )
        .unwrap();
        let stream = std::net::TcpStream::connect(("127.0.0.1", supervisor.port(0))).unwrap();
        let mut reader = std::io::BufReader::new(stream.try_clone().unwrap());
        let mut ask = |words: &[&str]| {
            let argv: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
            resp::write_command(&mut &stream, &argv).unwrap();
            resp::read_reply(&mut reader).unwrap()
        };
        let px = first_ms.to_string();
        assert_eq!(
            ask(&["SET", "k", "v", "PX", &px]),
            Reply::Status("OK".into())
        );
        if speed == 1.0 {
            clock::step(supervisor.clock_file(0).unwrap(), 30_000).unwrap();
            let Reply::Integer(pttl) = ask(&["PTTL", "k"]) else {
                panic!()
            };
            assert!(
                (29_000..=30_000).contains(&pttl),
                "a 30 s step leaves {pttl} ms of 60 s"
            );
            clock::step(supervisor.clock_file(0).unwrap(), 31_000).unwrap();
            assert_eq!(
                ask(&["PTTL", "k"]),
                Reply::Integer(-2),
                "another 31 s expires it"
            );
        } else {
            std::thread::sleep(Duration::from_millis(1_000));
            let Reply::Integer(pttl) = ask(&["PTTL", "k"]) else {
                panic!()
            };
            assert!(
                (7_000..=10_000).contains(&pttl),
                "1 s real at x10 is 10 s: {pttl} ms left of 20 s"
            );
        }
        let pids: Vec<u64> = supervisor.pids().iter().map(|&p| p.into()).collect();
        drop(supervisor);
        assert_no_server_left(&pids);
        assert!(!root.exists(), "the servers' directories are removed");
    }
}

/// A stand-in for redis-server: `--version` prints `version`; otherwise it writes its PID
/// into `pid` and sleeps without ever listening.
fn fake_server(dir: &Path, version: &str) -> String {
    let script = dir.join("fake-redis-server");
    let pid = dir.join("pid");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Redis server v={version} sha=0'; exit 0; fi\necho $$ > {}\nexec sleep 60\n",
            pid.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script.display().to_string()
}

fn assert_fails(out: &Out, code: i32, words: &[&str]) {
    assert_eq!(out.code, code, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.starts_with("error:") && !out.stderr.contains("panicked"),
        "{}",
        out.stderr
    );
    for w in words {
        assert!(out.stderr.contains(w), "`{w}` not in: {}", out.stderr);
    }
}

#[test]
fn bad_environments_exit_two_or_three_with_the_reason_and_leave_nothing_running() {
    let dir = workdir("reproduce-environments");
    let file = trace(&dir, "kleppmann-pause-past-lease");
    let missing = lockcheck(
        &dir,
        &[
            "reproduce",
            &file,
            "--redis-server",
            "/nonexistent/redis-server",
        ],
    );
    assert_fails(
        &missing,
        2,
        &[
            "/nonexistent/redis-server: not found",
            "apt-get install -y redis-server",
        ],
    );
    let old = fake_server(&dir, "6.2.6");
    assert_fails(
        &lockcheck(&dir, &["reproduce", &file, "--redis-server", &old]),
        2,
        &["is Redis 6.2.6", "Redis 7.x"],
    );
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = lockcheck(&dir, &["reproduce", &file, "--port", &port]);
    assert_fails(&out, 3, &[&format!("port {port} is taken")]);
    let silent = fake_server(&dir, "7.0.15");
    let out = lockcheck(
        &dir,
        &["reproduce", &file, "--redis-server", &silent, "--json"],
    );
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    let j = json(&out);
    assert_eq!(j["error"]["kind"], "environment");
    assert!(
        j["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not answer PING within 5000 ms"),
        "{j}"
    );
    let pid = std::fs::read_to_string(dir.join("pid")).unwrap();
    assert!(
        !Path::new(&format!("/proc/{}", pid.trim())).exists(),
        "the silent server was killed"
    );
    let fast = lockcheck(&dir, &["reproduce", &file, "--speed", "30"]);
    assert_fails(&fast, 2, &["--speed 30 is out of range: 1 to 10"]);
}

#[test]
fn ctrl_c_ends_the_run_and_kills_every_server() {
    let dir = workdir("reproduce-interrupt");
    let file = trace(&dir, "kleppmann-pause-past-lease");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_lockcheck"))
        .args(["reproduce", &file])
        .current_dir(&dir)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let children = format!("/proc/{pid}/task/{pid}/children");
    let mut servers = Vec::new();
    for _ in 0..200 {
        servers = std::fs::read_to_string(&children)
            .unwrap_or_default()
            .split_whitespace()
            .map(|p| p.parse::<u64>().unwrap())
            .filter(|&p| server_alive(p))
            .collect();
        if !servers.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!servers.is_empty(), "a server started");
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) on the child this test spawned.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("verdict: INCONCLUSIVE: interrupted by SIGINT"),
        "{text}"
    );
    assert_no_server_left(&servers);
}
