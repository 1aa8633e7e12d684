//! The replayer's connections: one per (client, server), the replies to the requests sent on
//! each, and the barrier that keeps the plan's order on a server.
//!
//! Redis orders the commands of one connection, not those of several: two commands written
//! a moment apart on two connections may run in either order, and a command written just
//! before a SIGSTOP or a `kill -9` may not have run yet. So before the replayer acts on a
//! running server (a command on another connection, a pause, a crash, a clock step) it
//! *settles* the server: it reads the replies of every command already sent there and keeps
//! them until the model delivers them. A reply the model loses is read and dropped; a reply
//! that was on its way when the server crashed is still delivered, as in the model.

use super::resp;
use lockcheck_model::redis::Reply;
use lockcheck_sim::world::ProcessId;
use std::collections::{BTreeMap, VecDeque};
use std::io::BufReader;
use std::net::TcpStream;
use std::time::Duration;

/// How long a reply may take (real time).
const REPLY_WITHIN: Duration = Duration::from_secs(3);

struct Conn {
    /// The open connection; `None` once its server crashed.
    stream: Option<(TcpStream, BufReader<TcpStream>)>,
    /// Requests sent whose replies are not read yet, oldest first.
    unread: VecDeque<u32>,
    /// Replies read ahead, by request id.
    read: BTreeMap<u32, Reply>,
}

/// Every connection, by (client, node index).
#[derive(Default)]
pub struct Connections {
    conns: BTreeMap<(ProcessId, usize), Conn>,
}

impl Connections {
    /// Opens the connection of (`client`, `node`) on `port` unless one is open.
    pub fn open(&mut self, client: ProcessId, node: usize, port: u16) -> Result<(), String> {
        let conn = self.conns.entry((client, node)).or_insert(Conn {
            stream: None,
            unread: VecDeque::new(),
            read: BTreeMap::new(),
        });
        if conn.stream.is_none() {
            let stream = TcpStream::connect(("127.0.0.1", port))
                .map_err(|e| format!("cannot connect to the server on port {port}: {e}"))?;
            let _ = stream.set_nodelay(true);
            let _ = stream.set_read_timeout(Some(REPLY_WITHIN));
            let reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
            conn.stream = Some((stream, reader));
            conn.unread.clear();
        }
        Ok(())
    }

    /// Writes request `id` on the (open) connection of (`client`, `node`).
    pub fn send(&mut self, client: ProcessId, node: usize, id: u32, argv: &[Vec<u8>]) -> Result<(), String> {
        let conn = self.conns.get_mut(&(client, node)).ok_or("no connection")?;
        let (stream, _) = conn.stream.as_mut().ok_or("the connection is closed")?;
        resp::write_command(stream, argv).map_err(|e| format!("not sent: {e}"))?;
        conn.unread.push_back(id);
        Ok(())
    }

    /// Reads every reply still unread on the connections to `node` (see the module doc).
    pub fn settle(&mut self, node: usize) {
        for ((_, n), conn) in self.conns.iter_mut() {
            if *n != node {
                continue;
            }
            while let Some(id) = conn.unread.front().copied() {
                let Some((_, reader)) = conn.stream.as_mut() else { break };
                match resp::read_reply(reader) {
                    Ok(reply) => {
                        conn.read.insert(id, reply);
                        conn.unread.pop_front();
                    }
                    Err(_) => {
                        conn.stream = None;
                        break;
                    }
                }
            }
        }
    }

    /// `node` crashed: its connections close (the replies already read stay).
    pub fn close(&mut self, node: usize) {
        for ((_, n), conn) in self.conns.iter_mut() {
            if *n == node {
                conn.stream = None;
                conn.unread.clear();
            }
        }
    }

    /// The reply to request `id`, dropping replies to earlier requests the model lost.
    pub fn reply(&mut self, client: ProcessId, node: usize, id: u32) -> Result<Reply, String> {
        let conn = self.conns.get_mut(&(client, node)).ok_or("the command was never sent")?;
        if let Some(reply) = conn.read.remove(&id) {
            return Ok(reply);
        }
        if !conn.unread.contains(&id) {
            return Err("no reply: the server crashed before answering".into());
        }
        let (_, reader) = conn.stream.as_mut().ok_or("the connection is closed")?;
        while let Some(front) = conn.unread.pop_front() {
            let reply = resp::read_reply(reader).map_err(|e| format!("no reply: {e}"))?;
            if front == id {
                return Ok(reply);
            }
        }
        Err("the command was never sent".into())
    }
}
