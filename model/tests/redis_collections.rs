//! Lists and sorted sets in the keyspace model: a key emptied by a removal is deleted,
//! writes reach replicas as given and only when they change something, a replica refuses
//! them, and the forms beyond the lock scripts' are refused with the model's own error
//! (the replies themselves are compared with a real server in `redis_conformance.rs`).

use lockcheck_model::redis::args::UNMODELLED_FORM;
use lockcheck_model::redis::{Command, Keyspace, Reply, Role};

const READONLY: &str = "READONLY You can't write against a read only replica.";

fn argv(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

fn on_master(ks: &mut Keyspace, words: &[&str]) -> Reply {
    ks.execute_argv(&argv(words), 0, Role::Master).reply
}

fn bulks(items: &[&str]) -> Reply {
    Reply::Array(Some(
        items.iter().map(|s| Reply::bulk(s.as_bytes())).collect(),
    ))
}

#[test]
fn an_emptied_list_or_sorted_set_is_deleted() {
    let mut ks = Keyspace::new();
    on_master(&mut ks, &["RPUSH", "q", "a", "b"]);
    on_master(&mut ks, &["ZADD", "z", "5", "a"]);
    assert_eq!(on_master(&mut ks, &["LPOP", "q"]), Reply::bulk("a"));
    assert_eq!(
        on_master(&mut ks, &["LREM", "q", "0", "b"]),
        Reply::Integer(1)
    );
    assert_eq!(on_master(&mut ks, &["ZREM", "z", "a"]), Reply::Integer(1));
    assert_eq!(ks.stored_len(), 0);
    assert_eq!(on_master(&mut ks, &["EXISTS", "q", "z"]), Reply::Integer(0));
}

#[test]
fn a_sorted_set_orders_by_score_then_member_and_zincrby_moves_a_member() {
    let mut ks = Keyspace::new();
    on_master(&mut ks, &["ZADD", "z", "5", "b", "5", "a", "9", "c"]);
    assert_eq!(
        on_master(&mut ks, &["ZRANGE", "z", "0", "-1"]),
        bulks(&["a", "b", "c"])
    );
    assert_eq!(
        on_master(&mut ks, &["ZINCRBY", "z", "-10", "c"]),
        Reply::bulk("-1")
    );
    assert_eq!(
        on_master(&mut ks, &["ZRANGE", "z", "0", "-1"]),
        bulks(&["c", "a", "b"])
    );
    assert_eq!(on_master(&mut ks, &["ZSCORE", "z", "c"]), Reply::bulk("-1"));
}

#[test]
fn writes_reach_replicas_as_given_and_only_when_they_change_something() {
    let mut ks = Keyspace::new();
    let run = |ks: &mut Keyspace, words: &[&str]| {
        ks.execute_argv(&argv(words), 0, Role::Master).propagate
    };
    let pushed = run(&mut ks, &["RPUSH", "q", "a"]);
    assert_eq!(
        pushed.iter().map(Command::to_argv).collect::<Vec<_>>(),
        [argv(&["RPUSH", "q", "a"])]
    );
    assert_eq!(run(&mut ks, &["ZADD", "z", "1", "m"]).len(), 1);
    assert!(
        run(&mut ks, &["ZADD", "z", "1", "m"]).is_empty(),
        "the same score: nothing changed"
    );
    assert!(run(&mut ks, &["LREM", "q", "0", "x"]).is_empty());
    assert!(run(&mut ks, &["ZREM", "z", "x"]).is_empty());
    assert!(run(&mut ks, &["LPOP", "nothing"]).is_empty());
    // A replica applying the stream ends with the same data.
    let mut replica = Keyspace::new();
    let mut master = Keyspace::new();
    for words in [
        &["RPUSH", "q", "a", "b", "c"][..],
        &["LPOP", "q"],
        &["ZADD", "z", "3", "x", "1", "y"],
        &["ZINCRBY", "z", "5", "y"],
    ] {
        for cmd in run(&mut master, words) {
            replica.apply_replicated(&cmd, 0);
        }
    }
    assert_eq!(format!("{replica:?}"), format!("{master:?}"));
}

#[test]
fn a_replica_refuses_list_and_sorted_set_writes_and_serves_reads() {
    let mut replica = Keyspace::new();
    let on_replica =
        |ks: &mut Keyspace, words: &[&str]| ks.execute_argv(&argv(words), 0, Role::Replica).reply;
    for words in [
        &["RPUSH", "q", "a"][..],
        &["LPOP", "q"],
        &["ZADD", "z", "1", "m"],
        &["ZINCRBY", "z", "x", "m"],
    ] {
        assert_eq!(
            on_replica(&mut replica, words),
            Reply::error(READONLY),
            "{words:?}"
        );
    }
    assert_eq!(
        on_replica(&mut replica, &["LINDEX", "q", "0"]),
        Reply::nil()
    );
    assert_eq!(
        on_replica(&mut replica, &["ZSCORE", "z", "m"]),
        Reply::nil()
    );
}

// ----- documented differences from a real server -----

#[test]
fn forms_beyond_the_lock_scripts_get_the_models_own_error() {
    let mut ks = Keyspace::new();
    for words in [
        &["LPOP", "q", "2"][..],
        &["ZADD", "z", "NX", "1", "m"],
        &["ZADD", "z", "1.5", "m"],
        &["ZADD", "z", "9007199254740993", "m"],
        &["ZINCRBY", "z", "0.5", "m"],
        &["ZRANGE", "z", "0", "-1", "WITHSCORES"],
    ] {
        assert_eq!(
            on_master(&mut ks, words),
            Reply::error(UNMODELLED_FORM),
            "{words:?}"
        );
    }
    // A score that is no number at all is the server's own error.
    assert_eq!(
        on_master(&mut ks, &["ZADD", "z", "abc", "m"]),
        Reply::error("ERR value is not a valid float")
    );
}
