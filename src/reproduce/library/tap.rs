//! A recording proxy between one client library's process and one real server: every byte
//! each way is kept with the instant it passed, so that what the library sent (and what the
//! server answered) can be read afterwards; and a gate that holds the server's answers to a
//! client back while that client is being paused.
//!
//! The gate is how a pause lands where the model put it, between a command and its answer:
//! armed with a count, it closes as the client's n-th command since the start passes (before
//! the command reaches the server), and stays closed until the harness has stopped the
//! process and opens it again. The count is shared by the client's taps to every server.

use super::super::clock::mono_ns;
use super::super::resp;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// One client's gate, shared by its taps.
#[derive(Default)]
pub struct Gate {
    /// Commands the client sent since the start.
    pub sent: AtomicUsize,
    /// Close when `sent` reaches this (0: not armed).
    pub close_at: AtomicUsize,
    pub closed: AtomicBool,
    /// Answers the server sent the client since the start.
    pub answered: AtomicUsize,
    /// Whether commands are counted yet (from the start of the schedule on).
    pub counting: AtomicBool,
}

impl Gate {
    /// Opens the gate and disarms it.
    pub fn open(&self) {
        self.close_at.store(0, Ordering::SeqCst);
        self.closed.store(false, Ordering::SeqCst);
    }
}

/// Bytes that passed one way on one connection.
#[derive(Clone, Debug)]
pub struct Chunk {
    pub conn: usize,
    /// Client to server.
    pub up: bool,
    pub mono_ns: i64,
    pub bytes: Vec<u8>,
}

/// A tap: a loopback port forwarding to a server, recording.
pub struct Tap {
    pub port: u16,
    pub chunks: Arc<Mutex<Vec<Chunk>>>,
    stop: Arc<AtomicBool>,
    streams: Arc<Mutex<Vec<TcpStream>>>,
}

impl Tap {
    /// Forwards a fresh loopback port to the server on `upstream_port`.
    pub fn start(upstream_port: u16, gate: Arc<Gate>) -> std::io::Result<Tap> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let tap = Tap {
            port: listener.local_addr()?.port(),
            chunks: Arc::default(),
            stop: Arc::default(),
            streams: Arc::default(),
        };
        let (chunks, stop, streams) = (tap.chunks.clone(), tap.stop.clone(), tap.streams.clone());
        thread::spawn(move || {
            let mut conn = 0;
            while !stop.load(Ordering::SeqCst) {
                let Ok((down, _)) = listener.accept() else {
                    thread::sleep(Duration::from_millis(2));
                    continue;
                };
                let Ok(up) = TcpStream::connect(("127.0.0.1", upstream_port)) else {
                    continue;
                };
                let _ = down.set_nonblocking(false);
                let _ = (down.set_nodelay(true), up.set_nodelay(true));
                let mut all = streams.lock().unwrap();
                all.extend([down.try_clone().unwrap(), up.try_clone().unwrap()]);
                let pipe = Pipe {
                    conn,
                    chunks: chunks.clone(),
                    gate: gate.clone(),
                };
                pipe.clone()
                    .spawn(down.try_clone().unwrap(), up.try_clone().unwrap(), true);
                pipe.spawn(up, down, false);
                conn += 1;
            }
        });
        Ok(tap)
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for s in self.streams.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

#[derive(Clone)]
struct Pipe {
    conn: usize,
    chunks: Arc<Mutex<Vec<Chunk>>>,
    gate: Arc<Gate>,
}

impl Pipe {
    /// Copies `from` to `to`, recording; upstream it counts commands (closing the gate at
    /// its count), downstream it waits while the gate is closed.
    fn spawn(self, mut from: TcpStream, mut to: TcpStream, up: bool) {
        thread::spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            let mut pending: Vec<u8> = Vec::new();
            loop {
                let n = match from.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let mono_ns = mono_ns();
                if up {
                    pending.extend_from_slice(&buf[..n]);
                    self.count(&mut pending);
                } else {
                    while self.gate.closed.load(Ordering::SeqCst) {
                        thread::sleep(Duration::from_micros(200));
                    }
                    pending.extend_from_slice(&buf[..n]);
                    let (whole, used) = whole_values(&pending);
                    pending.drain(..used);
                    if self.gate.counting.load(Ordering::SeqCst) {
                        self.gate.answered.fetch_add(whole, Ordering::SeqCst);
                    }
                }
                self.chunks.lock().unwrap().push(Chunk {
                    conn: self.conn,
                    up,
                    mono_ns,
                    bytes: buf[..n].to_vec(),
                });
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            let _ = to.shutdown(Shutdown::Both);
        });
    }

    /// Counts the whole commands in `pending` (keeping a partial one), and closes the gate
    /// when the count reaches the armed one.
    fn count(&self, pending: &mut Vec<u8>) {
        let (whole, used) = whole_values(pending);
        pending.drain(..used);
        if whole == 0 || !self.gate.counting.load(Ordering::SeqCst) {
            return;
        }
        let sent = self.gate.sent.fetch_add(whole, Ordering::SeqCst) + whole;
        let at = self.gate.close_at.load(Ordering::SeqCst);
        if at != 0 && sent >= at {
            self.gate.closed.store(true, Ordering::SeqCst);
        }
    }
}

/// How many whole RESP values `bytes` starts with, and how many bytes they take.
pub fn whole_values(bytes: &[u8]) -> (usize, usize) {
    let mut cursor = std::io::Cursor::new(bytes);
    let (mut n, mut used) = (0, 0);
    while (cursor.position() as usize) < bytes.len() && resp::read_reply(&mut cursor).is_ok() {
        n += 1;
        used = cursor.position() as usize;
    }
    (n, used)
}

/// A stream of bytes cut into its RESP values, each with the instant its last byte passed.
pub fn values(chunks: &[&Chunk]) -> Vec<(i64, lockcheck_model::redis::Reply)> {
    let mut out = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    for c in chunks {
        bytes.extend_from_slice(&c.bytes);
        let mut cursor = std::io::Cursor::new(&bytes[..]);
        let mut used = 0;
        while let Ok(v) = resp::read_reply(&mut cursor) {
            out.push((c.mono_ns, v));
            used = cursor.position() as usize;
        }
        bytes.drain(..used);
    }
    out
}
