//! The atomic snapshot of the shared deadlock detector is an `MGET`: the model's `MGET`
//! answers like a real `redis-server` (strings, missing keys, a key of another type, arity).
//! Needs `redis-server` on `PATH` (a missing server fails the test, with a message).

use lockcheck::model::redis::{Keyspace, Reply, Role};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start() -> (Server, TcpStream) {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server must be installed and on PATH for this test");
    let server = Server(child);
    let started = Instant::now();
    loop {
        if let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) {
            return (server, stream);
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "redis-server did not start"
        );
        sleep(Duration::from_millis(20));
    }
}

fn send(stream: &mut TcpStream, argv: &[&str]) -> Reply {
    let mut out = format!("*{}\r\n", argv.len());
    for a in argv {
        out.push_str(&format!("${}\r\n{a}\r\n", a.len()));
    }
    stream.write_all(out.as_bytes()).unwrap();
    read_reply(&mut BufReader::new(stream.try_clone().unwrap()))
}

fn read_reply(r: &mut BufReader<TcpStream>) -> Reply {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let (kind, rest) = line.trim_end().split_at(1);
    match kind {
        "+" => Reply::Status(rest.to_string()),
        "-" => Reply::Error(rest.to_string()),
        ":" => Reply::Integer(rest.parse().unwrap()),
        "$" => match rest.parse::<i64>().unwrap() {
            -1 => Reply::Bulk(None),
            n => {
                let mut buf = vec![0; n as usize + 2];
                r.read_exact(&mut buf).unwrap();
                buf.truncate(n as usize);
                Reply::Bulk(Some(buf))
            }
        },
        "*" => match rest.parse::<i64>().unwrap() {
            -1 => Reply::Array(None),
            n => Reply::Array(Some((0..n).map(|_| read_reply(r)).collect())),
        },
        other => panic!("unexpected RESP type {other:?}"),
    }
}

#[test]
fn mget_answers_like_a_real_redis_server_for_strings_missing_keys_hashes_and_arity() {
    let (_server, mut stream) = start();
    let mut model = Keyspace::default();
    let script: &[&[&str]] = &[
        &["SET", "order_lock_001", "P1"],
        &["SET", "wait:P2", "order_lock_001", "PX", "100000"],
        &["HSET", "account", "balance", "100"],
        &[
            "MGET",
            "order_lock_001",
            "inventory_lock_sku_5678",
            "wait:P2",
        ],
        &["MGET", "account", "order_lock_001"],
        &["MGET", "nothing"],
        &["MGET"],
        &["DEL", "order_lock_001"],
        &["MGET", "order_lock_001", "wait:P2", "wait:P2"],
    ];
    for argv in script {
        let real = send(&mut stream, argv);
        let words: Vec<Vec<u8>> = argv.iter().map(|a| a.as_bytes().to_vec()).collect();
        let modelled = model.execute_argv(&words, 1_000, Role::Master).reply;
        assert_eq!(modelled, real, "{argv:?}");
    }
}
