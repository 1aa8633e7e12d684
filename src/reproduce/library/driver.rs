//! The drivers: one small committed script per library (`harness/redis_py/driver.py`,
//! `harness/node_redlock/driver.js`) run as a process of its own per client. The harness
//! finds them and checks, before any server starts, that the pinned library is installed;
//! it writes each its schedule, waits for it to connect, starts it, reads its JSON lines,
//! and kills it by PID at the end.

use super::super::ReproduceError;
use super::schedule::Library;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// The pinned versions (the profiles' sources).
pub const REDIS_PY: &str = "5.3.1";
pub const NODE_REDLOCK_4: &str = "4.2.0";
pub const NODE_REDLOCK_5: &str = "5.0.0-beta.2";

/// Where the drivers and their interpreters are.
#[derive(Clone, Debug)]
pub struct Harness {
    pub dir: PathBuf,
    pub python: PathBuf,
    pub node: PathBuf,
}

impl Harness {
    /// `LOCKCHECK_HARNESS` (default: the source tree's `harness/`), `LOCKCHECK_PYTHON`
    /// (default: the venv `.ci/run` makes, `target/harness-venv`), `LOCKCHECK_NODE`
    /// (default: `node`).
    pub fn locate() -> Harness {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let var =
            |name: &str, default: PathBuf| std::env::var_os(name).map_or(default, PathBuf::from);
        Harness {
            dir: var("LOCKCHECK_HARNESS", root.join("harness")),
            python: var(
                "LOCKCHECK_PYTHON",
                root.join("target/harness-venv/bin/python3"),
            ),
            node: var("LOCKCHECK_NODE", PathBuf::from("node")),
        }
    }

    /// Whether every library `libraries` needs is installed at its pinned version.
    pub fn check(&self, libraries: &[Library]) -> Result<(), ReproduceError> {
        for lib in libraries {
            let (program, args, how) = match lib {
                Library::RedisPy => (
                    &self.python,
                    vec![
                        "-c".to_string(),
                        format!("import redis, sys; sys.exit(0 if redis.__version__ == '{REDIS_PY}' else 1)"),
                    ],
                    format!("python3 -m venv target/harness-venv && target/harness-venv/bin/pip install -r harness/redis_py/requirements.txt (redis-py {REDIS_PY})"),
                ),
                Library::NodeRedlock4 | Library::NodeRedlock5 => {
                    let (module, version) = match lib {
                        Library::NodeRedlock4 => ("redlock4", NODE_REDLOCK_4),
                        _ => ("redlock5", NODE_REDLOCK_5),
                    };
                    (
                        &self.node,
                        vec![
                            "-e".to_string(),
                            format!("const v = JSON.parse(require('fs').readFileSync('node_modules/{module}/package.json')).version.replace(/^v/, ''); process.exit(v === '{version}' && require('ioredis') ? 0 : 1)"),
                        ],
                        format!("npm ci in harness/node_redlock (node-redlock {version} and ioredis)"),
                    )
                }
            };
            let status = Command::new(program)
                .args(&args)
                .current_dir(self.dir.join(subdir(*lib)))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            if !status.is_ok_and(|s| s.success()) {
                return Err(ReproduceError::bad_environment(format!(
                    "{} is not installed for the harness ({} in {}): {how}",
                    lib.name(),
                    program.display(),
                    self.dir.join(subdir(*lib)).display()
                )));
            }
        }
        Ok(())
    }
}

fn subdir(lib: Library) -> &'static str {
    match lib {
        Library::RedisPy => "redis_py",
        _ => "node_redlock",
    }
}

/// A running driver.
pub struct Driver {
    pub child: Child,
    stdin: Option<ChildStdin>,
    pub lines: Receiver<Value>,
    pub stderr: PathBuf,
}

impl Driver {
    /// Starts `lib`'s driver; `env` sets its clock (the preloaded library, its clock file).
    pub fn spawn(
        harness: &Harness,
        lib: Library,
        env: &[(&str, &Path)],
        stderr: PathBuf,
    ) -> Result<Driver, ReproduceError> {
        let dir = harness.dir.join(subdir(lib));
        let mut cmd = match lib {
            Library::RedisPy => Command::new(&harness.python),
            _ => Command::new(&harness.node),
        };
        cmd.arg(dir.join(match lib {
            Library::RedisPy => "driver.py",
            _ => "driver.js",
        }));
        let err = std::fs::File::create(&stderr)
            .map_err(|e| ReproduceError::environment(format!("{}: {e}", stderr.display())))?;
        cmd.current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(err);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().map_err(|e| {
            ReproduceError::bad_environment(format!("cannot start the {} driver: {e}", lib.name()))
        })?;
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    if tx.send(v).is_err() {
                        break;
                    }
                }
            }
        });
        Ok(Driver {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes one line to the driver.
    pub fn tell(&mut self, line: &str) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("the driver's input is closed")?;
        writeln!(stdin, "{line}")
            .and_then(|_| stdin.flush())
            .map_err(|e| format!("the driver stopped: {e}"))
    }

    /// Waits for `{"event": "ready"}` (the driver connected and warmed its scripts).
    pub fn ready(&mut self, within: Duration) -> Result<(), String> {
        let until = std::time::Instant::now() + within;
        while let Some(left) = until.checked_duration_since(std::time::Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(v) if v["event"] == "ready" => return Ok(()),
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let why = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        Err(format!(
            "the driver did not get ready: {}",
            why.lines().last().unwrap_or("no output")
        ))
    }

    /// Sends SIGSTOP, SIGCONT or SIGKILL; a stop waits until the process is stopped.
    pub fn signal(&self, signal: i32) {
        let pid = self.pid() as i32;
        // SAFETY: a plain kill(2) of our own child's PID.
        unsafe { libc::kill(pid, signal) };
        if signal == libc::SIGSTOP {
            for _ in 0..2000 {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                let state = stat
                    .rsplit(')')
                    .next()
                    .and_then(|s| s.split_whitespace().next());
                if matches!(state, Some("T") | Some("t") | Some("Z") | None) {
                    break;
                }
                std::thread::sleep(Duration::from_micros(100));
            }
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.signal(libc::SIGCONT);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
