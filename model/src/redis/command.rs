//! The commands the model knows, typed, with the server's command table facts.
//!
//! A [`Command`] is what a client asked for, already checked the way the server checks it
//! before running it: a known name and the right arity. Errors that the real server finds only
//! while running the command (a syntax error, an argument that is not an integer) come *after*
//! node-level checks such as `READONLY`, so such a command parses into
//! [`Command::Rejected`], which keeps its name and its error. Errors that depend on the data or
//! the clock (`WRONGTYPE`, an expire time that overflows once `now` is added) come from
//! execution. [`Command::to_argv`] gives the argument vector back, which is how propagated
//! writes and labels are shown.

use super::collection_command::{ListOp, SortedSetOp};
use super::scripts::LockScript;

/// A command name of the model's command table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CommandName {
    Set,
    Get,
    MGet,
    Del,
    Exists,
    PExpire,
    PExpireAt,
    PTtl,
    Incr,
    HSet,
    HGet,
    HIncrBy,
    HExists,
    HKeys,
    RPush,
    LPop,
    LIndex,
    LRange,
    LRem,
    ZAdd,
    ZScore,
    ZRem,
    ZIncrBy,
    ZRange,
    Publish,
    Subscribe,
    Wait,
    Eval,
}

impl CommandName {
    /// Every known command.
    pub const ALL: [CommandName; 28] = [
        CommandName::Set,
        CommandName::Get,
        CommandName::MGet,
        CommandName::Del,
        CommandName::Exists,
        CommandName::PExpire,
        CommandName::PExpireAt,
        CommandName::PTtl,
        CommandName::Incr,
        CommandName::HSet,
        CommandName::HGet,
        CommandName::HIncrBy,
        CommandName::HExists,
        CommandName::HKeys,
        CommandName::RPush,
        CommandName::LPop,
        CommandName::LIndex,
        CommandName::LRange,
        CommandName::LRem,
        CommandName::ZAdd,
        CommandName::ZScore,
        CommandName::ZRem,
        CommandName::ZIncrBy,
        CommandName::ZRange,
        CommandName::Publish,
        CommandName::Subscribe,
        CommandName::Wait,
        CommandName::Eval,
    ];

    /// The server's name for it, lower case, as echoed in its error texts.
    pub(crate) fn fullname(self) -> &'static str {
        self.facts().0
    }

    /// The server's arity: `n > 0` exactly n arguments (name included), `-n` at least n.
    pub fn arity(self) -> i32 {
        self.facts().1
    }

    /// Whether the server flags it as a write (refused on a read-only replica). `EVAL` is not:
    /// a script is refused only when it actually calls a write command.
    pub(crate) fn is_write(self) -> bool {
        self.facts().2
    }

    fn facts(self) -> (&'static str, i32, bool) {
        match self {
            CommandName::Set => ("set", -3, true),
            CommandName::Get => ("get", 2, false),
            CommandName::MGet => ("mget", -2, false),
            CommandName::Del => ("del", -2, true),
            CommandName::Exists => ("exists", -2, false),
            CommandName::PExpire => ("pexpire", -3, true),
            CommandName::PExpireAt => ("pexpireat", -3, true),
            CommandName::PTtl => ("pttl", 2, false),
            CommandName::Incr => ("incr", 2, true),
            CommandName::HSet => ("hset", -4, true),
            CommandName::HGet => ("hget", 3, false),
            CommandName::HIncrBy => ("hincrby", 4, true),
            CommandName::HExists => ("hexists", 3, false),
            CommandName::HKeys => ("hkeys", 2, false),
            CommandName::RPush => ("rpush", -3, true),
            CommandName::LPop => ("lpop", -2, true),
            CommandName::LIndex => ("lindex", 3, false),
            CommandName::LRange => ("lrange", 4, false),
            CommandName::LRem => ("lrem", 4, true),
            CommandName::ZAdd => ("zadd", -4, true),
            CommandName::ZScore => ("zscore", 3, false),
            CommandName::ZRem => ("zrem", -3, true),
            CommandName::ZIncrBy => ("zincrby", 4, true),
            CommandName::ZRange => ("zrange", -4, false),
            CommandName::Publish => ("publish", 3, false),
            CommandName::Subscribe => ("subscribe", -2, false),
            CommandName::Wait => ("wait", 3, false),
            CommandName::Eval => ("eval", -3, false),
        }
    }

    /// The command named `name`, ignoring ASCII case.
    pub fn lookup(name: &[u8]) -> Option<CommandName> {
        CommandName::ALL
            .into_iter()
            .find(|c| name.eq_ignore_ascii_case(c.fullname().as_bytes()))
    }

    /// Whether `argc` arguments (name included) fit the arity.
    pub(crate) fn arity_ok(self, argc: usize) -> bool {
        let arity = self.arity();
        let argc = i64::try_from(argc).unwrap_or(i64::MAX);
        if arity > 0 {
            argc == i64::from(arity)
        } else {
            argc >= -i64::from(arity)
        }
    }
}

/// `SET`'s NX or XX.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetCondition {
    /// Only if the key does not exist.
    Nx,
    /// Only if the key exists.
    Xx,
}

/// What `SET` does to the key's TTL. The numbers are as given; their validity (positive, no
/// overflow once converted and `now` added) is checked when the command runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetExpiry {
    /// No option: the key loses any TTL.
    NoTtl,
    /// `KEEPTTL`: the key keeps its TTL.
    KeepTtl,
    /// `EX seconds`.
    Ex(i64),
    /// `PX milliseconds`.
    Px(i64),
    /// `EXAT unix-seconds`.
    ExAt(i64),
    /// `PXAT unix-milliseconds`: how every TTL reaches a replica.
    PxAt(i64),
}

/// A `SET`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Set {
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    pub condition: Option<SetCondition>,
    /// `GET`: reply with the old value instead of `OK`.
    pub get: bool,
    pub expiry: SetExpiry,
}

/// `PEXPIRE`/`PEXPIREAT` conditions (Redis 7). Parsing refuses NX with any other, and GT
/// with LT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ExpireCondition {
    /// Only if the key has no TTL.
    pub nx: bool,
    /// Only if the key has a TTL.
    pub xx: bool,
    /// Only if the new deadline is later (no TTL counts as infinite).
    pub gt: bool,
    /// Only if the new deadline is earlier (no TTL counts as infinite).
    pub lt: bool,
}

/// A command of the model, typed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    Set(Set),
    Get {
        key: Vec<u8>,
    },
    /// `MGET`: every key's string value, nil for a missing key or another type, at one
    /// instant.
    MGet {
        keys: Vec<Vec<u8>>,
    },
    Del {
        keys: Vec<Vec<u8>>,
    },
    Exists {
        keys: Vec<Vec<u8>>,
    },
    PExpire {
        key: Vec<u8>,
        ttl_ms: i64,
        condition: ExpireCondition,
    },
    PExpireAt {
        key: Vec<u8>,
        deadline_ms: i64,
        condition: ExpireCondition,
    },
    PTtl {
        key: Vec<u8>,
    },
    Incr {
        key: Vec<u8>,
    },
    HSet {
        key: Vec<u8>,
        pairs: Vec<(Vec<u8>, Vec<u8>)>,
    },
    HGet {
        key: Vec<u8>,
        field: Vec<u8>,
    },
    HIncrBy {
        key: Vec<u8>,
        field: Vec<u8>,
        increment: i64,
    },
    HExists {
        key: Vec<u8>,
        field: Vec<u8>,
    },
    HKeys {
        key: Vec<u8>,
    },
    /// A list command (module `collection_command`).
    List(ListOp),
    /// A sorted-set command (module `collection_command`).
    SortedSet(SortedSetOp),
    Publish {
        channel: Vec<u8>,
        message: Vec<u8>,
    },
    /// Connection level: the node actor keeps subscriptions.
    Subscribe {
        channels: Vec<Vec<u8>>,
    },
    /// Replication level: the node actor counts acknowledgements and blocks.
    Wait {
        replicas: i64,
        timeout_ms: i64,
    },
    /// One of the lock scripts, run atomically (`EVAL`).
    Script(LockScript),
    /// A known command with the right arity whose arguments the server rejects while running
    /// it (after node-level checks such as `READONLY`), with the full error text.
    Rejected {
        name: CommandName,
        error: String,
    },
}

impl Command {
    /// The command's name in the command table.
    pub fn name(&self) -> CommandName {
        match self {
            Command::Set(_) => CommandName::Set,
            Command::Get { .. } => CommandName::Get,
            Command::MGet { .. } => CommandName::MGet,
            Command::Del { .. } => CommandName::Del,
            Command::Exists { .. } => CommandName::Exists,
            Command::PExpire { .. } => CommandName::PExpire,
            Command::PExpireAt { .. } => CommandName::PExpireAt,
            Command::PTtl { .. } => CommandName::PTtl,
            Command::Incr { .. } => CommandName::Incr,
            Command::HSet { .. } => CommandName::HSet,
            Command::HGet { .. } => CommandName::HGet,
            Command::HIncrBy { .. } => CommandName::HIncrBy,
            Command::HExists { .. } => CommandName::HExists,
            Command::HKeys { .. } => CommandName::HKeys,
            Command::List(op) => op.name(),
            Command::SortedSet(op) => op.name(),
            Command::Publish { .. } => CommandName::Publish,
            Command::Subscribe { .. } => CommandName::Subscribe,
            Command::Wait { .. } => CommandName::Wait,
            Command::Script(_) => CommandName::Eval,
            Command::Rejected { name, .. } => *name,
        }
    }

    /// `SET key value PXAT deadline_ms`: a TTL as a replica receives it.
    pub fn set_pxat(key: &[u8], value: &[u8], deadline_ms: i64) -> Command {
        Command::Set(Set {
            key: key.to_vec(),
            value: value.to_vec(),
            condition: None,
            get: false,
            expiry: SetExpiry::PxAt(deadline_ms),
        })
    }

    /// `DEL key`.
    pub fn del(key: &[u8]) -> Command {
        Command::Del {
            keys: vec![key.to_vec()],
        }
    }

    /// The argument vector a client would send. A `Rejected` command gives only its name: its
    /// arguments are not kept.
    pub fn to_argv(&self) -> Vec<Vec<u8>> {
        let name = self.name().fullname().to_ascii_uppercase().into_bytes();
        let mut argv = vec![name];
        match self {
            Command::Set(set) => push_set(&mut argv, set),
            Command::Get { key }
            | Command::PTtl { key }
            | Command::Incr { key }
            | Command::HKeys { key } => argv.push(key.clone()),
            Command::Del { keys } | Command::Exists { keys } | Command::MGet { keys } => {
                argv.extend(keys.iter().cloned())
            }
            Command::Subscribe { channels } => argv.extend(channels.iter().cloned()),
            Command::PExpire {
                key,
                ttl_ms: ms,
                condition,
            }
            | Command::PExpireAt {
                key,
                deadline_ms: ms,
                condition,
            } => {
                argv.extend([key.clone(), number(*ms)]);
                push_condition(&mut argv, condition);
            }
            Command::HSet { key, pairs } => {
                argv.push(key.clone());
                for (field, value) in pairs {
                    argv.extend([field.clone(), value.clone()]);
                }
            }
            Command::HGet { key, field } | Command::HExists { key, field } => {
                argv.extend([key.clone(), field.clone()])
            }
            Command::HIncrBy {
                key,
                field,
                increment,
            } => argv.extend([key.clone(), field.clone(), number(*increment)]),
            Command::Publish { channel, message } => {
                argv.extend([channel.clone(), message.clone()])
            }
            Command::Wait {
                replicas,
                timeout_ms,
            } => argv.extend([number(*replicas), number(*timeout_ms)]),
            Command::List(op) => argv.extend(op.args()),
            Command::SortedSet(op) => argv.extend(op.args()),
            Command::Script(script) => return script.eval_argv(),
            Command::Rejected { .. } => {}
        }
        argv
    }
}

/// A decimal number as an argument.
pub(crate) fn number(n: i64) -> Vec<u8> {
    n.to_string().into_bytes()
}

fn push_set(argv: &mut Vec<Vec<u8>>, set: &Set) {
    argv.extend([set.key.clone(), set.value.clone()]);
    match set.condition {
        Some(SetCondition::Nx) => argv.push(b"NX".to_vec()),
        Some(SetCondition::Xx) => argv.push(b"XX".to_vec()),
        None => {}
    }
    if set.get {
        argv.push(b"GET".to_vec());
    }
    let (word, n): (&[u8], Option<i64>) = match set.expiry {
        SetExpiry::NoTtl => return,
        SetExpiry::KeepTtl => (b"KEEPTTL", None),
        SetExpiry::Ex(n) => (b"EX", Some(n)),
        SetExpiry::Px(n) => (b"PX", Some(n)),
        SetExpiry::ExAt(n) => (b"EXAT", Some(n)),
        SetExpiry::PxAt(n) => (b"PXAT", Some(n)),
    };
    argv.push(word.to_vec());
    argv.extend(n.map(number));
}

fn push_condition(argv: &mut Vec<Vec<u8>>, condition: &ExpireCondition) {
    let flags = [
        (condition.nx, "NX"),
        (condition.xx, "XX"),
        (condition.gt, "GT"),
        (condition.lt, "LT"),
    ];
    for (_, word) in flags.iter().filter(|(on, _)| *on) {
        argv.push(word.as_bytes().to_vec());
    }
}
