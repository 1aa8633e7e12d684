//! The `redis.call`s the lock scripts make, as the model's commands, and Lua's conversions
//! of their replies.

use super::command::{Command, ExpireCondition, Set, SetCondition, SetExpiry};
use super::reply::Reply;
use super::scripts::UNLOCK_MESSAGE;

/// A `redis.call` reply returned from Lua: integers go through a Lua number (a double) and
/// back as the C cast does it on x86-64 (out of range gives `i64::MIN`).
pub(crate) fn through_lua(reply: Reply) -> Reply {
    match reply {
        Reply::Integer(n) => Reply::Integer(double_to_i64(n as f64)),
        other => other,
    }
}

pub(crate) fn double_to_i64(x: f64) -> i64 {
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    if (-TWO_POW_63..TWO_POW_63).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

/// An integer reply as the Lua number a script compares.
pub(crate) fn lua_number(reply: Reply) -> f64 {
    match reply {
        Reply::Integer(n) => n as f64,
        _ => 0.0,
    }
}

pub(crate) fn get(key: &[u8]) -> Command {
    Command::Get { key: key.to_vec() }
}

pub(crate) fn pttl(key: &[u8]) -> Command {
    Command::PTtl { key: key.to_vec() }
}

pub(crate) fn pexpire(key: &[u8], ttl_ms: i64) -> Command {
    let condition = ExpireCondition::default();
    Command::PExpire {
        key: key.to_vec(),
        ttl_ms,
        condition,
    }
}

pub(crate) fn hexists(key: &[u8], field: &[u8]) -> Command {
    Command::HExists {
        key: key.to_vec(),
        field: field.to_vec(),
    }
}

pub(crate) fn hincrby(key: &[u8], field: &[u8], increment: i64) -> Command {
    Command::HIncrBy {
        key: key.to_vec(),
        field: field.to_vec(),
        increment,
    }
}

pub(crate) fn publish_unlock(channel: &[u8]) -> Command {
    Command::Publish {
        channel: channel.to_vec(),
        message: UNLOCK_MESSAGE.to_vec(),
    }
}

pub(crate) fn set_nx_px(key: &[u8], token: &[u8], ttl_ms: i64) -> Command {
    Command::Set(Set {
        key: key.to_vec(),
        value: token.to_vec(),
        condition: Some(SetCondition::Nx),
        get: false,
        expiry: SetExpiry::Px(ttl_ms),
    })
}
