//! From an argument vector to a [`Command`], checking what the server checks, in its order.
//!
//! The server first looks the name up (`unknown command`), then checks the arity (`wrong
//! number of arguments`): those errors never reach a command and are returned as `Err`. Every
//! later argument error is found by the command itself, after node-level refusals such as
//! `READONLY`, so it becomes [`Command::Rejected`] and is answered when the command runs.
//! Within a command the order is the server's: `SET` reads all its options (syntax errors)
//! before its expire value (not an integer); `PEXPIRE` its conditions before its time.

use super::args::{
    self, is_word, parse_i64, parse_i64_or_err, EVAL_NEGATIVE_KEYS, EVAL_TOO_MANY_KEYS,
    EXPIRE_GT_AND_LT, EXPIRE_NX_AND_OTHERS, SYNTAX, TIMEOUT_NEGATIVE, TIMEOUT_NOT_AN_INTEGER,
};
use super::collection_command;
use super::command::{Command, CommandName, ExpireCondition, Set, SetCondition, SetExpiry};
use super::reply::Reply;
use super::scripts::LockScript;

/// The model's answer to an `EVAL` of a script that is not one of its lock scripts (or whose
/// keys and arguments do not fit it): a documented limitation, not a Redis error.
pub const UNMODELLED_SCRIPT: &str =
    "ERR lockcheck models EVAL only for its lock scripts, with their keys and integer arguments";

impl Command {
    /// Parses a client's argument vector (command names ignore case). `Err` is the server's
    /// reply to an unknown command or a wrong number of arguments; any other argument error
    /// is a [`Command::Rejected`]. An empty vector is answered as an unknown empty name (the
    /// real server silently skips an empty request).
    pub fn parse(argv: &[Vec<u8>]) -> Result<Command, Reply> {
        let name = argv
            .first()
            .and_then(|name| CommandName::lookup(name))
            .ok_or_else(|| Reply::Error(args::unknown_command(argv)))?;
        if !name.arity_ok(argv.len()) {
            return Err(Reply::Error(args::wrong_arity(name.fullname())));
        }
        Ok(parse_known(name, argv).unwrap_or_else(|error| Command::Rejected { name, error }))
    }
}

/// The argument at `i` (arity was checked, so it is there; an empty one otherwise).
fn at(argv: &[Vec<u8>], i: usize) -> Vec<u8> {
    argv.get(i).cloned().unwrap_or_default()
}

fn rest(argv: &[Vec<u8>], from: usize) -> Vec<Vec<u8>> {
    argv.get(from..).unwrap_or_default().to_vec()
}

fn parse_known(name: CommandName, argv: &[Vec<u8>]) -> Result<Command, String> {
    let key = at(argv, 1);
    Ok(match name {
        CommandName::Set => Command::Set(parse_set(argv)?),
        CommandName::Get => Command::Get { key },
        CommandName::MGet => Command::MGet {
            keys: rest(argv, 1),
        },
        CommandName::Del => Command::Del {
            keys: rest(argv, 1),
        },
        CommandName::Exists => Command::Exists {
            keys: rest(argv, 1),
        },
        CommandName::PExpire => {
            let (condition, ttl_ms) = parse_expire(argv)?;
            Command::PExpire {
                key,
                ttl_ms,
                condition,
            }
        }
        CommandName::PExpireAt => {
            let (condition, deadline_ms) = parse_expire(argv)?;
            Command::PExpireAt {
                key,
                deadline_ms,
                condition,
            }
        }
        CommandName::PTtl => Command::PTtl { key },
        CommandName::Incr => Command::Incr { key },
        CommandName::HSet => parse_hset(argv)?,
        CommandName::HGet => Command::HGet {
            key,
            field: at(argv, 2),
        },
        CommandName::HIncrBy => Command::HIncrBy {
            key,
            field: at(argv, 2),
            increment: parse_i64_or_err(&at(argv, 3))?,
        },
        CommandName::HExists => Command::HExists {
            key,
            field: at(argv, 2),
        },
        CommandName::HKeys => Command::HKeys { key },
        CommandName::RPush
        | CommandName::LPop
        | CommandName::LIndex
        | CommandName::LRange
        | CommandName::LRem
        | CommandName::ZAdd
        | CommandName::ZScore
        | CommandName::ZRem
        | CommandName::ZIncrBy
        | CommandName::ZRange => collection_command::parse(name, argv)?,
        CommandName::Publish => Command::Publish {
            channel: key,
            message: at(argv, 2),
        },
        CommandName::Subscribe => Command::Subscribe {
            channels: rest(argv, 1),
        },
        CommandName::Wait => parse_wait(argv)?,
        CommandName::Eval => parse_eval(argv)?,
    })
}

/// `SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]`, read like
/// `parseExtendedStringArgumentsOrReply`: an option may repeat (the last value wins), but
/// never meet a conflicting one.
fn parse_set(argv: &[Vec<u8>]) -> Result<Set, String> {
    let mut set = Set {
        key: at(argv, 1),
        value: at(argv, 2),
        condition: None,
        get: false,
        expiry: SetExpiry::NoTtl,
    };
    let mut expiry: Option<(Unit, Vec<u8>)> = None;
    let mut j = 3;
    while j < argv.len() {
        let opt = &argv[j];
        let next = argv.get(j + 1);
        let unit = expiry.as_ref().map(|(unit, _)| *unit);
        if is_word(opt, "nx") && set.condition != Some(SetCondition::Xx) {
            set.condition = Some(SetCondition::Nx);
        } else if is_word(opt, "xx") && set.condition != Some(SetCondition::Nx) {
            set.condition = Some(SetCondition::Xx);
        } else if is_word(opt, "get") {
            set.get = true;
        } else if is_word(opt, "keepttl") && unit.is_none() {
            set.expiry = SetExpiry::KeepTtl;
        } else if let (Some(new_unit), Some(value)) = (Unit::of(opt), next) {
            let compatible =
                set.expiry != SetExpiry::KeepTtl && unit.is_none_or(|unit| unit == new_unit);
            if !compatible {
                return Err(SYNTAX.to_string());
            }
            expiry = Some((new_unit, value.clone()));
            j += 1;
        } else {
            return Err(SYNTAX.to_string());
        }
        j += 1;
    }
    if let Some((unit, value)) = expiry {
        set.expiry = unit.with(parse_i64_or_err(&value)?);
    }
    Ok(set)
}

/// The four expiry options of `SET`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Ex,
    Px,
    ExAt,
    PxAt,
}

impl Unit {
    /// The expiry option `opt` names, if any.
    fn of(opt: &[u8]) -> Option<Unit> {
        [
            ("ex", Unit::Ex),
            ("px", Unit::Px),
            ("exat", Unit::ExAt),
            ("pxat", Unit::PxAt),
        ]
        .into_iter()
        .find(|(word, _)| is_word(opt, word))
        .map(|(_, unit)| unit)
    }

    fn with(self, n: i64) -> SetExpiry {
        match self {
            Unit::Ex => SetExpiry::Ex(n),
            Unit::Px => SetExpiry::Px(n),
            Unit::ExAt => SetExpiry::ExAt(n),
            Unit::PxAt => SetExpiry::PxAt(n),
        }
    }
}

/// `PEXPIRE key ms [NX|XX|GT|LT]...` and `PEXPIREAT`: the conditions, then the number.
fn parse_expire(argv: &[Vec<u8>]) -> Result<(ExpireCondition, i64), String> {
    let mut c = ExpireCondition::default();
    for opt in argv.iter().skip(3) {
        let flag = match () {
            _ if is_word(opt, "nx") => &mut c.nx,
            _ if is_word(opt, "xx") => &mut c.xx,
            _ if is_word(opt, "gt") => &mut c.gt,
            _ if is_word(opt, "lt") => &mut c.lt,
            _ => return Err(args::unsupported_option(opt)),
        };
        *flag = true;
    }
    if c.nx && (c.xx || c.gt || c.lt) {
        return Err(EXPIRE_NX_AND_OTHERS.to_string());
    }
    if c.gt && c.lt {
        return Err(EXPIRE_GT_AND_LT.to_string());
    }
    Ok((c, parse_i64_or_err(&at(argv, 2))?))
}

/// `HSET key field value [field value ...]`: an odd pair count is an arity error found by
/// the command itself (after `READONLY`).
fn parse_hset(argv: &[Vec<u8>]) -> Result<Command, String> {
    if argv.len() % 2 == 1 {
        return Err(args::wrong_arity("hset"));
    }
    let pairs = rest(argv, 2)
        .chunks(2)
        .map(|pair| (pair[0].clone(), pair[1].clone()))
        .collect();
    Ok(Command::HSet {
        key: at(argv, 1),
        pairs,
    })
}

/// `WAIT numreplicas timeout`.
fn parse_wait(argv: &[Vec<u8>]) -> Result<Command, String> {
    let replicas = parse_i64_or_err(&at(argv, 1))?;
    let timeout_ms = parse_i64(&at(argv, 2)).ok_or(TIMEOUT_NOT_AN_INTEGER)?;
    if timeout_ms < 0 {
        return Err(TIMEOUT_NEGATIVE.to_string());
    }
    Ok(Command::Wait {
        replicas,
        timeout_ms,
    })
}

/// `EVAL script numkeys key... arg...`: the server's numkeys checks, then one of the lock
/// scripts or [`UNMODELLED_SCRIPT`].
fn parse_eval(argv: &[Vec<u8>]) -> Result<Command, String> {
    let numkeys = parse_i64_or_err(&at(argv, 2))?;
    let supplied = rest(argv, 3);
    if numkeys > i64::try_from(supplied.len()).unwrap_or(i64::MAX) {
        return Err(EVAL_TOO_MANY_KEYS.to_string());
    }
    let Ok(numkeys) = usize::try_from(numkeys) else {
        return Err(EVAL_NEGATIVE_KEYS.to_string());
    };
    let (keys, script_args) = supplied.split_at(numkeys);
    LockScript::from_eval(&at(argv, 1), keys, script_args)
        .map(Command::Script)
        .ok_or_else(|| UNMODELLED_SCRIPT.to_string())
}
