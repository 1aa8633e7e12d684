//! The list and sorted-set commands, in the forms lock scripts use (Redisson's fair lock
//! keeps its waiters in a list and their timeouts in a sorted set): `RPUSH`, `LPOP`,
//! `LINDEX`, `LRANGE`, `LREM`; `ZADD`, `ZSCORE`, `ZREM`, `ZINCRBY`, `ZRANGE`.
//!
//! Arguments are checked where the server checks them: `LRANGE`'s and `LREM`'s numbers and
//! every score before the key is looked up (so they are parse errors, a
//! [`Command::Rejected`]), `LINDEX`'s index only after (it is kept as given). A form beyond
//! these (`LPOP` with a count, `ZADD` or `ZRANGE` with options, a score that is not an
//! integer) is refused with [`UNMODELLED_FORM`], a documented limitation.

use super::args::{parse_i64, parse_i64_or_err, NOT_A_FLOAT, SYNTAX, UNMODELLED_FORM};
use super::command::{number, Command, CommandName};

/// A list command.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ListOp {
    RPush {
        key: Vec<u8>,
        elements: Vec<Vec<u8>>,
    },
    LPop {
        key: Vec<u8>,
    },
    /// The index as given: the server parses it only once it found a list.
    LIndex {
        key: Vec<u8>,
        index: Vec<u8>,
    },
    LRange {
        key: Vec<u8>,
        start: i64,
        stop: i64,
    },
    LRem {
        key: Vec<u8>,
        count: i64,
        element: Vec<u8>,
    },
}

/// A sorted-set command.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SortedSetOp {
    ZAdd {
        key: Vec<u8>,
        pairs: Vec<(i64, Vec<u8>)>,
    },
    ZScore {
        key: Vec<u8>,
        member: Vec<u8>,
    },
    ZRem {
        key: Vec<u8>,
        members: Vec<Vec<u8>>,
    },
    ZIncrBy {
        key: Vec<u8>,
        increment: i64,
        member: Vec<u8>,
    },
    ZRange {
        key: Vec<u8>,
        start: i64,
        stop: i64,
    },
}

/// The largest score magnitude kept exactly (a double's integers).
const MAX_SCORE: i64 = 1 << 53;

/// A score as `ZADD` and `ZINCRBY` read it: a number (`strtod`), here an integer.
fn parse_score(arg: &[u8]) -> Result<i64, String> {
    if let Some(n) = parse_i64(arg) {
        return kept_score(Some(n));
    }
    let text = std::str::from_utf8(arg).map_err(|_| NOT_A_FLOAT.to_string())?;
    match text.parse::<f64>() {
        Ok(x) if !x.is_nan() && !text.trim().is_empty() && text.trim() == text => {
            Err(UNMODELLED_FORM.to_string())
        }
        _ => Err(NOT_A_FLOAT.to_string()),
    }
}

/// A score the model keeps exactly (`None`: it overflowed), or the unmodelled-form error.
pub(crate) fn kept_score(score: Option<i64>) -> Result<i64, String> {
    score
        .filter(|n| n.abs() <= MAX_SCORE)
        .ok_or_else(|| UNMODELLED_FORM.to_string())
}

/// Parses a list or sorted-set command whose name and arity were checked.
pub(crate) fn parse(name: CommandName, argv: &[Vec<u8>]) -> Result<Command, String> {
    let arg = |i: usize| argv.get(i).cloned().unwrap_or_default();
    let int = |i: usize| parse_i64_or_err(&arg(i));
    let key = arg(1);
    let rest = || argv.get(2..).unwrap_or_default().to_vec();
    Ok(match name {
        CommandName::RPush => Command::List(ListOp::RPush {
            key,
            elements: rest(),
        }),
        CommandName::LPop if argv.len() > 2 => return Err(UNMODELLED_FORM.to_string()),
        CommandName::LPop => Command::List(ListOp::LPop { key }),
        CommandName::LIndex => Command::List(ListOp::LIndex { key, index: arg(2) }),
        CommandName::LRange => Command::List(ListOp::LRange {
            key,
            start: int(2)?,
            stop: int(3)?,
        }),
        CommandName::LRem => Command::List(ListOp::LRem {
            key,
            count: int(2)?,
            element: arg(3),
        }),
        CommandName::ZAdd => parse_zadd(key, &rest())?,
        CommandName::ZScore => Command::SortedSet(SortedSetOp::ZScore {
            key,
            member: arg(2),
        }),
        CommandName::ZRem => Command::SortedSet(SortedSetOp::ZRem {
            key,
            members: rest(),
        }),
        CommandName::ZIncrBy => Command::SortedSet(SortedSetOp::ZIncrBy {
            key,
            increment: parse_score(&arg(2))?,
            member: arg(3),
        }),
        CommandName::ZRange if argv.len() > 4 => return Err(UNMODELLED_FORM.to_string()),
        CommandName::ZRange => Command::SortedSet(SortedSetOp::ZRange {
            key,
            start: int(2)?,
            stop: int(3)?,
        }),
        _ => unreachable!("{name:?} is no list or sorted-set command"),
    })
}

/// `ZADD key score member [score member ...]`: an option word first is a form the model
/// does not have; an odd tail is a syntax error; then every score is read.
fn parse_zadd(key: Vec<u8>, tail: &[Vec<u8>]) -> Result<Command, String> {
    let options = ["nx", "xx", "gt", "lt", "ch", "incr"];
    if tail
        .first()
        .is_some_and(|w| options.iter().any(|o| w.eq_ignore_ascii_case(o.as_bytes())))
    {
        return Err(UNMODELLED_FORM.to_string());
    }
    if !tail.len().is_multiple_of(2) {
        return Err(SYNTAX.to_string());
    }
    let pairs = tail
        .chunks(2)
        .map(|pair| Ok((parse_score(&pair[0])?, pair[1].clone())))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Command::SortedSet(SortedSetOp::ZAdd { key, pairs }))
}

impl ListOp {
    pub fn name(&self) -> CommandName {
        match self {
            ListOp::RPush { .. } => CommandName::RPush,
            ListOp::LPop { .. } => CommandName::LPop,
            ListOp::LIndex { .. } => CommandName::LIndex,
            ListOp::LRange { .. } => CommandName::LRange,
            ListOp::LRem { .. } => CommandName::LRem,
        }
    }

    /// The arguments after the name.
    pub(crate) fn args(&self) -> Vec<Vec<u8>> {
        match self {
            ListOp::RPush { key, elements } => [vec![key.clone()], elements.clone()].concat(),
            ListOp::LPop { key } => vec![key.clone()],
            ListOp::LIndex { key, index } => vec![key.clone(), index.clone()],
            ListOp::LRange { key, start, stop } => vec![key.clone(), number(*start), number(*stop)],
            ListOp::LRem {
                key,
                count,
                element,
            } => vec![key.clone(), number(*count), element.clone()],
        }
    }
}

impl SortedSetOp {
    pub fn name(&self) -> CommandName {
        match self {
            SortedSetOp::ZAdd { .. } => CommandName::ZAdd,
            SortedSetOp::ZScore { .. } => CommandName::ZScore,
            SortedSetOp::ZRem { .. } => CommandName::ZRem,
            SortedSetOp::ZIncrBy { .. } => CommandName::ZIncrBy,
            SortedSetOp::ZRange { .. } => CommandName::ZRange,
        }
    }

    /// The arguments after the name.
    pub(crate) fn args(&self) -> Vec<Vec<u8>> {
        match self {
            SortedSetOp::ZAdd { key, pairs } => {
                let mut args = vec![key.clone()];
                for (score, member) in pairs {
                    args.extend([number(*score), member.clone()]);
                }
                args
            }
            SortedSetOp::ZScore { key, member } => vec![key.clone(), member.clone()],
            SortedSetOp::ZRem { key, members } => [vec![key.clone()], members.clone()].concat(),
            SortedSetOp::ZIncrBy {
                key,
                increment,
                member,
            } => vec![key.clone(), number(*increment), member.clone()],
            SortedSetOp::ZRange { key, start, stop } => {
                vec![key.clone(), number(*start), number(*stop)]
            }
        }
    }
}
