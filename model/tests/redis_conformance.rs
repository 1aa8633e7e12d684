//! The model against a real `redis-server` 7: the same argument vectors, the same replies.
//!
//! Time: the model runs each command at the test's wall-clock reading taken just before the
//! command is sent (the server reads the same system clock a moment later). TTLs in the random
//! property are at least 100 s, so no key expires during a case unless its deadline is already
//! in the past (deadlines in the past behave the same on both). Consecutive commands are at
//! least one millisecond apart on *both* clocks (the next command waits until the clock has
//! passed the reading taken after the previous reply), so two deadlines derived from the same
//! relative TTL compare the same way on both sides (PEXPIRE GT/LT). Relative and absolute TTL
//! values of the generator are at least 9 s apart, far more than a case lasts. A reply that
//! is a remaining TTL (`PTTL`, Redisson's acquire when the lock is taken) is compared with a
//! tolerance (`support::real_redis::TTL_TOLERANCE_MS`) when both sides are non-negative, exactly
//! otherwise. So is a sorted-set score that is a time (a fair-lock timeout, which may hold the
//! lock's PTTL: `TIME_SCORES_FROM_MS`); other scores are compared exactly.

mod conformance_ops;
mod support;

use conformance_ops::{collection_command, fair_script};

use lockcheck_model::redis::{Command, FairScript, Keyspace, LockScript, Reply, Role, Value};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use std::cell::RefCell;
use std::collections::BTreeSet;
use support::real_redis::{
    agree, request, request_words, scores_agree, RealRedis, TIME_SCORES_FROM_MS,
};
use support::wall::{wall_ms, wall_ms_after};

const KEYS: [&str; 3] = ["k1", "k2", "k3"];
/// The keys lists and sorted sets mostly go to (sometimes `k1`, for `WRONGTYPE`), so that
/// they live long enough to be read.
const COLLECTION_KEYS: [&str; 3] = ["q1", "q2", "k1"];

/// An argument, some of them absolute times resolved when the command is sent.
#[derive(Clone, Debug)]
enum Arg {
    Lit(&'static str),
    /// Unix milliseconds: now plus the offset.
    AtMs(i64),
    /// Unix seconds: now (in seconds) plus the offset.
    AtSecs(i64),
}

impl Arg {
    fn resolve(&self, now_ms: i64) -> Vec<u8> {
        match self {
            Arg::Lit(s) => s.as_bytes().to_vec(),
            Arg::AtMs(offset) => (now_ms + offset).to_string().into_bytes(),
            Arg::AtSecs(offset) => (now_ms / 1000 + offset).to_string().into_bytes(),
        }
    }
}

/// What a reply reads, and so how closely the model's must match the server's.
#[derive(Clone, Copy, Debug)]
enum Reading {
    /// Exactly.
    Exact,
    /// A remaining TTL: see [`agree`].
    Ttl,
    /// A sorted-set score, which may be a time: see [`scores_agree`].
    Score,
}

impl Reading {
    fn of(args: &[Arg]) -> Reading {
        let is =
            |word: &str| matches!(args.first(), Some(Arg::Lit(w)) if w.eq_ignore_ascii_case(word));
        if is("PTTL") {
            Reading::Ttl
        } else if is("ZSCORE") || is("ZINCRBY") {
            Reading::Score
        } else {
            Reading::Exact
        }
    }

    fn agree(self, model: &Reply, real: &Reply) -> bool {
        match self {
            Reading::Exact => model == real,
            Reading::Ttl => agree(model, real, true),
            Reading::Score => scores_agree(model, real, is_time_score),
        }
    }
}

/// Scores from the fair-lock scripts' timeouts, which may hold a lock's PTTL.
fn is_time_score(score: i64) -> bool {
    score >= TIME_SCORES_FROM_MS
}

/// One step of a case.
#[derive(Clone, Debug)]
enum Op {
    /// A raw command and what its reply reads.
    Raw { args: Vec<Arg>, reading: Reading },
    /// A lock script: `EVAL` on the server, `Command::Script` in the model.
    Script(LockScript),
}

fn lits(pool: &'static [&'static str]) -> impl Strategy<Value = Arg> + Clone {
    proptest::sample::select(pool).prop_map(Arg::Lit)
}

fn key() -> impl Strategy<Value = Arg> + Clone {
    lits(&KEYS)
}

fn value() -> impl Strategy<Value = Arg> + Clone {
    let pool = &[
        "v",
        "1",
        "-3",
        "abc",
        "",
        "0100",
        "9223372036854775807",
        "9007199254740992",
    ];
    lits(pool)
}

fn field() -> impl Strategy<Value = Arg> + Clone {
    lits(&["f", "a:1", "b:2"])
}

fn relative_ms() -> impl Strategy<Value = Arg> + Clone {
    lits(&[
        "100000",
        "150000",
        "200000",
        "0",
        "-1",
        "abc",
        "1.5",
        "9223372036854775807",
    ])
}

fn relative_secs() -> impl Strategy<Value = Arg> + Clone {
    lits(&["120", "170", "0", "-5", "9223372036854775", "x"])
}

fn absolute_ms() -> impl Strategy<Value = Arg> + Clone {
    prop_oneof![
        Just(Arg::AtMs(110_000)),
        Just(Arg::AtMs(260_000)),
        Just(Arg::AtMs(-10_000)),
        Just(Arg::Lit("1")),
        Just(Arg::Lit("0")),
    ]
}

fn absolute_secs() -> impl Strategy<Value = Arg> + Clone {
    prop_oneof![
        Just(Arg::AtSecs(130)),
        Just(Arg::AtSecs(280)),
        Just(Arg::Lit("1"))
    ]
}

fn set_option() -> impl Strategy<Value = Vec<Arg>> {
    let word = |w: &'static str| Just(vec![Arg::Lit(w)]);
    prop_oneof![
        word("NX"),
        word("xx"),
        word("GET"),
        word("KEEPTTL"),
        word("BOGUS"),
        word("PX"),
        relative_secs().prop_map(|s| vec![Arg::Lit("EX"), s]),
        relative_ms().prop_map(|ms| vec![Arg::Lit("px"), ms]),
        absolute_secs().prop_map(|s| vec![Arg::Lit("EXAT"), s]),
        absolute_ms().prop_map(|ms| vec![Arg::Lit("PXAT"), ms]),
    ]
}

fn expire_flags() -> impl Strategy<Value = Vec<Arg>> {
    proptest::collection::vec(lits(&["NX", "XX", "gt", "LT", "bogus"]), 0..3)
}

fn with(head: &'static [&'static str], tail: Vec<Arg>) -> Vec<Arg> {
    let mut args: Vec<Arg> = head.iter().map(|w| Arg::Lit(w)).collect();
    args.extend(tail);
    args
}

/// A `SET` in a valid shape (each option at most once, in order), values sometimes invalid.
fn well_formed_set() -> impl Strategy<Value = Vec<Arg>> {
    let condition = proptest::option::of(lits(&["NX", "XX"]));
    let get = proptest::option::of(Just(Arg::Lit("GET")));
    let expiry = prop_oneof![
        Just(vec![]),
        Just(vec![Arg::Lit("KEEPTTL")]),
        relative_secs().prop_map(|s| vec![Arg::Lit("EX"), s]),
        relative_ms().prop_map(|ms| vec![Arg::Lit("PX"), ms]),
        absolute_secs().prop_map(|s| vec![Arg::Lit("EXAT"), s]),
        absolute_ms().prop_map(|ms| vec![Arg::Lit("PXAT"), ms]),
    ];
    (key(), value(), condition, get, expiry).prop_map(|(k, v, condition, get, expiry)| {
        let mut args = vec![k, v];
        args.extend(condition);
        args.extend(get);
        args.extend(expiry);
        with(&["SET"], args)
    })
}

fn string_command() -> impl Strategy<Value = Vec<Arg>> {
    let options = proptest::collection::vec(set_option(), 0..4);
    prop_oneof![
        3 => well_formed_set(),
        1 => (key(), value(), options).prop_map(|(k, v, options)| {
            with(&["SET"], [vec![k, v], options.concat()].concat())
        }),
        1 => key().prop_map(|k| with(&["GET"], vec![k])),
        1 => key().prop_map(|k| with(&["INCR"], vec![k])),
        1 => proptest::collection::vec(key(), 0..4).prop_map(|ks| with(&["DEL"], ks)),
        1 => proptest::collection::vec(key(), 0..4).prop_map(|ks| with(&["EXISTS"], ks)),
        1 => (key(), relative_ms(), expire_flags())
            .prop_map(|(k, ms, flags)| with(&["PEXPIRE"], [vec![k, ms], flags].concat())),
        1 => (key(), absolute_ms(), expire_flags())
            .prop_map(|(k, ms, flags)| with(&["pexpireat"], [vec![k, ms], flags].concat())),
    ]
}

fn hash_command() -> impl Strategy<Value = Vec<Arg>> {
    let pairs = proptest::collection::vec((field(), value()), 0..3);
    let increment = lits(&["1", "-1", "abc", "9223372036854775807"]);
    prop_oneof![
        (key(), pairs, proptest::option::of(field())).prop_map(|(k, pairs, dangling)| {
            let mut args = vec![k];
            args.extend(pairs.into_iter().flat_map(|(f, v)| [f, v]));
            args.extend(dangling);
            with(&["HSET"], args)
        }),
        (key(), field()).prop_map(|(k, f)| with(&["HGET"], vec![k, f])),
        (key(), field()).prop_map(|(k, f)| with(&["HEXISTS"], vec![k, f])),
        key().prop_map(|k| with(&["HKEYS"], vec![k])),
        (key(), field(), increment).prop_map(|(k, f, n)| with(&["HINCRBY"], vec![k, f, n])),
    ]
}

fn other_command() -> impl Strategy<Value = Vec<Arg>> {
    let fixed: &[&[&'static str]] = &[
        &["PUBLISH", "ch", "m"],
        &["WAIT", "0", "0"],
        &["WAIT", "1", "1"],
        &["WAIT", "x", "0"],
        &["WAIT", "0", "-1"],
        &["SUBSCRIBE"],
        &["FOO", "k1", "x y"],
        &["get"],
        &["EVAL", "return 1", "x"],
        &["EVAL", "return 1", "2", "k1"],
        &["EVAL", "return 1", "-1"],
    ];
    proptest::sample::select(fixed).prop_map(|words| with(words, vec![]))
}

/// A raw command, sometimes cut short to provoke arity errors.
fn raw_op() -> impl Strategy<Value = Op> {
    let args = prop_oneof![
        4 => string_command(),
        3 => hash_command(),
        4 => collection_command(),
        1 => other_command(),
    ];
    (args, any::<prop::sample::Index>(), 0..10u8).prop_map(|(mut args, cut, chance)| {
        if chance == 0 && args.len() > 1 {
            args.truncate(1 + cut.index(args.len() - 1));
        }
        let reading = Reading::of(&args);
        Op::Raw { args, reading }
    })
}

fn pttl_op() -> impl Strategy<Value = Op> {
    key().prop_map(|k| Op::Raw {
        args: with(&["PTTL"], vec![k]),
        reading: Reading::Ttl,
    })
}

fn bytes(pool: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> + Clone {
    proptest::sample::select(pool).prop_map(|s| s.as_bytes().to_vec())
}

fn script_op() -> impl Strategy<Value = Op> {
    let key = || bytes(&KEYS);
    let token = || bytes(&["v", "1", "t2"]);
    let lockholder = || bytes(&["a:1", "b:2"]);
    let lease = || proptest::sample::select(&[100_000i64, 150_000, 0, -5][..]);
    let channel = || bytes(&["redisson_lock__channel:{k1}"]);
    let ttl = || proptest::sample::select(&[200_000i64, -1, 0, i64::MAX][..]);
    // Around 1e14, where the Lua double `ms + pttl` turns into an exponent.
    let extend =
        || proptest::sample::select(&[5_000i64, -300_000, 99_999_999_000_000, i64::MAX][..]);
    prop_oneof![
        (key(), token()).prop_map(|(key, token)| LockScript::CompareAndDelete { key, token }),
        (key(), token(), ttl()).prop_map(|(key, token, ttl_ms)| LockScript::CompareAndPexpire {
            key,
            token,
            ttl_ms
        }),
        (key(), token(), ttl()).prop_map(|(key, token, ttl_ms)| {
            LockScript::CompareAndPexpireOrSetNx { key, token, ttl_ms }
        }),
        (key(), lockholder(), lease()).prop_map(|(key, field, lease_ms)| {
            LockScript::RedissonAcquire {
                key,
                field,
                lease_ms,
            }
        }),
        (key(), channel(), lockholder(), lease()).prop_map(|(key, channel, field, lease_ms)| {
            LockScript::RedissonRelease {
                key,
                channel,
                field,
                lease_ms,
            }
        }),
        (key(), lockholder(), lease()).prop_map(|(key, field, lease_ms)| {
            LockScript::RedissonRenew {
                key,
                field,
                lease_ms,
            }
        }),
        (key(), channel())
            .prop_map(|(key, channel)| LockScript::RedissonForceUnlock { key, channel }),
        (key(), token(), ttl(), key()).prop_map(|(key, token, ttl_ms, counter_key)| {
            LockScript::FencedAcquire {
                key,
                token,
                ttl_ms,
                counter_key,
            }
        }),
        (key(), token(), extend(), prop::bool::ANY).prop_map(|(key, token, ms, replace)| {
            LockScript::RedisPyExtend {
                key,
                token,
                ms,
                replace,
            }
        }),
        fair_script().prop_map(LockScript::Fair),
    ]
    .prop_map(Op::Script)
}

fn case() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![5 => raw_op(), 1 => pttl_op(), 4 => script_op()];
    proptest::collection::vec(op, 5..50)
}

/// Runs one op on both sides at `now_ms`: (model reply, real reply, what the reply reads).
fn run_op(
    op: &Op,
    ks: &mut Keyspace,
    con: &mut redis::Connection,
    now_ms: i64,
) -> (Reply, Reply, Reading) {
    match op {
        Op::Raw { args, reading } => {
            let argv: Vec<Vec<u8>> = args.iter().map(|a| a.resolve(now_ms)).collect();
            let model = ks.execute_argv(&argv, now_ms, Role::Master).reply;
            (model, request(con, &argv), *reading)
        }
        Op::Script(script) => {
            let model = ks
                .execute(&Command::Script(script.clone()), now_ms, Role::Master)
                .reply;
            // Redisson's acquires answer with the lock's remaining TTL when it is taken.
            let reading = match script {
                LockScript::RedissonAcquire { .. }
                | LockScript::Fair(FairScript::Acquire { .. }) => Reading::Ttl,
                _ => Reading::Exact,
            };
            (model, request(con, &script.eval_argv()), reading)
        }
    }
}

/// The model's view of a key against the server's TYPE, value and PTTL.
fn compare_key(ks: &Keyspace, con: &mut redis::Connection, key: &str) -> Result<(), String> {
    let now_ms = wall_ms();
    let real_type = request_words(con, &["TYPE", key]);
    let entry = ks.peek(key.as_bytes(), now_ms);
    let (model_type, model_value, real_value) = match entry.map(|e| &e.value) {
        None => ("none", Reply::nil(), Reply::nil()),
        Some(Value::String(s)) => (
            "string",
            Reply::bulk(s.clone()),
            request_words(con, &["GET", key]),
        ),
        Some(Value::Hash(pairs)) => {
            let flat = pairs
                .iter()
                .flat_map(|(f, v)| [Reply::bulk(f.clone()), Reply::bulk(v.clone())]);
            (
                "hash",
                Reply::Array(Some(flat.collect())),
                request_words(con, &["HGETALL", key]),
            )
        }
        Some(Value::List(items)) => (
            "list",
            Reply::Array(Some(items.iter().cloned().map(Reply::bulk).collect())),
            request_words(con, &["LRANGE", key, "0", "-1"]),
        ),
        Some(Value::SortedSet(members)) => {
            let flat = members
                .iter()
                .flat_map(|(m, s)| [Reply::bulk(m.clone()), Reply::bulk(s.to_string())]);
            (
                "zset",
                Reply::Array(Some(flat.collect())),
                request_words(con, &["ZRANGE", key, "0", "-1", "WITHSCORES"]),
            )
        }
    };
    let model_pttl = entry.map_or(-2, |e| e.deadline_ms.map_or(-1, |d| d - now_ms));
    let real_pttl = request_words(con, &["PTTL", key]);
    let types_agree = real_type == Reply::Status(model_type.to_string());
    let values_agree = |model: &Reply, real: &Reply| match model_type {
        "zset" => scores_agree(model, real, is_time_score),
        _ => model == real,
    };
    if !types_agree
        || !values_agree(&model_value, &real_value)
        || !agree(&Reply::Integer(model_pttl), &real_pttl, true)
    {
        return Err(format!(
            "key {key}: model {model_type} {model_value:?} pttl {model_pttl}, \
             real {real_type:?} {real_value:?} pttl {real_pttl:?}"
        ));
    }
    Ok(())
}

/// What a server reply shows the case exercised, for the check that the property is not
/// hollow; a script's reply is labelled with the script's name.
fn label(op: &Op, real: &Reply) -> String {
    let kind = match real {
        Reply::Error(e) if e.contains(" script: ") => "script error",
        Reply::Error(e) if e.starts_with("WRONGTYPE") => "WRONGTYPE",
        Reply::Error(e) if e == "ERR syntax error" => "syntax error",
        Reply::Error(e) if e.starts_with("ERR wrong number") => "wrong arity",
        Reply::Error(e) if e.starts_with("ERR invalid expire") => "invalid expire time",
        Reply::Error(e) if e.starts_with("ERR value is not an integer") => "not an integer",
        Reply::Error(e) if e == "ERR value is not a valid float" => "not a float",
        Reply::Error(e) if e.starts_with("ERR unknown command") => "unknown command",
        Reply::Error(_) => "other error",
        Reply::Status(_) => "status",
        Reply::Integer(n) if *n > 1_000 => "large integer",
        Reply::Integer(_) => "small integer",
        Reply::Bulk(None) => "nil",
        Reply::Bulk(Some(_)) => "bulk",
        Reply::Array(Some(items)) if !items.is_empty() => "non-empty array",
        Reply::Array(_) => "empty array",
    };
    match op {
        Op::Script(script) => format!("{:?} -> {kind}", script.kind()),
        Op::Raw { args, .. } => match args.first() {
            Some(Arg::Lit(name)) if COLLECTION_COMMANDS.contains(name) => {
                format!("{name} -> {kind}")
            }
            _ => kind.to_string(),
        },
    }
}

/// The list and sorted-set commands, whose replies are labelled with their name.
const COLLECTION_COMMANDS: [&str; 10] = [
    "RPUSH", "LPOP", "LINDEX", "LRANGE", "LREM", "ZADD", "ZSCORE", "ZREM", "ZINCRBY", "ZRANGE",
];

/// What the random cases must have shown at least once between them.
const MUST_SEE: [&str; 41] = [
    "WRONGTYPE",
    "Fair(Acquire) -> nil",
    "Fair(Acquire) -> large integer",
    "Fair(Acquire) -> script error",
    "Fair(Release) -> small integer",
    "Fair(AcquireFailed) -> nil",
    "RPUSH -> small integer",
    "LPOP -> bulk",
    "LINDEX -> bulk",
    "LINDEX -> not an integer",
    "LRANGE -> non-empty array",
    "LREM -> small integer",
    "ZADD -> not a float",
    "ZSCORE -> bulk",
    "ZREM -> small integer",
    "ZINCRBY -> bulk",
    "ZRANGE -> non-empty array",
    "syntax error",
    "wrong arity",
    "invalid expire time",
    "not an integer",
    "unknown command",
    "other error",
    "status",
    "large integer",
    "small integer",
    "nil",
    "bulk",
    "non-empty array",
    "empty array",
    "CompareAndDelete -> small integer",
    "CompareAndPexpire -> script error",
    "RedissonAcquire -> nil",
    "RedissonAcquire -> large integer",
    "RedissonRelease -> nil",
    "RedissonRelease -> small integer",
    "RedissonRenew -> small integer",
    "FencedAcquire -> small integer",
    "FencedAcquire -> script error",
    "RedisPyExtend -> small integer",
    "RedisPyExtend -> script error",
];

fn run_case(
    ops: &[Op],
    con: &mut redis::Connection,
    seen: &mut BTreeSet<String>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(request_words(con, &["FLUSHALL"]), Reply::ok());
    let mut ks = Keyspace::new();
    let mut last_ms = wall_ms();
    for (i, op) in ops.iter().enumerate() {
        let now_ms = wall_ms_after(last_ms);
        let (model, real, reading) = run_op(op, &mut ks, con, now_ms);
        last_ms = wall_ms();
        seen.insert(label(op, &real));
        prop_assert!(
            reading.agree(&model, &real),
            "step {} {:?}: model {:?}, real {:?}",
            i,
            op,
            model,
            real
        );
    }
    for key in KEYS.iter().chain(&COLLECTION_KEYS[..2]) {
        compare_key(&ks, con, key).map_err(TestCaseError::fail)?;
    }
    Ok(())
}

#[test]
fn random_command_sequences_get_the_same_replies_from_the_model_and_a_real_server() {
    let server = RealRedis::start();
    let con = RefCell::new(server.connection());
    // A fixed seed: the coverage check below must not depend on luck.
    let config = Config {
        cases: 96,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x10c_c4ec),
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let seen = RefCell::new(BTreeSet::new());
    let result = runner.run(&case(), |ops| {
        run_case(&ops, &mut con.borrow_mut(), &mut seen.borrow_mut())
    });
    if let Err(failure) = result {
        panic!("the model and redis-server disagree: {failure}");
    }
    let seen = seen.into_inner();
    let missing: Vec<&str> = MUST_SEE
        .into_iter()
        .filter(|l| !seen.contains(*l))
        .collect();
    assert!(
        missing.is_empty(),
        "the random cases never showed {missing:?}; seen: {seen:?}"
    );
}
