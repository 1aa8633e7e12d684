//! A real master and its real replica against the model's master and replica, the model's
//! replica fed only with what the model's master propagated: READONLY, an expired key hidden
//! but kept on the replica until the master's DEL, and a lock script on a replica.

// Talks to a real Redis server, in real time: the wall clock is the point here.
#![allow(clippy::disallowed_methods)]

mod support;

use lockcheck_model::redis::{Command, Keyspace, LockScript, Reply, Role, ScriptKind};
use std::thread::sleep;
use std::time::Duration;
use support::real_redis::{request, request_words, RealRedis};
use support::wall::wall_ms;

fn argv(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

/// The model's master and replica; every master write is applied to the replica at once.
#[derive(Default)]
struct ModelPair {
    master: Keyspace,
    replica: Keyspace,
}

impl ModelPair {
    fn on_master(&mut self, words: &[&str]) -> Reply {
        let now_ms = wall_ms();
        let done = self.master.execute_argv(&argv(words), now_ms, Role::Master);
        for write in &done.propagate {
            self.replica.apply_replicated(write, now_ms);
        }
        done.reply
    }

    fn on_replica(&mut self, argv: &[Vec<u8>]) -> Reply {
        self.replica
            .execute_argv(argv, wall_ms(), Role::Replica)
            .reply
    }
}

/// Both replicas answer `argv` alike.
fn assert_replicas_agree(model: &mut ModelPair, real: &mut redis::Connection, argv: &[Vec<u8>]) {
    let expected = request(real, argv);
    assert_eq!(model.on_replica(argv), expected, "{argv:?}");
}

#[test]
fn a_real_replica_and_the_model_agree_on_readonly_hidden_expired_keys_and_scripts() {
    let master = RealRedis::start_with(&["--repl-diskless-sync-delay", "0"]);
    let port = master.port().to_string();
    let replica = RealRedis::start_with(&["--replicaof", "127.0.0.1", &port]);
    let (mut m, mut r) = (master.connection(), replica.connection());
    replica.wait_for_link();
    // Keep the expired key stored on the master until it is read, so no DEL reaches the replica.
    assert_eq!(
        request_words(&mut m, &["DEBUG", "SET-ACTIVE-EXPIRE", "0"]),
        Reply::ok()
    );
    let mut model = ModelPair::default();
    for words in [
        &["SET", "lock", "me"][..],
        &["SET", "gone", "v", "PX", "50"],
        &["HSET", "h", "f", "1"],
    ] {
        assert_eq!(model.on_master(words), request(&mut m, &argv(words)));
    }
    assert_eq!(
        request_words(&mut m, &["WAIT", "1", "2000"]),
        Reply::Integer(1)
    );
    sleep(Duration::from_millis(100));

    for words in [
        &["GET", "gone"][..],
        &["EXISTS", "gone", "lock"],
        &["PTTL", "gone"],
        &["GET", "lock"],
        &["SET", "lock", "x"],
        &["SET", "lock", "x", "EX", "abc"],
        &["HSET", "h", "f", "v", "dangling"],
        &["HGET", "h", "f"],
        &["WAIT", "0", "0"],
        &["PUBLISH", "c", "m"],
    ] {
        assert_replicas_agree(&mut model, &mut r, &argv(words));
    }
    let token = |t: &str| LockScript::CompareAndDelete {
        key: b"lock".to_vec(),
        token: t.as_bytes().to_vec(),
    };
    for script in [token("not-me"), token("me")] {
        assert_replicas_agree(&mut model, &mut r, &script.eval_argv());
    }
    let sha1 = ScriptKind::CompareAndDelete.sha1();
    let mine = Command::Script(token("me"));
    assert_eq!(
        model.replica.execute(&mine, wall_ms(), Role::Replica).reply,
        Reply::Error(format!("READONLY You can't write against a read only replica. script: {sha1}, on @user_script:1."))
    );
    let stored = request_words(&mut r, &["DBSIZE"]);
    assert_eq!(
        stored,
        Reply::Integer(3),
        "the real replica keeps the expired key"
    );
    assert_eq!(model.replica.stored_len(), 3, "so does the model's");

    assert_eq!(
        model.on_master(&["GET", "gone"]),
        request_words(&mut m, &["GET", "gone"])
    );
    assert_eq!(
        request_words(&mut m, &["WAIT", "1", "2000"]),
        Reply::Integer(1)
    );
    assert_eq!(
        request_words(&mut r, &["DBSIZE"]),
        Reply::Integer(2),
        "the master's DEL arrived"
    );
    assert_eq!(
        model.replica.stored_len(),
        2,
        "the model's master propagated the DEL"
    );
}
