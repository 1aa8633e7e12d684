//! The keyspace model on its own: lazy expiry at the deadline, master and replica views of
//! expired keys, replication in Redis 7 form, READONLY, the lock scripts as atomic steps, the
//! documented differences from a real server, and no panic on any input.

use lockcheck_model::redis::{
    Command, ExpireCondition, KeyEntry, Keyspace, LockScript, Reply, Role, ScriptKind, Set,
    SetCondition, SetExpiry, Value,
};
use proptest::prelude::*;

const READONLY: &str = "READONLY You can't write against a read only replica.";

fn argv(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

fn cmd(words: &[&str]) -> Command {
    Command::parse(&argv(words)).expect("a well-formed command")
}

fn on_master(ks: &mut Keyspace, now_ms: i64, words: &[&str]) -> Reply {
    ks.execute_argv(&argv(words), now_ms, Role::Master).reply
}

fn on_replica(ks: &mut Keyspace, now_ms: i64, words: &[&str]) -> Reply {
    ks.execute_argv(&argv(words), now_ms, Role::Replica).reply
}

fn bulk(s: &str) -> Reply {
    Reply::bulk(s.as_bytes().to_vec())
}

/// A replica's keyspace holding what the master sent.
fn replica_with(commands: &[&[&str]]) -> Keyspace {
    let mut ks = Keyspace::new();
    for words in commands {
        ks.apply_replicated(&cmd(words), 0);
    }
    ks
}

#[test]
fn a_key_is_still_there_at_its_deadline_and_gone_one_millisecond_later() {
    let mut ks = Keyspace::new();
    assert_eq!(
        on_master(&mut ks, 0, &["SET", "k", "v", "PXAT", "1000"]),
        Reply::ok()
    );
    assert_eq!(on_master(&mut ks, 999, &["PTTL", "k"]), Reply::Integer(1));
    assert_eq!(on_master(&mut ks, 1000, &["PTTL", "k"]), Reply::Integer(0));
    assert_eq!(on_master(&mut ks, 1000, &["GET", "k"]), bulk("v"));
    assert_eq!(on_master(&mut ks, 1001, &["GET", "k"]), Reply::nil());
    assert_eq!(on_master(&mut ks, 1001, &["PTTL", "k"]), Reply::Integer(-2));
}

#[test]
fn a_master_deletes_an_expired_key_on_access_and_propagates_a_del() {
    let mut ks = Keyspace::new();
    on_master(&mut ks, 0, &["SET", "k", "v", "PX", "100"]);
    let read = ks.execute(&cmd(&["GET", "k"]), 101, Role::Master);
    assert_eq!(read.reply, Reply::nil());
    assert_eq!(read.propagate, vec![Command::del(b"k")]);
    assert_eq!(ks.stored_len(), 0);
    let again = ks.execute(&cmd(&["EXISTS", "k"]), 102, Role::Master);
    assert!(again.propagate.is_empty(), "the DEL is owed only once");
}

#[test]
fn a_write_on_an_expired_key_propagates_the_del_before_the_write() {
    let mut ks = Keyspace::new();
    on_master(&mut ks, 0, &["SET", "k", "v", "PX", "100"]);
    let write = ks.execute(&cmd(&["HSET", "k", "f", "1"]), 200, Role::Master);
    assert_eq!(write.reply, Reply::Integer(1));
    assert_eq!(
        write.propagate,
        vec![Command::del(b"k"), cmd(&["HSET", "k", "f", "1"])]
    );
}

#[test]
fn active_expiry_on_a_master_deletes_every_expired_key_and_names_them() {
    let mut ks = Keyspace::new();
    on_master(&mut ks, 0, &["SET", "a", "v", "PX", "10"]);
    on_master(&mut ks, 0, &["SET", "b", "v", "PX", "50"]);
    on_master(&mut ks, 0, &["SET", "c", "v"]);
    assert_eq!(ks.purge_expired(20), vec![b"a".to_vec()]);
    assert_eq!(ks.stored_len(), 2);
}

#[test]
fn a_replica_hides_an_expired_key_from_reads_but_keeps_it() {
    let mut ks = replica_with(&[&["SET", "k", "v", "PXAT", "100"], &["HSET", "h", "f", "1"]]);
    ks.apply_replicated(&cmd(&["PEXPIREAT", "h", "100"]), 0);
    for words in [&["GET", "k"][..], &["HGET", "h", "f"], &["HKEYS", "h"]] {
        let read = ks.execute_argv(&argv(words), 200, Role::Replica);
        assert!(
            matches!(read.reply, Reply::Bulk(None)) || read.reply == Reply::Array(Some(vec![]))
        );
        assert!(
            read.propagate.is_empty(),
            "a replica never propagates a DEL"
        );
    }
    assert_eq!(
        on_replica(&mut ks, 200, &["EXISTS", "k", "h"]),
        Reply::Integer(0)
    );
    assert_eq!(on_replica(&mut ks, 200, &["PTTL", "k"]), Reply::Integer(-2));
    assert_eq!(ks.stored_len(), 2, "the expired keys are still stored");
    ks.apply_replicated(&Command::del(b"k"), 200);
    assert_eq!(ks.stored_len(), 1, "the master's DEL removes it");
}

#[test]
fn a_replica_applying_its_masters_stream_never_expires_a_key() {
    let mut ks = replica_with(&[&["SET", "n", "1", "PXAT", "100"]]);
    let applied = ks.apply_replicated(&cmd(&["INCR", "n"]), 500);
    assert_eq!(
        applied.reply,
        Reply::Integer(2),
        "the stream sees the expired key as live"
    );
    let late = ks.apply_replicated(&cmd(&["PEXPIREAT", "n", "50"]), 500);
    assert_eq!(late.reply, Reply::Integer(1));
    let entry = ks.entries().next().map(|(_, e)| e.clone());
    let expected = KeyEntry {
        value: Value::String(b"2".to_vec()),
        deadline_ms: Some(50),
    };
    assert_eq!(
        entry,
        Some(expected),
        "a deadline in the past is stored, not executed"
    );
}

#[test]
fn a_propagated_set_carries_its_ttl_as_an_absolute_pxat_deadline() {
    let mut ks = Keyspace::new();
    let cases: [(&[&str], Command); 4] = [
        (
            &["SET", "k", "v", "EX", "10"],
            Command::set_pxat(b"k", b"v", 15_000),
        ),
        (
            &["SET", "k", "v", "PX", "10", "GET"],
            Command::set_pxat(b"k", b"v", 5_010),
        ),
        (
            &["SET", "k", "v", "EXAT", "7"],
            Command::set_pxat(b"k", b"v", 7_000),
        ),
        (&["SET", "k", "v", "NX"], cmd(&["SET", "k", "v"])),
    ];
    on_master(&mut ks, 5_000, &["SET", "other", "x"]);
    for (words, expected) in cases {
        on_master(&mut ks, 5_000, &["DEL", "k"]);
        let done = ks.execute(&cmd(words), 5_000, Role::Master);
        assert_eq!(done.propagate, vec![expected], "{words:?}");
    }
}

#[test]
fn a_relative_expire_reaches_replicas_as_pexpireat_and_one_in_the_past_as_del() {
    let mut ks = Keyspace::new();
    on_master(&mut ks, 1_000, &["SET", "k", "v"]);
    let renewed = ks.execute(&cmd(&["PEXPIRE", "k", "500"]), 1_000, Role::Master);
    let at = Command::PExpireAt {
        key: b"k".to_vec(),
        deadline_ms: 1_500,
        condition: ExpireCondition::default(),
    };
    assert_eq!(renewed.propagate, vec![at]);
    let killed = ks.execute(&cmd(&["PEXPIRE", "k", "0"]), 1_000, Role::Master);
    assert_eq!(
        (killed.reply, killed.propagate),
        (Reply::Integer(1), vec![Command::del(b"k")])
    );
}

#[test]
fn a_set_keepttl_keeps_the_deadline_and_a_plain_set_clears_it() {
    let mut ks = Keyspace::new();
    on_master(&mut ks, 0, &["SET", "k", "v", "PX", "100"]);
    on_master(&mut ks, 10, &["SET", "k", "w", "KEEPTTL"]);
    assert_eq!(on_master(&mut ks, 10, &["PTTL", "k"]), Reply::Integer(90));
    on_master(&mut ks, 10, &["SET", "k", "x"]);
    assert_eq!(on_master(&mut ks, 10, &["PTTL", "k"]), Reply::Integer(-1));
}

#[test]
fn a_replica_refuses_a_clients_write_with_readonly_before_looking_at_its_arguments() {
    let mut ks = replica_with(&[&["SET", "k", "v"]]);
    for words in [
        &["SET", "k", "w"][..],
        &["SET", "k", "w", "EX", "abc"],
        &["HSET", "h", "f", "v", "dangling"],
        &["PEXPIRE", "k", "10", "bogus"],
        &["DEL", "k"],
        &["INCR", "k"],
        &["HINCRBY", "h", "f", "x"],
    ] {
        assert_eq!(
            on_replica(&mut ks, 0, words),
            Reply::error(READONLY),
            "{words:?}"
        );
    }
    let arity = "ERR wrong number of arguments for 'set' command";
    assert_eq!(
        on_replica(&mut ks, 0, &["SET", "k"]),
        Reply::error(arity),
        "arity comes first"
    );
    assert_eq!(on_replica(&mut ks, 0, &["GET", "k"]), bulk("v"));
    assert_eq!(
        on_replica(&mut ks, 0, &["PUBLISH", "c", "m"]),
        Reply::Integer(0)
    );
    let wait = on_replica(&mut ks, 0, &["WAIT", "x", "0"]);
    assert!(
        matches!(wait, Reply::Error(e) if e.starts_with("ERR WAIT cannot be used with replica"))
    );
}

#[test]
fn a_script_on_a_replica_fails_with_readonly_only_when_it_calls_a_write() {
    let mut ks = replica_with(&[&["SET", "lock", "me"]]);
    let not_mine = LockScript::CompareAndDelete {
        key: b"lock".to_vec(),
        token: b"you".to_vec(),
    };
    let mine = LockScript::CompareAndDelete {
        key: b"lock".to_vec(),
        token: b"me".to_vec(),
    };
    let run = |ks: &mut Keyspace, s: LockScript| ks.execute(&Command::Script(s), 0, Role::Replica);
    assert_eq!(run(&mut ks, not_mine).reply, Reply::Integer(0));
    let sha1 = ScriptKind::CompareAndDelete.sha1();
    let refused = format!("{READONLY} script: {sha1}, on @user_script:1.");
    assert_eq!(run(&mut ks, mine).reply, Reply::Error(refused));
}

#[test]
fn a_redisson_script_propagates_the_writes_it_made_not_itself() {
    let mut ks = Keyspace::new();
    let (key, field) = (b"lock".to_vec(), b"uuid:1".to_vec());
    let acquire = LockScript::RedissonAcquire {
        key: key.clone(),
        field: field.clone(),
        lease_ms: 30_000,
    };
    let done = ks.execute(&Command::Script(acquire), 1_000, Role::Master);
    assert_eq!(done.reply, Reply::nil());
    let deadline = Command::PExpireAt {
        key: key.clone(),
        deadline_ms: 31_000,
        condition: ExpireCondition::default(),
    };
    assert_eq!(
        done.propagate,
        vec![cmd(&["HINCRBY", "lock", "uuid:1", "1"]), deadline]
    );
    let channel = b"redisson_lock__channel:{lock}".to_vec();
    let release = LockScript::RedissonRelease {
        key,
        channel: channel.clone(),
        field,
        lease_ms: 30_000,
    };
    let done = ks.execute(&Command::Script(release), 2_000, Role::Master);
    assert_eq!(done.reply, Reply::Integer(1));
    assert_eq!(done.publish, vec![(channel.clone(), b"0".to_vec())]);
    let publish = Command::Publish {
        channel,
        message: b"0".to_vec(),
    };
    let expected = vec![
        cmd(&["HINCRBY", "lock", "uuid:1", "-1"]),
        Command::del(b"lock"),
        publish,
    ];
    assert_eq!(done.propagate, expected);
}

/// Redis freezes time during a script (7.0: `scriptTimeSnapshot`), so a key's existence cannot
/// change between two calls of one script. The model runs a script at one `now_ms`: Redisson's
/// acquire finds the foreign lock with `EXISTS` and reads its `PTTL` at the same instant, so at
/// the deadline millisecond it answers 0, never -2 (which a moving clock could give).
#[test]
fn a_script_sees_one_frozen_instant_so_key_existence_cannot_change_during_it() {
    let mut ks = Keyspace::new();
    on_master(&mut ks, 0, &["HSET", "lock", "other:1", "1"]);
    on_master(&mut ks, 0, &["PEXPIREAT", "lock", "1000"]);
    let acquire = |field: &str| LockScript::RedissonAcquire {
        key: b"lock".to_vec(),
        field: field.as_bytes().to_vec(),
        lease_ms: 30_000,
    };
    let at_deadline = ks.execute(&Command::Script(acquire("me:1")), 1_000, Role::Master);
    assert_eq!(
        at_deadline.reply,
        Reply::Integer(0),
        "live at EXISTS, so PTTL sees it live"
    );
    let after = ks.execute(&Command::Script(acquire("me:1")), 1_001, Role::Master);
    assert_eq!(
        after.reply,
        Reply::nil(),
        "gone from the first call on: acquired"
    );
    let renew = LockScript::CompareAndPexpire {
        key: b"k".to_vec(),
        token: b"t".to_vec(),
        ttl_ms: 50,
    };
    on_master(&mut ks, 0, &["SET", "k", "t", "PXAT", "2000"]);
    let renewed = ks.execute(&Command::Script(renew.clone()), 2_000, Role::Master);
    assert_eq!(
        renewed.reply,
        Reply::Integer(1),
        "renewed at the deadline millisecond"
    );
    let too_late = ks.execute(&Command::Script(renew), 2_051, Role::Master);
    assert_eq!(too_late.reply, Reply::Integer(0));
}

#[test]
fn a_failing_call_aborts_a_script_but_keeps_the_writes_before_it() {
    let mut ks = Keyspace::new();
    on_master(&mut ks, 0, &["HSET", "counter", "f", "1"]);
    let fenced = LockScript::FencedAcquire {
        key: b"lock".to_vec(),
        token: b"t1".to_vec(),
        ttl_ms: 10_000,
        counter_key: b"counter".to_vec(),
    };
    let done = ks.execute(&Command::Script(fenced), 0, Role::Master);
    let sha1 = ScriptKind::FencedAcquire.sha1();
    let wrongtype = "WRONGTYPE Operation against a key holding the wrong kind of value";
    let expected = format!("{wrongtype} script: {sha1}, on @user_script:1.");
    assert_eq!(done.reply, Reply::Error(expected));
    assert_eq!(
        on_master(&mut ks, 0, &["GET", "lock"]),
        bulk("t1"),
        "the SET stays"
    );
    assert_eq!(
        done.propagate,
        vec![Command::set_pxat(b"lock", b"t1", 10_000)]
    );
}

#[test]
fn a_fencing_token_above_two_to_the_53_comes_back_rounded_like_a_lua_number() {
    let mut ks = Keyspace::new();
    on_master(&mut ks, 0, &["SET", "counter", "9007199254740992"]);
    let fenced = LockScript::FencedAcquire {
        key: b"lock".to_vec(),
        token: b"t".to_vec(),
        ttl_ms: 10_000,
        counter_key: b"counter".to_vec(),
    };
    let done = ks.execute(&Command::Script(fenced), 0, Role::Master);
    assert_eq!(done.reply, Reply::Integer(9_007_199_254_740_992));
    assert_eq!(
        on_master(&mut ks, 0, &["GET", "counter"]),
        bulk("9007199254740993")
    );
}

#[test]
fn every_lock_script_reads_back_from_its_own_eval_argument_vector() {
    let scripts = [
        LockScript::CompareAndDelete {
            key: b"k".to_vec(),
            token: b"t".to_vec(),
        },
        LockScript::CompareAndPexpire {
            key: b"k".to_vec(),
            token: b"t".to_vec(),
            ttl_ms: -5,
        },
        LockScript::RedissonAcquire {
            key: b"k".to_vec(),
            field: b"u:1".to_vec(),
            lease_ms: 30_000,
        },
        LockScript::RedissonRelease {
            key: b"k".to_vec(),
            channel: b"c".to_vec(),
            field: b"u:1".to_vec(),
            lease_ms: 30_000,
        },
        LockScript::RedissonRenew {
            key: b"k".to_vec(),
            field: b"u:1".to_vec(),
            lease_ms: 1,
        },
        LockScript::RedissonForceUnlock {
            key: b"k".to_vec(),
            channel: b"c".to_vec(),
        },
        LockScript::FencedAcquire {
            key: b"k".to_vec(),
            token: b"t".to_vec(),
            ttl_ms: 100,
            counter_key: b"n".to_vec(),
        },
    ];
    for script in scripts {
        let parsed = Command::parse(&script.eval_argv());
        assert_eq!(parsed, Ok(Command::Script(script)));
    }
}

// ----- documented differences from a real server -----

#[test]
fn a_command_outside_the_models_table_is_answered_as_an_unknown_command() {
    let mut ks = Keyspace::new();
    let expected = "ERR unknown command 'PING', with args beginning with: ";
    assert_eq!(on_master(&mut ks, 0, &["PING"]), Reply::error(expected));
}

#[test]
fn an_eval_of_a_script_the_model_does_not_know_gets_the_models_own_error() {
    let mut ks = Keyspace::new();
    let reply = on_master(&mut ks, 0, &["EVAL", "return 1", "0"]);
    let expected = lockcheck_model::redis::parse::UNMODELLED_SCRIPT;
    assert_eq!(reply, Reply::error(expected));
}

#[test]
fn an_empty_request_is_answered_as_an_unknown_empty_command() {
    let mut ks = Keyspace::new();
    let expected = "ERR unknown command '', with args beginning with: ";
    assert_eq!(
        ks.execute_argv(&[], 0, Role::Master).reply,
        Reply::error(expected)
    );
}

#[test]
fn publish_answers_zero_receivers_and_hands_the_message_to_the_node() {
    let mut ks = Keyspace::new();
    let done = ks.execute(&cmd(&["PUBLISH", "c", "m"]), 0, Role::Master);
    assert_eq!(done.reply, Reply::Integer(0));
    assert_eq!(done.publish, vec![(b"c".to_vec(), b"m".to_vec())]);
    assert_eq!(
        done.propagate,
        vec![cmd(&["PUBLISH", "c", "m"])],
        "Redis replicates PUBLISH"
    );
}

#[test]
fn hkeys_keeps_insertion_order_even_past_the_size_where_redis_stops_doing_so() {
    let mut ks = Keyspace::new();
    for i in (0..200).rev() {
        on_master(&mut ks, 0, &["HSET", "h", &format!("f{i}"), "v"]);
    }
    let Reply::Array(Some(fields)) = on_master(&mut ks, 0, &["HKEYS", "h"]) else {
        panic!("HKEYS answers an array");
    };
    assert_eq!(fields.first(), Some(&bulk("f199")));
    assert_eq!(fields.last(), Some(&bulk("f0")));
}

// ----- any input -----

fn word() -> impl Strategy<Value = Vec<u8>> {
    let known = [
        "SET",
        "get",
        "DEL",
        "exists",
        "PEXPIRE",
        "PEXPIREAT",
        "pttl",
        "INCR",
        "HSET",
        "HGET",
        "HINCRBY",
        "HEXISTS",
        "HKEYS",
        "PUBLISH",
        "SUBSCRIBE",
        "WAIT",
        "EVAL",
        "NX",
        "XX",
        "GT",
        "LT",
        "EX",
        "PX",
        "EXAT",
        "PXAT",
        "KEEPTTL",
        "GET",
        "-1",
        "0",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775",
        "k",
    ];
    let known: Vec<Vec<u8>> = known.iter().map(|w| w.as_bytes().to_vec()).collect();
    prop_oneof![
        proptest::sample::select(known),
        any::<i64>().prop_map(|n| n.to_string().into_bytes()),
        proptest::collection::vec(any::<u8>(), 0..8),
    ]
}

fn any_argv() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let eval = proptest::sample::select(ScriptKind::ALL.to_vec()).prop_flat_map(|kind| {
        let tail = proptest::collection::vec(word(), 0..6);
        tail.prop_map(move |tail| {
            let mut argv = vec![b"EVAL".to_vec(), kind.source().as_bytes().to_vec()];
            argv.extend(tail);
            argv
        })
    });
    prop_oneof![
        4 => proptest::collection::vec(word(), 0..8),
        1 => eval,
    ]
}

fn any_role() -> impl Strategy<Value = Role> {
    prop_oneof![Just(Role::Master), Just(Role::Replica)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn any_argument_vector_at_any_instant_gets_a_reply_and_never_a_panic(
        setup in proptest::collection::vec(any_argv(), 0..6),
        argv in any_argv(),
        now_ms in prop_oneof![any::<i64>(), 0i64..10_000],
        role in any_role(),
    ) {
        let mut ks = Keyspace::new();
        for words in &setup {
            ks.execute_argv(words, now_ms, Role::Master);
            if let Ok(cmd) = Command::parse(words) {
                ks.apply_replicated(&cmd, now_ms);
            }
        }
        let _ = ks.execute_argv(&argv, now_ms, role);
    }

    #[test]
    fn a_parsed_command_reads_back_from_its_own_argument_vector(argv in any_argv()) {
        if let Ok(cmd) = Command::parse(&argv) {
            if !matches!(cmd, Command::Rejected { .. }) {
                prop_assert_eq!(Command::parse(&cmd.to_argv()), Ok(cmd));
            }
        }
    }

    #[test]
    fn a_typed_set_with_any_numbers_gets_a_reply_and_never_a_panic(
        n in any::<i64>(),
        unit in 0usize..4,
        now_ms in any::<i64>(),
    ) {
        let expiry = [SetExpiry::Ex(n), SetExpiry::Px(n), SetExpiry::ExAt(n), SetExpiry::PxAt(n)][unit];
        let set = Set { key: b"k".to_vec(), value: b"v".to_vec(), condition: Some(SetCondition::Xx), get: true, expiry };
        let mut ks = Keyspace::new();
        let _ = ks.execute(&Command::Set(set), now_ms, Role::Master);
        let _ = ks.execute(&Command::PExpire { key: b"k".to_vec(), ttl_ms: n, condition: ExpireCondition::default() }, now_ms, Role::Master);
    }
}
