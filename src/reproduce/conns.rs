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
    /// Requests sent whose replies the model has not delivered, in the order sent, each
    /// with its reply once read (replies are read in order, so the unread ones are last).
    /// Request ids repeat (they name a lock and a purpose): a reply belongs to the oldest
    /// request of its id, as on the model's first-in first-out links.
    sent: VecDeque<(u32, Option<Reply>)>,
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
            sent: VecDeque::new(),
        });
        if conn.stream.is_none() {
            let stream = TcpStream::connect(("127.0.0.1", port))
                .map_err(|e| format!("cannot connect to the server on port {port}: {e}"))?;
            let _ = stream.set_nodelay(true);
            let _ = stream.set_read_timeout(Some(REPLY_WITHIN));
            let reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
            conn.stream = Some((stream, reader));
        }
        Ok(())
    }

    /// Writes request `id` on the (open) connection of (`client`, `node`).
    pub fn send(
        &mut self,
        client: ProcessId,
        node: usize,
        id: u32,
        argv: &[Vec<u8>],
    ) -> Result<(), String> {
        let conn = self.conns.get_mut(&(client, node)).ok_or("no connection")?;
        let (stream, _) = conn.stream.as_mut().ok_or("the connection is closed")?;
        resp::write_command(stream, argv).map_err(|e| format!("not sent: {e}"))?;
        conn.sent.push_back((id, None));
        Ok(())
    }

    /// Reads every reply still unread on the connections to `node` but `except`'s (whose
    /// own commands keep their order; see the module doc).
    pub fn settle(&mut self, node: usize, except: Option<ProcessId>) {
        for ((client, n), conn) in self.conns.iter_mut() {
            if *n == node && Some(*client) != except {
                while conn.read_next().is_ok_and(|more| more) {}
            }
        }
    }

    /// `node` crashed: its connections close; the requests it had not answered never will
    /// be (the replies already read stay).
    pub fn close(&mut self, node: usize) {
        for ((_, n), conn) in self.conns.iter_mut() {
            if *n == node {
                conn.stream = None;
                conn.sent.retain(|(_, reply)| reply.is_some());
            }
        }
    }

    /// The reply to the oldest request `id` on the connection of (`client`, `node`).
    pub fn reply(&mut self, client: ProcessId, node: usize, id: u32) -> Result<Reply, String> {
        let conn = self
            .conns
            .get_mut(&(client, node))
            .ok_or("the command was never sent")?;
        let at = conn.sent.iter().position(|(i, _)| *i == id).ok_or(
            "no reply: the command was never sent, or the server crashed before answering",
        )?;
        while conn.sent[at].1.is_none() {
            if !conn.read_next()? {
                return Err("the connection is closed".into());
            }
        }
        Ok(conn
            .sent
            .remove(at)
            .and_then(|(_, r)| r)
            .expect("read above"))
    }
}

impl Conn {
    /// Reads the reply of the oldest unread request: whether there was one to read.
    fn read_next(&mut self) -> Result<bool, String> {
        let Some(slot) = self.sent.iter_mut().find(|(_, r)| r.is_none()) else {
            return Ok(false);
        };
        let Some((_, reader)) = self.stream.as_mut() else {
            return Ok(false);
        };
        match resp::read_reply(reader) {
            Ok(reply) => {
                slot.1 = Some(reply);
                Ok(true)
            }
            Err(e) => {
                self.stream = None;
                Err(format!("no reply: {e}"))
            }
        }
    }
}
