//! Redisson's fair lock (`RedissonFairLock`, read at 3.17.7): the lock hash as `RLock`'s,
//! plus a queue of waiting `uuid:threadId`s (a list, `redisson_lock_queue:{name}`) and each
//! waiter's timeout (a sorted set, `redisson_lock_timeout:{name}`, scores in the clients'
//! `System.currentTimeMillis()`).
//!
//! - **acquire**: first drop the stale waiters at the head of the queue (their timeout `<=`
//!   the caller's `now`); the lock is free and the queue empty or headed by the caller: take
//!   it (leave the queue, every other timeout minus `wait`), nil. Re-entry: nil. A caller
//!   already queued gets `its timeout - wait - now`; a new one joins the tail with the
//!   timeout `(the previous waiter's timeout - now, or the lock's PTTL) + wait + now` and
//!   gets that first part, the time it should wait. `wait` is `tryLock`'s wait time, or
//!   `threadWaitTime` (5 min) under `lock()`.
//! - **release**: the same stale drop; then `RLock`'s release, except that the unlock
//!   message goes to the next waiter's own channel `redisson_lock__channel:{name}:<waiter>`,
//!   and is sent even when the lock was already gone.
//! - **acquire failed** (`tryLock` out of time): every waiter behind the caller gets `wait`
//!   less, and the caller leaves the queue.
//!
//! In 3.17 a waiter in the queue without a timeout makes `tonumber(nil) <= ...` fail: the
//! model answers with the same Lua error.

use super::exec::Execution;
use super::fair_sources::{ACQUIRE, ACQUIRE_FAILED, ACQUIRE_FAILED_SHA1, ACQUIRE_SHA1};
use super::fair_sources::{RELEASE, RELEASE_SHA1};
use super::reply::Reply;
use super::script_calls::{hexists, hincrby, lua_number, pexpire, pttl, through_lua};
use super::scripts::UNLOCK_MESSAGE;
use crate::redis::collection_command::{ListOp, SortedSetOp};
use crate::redis::command::{number, Command};

/// A fair-lock script with its keys and arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FairScript {
    /// KEYS `[key, queue, timeouts]`, ARGV `[lease_ms, field, wait_ms, now_ms]`.
    Acquire {
        key: Vec<u8>,
        queue: Vec<u8>,
        timeouts: Vec<u8>,
        field: Vec<u8>,
        lease_ms: i64,
        wait_ms: i64,
        now_ms: i64,
    },
    /// KEYS `[key, queue, timeouts, channel]`, ARGV `["0", lease_ms, field, now_ms]`.
    Release {
        key: Vec<u8>,
        queue: Vec<u8>,
        timeouts: Vec<u8>,
        channel: Vec<u8>,
        field: Vec<u8>,
        lease_ms: i64,
        now_ms: i64,
    },
    /// KEYS `[queue, timeouts]`, ARGV `[field, wait_ms]`.
    AcquireFailed {
        queue: Vec<u8>,
        timeouts: Vec<u8>,
        field: Vec<u8>,
        wait_ms: i64,
    },
}

/// Lua's error when a queued waiter has no timeout (3.17's `tonumber(nil) <= x`).
const COMPARE_NIL: &str = "ERR user_script:1: attempt to compare nil with number";
/// Lua's error when the last waiter has no timeout (`tonumber(nil) - x`).
const ARITHMETIC_NIL: &str = "ERR user_script:1: attempt to perform arithmetic on a nil value";

impl FairScript {
    /// The source, its SHA1 and its shape (number of KEYS, of ARGV).
    pub(super) fn facts(kind: FairKind) -> (&'static str, &'static str, (usize, usize)) {
        match kind {
            FairKind::Acquire => (ACQUIRE, ACQUIRE_SHA1, (3, 4)),
            FairKind::Release => (RELEASE, RELEASE_SHA1, (4, 4)),
            FairKind::AcquireFailed => (ACQUIRE_FAILED, ACQUIRE_FAILED_SHA1, (2, 2)),
        }
    }

    pub(super) fn kind(&self) -> FairKind {
        match self {
            FairScript::Acquire { .. } => FairKind::Acquire,
            FairScript::Release { .. } => FairKind::Release,
            FairScript::AcquireFailed { .. } => FairKind::AcquireFailed,
        }
    }

    /// KEYS and ARGV.
    pub(super) fn keys_and_args(&self) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        match self {
            FairScript::Acquire {
                key,
                queue,
                timeouts,
                field,
                lease_ms,
                wait_ms,
                now_ms,
            } => (
                vec![key.clone(), queue.clone(), timeouts.clone()],
                vec![
                    number(*lease_ms),
                    field.clone(),
                    number(*wait_ms),
                    number(*now_ms),
                ],
            ),
            FairScript::Release {
                key,
                queue,
                timeouts,
                channel,
                field,
                lease_ms,
                now_ms,
            } => (
                vec![
                    key.clone(),
                    queue.clone(),
                    timeouts.clone(),
                    channel.clone(),
                ],
                vec![
                    UNLOCK_MESSAGE.to_vec(),
                    number(*lease_ms),
                    field.clone(),
                    number(*now_ms),
                ],
            ),
            FairScript::AcquireFailed {
                queue,
                timeouts,
                field,
                wait_ms,
            } => (
                vec![queue.clone(), timeouts.clone()],
                vec![field.clone(), number(*wait_ms)],
            ),
        }
    }

    /// The script an `EVAL` of `kind` with these KEYS and ARGV runs, if its numbers are
    /// canonical decimals (and the release's message is `0`).
    pub(super) fn read(kind: FairKind, keys: &[Vec<u8>], args: &[Vec<u8>]) -> Option<Self> {
        let num = |i: usize| crate::redis::args::parse_i64(&args[i]);
        Some(match kind {
            FairKind::Acquire => FairScript::Acquire {
                key: keys[0].clone(),
                queue: keys[1].clone(),
                timeouts: keys[2].clone(),
                lease_ms: num(0)?,
                field: args[1].clone(),
                wait_ms: num(2)?,
                now_ms: num(3)?,
            },
            FairKind::Release if args[0] == UNLOCK_MESSAGE => FairScript::Release {
                key: keys[0].clone(),
                queue: keys[1].clone(),
                timeouts: keys[2].clone(),
                channel: keys[3].clone(),
                lease_ms: num(1)?,
                field: args[2].clone(),
                now_ms: num(3)?,
            },
            FairKind::Release => return None,
            FairKind::AcquireFailed => FairScript::AcquireFailed {
                queue: keys[0].clone(),
                timeouts: keys[1].clone(),
                field: args[0].clone(),
                wait_ms: num(1)?,
            },
        })
    }

    pub(super) fn body(&self, cx: &mut Execution) -> Result<Reply, String> {
        match self {
            FairScript::Acquire { .. } => self.acquire(cx),
            FairScript::Release { .. } => self.release(cx),
            FairScript::AcquireFailed { .. } => self.acquire_failed(cx),
        }
    }

    /// The acquire script.
    fn acquire(&self, cx: &mut Execution) -> Result<Reply, String> {
        let FairScript::Acquire {
            key,
            queue,
            timeouts,
            field,
            lease_ms,
            wait_ms,
            now_ms,
        } = self
        else {
            unreachable!("`body` hands over its own kind")
        };
        drop_stale(cx, queue, timeouts, *now_ms)?;
        if lock_free_for(cx, key, queue, field)? {
            lpop(cx, queue)?;
            cx.call(&zrem(timeouts, field))?;
            let waiting = zrange_all(cx, timeouts)?;
            shift_timeouts(cx, timeouts, &waiting, *wait_ms)?;
            cx.call(&Command::HSet {
                key: key.clone(),
                pairs: vec![(field.clone(), b"1".to_vec())],
            })?;
            cx.call(&pexpire(key, *lease_ms))?;
            return Ok(Reply::nil());
        }
        if cx.call(&hexists(key, field))? == Reply::Integer(1) {
            cx.call(&hincrby(key, field, 1))?;
            cx.call(&pexpire(key, *lease_ms))?;
            return Ok(Reply::nil());
        }
        queue_up(cx, (key, queue, timeouts), field, *wait_ms, *now_ms)
    }

    /// The release script.
    fn release(&self, cx: &mut Execution) -> Result<Reply, String> {
        let FairScript::Release {
            key,
            queue,
            timeouts,
            channel,
            field,
            lease_ms,
            now_ms,
        } = self
        else {
            unreachable!("`body` hands over its own kind")
        };
        drop_stale(cx, queue, timeouts, *now_ms)?;
        let exists = Command::Exists {
            keys: vec![key.clone()],
        };
        if cx.call(&exists)? == Reply::Integer(0) {
            notify_next(cx, queue, channel)?;
            return Ok(Reply::Integer(1));
        }
        if cx.call(&hexists(key, field))? == Reply::Integer(0) {
            return Ok(Reply::nil());
        }
        if lua_number(cx.call(&hincrby(key, field, -1))?) > 0.0 {
            cx.call(&pexpire(key, *lease_ms))?;
            return Ok(Reply::Integer(0));
        }
        cx.call(&Command::del(key))?;
        notify_next(cx, queue, channel)?;
        Ok(Reply::Integer(1))
    }

    /// The acquire-failed script.
    fn acquire_failed(&self, cx: &mut Execution) -> Result<Reply, String> {
        let FairScript::AcquireFailed {
            queue,
            timeouts,
            field,
            wait_ms,
        } = self
        else {
            unreachable!("`body` hands over its own kind")
        };
        let waiters = lrange_all(cx, queue)?;
        let behind = waiters
            .iter()
            .position(|w| w == field)
            .map_or(&[][..], |i| &waiters[i + 1..]);
        shift_timeouts(cx, timeouts, behind, *wait_ms)?;
        cx.call(&zrem(timeouts, field))?;
        cx.call(&Command::List(ListOp::LRem {
            key: queue.clone(),
            count: 0,
            element: field.clone(),
        }))?;
        Ok(Reply::nil())
    }
}

/// Which fair-lock script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FairKind {
    Acquire,
    Release,
    AcquireFailed,
}

/// Drops the waiters at the head of the queue whose timeout is not after `now_ms`.
fn drop_stale(
    cx: &mut Execution,
    queue: &[u8],
    timeouts: &[u8],
    now_ms: i64,
) -> Result<(), String> {
    loop {
        let Reply::Bulk(Some(first)) = lindex(cx, queue, "0")? else {
            return Ok(());
        };
        let timeout = score(cx, timeouts, &first)?.ok_or(COMPARE_NIL)?;
        if timeout > now_ms {
            return Ok(());
        }
        cx.call(&zrem(timeouts, &first))?;
        lpop(cx, queue)?;
    }
}

/// The lock hash is absent and the queue empty or headed by `field`.
fn lock_free_for(
    cx: &mut Execution,
    key: &[u8],
    queue: &[u8],
    field: &[u8],
) -> Result<bool, String> {
    let exists = |k: &[u8]| Command::Exists {
        keys: vec![k.to_vec()],
    };
    if cx.call(&exists(key))? != Reply::Integer(0) {
        return Ok(false);
    }
    Ok(cx.call(&exists(queue))? == Reply::Integer(0)
        || lindex(cx, queue, "0")? == Reply::bulk(field.to_vec()))
}

/// Refused: the caller's wait if queued, else it joins the tail of the queue.
fn queue_up(
    cx: &mut Execution,
    (key, queue, timeouts): (&[u8], &[u8], &[u8]),
    field: &[u8],
    wait_ms: i64,
    now_ms: i64,
) -> Result<Reply, String> {
    if let Some(timeout) = score(cx, timeouts, field)? {
        return Ok(Reply::Integer(timeout - wait_ms - now_ms));
    }
    let ttl = match lindex(cx, queue, "-1")? {
        Reply::Bulk(Some(last)) if last != field => {
            score(cx, timeouts, &last)?.ok_or(ARITHMETIC_NIL)? - now_ms
        }
        _ => lua_number(through_lua(cx.call(&pttl(key))?)) as i64,
    };
    let added = cx.call(&Command::SortedSet(SortedSetOp::ZAdd {
        key: timeouts.to_vec(),
        pairs: vec![(ttl + wait_ms + now_ms, field.to_vec())],
    }))?;
    if added == Reply::Integer(1) {
        cx.call(&Command::List(ListOp::RPush {
            key: queue.to_vec(),
            elements: vec![field.to_vec()],
        }))?;
    }
    Ok(Reply::Integer(ttl))
}

/// Publishes the unlock message on the next waiter's own channel, if there is one.
fn notify_next(cx: &mut Execution, queue: &[u8], channel: &[u8]) -> Result<(), String> {
    if let Reply::Bulk(Some(next)) = lindex(cx, queue, "0")? {
        cx.call(&Command::Publish {
            channel: [channel, b":", &next].concat(),
            message: UNLOCK_MESSAGE.to_vec(),
        })?;
    }
    Ok(())
}

/// Every timeout of `members` minus `wait_ms` (`zincrby timeouts -wait member`).
fn shift_timeouts(
    cx: &mut Execution,
    timeouts: &[u8],
    members: &[Vec<u8>],
    wait_ms: i64,
) -> Result<(), String> {
    for member in members {
        cx.call(&Command::SortedSet(SortedSetOp::ZIncrBy {
            key: timeouts.to_vec(),
            increment: -wait_ms,
            member: member.clone(),
        }))?;
    }
    Ok(())
}

fn lindex(cx: &mut Execution, queue: &[u8], index: &str) -> Result<Reply, String> {
    cx.call(&Command::List(ListOp::LIndex {
        key: queue.to_vec(),
        index: index.as_bytes().to_vec(),
    }))
}

fn lpop(cx: &mut Execution, queue: &[u8]) -> Result<Reply, String> {
    cx.call(&Command::List(ListOp::LPop {
        key: queue.to_vec(),
    }))
}

fn zrem(timeouts: &[u8], member: &[u8]) -> Command {
    Command::SortedSet(SortedSetOp::ZRem {
        key: timeouts.to_vec(),
        members: vec![member.to_vec()],
    })
}

/// `member`'s timeout, as Lua's `tonumber` of `ZSCORE` reads it.
fn score(cx: &mut Execution, timeouts: &[u8], member: &[u8]) -> Result<Option<i64>, String> {
    let reply = cx.call(&Command::SortedSet(SortedSetOp::ZScore {
        key: timeouts.to_vec(),
        member: member.to_vec(),
    }))?;
    Ok(match reply {
        Reply::Bulk(Some(text)) => crate::redis::args::parse_i64(&text),
        _ => None,
    })
}

fn bulks(reply: Reply) -> Vec<Vec<u8>> {
    match reply {
        Reply::Array(Some(items)) => items
            .into_iter()
            .filter_map(|r| match r {
                Reply::Bulk(Some(b)) => Some(b),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn zrange_all(cx: &mut Execution, timeouts: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let all = SortedSetOp::ZRange {
        key: timeouts.to_vec(),
        start: 0,
        stop: -1,
    };
    Ok(bulks(cx.call(&Command::SortedSet(all))?))
}

fn lrange_all(cx: &mut Execution, queue: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let all = ListOp::LRange {
        key: queue.to_vec(),
        start: 0,
        stop: -1,
    };
    Ok(bulks(cx.call(&Command::List(all))?))
}
