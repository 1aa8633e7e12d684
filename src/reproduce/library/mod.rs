//! The library in the loop: a counterexample played by the real client libraries (redis-py,
//! node-redlock 4 and 5) instead of the model's clients, to see (a) whether each library
//! sends the commands its profile says and (b) whether the violation happens with it.
//!
//! The idea: each client of the trace becomes a process of its own running the real library
//! through a small driver script (`driver.rs`), on a schedule read off the trace
//! (`schedule.rs`): when it calls acquire, extend and release, when it reads and debits the
//! account. Its faults are the process's own: SIGSTOP and SIGCONT for a pause, SIGKILL for a
//! crash, its clock file for a wall-clock step; the preloaded clock library scales its time
//! and its timers' waits with the servers'. Between the process and every real server sits a
//! recording tap (`tap.rs`) that also holds answers back while a pause lands between a
//! command and its answer. Afterwards the commands each server received are set beside the
//! model's (`compare.rs`), the library's answers beside the model client's, and the
//! observed history is judged by the scenario's oracle (`judge.rs`).

pub mod compare;
pub mod driver;
pub mod judge;
pub mod report;
pub mod schedule;
pub mod sha1;
pub mod tap;

use super::clock::{self, mono_ns, ClockFiles, VirtualClock};
use super::server::Supervisor;
use super::{interrupted, plan, ReproduceError, RunOptions};
use crate::oracles::RedisWorld;
use crate::scenario::Scenario;
use driver::{Driver, Harness};
use lockcheck_sim::Path;
use schedule::{ClientRun, FaultKind};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tap::{Gate, Tap};

pub use judge::{LibraryReproduction, LibraryRun};

/// Real time between the drivers' start signal and virtual 0.
const WARMUP_MS: i64 = 300;
/// Virtual time the run goes on past the trace's last step.
const GRACE_MS: u64 = 300;
/// How long a gated fault waits (virtual ms past its time) for its command.
const GATE_WINDOW_MS: u64 = 2_000;

static RUNS: AtomicUsize = AtomicUsize::new(0);

/// Plays `path` of `scenario`'s `world` with the real libraries `repeat` times.
pub fn reproduce(
    scenario: &Scenario,
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    property: &str,
    model_happened: bool,
    repeat: usize,
    options: &RunOptions,
) -> Result<LibraryReproduction, ReproduceError> {
    let (redis_version, plan) = crate::reproduce::checked_plan(world, path, options)?;
    if let Some(s) = plan.steps.iter().find(|s| !s.action.is_client_side()) {
        return Err(ReproduceError::bad_environment(format!(
            "step {} (`{}`): with --library only the clients' own faults run (pauses, crashes, clock steps of a client)",
            s.step, s.label
        )));
    }
    let clients = schedule::clients(scenario, world, path, &plan.node_processes)
        .map_err(ReproduceError::bad_environment)?;
    let harness = Harness::locate();
    let libraries: Vec<_> = clients.iter().map(|c| c.library).collect();
    harness.check(&libraries)?;
    let mut runs = Vec::new();
    for _ in 0..repeat.max(1) {
        let observed = run_once(&plan, &clients, &harness, options, path)?;
        runs.push(judge::judge(
            world,
            path,
            &clients,
            &plan.node_processes,
            observed,
            property,
            model_happened,
        ));
        if interrupted() {
            break;
        }
    }
    Ok(LibraryReproduction {
        redis_version,
        speed: options.speed,
        property: property.to_string(),
        clients: clients
            .iter()
            .map(|c| (c.name.clone(), c.library.name().to_string()))
            .collect(),
        runs,
    })
}

/// What one run saw: each client's driver lines and each tap's bytes.
pub struct Observed {
    /// Per client: the driver's lines (calls and their results).
    pub events: Vec<Vec<Value>>,
    /// Per client, per node of the client (its `nodes` order): the bytes that passed.
    pub chunks: Vec<Vec<Vec<tap::Chunk>>>,
    /// The monotonic instant the schedule started (commands before are setup).
    pub from_ns: i64,
    pub vclock: VirtualClock,
    /// Why the run ended early, if it did.
    pub stopped: Option<String>,
    /// Every PID the run started (servers and drivers), all gone by now.
    pub pids: Vec<u32>,
}

struct Running {
    drivers: Vec<Driver>,
    gates: Vec<Arc<Gate>>,
    taps: Vec<Vec<Tap>>,
    clocks: Vec<Option<PathBuf>>,
}

impl Running {
    /// What the drivers printed and the taps saw; the drivers are killed first (by PID).
    #[allow(clippy::type_complexity)]
    fn collect(&mut self) -> (Vec<Vec<Value>>, Vec<Vec<Vec<tap::Chunk>>>) {
        let events = self
            .drivers
            .iter()
            .map(|d| d.lines.try_iter().collect())
            .collect();
        drop(std::mem::take(&mut self.drivers));
        let chunks = self
            .taps
            .iter()
            .map(|ts| {
                ts.iter()
                    .map(|t| t.chunks.lock().unwrap().clone())
                    .collect()
            })
            .collect();
        (events, chunks)
    }
}

fn run_once(
    plan: &plan::Plan,
    clients: &[ClientRun],
    harness: &Harness,
    options: &RunOptions,
    path: &Path<RedisWorld>,
) -> Result<Observed, ReproduceError> {
    let n = RUNS.fetch_add(1, Ordering::SeqCst);
    let root = std::env::temp_dir().join(format!("lockcheck-library-{}-{n}", std::process::id()));
    let io = |e: std::io::Error| ReproduceError::environment(format!("{}: {e}", root.display()));
    std::fs::create_dir_all(&root).map_err(io)?;
    let mut vclock = VirtualClock::new(options.speed);
    let steps_clock = clients.iter().any(|c| {
        c.faults
            .iter()
            .any(|f| matches!(f.kind, FaultKind::ClockStep { .. }))
    });
    let files = if vclock.scaled() || steps_clock {
        Some(ClockFiles::install(&root, vclock).map_err(io)?)
    } else {
        None
    };
    let supervisor = Supervisor::start(
        &plan.nodes,
        &[],
        &options.server,
        root.clone(),
        files.as_ref(),
    )?;
    let mut pids = supervisor.pids();
    let mut r = Running {
        drivers: Vec::new(),
        gates: Vec::new(),
        taps: Vec::new(),
        clocks: Vec::new(),
    };
    for c in clients {
        start_client(c, &supervisor, files.as_ref(), &root, harness, &mut r)?;
        pids.push(r.drivers.last().expect("started").pid());
    }
    for (d, c) in r.drivers.iter_mut().zip(clients) {
        d.ready(Duration::from_secs(30)).map_err(|e| {
            ReproduceError::environment(format!("{} ({}): {e}", c.name, c.library.name()))
        })?;
    }
    vclock.start(WARMUP_MS);
    let from_ns = mono_ns();
    for g in &r.gates {
        g.counting.store(true, Ordering::SeqCst);
    }
    let go = format!("go {}", vclock.virtual_zero_ns());
    for d in &mut r.drivers {
        d.tell(&go).map_err(ReproduceError::environment)?;
    }
    let end_ms = path.states.last().map_or(0, |s| s.now_ms) + GRACE_MS;
    let stopped = faults(clients, &mut r, &vclock, end_ms);
    let (events, chunks) = r.collect();
    drop(r);
    drop(supervisor);
    Ok(Observed {
        events,
        chunks,
        from_ns,
        vclock,
        stopped,
        pids,
    })
}

/// Does fault `d` (or ends its pause), then opens the client's gate and arms it for the
/// client's next gated fault.
fn act(d: Due, clients: &[ClientRun], r: &mut Running, vclock: &VirtualClock, due: &mut Vec<Due>) {
    let gate = &r.gates[d.client];
    let driver = &r.drivers[d.client];
    match (&d.kind, d.resume) {
        (FaultKind::Pause { .. }, true) => driver.signal(libc::SIGCONT),
        (FaultKind::Pause { ms }, false) => {
            driver.signal(libc::SIGSTOP);
            let started = vclock.now_ms().max(d.at_ms as f64) as u64;
            due.push(Due {
                at_ms: started + ms,
                resume: true,
                ..d
            });
        }
        (FaultKind::Crash, _) => driver.signal(libc::SIGKILL),
        (FaultKind::ClockStep { delta_ms }, _) => {
            if let Some(file) = &r.clocks[d.client] {
                let _ = clock::step(file, *delta_ms);
            }
        }
    }
    if !d.resume {
        gate.open();
        let next = clients[d.client]
            .faults
            .iter()
            .filter_map(|f| f.after_commands)
            .find(|&k| k > gate.sent.load(Ordering::SeqCst));
        if let Some(k) = next {
            gate.close_at.store(k, Ordering::SeqCst);
        }
    }
}

/// Starts client `c`: its taps, its clock file, its driver, told its schedule.
fn start_client(
    c: &ClientRun,
    supervisor: &Supervisor,
    files: Option<&ClockFiles>,
    root: &std::path::Path,
    harness: &Harness,
    r: &mut Running,
) -> Result<(), ReproduceError> {
    let io = |e: std::io::Error| ReproduceError::environment(format!("{}: {e}", root.display()));
    let gate = Arc::new(Gate::default());
    let taps = c
        .nodes
        .iter()
        .map(|&i| Tap::start(supervisor.port(i), gate.clone()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ReproduceError::environment(format!("a tap: {e}")))?;
    let clock_file = match files {
        Some(f) => {
            let p = root.join(format!("{}.clock", c.name));
            f.create(&p).map_err(io)?;
            Some(p)
        }
        None => None,
    };
    let mut env: Vec<(&str, &std::path::Path)> = Vec::new();
    if let (Some(f), Some(p)) = (files, &clock_file) {
        env.extend([
            ("LD_PRELOAD", f.library.as_path()),
            ("LOCKCHECK_CLOCK_FILE", p.as_path()),
            ("LOCKCHECK_SCALE_WAITS", std::path::Path::new("1")),
        ]);
    }
    let stderr = root.join(format!("{}.stderr", c.name));
    let mut d = Driver::spawn(harness, c.library, &env, stderr)?;
    let ports: Vec<u16> = taps.iter().map(|t| t.port).collect();
    let told = d.tell(&schedule::schedule_json(c, &ports).to_string());
    r.drivers.push(d);
    r.gates.push(gate);
    r.taps.push(taps);
    r.clocks.push(clock_file);
    told.map_err(ReproduceError::environment)
}

/// A client fault or the end of a pause, due at a virtual instant.
struct Due {
    at_ms: u64,
    client: usize,
    kind: FaultKind,
    after_commands: Option<usize>,
    after_answers: usize,
    resume: bool,
}

/// Runs every client fault at its time (a gated one once its command passed), resumes the
/// paused clients, and waits until `end_ms`; returns why it stopped early, if it did.
fn faults(
    clients: &[ClientRun],
    r: &mut Running,
    vclock: &VirtualClock,
    end_ms: u64,
) -> Option<String> {
    let mut due: Vec<Due> = clients
        .iter()
        .enumerate()
        .flat_map(|(i, c)| {
            c.faults.iter().map(move |f| Due {
                at_ms: f.at_ms,
                client: i,
                kind: f.kind.clone(),
                after_commands: f.after_commands,
                after_answers: f.after_answers,
                resume: false,
            })
        })
        .collect();
    for (i, c) in clients.iter().enumerate() {
        if let Some(k) = c.faults.first().and_then(|f| f.after_commands) {
            r.gates[i].close_at.store(k.max(1), Ordering::SeqCst);
        }
    }
    while !due.is_empty() {
        due.sort_by_key(|d| d.at_ms);
        let d = due.remove(0);
        if !vclock.sleep_until(d.at_ms) {
            return Some(format!(
                "interrupted by {}",
                crate::interrupt::signal_name()
            ));
        }
        let gate = &r.gates[d.client];
        let deadline = (d.at_ms + GATE_WINDOW_MS) as f64;
        let waiting = || {
            let sent = gate.sent.load(Ordering::SeqCst);
            let commands = d
                .after_commands
                .is_some_and(|k| sent < k && !gate.closed.load(Ordering::SeqCst));
            !d.resume && (commands || gate.answered.load(Ordering::SeqCst) < d.after_answers)
        };
        while waiting() && vclock.now_ms() < deadline {
            std::thread::sleep(Duration::from_micros(200));
        }
        act(d, clients, r, vclock, &mut due);
    }
    if !vclock.sleep_until(end_ms) {
        return Some(format!(
            "interrupted by {}",
            crate::interrupt::signal_name()
        ));
    }
    None
}
