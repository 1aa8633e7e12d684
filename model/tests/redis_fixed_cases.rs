//! Fixed cases against a real `redis-server`: the scripts' SHA1s, and argument vectors picked
//! by hand from what the server answered while the model was written (error texts, option
//! corner cases, Lua's rounding of integers).

mod support;

use lockcheck_model::redis::{Keyspace, LockScript, Reply, Role, ScriptKind};
use support::real_redis::{agree, request, request_words, RealRedis};
use support::wall::wall_ms;

#[test]
fn the_lock_scripts_sha1s_are_what_the_real_server_computes() {
    let server = RealRedis::start();
    let mut con = server.connection();
    for kind in ScriptKind::ALL {
        let loaded = request_words(&mut con, &["SCRIPT", "LOAD", kind.source()]);
        assert_eq!(
            loaded,
            Reply::bulk(kind.sha1().as_bytes().to_vec()),
            "{kind:?}"
        );
    }
}

/// Sequences picked by hand from what the server answered while the model was written.
#[test]
fn hand_picked_argument_vectors_get_the_real_servers_replies() {
    let long = "a".repeat(140);
    let sequences: Vec<Vec<Vec<u8>>> = vec![
        vec![b"foo".to_vec(), b"a".to_vec(), b"b".to_vec()],
        vec![long.clone().into_bytes(), b"x".to_vec()],
        vec![
            b"foo".to_vec(),
            b"abc".to_vec(),
            long.clone().into_bytes(),
            b"z".to_vec(),
        ],
        vec![b"foo".to_vec(), long.into_bytes()],
        vec![b"fo\no".to_vec(), b"x\ry".to_vec(), b"nul\0after".to_vec()],
        vec![
            b"SET".to_vec(),
            b"k1".to_vec(),
            b"v".to_vec(),
            b"nx\0junk".to_vec(),
        ],
        vec![
            b"PEXPIRE".to_vec(),
            b"k1".to_vec(),
            b"1".to_vec(),
            b"n\nx".to_vec(),
        ],
        vec![
            b"PEXPIRE".to_vec(),
            b"k1".to_vec(),
            b"1".to_vec(),
            b"NX\0".to_vec(),
        ],
        vec![b"INCR".to_vec(), b"k2".to_vec()],
        vec![b"SET".to_vec(), b"k3".to_vec(), b"1\0".to_vec()],
        vec![b"INCR".to_vec(), b"k3".to_vec()],
    ];
    let words: &[&[&str]] = &[
        &["SET", "k1", "v", "EX", "10", "EX", "20"],
        &["SET", "k1", "v", "EX", "abc", "EX", "100"],
        &["SET", "k1", "v", "KEEPTTL", "KEEPTTL"],
        &["SET", "k1", "v", "KEEPTTL", "PX", "100"],
        &["SET", "k1", "v", "EX", "10", "PX", "10"],
        &["SET", "k1", "v", "PX", "abc", "NX", "XX"],
        &["SET", "k1", "v", "EX", "9223372036854775"],
        &["SET", "k1", "v", "EX", "9223372036854776"],
        &["SET", "k1", "v", "PXAT", "9223372036854775807"],
        &["SET", "k1", "v", "NX", "GET"],
        &["HSET", "k2", "f", "1", "f", "2"],
        &["HINCRBY", "k2", "f", "9223372036854775807"],
        &["SET", "k2", "x", "GET"],
        &["PEXPIRE", "k1", "x", "foo"],
        &["PEXPIRE", "k1", "x", "nx", "xx"],
        &["PEXPIRE", "k1", "1", "gt", "lt"],
        &["PEXPIRE", "k1", "1", "XX", "GT"],
        &["PEXPIRE", "k1", "100000000", "LT"],
        &["PEXPIREAT", "k1", "9223372036854775807", "GT"],
        &["PTTL", "k1"],
        &["INCR", "k1"],
        &["EXISTS", "k1", "k1", "k2", "nokey"],
        &["DEL", "k1", "k1", "k2"],
        &["HKEYS", "nokey"],
        &["WAIT", "0", "9223372036854775807"],
        &["WAIT", "-1", "0"],
        &["SET", "n", "9223372036854775807"],
        &["INCR", "n"],
        &["HSET", "h", "z", "1", "a", "2", "m", "3"],
        &["HKEYS", "h"],
        &["SET", "t", "v", "PX", "100000"],
        &["SET", "t", "w", "KEEPTTL"],
        &["PTTL", "t"],
        &["SET", "counter", "9007199254740992"],
    ];
    let fenced = LockScript::FencedAcquire {
        key: b"fenced".to_vec(),
        token: b"t".to_vec(),
        ttl_ms: 100_000,
        counter_key: b"counter".to_vec(),
    };
    let sequences = sequences.into_iter().chain(
        words
            .iter()
            .map(|ws| ws.iter().map(|w| w.as_bytes().to_vec()).collect()),
    );
    let sequences = sequences.chain([
        fenced.eval_argv(),
        vec![b"GET".to_vec(), b"counter".to_vec()],
    ]);
    let server = RealRedis::start();
    let mut con = server.connection();
    let mut ks = Keyspace::new();
    for argv in sequences {
        let now_ms = wall_ms();
        let model = ks.execute_argv(&argv, now_ms, Role::Master).reply;
        let real = request(&mut con, &argv);
        assert!(
            agree(&model, &real, argv[0] == b"PTTL"),
            "{argv:?}: model {model:?}, real {real:?}"
        );
    }
}

/// Two tasks that share a Redisson owner (`uuid:thread-id`), each on a connection of its
/// own: the second acquire re-enters the first one's hold (nil, count 2) on the real server as
/// in the model, and another owner is refused with the PTTL.
#[test]
fn a_shared_redisson_owner_reenters_from_a_second_connection() {
    let acquire = |field: &[u8]| LockScript::RedissonAcquire {
        key: b"lock".to_vec(),
        field: field.to_vec(),
        lease_ms: 30_000,
    };
    let shared = b"app-1:1".to_vec();
    let steps: Vec<(usize, Vec<Vec<u8>>)> = vec![
        (0, acquire(&shared).eval_argv()),
        (1, acquire(&shared).eval_argv()),
        (1, vec![b"HGET".to_vec(), b"lock".to_vec(), shared.clone()]),
        (1, acquire(b"app-2:1").eval_argv()),
    ];
    let server = RealRedis::start();
    let mut cons = [server.connection(), server.connection()];
    let mut ks = Keyspace::new();
    let mut replies = Vec::new();
    for (con, argv) in steps {
        let model = ks.execute_argv(&argv, wall_ms(), Role::Master).reply;
        let real = request(&mut cons[con], &argv);
        assert!(
            agree(&model, &real, replies.len() == 3),
            "{argv:?}: model {model:?}, real {real:?}"
        );
        replies.push(model);
    }
    assert_eq!(replies[0], Reply::nil(), "task a acquires");
    assert_eq!(replies[1], Reply::nil(), "task b re-enters a's hold");
    assert_eq!(replies[2], Reply::bulk(b"2".to_vec()));
    assert!(
        matches!(replies[3], Reply::Integer(ttl) if ttl > 29_000),
        "{:?}",
        replies[3]
    );
}
