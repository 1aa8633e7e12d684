//! A real Sentinel for a scenario's Sentinel: `redis-server sentinel.conf --sentinel`,
//! monitoring the master through a proxy (so that a partition cuts it off), with the
//! scenario's `down-after-milliseconds` and quorum. It decides its failover by its own
//! timers: the replayer asks it which node is the master where a client of the model asks,
//! and waits (within a window) for it to answer as the model's did, moving the rest of the
//! plan by the wait.

use super::clock::ClockFiles;
use super::proxy::Proxy;
use super::resp;
use super::server::{io_error, pings, port_of, Server, Supervisor};
use super::ReproduceError;
use lockcheck_model::redis::Reply;
use std::fs;
use std::io::BufReader;
use std::net::TcpStream;
use std::time::Duration;

/// The name Sentinel knows the master by.
pub const MASTER_NAME: &str = "mymaster";
/// How long Sentinel may take to see the replicas before the run (real ms).
const DISCOVERY_WITHIN_MS: i64 = 10_000;

/// What to start.
#[derive(Clone, Debug)]
pub struct SentinelSetup {
    pub name: String,
    /// The master it monitors (node index).
    pub master: usize,
    pub down_after_ms: u64,
    pub quorum: u32,
    /// How many replicas it must have found before the run starts.
    pub replicas: usize,
}

/// The question a client asks Sentinel.
pub fn ask_master_argv() -> Vec<Vec<u8>> {
    ["SENTINEL", "get-master-addr-by-name", MASTER_NAME]
        .iter()
        .map(|w| w.as_bytes().to_vec())
        .collect()
}

/// The port in Sentinel's answer to [`ask_master_argv`].
pub fn answered_port(reply: &Reply) -> Option<u16> {
    match reply {
        Reply::Array(Some(items)) => match items.get(1) {
            Some(Reply::Bulk(Some(port))) => String::from_utf8_lossy(port).parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

impl Supervisor {
    /// Starts `setup` and waits until it has found its replicas.
    pub(super) fn start_sentinel(
        &mut self,
        setup: &SentinelSetup,
        first_port: Option<u16>,
        clock: Option<&ClockFiles>,
    ) -> Result<(), ReproduceError> {
        let i = self.servers.len();
        let port = port_of(first_port, i)?;
        let dir = self.root.join(&setup.name);
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let monitor = Proxy::start(self.servers[setup.master].port);
        let conf = dir.join("sentinel.conf");
        let text = format!(
            "port {port}\nbind 127.0.0.1\ndir {}\nsentinel monitor {MASTER_NAME} 127.0.0.1 {} {}\nsentinel down-after-milliseconds {MASTER_NAME} {}\nsentinel failover-timeout {MASTER_NAME} 60000\n",
            dir.display(),
            monitor.port(),
            setup.quorum,
            setup.down_after_ms
        );
        fs::write(&conf, text).map_err(|e| io_error(&conf, e))?;
        self.links.insert((i, setup.master), monitor);
        let clock_file = super::server::clock_file_in(&dir, clock)?;
        self.servers.push(Server {
            name: setup.name.clone(),
            port,
            args: vec![conf.display().to_string(), "--sentinel".into()],
            dir,
            clock_file,
            child: None,
            stopped: false,
        });
        self.launch(i)?;
        self.wait_for_replicas(i, setup.replicas)
    }

    fn wait_for_replicas(&self, i: usize, replicas: usize) -> Result<(), ReproduceError> {
        let deadline = super::clock::mono_ns() + DISCOVERY_WITHIN_MS * 1_000_000;
        let port = self.servers[i].port;
        while super::clock::mono_ns() < deadline {
            if pings(port) && found_replicas(port) >= replicas {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(ReproduceError::environment(format!(
            "{}: Sentinel did not find its {replicas} replica(s) within {DISCOVERY_WITHIN_MS} ms",
            self.servers[i].name
        )))
    }
}

/// How many replicas the Sentinel on `port` lists.
fn found_replicas(port: u16) -> usize {
    let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return 0;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let argv: Vec<Vec<u8>> = ["SENTINEL", "replicas", MASTER_NAME]
        .iter()
        .map(|w| w.as_bytes().to_vec())
        .collect();
    if resp::write_command(&mut &stream, &argv).is_err() {
        return 0;
    }
    match resp::read_reply(&mut BufReader::new(&stream)) {
        Ok(Reply::Array(Some(items))) => items.len(),
        _ => 0,
    }
}
