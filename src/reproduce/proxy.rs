//! A loopback TCP proxy that can be cut: a network partition between two real servers.
//!
//! A real replica is pointed at the proxy instead of its master. `cut` closes every
//! connection and refuses new ones (they are accepted and closed at once), so the replica
//! sees its link to the master go down, exactly like a partition. `black_hole` instead keeps
//! the connections open and drops every byte, both ways: a partition that no side notices
//! until its timeouts (the model's partitions are of this kind). Everything stops when the
//! proxy is dropped.
//!
//! `lockcheck reproduce` puts one on every replication link; the model's conformance tests
//! include this file by path.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

pub struct Proxy {
    port: u16,
    cut: Arc<AtomicBool>,
    black_hole: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    streams: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    /// Forwards a fresh loopback port to `upstream_port`.
    pub fn start(upstream_port: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy port");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let port = listener.local_addr().unwrap().port();
        let proxy = Proxy {
            port,
            cut: Arc::default(),
            black_hole: Arc::default(),
            stop: Arc::default(),
            streams: Arc::default(),
        };
        let (cut, stop, streams) = (proxy.cut.clone(), proxy.stop.clone(), proxy.streams.clone());
        let black_hole = proxy.black_hole.clone();
        thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((downstream, _)) if !cut.load(Ordering::SeqCst) => {
                        downstream.set_nonblocking(false).unwrap();
                        let Ok(upstream) = TcpStream::connect(("127.0.0.1", upstream_port)) else {
                            continue;
                        };
                        let mut all = streams.lock().unwrap();
                        all.push(downstream.try_clone().unwrap());
                        all.push(upstream.try_clone().unwrap());
                        pipe(
                            downstream.try_clone().unwrap(),
                            upstream.try_clone().unwrap(),
                            black_hole.clone(),
                        );
                        pipe(upstream, downstream, black_hole.clone());
                    }
                    Ok((refused, _)) => drop(refused),
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        proxy
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// From now on drops every byte both ways, the connections staying open.
    #[allow(dead_code)] // each test binary uses the kind of cut it needs
    pub fn black_hole(&self) {
        self.black_hole.store(true, Ordering::SeqCst);
    }

    /// Cuts the link: every connection is closed, new ones are refused.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for s in self.streams.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.cut();
    }
}

/// Copies bytes from `from` to `to` until either side closes (dropping them once
/// `black_hole` is set).
fn pipe(mut from: TcpStream, mut to: TcpStream, black_hole: Arc<AtomicBool>) {
    thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) if black_hole.load(Ordering::SeqCst) => {}
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to.shutdown(Shutdown::Both);
    });
}
