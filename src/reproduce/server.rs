//! The process supervisor: one real `redis-server` per node of the scenario, each on a
//! loopback port in a temporary directory of its own, with its persistence; paused,
//! resumed, killed and restarted by PID; every child killed (resumed first) and the
//! directories removed when the [`Supervisor`] is dropped, which also happens on a panic or
//! when a Ctrl-C ends the run early.

use super::clock::ClockFiles;
use super::proxy::Proxy;
use super::resp;
use super::ReproduceError;
use lockcheck_model::node::Persistence;
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufReader, ErrorKind};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How long a server may take to answer its first PING (real time).
const READY_WITHIN_MS: i64 = 5_000;
/// The major version the model answers like.
pub const MAJOR_VERSION: u32 = 7;

/// What to start.
#[derive(Clone, Debug)]
pub struct NodeSetup {
    pub name: String,
    pub persistence: Persistence,
    /// The node (index) this one replicates, through a proxy that a partition cuts.
    pub replica_of: Option<usize>,
    /// `min-replicas-to-write` (0: off) and `min-replicas-max-lag` in whole seconds.
    pub min_replicas_to_write: u32,
    pub min_replicas_max_lag_s: u64,
    /// `replica-priority` (Sentinel promotes the lowest non-zero; Redis's default: 100).
    pub priority: u32,
}

/// How to start the servers.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// The `redis-server` program.
    pub program: PathBuf,
    /// Node i listens on `first_port + i`; `None`: free ports.
    pub first_port: Option<u16>,
}

pub(super) struct Server {
    pub(super) name: String,
    pub(super) port: u16,
    pub(super) args: Vec<String>,
    pub(super) dir: PathBuf,
    pub(super) clock_file: Option<PathBuf>,
    pub(super) child: Option<Child>,
    pub(super) stopped: bool,
}

/// The running servers.
pub struct Supervisor {
    /// The nodes, then the Sentinels.
    pub(super) servers: Vec<Server>,
    /// The proxy of each link between servers, by (replica or Sentinel, master).
    pub(super) links: BTreeMap<(usize, usize), Proxy>,
    pub(super) root: PathBuf,
    program: PathBuf,
    preload: Option<PathBuf>,
}

/// `redis-server --version`'s version, refused unless its major is [`MAJOR_VERSION`].
pub fn version(program: &PathBuf) -> Result<String, ReproduceError> {
    let out = Command::new(program).arg("--version").output().map_err(|e| {
        let why = match e.kind() {
            ErrorKind::NotFound => "not found; install Redis 7 (Debian/Ubuntu: `apt-get install -y redis-server`) or name it with --redis-server".to_string(),
            _ => e.to_string(),
        };
        ReproduceError::bad_environment(format!("{}: {why}", program.display()))
    })?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let v = text
        .split_whitespace()
        .find_map(|w| w.strip_prefix("v="))
        .ok_or_else(|| {
            ReproduceError::bad_environment(format!(
                "{} --version printed no `v=` version: {}",
                program.display(),
                text.trim()
            ))
        })?;
    let major = v.split('.').next().and_then(|m| m.parse::<u32>().ok());
    if major != Some(MAJOR_VERSION) {
        return Err(ReproduceError::bad_environment(format!(
            "{} is Redis {v}; the model answers like Redis {MAJOR_VERSION}.x",
            program.display()
        )));
    }
    Ok(v.to_string())
}

impl Supervisor {
    /// Starts every node and waits until each answers PING; on any failure every server
    /// started so far is killed and the reason returned.
    pub fn start(
        nodes: &[NodeSetup],
        sentinels: &[super::sentinel::SentinelSetup],
        options: &ServerOptions,
        root: PathBuf,
        clock: Option<&ClockFiles>,
    ) -> Result<Supervisor, ReproduceError> {
        let mut s = Supervisor {
            servers: Vec::new(),
            links: BTreeMap::new(),
            root,
            program: options.program.clone(),
            preload: clock.map(|c| c.library.clone()),
        };
        for (i, node) in nodes.iter().enumerate() {
            let port = port_of(options.first_port, i)?;
            let dir = s.root.join(&node.name);
            fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
            let clock_file = clock_file_in(&dir, clock)?;
            let mut args = server_args(port, &dir, node);
            if let Some(m) = node.replica_of {
                let proxy = Proxy::start(s.servers[m].port);
                args.extend([
                    "--replicaof".into(),
                    "127.0.0.1".into(),
                    proxy.port().to_string(),
                ]);
                s.links.insert((i, m), proxy);
            }
            s.servers.push(Server {
                name: node.name.clone(),
                port,
                args,
                dir,
                clock_file,
                child: None,
                stopped: false,
            });
            s.launch(i)?;
        }
        for (i, node) in nodes.iter().enumerate() {
            if node.replica_of.is_some() {
                s.wait_for_link(i)?;
            }
        }
        for sentinel in sentinels {
            s.start_sentinel(sentinel, options.first_port, clock)?;
        }
        Ok(s)
    }

    /// The node listening on `port`, directly or through a proxy.
    pub fn node_at_port(&self, port: u16) -> Option<usize> {
        let direct = self.servers.iter().position(|s| s.port == port);
        direct.or_else(|| {
            self.links
                .iter()
                .find(|(_, p)| p.port() == port)
                .map(|((_, m), _)| *m)
        })
    }

    /// The name of server `i`.
    pub fn name(&self, i: usize) -> &str {
        &self.servers[i].name
    }

    /// Cuts the link between servers `a` and `b` (replication or monitoring), for good.
    pub fn cut(&mut self, a: usize, b: usize) {
        for key in [(a, b), (b, a)] {
            if let Some(proxy) = self.links.get(&key) {
                proxy.cut();
            }
        }
    }

    /// Waits until replica `i` reports its link to the master up.
    fn wait_for_link(&self, i: usize) -> Result<(), ReproduceError> {
        let deadline = super::clock::mono_ns() + READY_WITHIN_MS * 1_000_000;
        while super::clock::mono_ns() < deadline {
            if info_replication(self.servers[i].port).contains("master_link_status:up") {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Err(ReproduceError::environment(format!(
            "{}: the replica's link to its master never came up within {READY_WITHIN_MS} ms",
            self.servers[i].name
        )))
    }

    pub fn port(&self, i: usize) -> u16 {
        self.servers[i].port
    }

    pub fn clock_file(&self, i: usize) -> Option<&PathBuf> {
        self.servers[i].clock_file.as_ref()
    }

    /// The PIDs of the servers running now.
    pub fn pids(&self) -> Vec<u32> {
        self.servers
            .iter()
            .filter_map(|s| s.child.as_ref().map(|c| c.id()))
            .collect()
    }

    /// Whether node `i` is stopped (SIGSTOP).
    pub fn is_paused(&self, i: usize) -> bool {
        self.servers[i].stopped
    }

    /// SIGSTOP: the node freezes; the kernel still queues what is sent to it.
    pub fn pause(&mut self, i: usize) {
        self.signal(i, libc::SIGSTOP);
        self.servers[i].stopped = true;
    }

    /// SIGCONT.
    pub fn resume(&mut self, i: usize) {
        self.signal(i, libc::SIGCONT);
        self.servers[i].stopped = false;
    }

    /// `kill -9`: the node dies with whatever it had not written.
    pub fn crash(&mut self, i: usize) {
        let server = &mut self.servers[i];
        if let Some(mut child) = server.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        server.stopped = false;
    }

    /// Starts a crashed node again on its port, directory and clock.
    pub fn restart(&mut self, i: usize) -> Result<(), ReproduceError> {
        self.launch(i)
    }

    fn signal(&self, i: usize, signal: libc::c_int) {
        if let Some(child) = &self.servers[i].child {
            // SAFETY: kill(2) on the PID of a child this supervisor spawned and has not reaped.
            unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        }
    }

    pub(super) fn launch(&mut self, i: usize) -> Result<(), ReproduceError> {
        let server = &self.servers[i];
        let log_path = server.dir.join("redis.log");
        let log = fs::File::create(&log_path).map_err(|e| io_error(&log_path, e))?;
        let mut cmd = Command::new(&self.program);
        cmd.args(&server.args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| io_error(&log_path, e))?)
            .stderr(log);
        // Its own process group, so that a Ctrl-C reaches the replayer alone (which then kills
        // it by PID); and SIGKILL when the replayer dies without cleaning up.
        cmd.process_group(0);
        // SAFETY: prctl is async-signal-safe and touches only the child being set up.
        #[cfg(target_os = "linux")]
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        if let (Some(lib), Some(file)) = (&self.preload, &server.clock_file) {
            cmd.env("LD_PRELOAD", lib).env("LOCKCHECK_CLOCK_FILE", file);
        }
        let child = cmd.spawn().map_err(|e| {
            ReproduceError::bad_environment(format!("cannot start {}: {e}", self.program.display()))
        })?;
        let (name, port) = (server.name.clone(), server.port);
        self.servers[i].child = Some(child);
        self.wait_ready(i)
            .map_err(|why| ReproduceError::environment(format!("{name} (port {port}): {why}")))
    }

    /// Waits for PING to answer PONG; otherwise why not, from the server's log.
    fn wait_ready(&mut self, i: usize) -> Result<(), String> {
        let deadline = super::clock::mono_ns() + READY_WITHIN_MS * 1_000_000;
        while super::clock::mono_ns() < deadline {
            let server = &mut self.servers[i];
            let exited = server
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            if let Some(status) = exited {
                server.child = None;
                let log = fs::read_to_string(server.dir.join("redis.log")).unwrap_or_default();
                return Err(
                    match log.lines().find(|l| l.contains("Address already in use")) {
                        Some(_) => format!("port {} is taken", server.port),
                        None => format!(
                            "redis-server exited ({status}) before answering: {}",
                            last_lines(&log)
                        ),
                    },
                );
            }
            if pings(server.port) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Err(format!(
            "redis-server did not answer PING within {} ms",
            READY_WITHIN_MS
        ))
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        for i in 0..self.servers.len() {
            if self.servers[i].stopped {
                self.resume(i);
            }
            self.crash(i);
        }
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn server_args(port: u16, dir: &std::path::Path, node: &NodeSetup) -> Vec<String> {
    let mut args: Vec<String> = [
        "--port",
        &port.to_string(),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--daemonize",
        "no",
        "--dir",
        &dir.to_string_lossy(),
        "--enable-debug-command",
        "local",
        // A replica's first sync at once, not after the default 5 s wait for more replicas.
        "--repl-diskless-sync-delay",
        "0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let aof = match node.persistence {
        Persistence::None => vec!["--appendonly", "no"],
        Persistence::AofEverySec => vec!["--appendonly", "yes", "--appendfsync", "everysec"],
        Persistence::AofAlways => vec!["--appendonly", "yes", "--appendfsync", "always"],
    };
    args.extend(aof.into_iter().map(String::from));
    if node.priority != lockcheck_model::sentinel::DEFAULT_PRIORITY {
        args.extend(["--replica-priority".into(), node.priority.to_string()]);
    }
    if node.min_replicas_to_write > 0 {
        args.extend([
            "--min-replicas-to-write".into(),
            node.min_replicas_to_write.to_string(),
            "--min-replicas-max-lag".into(),
            node.min_replicas_max_lag_s.to_string(),
        ]);
    }
    args
}

/// `INFO replication` of the server on `port` (empty if it does not answer).
fn info_replication(port: u16) -> String {
    let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return String::new();
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut w = &stream;
    let argv = [b"INFO".to_vec(), b"replication".to_vec()];
    if resp::write_command(&mut w, &argv).is_err() {
        return String::new();
    }
    match resp::read_reply(&mut BufReader::new(&stream)) {
        Ok(lockcheck_model::redis::Reply::Bulk(Some(text))) => {
            String::from_utf8_lossy(&text).into_owned()
        }
        _ => String::new(),
    }
}

pub(super) fn pings(port: u16) -> bool {
    let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut w = &stream;
    if resp::write_command(&mut w, &[b"PING".to_vec()]).is_err() {
        return false;
    }
    let reply = resp::read_reply(&mut BufReader::new(&stream));
    matches!(reply, Ok(lockcheck_model::redis::Reply::Status(s)) if s == "PONG")
}

/// Server `i`'s port: `first + i`, or a free one.
pub(super) fn port_of(first: Option<u16>, i: usize) -> Result<u16, ReproduceError> {
    match first {
        Some(p) => Ok(p + i as u16),
        None => free_port(),
    }
}

/// A loopback port that was free a moment ago.
fn free_port() -> Result<u16, ReproduceError> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| ReproduceError::environment(format!("no free loopback port: {e}")))
}

/// A server's clock file in its directory `dir`, when the run has a clock library.
pub(super) fn clock_file_in(
    dir: &std::path::Path,
    clock: Option<&ClockFiles>,
) -> Result<Option<PathBuf>, ReproduceError> {
    let Some(c) = clock else {
        return Ok(None);
    };
    let f = dir.join("clock");
    c.create(&f).map_err(|e| io_error(&f, e))?;
    Ok(Some(f))
}

pub(super) fn io_error(path: &std::path::Path, e: std::io::Error) -> ReproduceError {
    ReproduceError::environment(format!("{}: {e}", path.display()))
}

fn last_lines(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(3)..].join(" | ")
}
