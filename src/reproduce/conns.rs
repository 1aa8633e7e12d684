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
//!
//! A client's SUBSCRIBE goes on a subscriber connection of its own (client libraries keep
//! one apart, since a subscribed RESP2 connection takes no other command); the messages
//! published to it arrive there between the replies and wait in their own queue. A
//! connection the server closed while idle (Sentinel kills a promoted node's clients) is
//! opened again before the next command, as client libraries do.

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
    /// Published messages read, oldest first (subscriber connections only).
    pushes: VecDeque<Reply>,
    subscriber: bool,
}

/// A connection: (client, node index, whether it is the client's subscriber connection).
pub type Key = (ProcessId, usize, bool);

/// Every connection, by (client, node index).
#[derive(Default)]
pub struct Connections {
    conns: BTreeMap<Key, Conn>,
}

impl Connections {
    /// Opens connection `key` to the server on `port` unless it is open.
    pub fn open(&mut self, key: Key, port: u16) -> Result<(), String> {
        let conn = self.conns.entry(key).or_insert(Conn {
            stream: None,
            sent: VecDeque::new(),
            pushes: VecDeque::new(),
            subscriber: key.2,
        });
        let idle = conn.sent.iter().all(|(_, r)| r.is_some());
        if idle && conn.stream.as_ref().is_some_and(|(s, _)| closed(s)) {
            // The server closed it (Sentinel kills a promoted node's clients): reconnect, as
            // client libraries do.
            conn.stream = None;
        }
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

    /// Writes request `id` on the (open) connection `key`.
    pub fn send(&mut self, key: Key, id: u32, argv: &[Vec<u8>]) -> Result<(), String> {
        let conn = self.conns.get_mut(&key).ok_or("no connection")?;
        let (stream, _) = conn.stream.as_mut().ok_or("the connection is closed")?;
        resp::write_command(stream, argv).map_err(|e| format!("not sent: {e}"))?;
        conn.sent.push_back((id, None));
        Ok(())
    }

    /// Reads every reply still unread on the connections to `node` but `except`'s (whose
    /// own commands keep their order; see the module doc).
    pub fn settle(&mut self, node: usize, except: Option<ProcessId>) {
        for ((client, n, _), conn) in self.conns.iter_mut() {
            if *n == node && Some(*client) != except {
                while conn.unread() && conn.read_value().is_ok() {}
            }
        }
    }

    /// `node` crashed: its connections close; the requests it had not answered never will
    /// be (the replies already read stay).
    pub fn close(&mut self, node: usize) {
        for ((_, n, _), conn) in self.conns.iter_mut() {
            if *n == node {
                conn.stream = None;
                conn.sent.retain(|(_, reply)| reply.is_some());
            }
        }
    }

    /// The reply to the oldest request `id` on connection `key`.
    pub fn reply(&mut self, key: Key, id: u32) -> Result<Reply, String> {
        let conn = self
            .conns
            .get_mut(&key)
            .ok_or("the command was never sent")?;
        let at = conn.sent.iter().position(|(i, _)| *i == id).ok_or(
            "no reply: the command was never sent, or the server crashed before answering",
        )?;
        while conn.sent[at].1.is_none() {
            conn.read_value()?;
        }
        Ok(conn
            .sent
            .remove(at)
            .and_then(|(_, r)| r)
            .expect("read above"))
    }

    /// The next message published to `client` by `node`.
    pub fn push(&mut self, client: ProcessId, node: usize) -> Result<Reply, String> {
        let conn = self
            .conns
            .get_mut(&(client, node, true))
            .ok_or("the client never subscribed")?;
        loop {
            if let Some(push) = conn.pushes.pop_front() {
                return Ok(push);
            }
            conn.read_value()?;
        }
    }
}

impl Conn {
    /// Whether a request sent has its reply still unread.
    fn unread(&self) -> bool {
        self.sent.iter().any(|(_, r)| r.is_none()) && self.stream.is_some()
    }

    /// Reads one value: a published message (on a subscriber connection), or the reply of
    /// the oldest unread request.
    fn read_value(&mut self) -> Result<(), String> {
        let (_, reader) = self.stream.as_mut().ok_or("the connection is closed")?;
        let value = match resp::read_reply(reader) {
            Ok(value) => value,
            Err(e) => {
                self.stream = None;
                return Err(format!("no reply: {e}"));
            }
        };
        if self.subscriber && is_published(&value) {
            self.pushes.push_back(value);
            return Ok(());
        }
        match self.sent.iter_mut().find(|(_, r)| r.is_none()) {
            Some(slot) => slot.1 = Some(value),
            None => return Err(format!("a reply to no request: {value:?}")),
        }
        Ok(())
    }
}

/// Whether the server has closed `stream` (a read would see its end at once).
fn closed(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let mut byte = [0u8; 1];
    let ended = matches!(stream.peek(&mut byte), Ok(0));
    let _ = stream.set_nonblocking(false);
    ended
}

/// Whether `value` is a message published on a channel (`["message", channel, payload]`).
fn is_published(value: &Reply) -> bool {
    matches!(value, Reply::Array(Some(items))
        if items.first() == Some(&Reply::Bulk(Some(b"message".to_vec()))))
}
