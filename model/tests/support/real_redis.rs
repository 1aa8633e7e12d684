//! A real `redis-server` for a test: started on a free loopback port in its own temporary
//! directory, without persistence, and killed when dropped.
//!
//! The server must be installed (`redis-server` on `PATH`; CI installs Debian's `redis-server`
//! package). A missing server is a test *failure* with a message saying so, never a silent
//! pass. [`RealRedis::start_with`] adds configuration arguments (a replica's `--replicaof`, AOF
//! settings...), [`RealRedis::port`] tells other servers where this one listens.

// Talks to a real Redis server, in real time: the wall clock is the point here.
#![allow(clippy::disallowed_methods)]

use lockcheck_model::redis::Reply;
use std::fs;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// How long a server may take to answer its first PING.
const READY_WITHIN: Duration = Duration::from_secs(10);
/// How many times to try a fresh port when a server exits before answering (port race).
const START_ATTEMPTS: usize = 3;

static STARTED: AtomicUsize = AtomicUsize::new(0);

/// A running `redis-server`, killed and its directory removed on drop.
pub struct RealRedis {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl RealRedis {
    /// A server with the default test configuration.
    pub fn start() -> RealRedis {
        RealRedis::start_with(&[])
    }

    /// A server with `extra` configuration arguments appended (e.g. `["--replicaof",
    /// "127.0.0.1", "6380"]` or `["--appendonly", "yes"]`; later arguments win).
    pub fn start_with(extra: &[&str]) -> RealRedis {
        let mut last_log = String::new();
        for _ in 0..START_ATTEMPTS {
            let mut server = RealRedis::spawn(extra);
            match server.wait_until_ready() {
                Ok(()) => return server,
                Err(log) => last_log = log,
            }
        }
        panic!("redis-server never answered PING within {READY_WITHIN:?}; its log:\n{last_log}");
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's working directory (for AOF and RDB files).
    pub fn dir(&self) -> &PathBuf {
        &self.dir
    }

    /// Waits, up to 10 s, until `INFO replication` shows `line` (e.g.
    /// `master_link_status:up` on a replica); panics naming `what` otherwise.
    pub fn wait_for_replication_info(&self, line: &str, what: &str) {
        let mut con = self.connection();
        let started = std::time::Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            let info = redis::cmd("INFO")
                .arg("replication")
                .query::<String>(&mut con)
                .unwrap();
            if info.contains(line) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("{what} within 10 s (`INFO replication` never showed `{line}`)");
    }

    /// Waits until this replica reports its link to the master up.
    pub fn wait_for_link(&self) {
        self.wait_for_replication_info(
            "master_link_status:up",
            "the real replica never connected to its master",
        );
    }

    /// A new synchronous connection to the server.
    pub fn connection(&self) -> redis::Connection {
        let client = redis::Client::open(format!("redis://127.0.0.1:{}/", self.port))
            .expect("a loopback redis URL is valid");
        client
            .get_connection_with_timeout(Duration::from_secs(5))
            .unwrap_or_else(|e| panic!("cannot connect to redis-server on {}: {e}", self.port))
    }

    fn spawn(extra: &[&str]) -> RealRedis {
        let port = free_port();
        let n = STARTED.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("lockcheck-redis-{}-{n}", std::process::id()));
        fs::create_dir_all(&dir).expect("create the server's temporary directory");
        let log = fs::File::create(dir.join("redis.log")).expect("create the server log");
        let port_text = port.to_string();
        let dir_text = dir.to_string_lossy().into_owned();
        let mut args = vec!["--port", &port_text, "--bind", "127.0.0.1", "--save", ""];
        args.extend([
            "--appendonly",
            "no",
            "--dir",
            &dir_text,
            "--daemonize",
            "no",
        ]);
        args.extend(["--enable-debug-command", "local"]);
        args.extend(extra);
        let child = Command::new("redis-server")
            .args(&args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("clone the log handle"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| match e.kind() {
                ErrorKind::NotFound => panic!(
                    "redis-server is not on PATH: install Redis 7 (Debian/Ubuntu: `apt-get \
                     install -y redis-server`); these tests compare the model with a real server"
                ),
                _ => panic!("cannot start redis-server: {e}"),
            });
        RealRedis { child, port, dir }
    }

    /// Waits for PING to answer PONG; on failure the server's log.
    fn wait_until_ready(&mut self) -> Result<(), String> {
        let started = Instant::now();
        while started.elapsed() < READY_WITHIN {
            if let Ok(Some(_)) = self.child.try_wait() {
                return Err(self.log());
            }
            if self.pings() {
                return Ok(());
            }
            sleep(Duration::from_millis(20));
        }
        Err(self.log())
    }

    fn pings(&self) -> bool {
        let url = format!("redis://127.0.0.1:{}/", self.port);
        let Ok(client) = redis::Client::open(url) else {
            return false;
        };
        let Ok(mut con) = client.get_connection_with_timeout(Duration::from_millis(200)) else {
            return false;
        };
        redis::cmd("PING")
            .query::<String>(&mut con)
            .is_ok_and(|pong| pong == "PONG")
    }

    fn log(&self) -> String {
        fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default()
    }
}

impl Drop for RealRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A loopback port that was free a moment ago.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    listener.local_addr().expect("a bound address").port()
}

/// Sends `argv` as one raw command and returns the reply (errors included, as replies).
pub fn request(con: &mut redis::Connection, argv: &[Vec<u8>]) -> Reply {
    let mut cmd = redis::Cmd::new();
    for arg in argv {
        cmd.arg(arg.as_slice());
    }
    let value = redis::ConnectionLike::req_command(con, &cmd)
        .unwrap_or_else(|e| panic!("redis connection failed on {argv:?}: {e}"));
    to_reply(value)
}

/// Sends a command given as words.
pub fn request_words(con: &mut redis::Connection, words: &[&str]) -> Reply {
    let argv: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
    request(con, &argv)
}

/// How far a remaining TTL may differ between the model and the server: the two read the
/// same system clock a moment apart, and a slow machine stretches the moment.
pub const TTL_TOLERANCE_MS: i64 = 1_000;

/// Whether the model's reply agrees with the server's: exactly, or, for a reply that is a
/// remaining TTL (`ttl_valued`) and non-negative on both sides, within [`TTL_TOLERANCE_MS`].
pub fn agree(model: &Reply, real: &Reply, ttl_valued: bool) -> bool {
    match (model, real) {
        (Reply::Integer(m), Reply::Integer(r)) if ttl_valued && *m >= 0 && *r >= 0 => {
            (m - r).abs() <= TTL_TOLERANCE_MS
        }
        _ => model == real,
    }
}

/// Sorted-set scores at least this large are times: a fair-lock timeout is a lock's PTTL plus
/// client times, and the conformance generators' client times start at 1,000,000 ms.
pub const TIME_SCORES_FROM_MS: i64 = 1_000_000;

/// Whether the model's scores agree with the server's, for a single score (`ZSCORE`,
/// `ZINCRBY`) or a sorted set as member/score pairs: the same members in the same order, each
/// score exactly, or within [`TTL_TOLERANCE_MS`] where `is_time` says it may hold a PTTL (read
/// a moment apart on the two sides).
pub fn scores_agree(model: &Reply, real: &Reply, is_time: impl Fn(i64) -> bool) -> bool {
    let score = |r: &Reply| match r {
        Reply::Bulk(Some(b)) => String::from_utf8_lossy(b).parse::<i64>().ok(),
        _ => None,
    };
    let one_agrees = |m: &Reply, r: &Reply| match (score(m), score(r)) {
        (Some(a), Some(b)) if is_time(b) => (a - b).abs() <= TTL_TOLERANCE_MS,
        _ => m == r,
    };
    match (model, real) {
        (Reply::Array(Some(m)), Reply::Array(Some(r))) => {
            m.len() == r.len()
                && m.chunks(2).zip(r.chunks(2)).all(|(m, r)| {
                    m.len() == r.len()
                        && m[0] == r[0]
                        && m[1..].iter().zip(&r[1..]).all(|(m, r)| one_agrees(m, r))
                })
        }
        _ => one_agrees(model, real),
    }
}

/// A RESP2 value from the `redis` crate as the model's reply.
pub fn to_reply(value: redis::Value) -> Reply {
    match value {
        redis::Value::Nil => Reply::Bulk(None),
        redis::Value::Int(n) => Reply::Integer(n),
        redis::Value::BulkString(bytes) => Reply::Bulk(Some(bytes)),
        redis::Value::Array(items) => Reply::Array(Some(items.into_iter().map(to_reply).collect())),
        redis::Value::SimpleString(s) => Reply::Status(s),
        redis::Value::Okay => Reply::Status("OK".to_string()),
        redis::Value::ServerError(e) => Reply::Error(match e.details() {
            Some(detail) => format!("{} {detail}", e.code()),
            None => e.code().to_string(),
        }),
        other => panic!("a RESP3-only value from a RESP2 connection: {other:?}"),
    }
}
