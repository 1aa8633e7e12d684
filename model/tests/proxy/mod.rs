//! A loopback TCP proxy that can be cut: a network partition between two real servers.
//!
//! A real replica is pointed at the proxy instead of its master. `cut` closes every
//! connection and refuses new ones (they are accepted and closed at once), so the replica
//! sees its link to the master go down, exactly like a partition. Everything stops when the
//! proxy is dropped.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

pub struct Proxy {
    port: u16,
    cut: Arc<AtomicBool>,
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
            stop: Arc::default(),
            streams: Arc::default(),
        };
        let (cut, stop, streams) = (proxy.cut.clone(), proxy.stop.clone(), proxy.streams.clone());
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
                        );
                        pipe(upstream, downstream);
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

/// Copies bytes from `from` to `to` until either side closes.
fn pipe(mut from: TcpStream, mut to: TcpStream) {
    thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
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
