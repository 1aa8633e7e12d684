//! The lock scripts, each one atomic step at one instant, each the exact Lua it stands for.
//!
//! Redis runs a script without interleaving anything and, since 7.0, with time frozen at the
//! script's start: a key that is live when the script starts stays live until it ends (and one
//! already expired stays gone). So a script is modelled as one step at one `now_ms`, whose
//! `redis.call`s are the model's own commands run in order. Like Redis, a failing call aborts
//! the script *keeping* the writes made before it, and the error reads
//! `<error> script: <sha1>, on @user_script:1.` (every script here is one line of Lua).
//! Values cross Lua as in Redis: nil becomes `false` and back a nil bulk, integers become
//! Lua numbers (doubles) and back integers, rounded as doubles are. On a read-only replica a
//! script runs until it calls a write, which fails with `READONLY`. Replicas receive what a
//! script wrote, never the script.
//!
//! [`LockScript::eval`] gives the Lua source, KEYS and ARGV so tests run the real thing with
//! `EVAL`; [`LockScript::from_eval`] reads such an `EVAL` back.

use super::args::parse_i64;
use super::command::{number, Command};
use super::exec::Execution;
use super::fair_scripts::FairKind;
use super::fair_scripts::FairScript;
use super::reply::Reply;
use super::script_calls::{
    get, hexists, hincrby, lua_number, pexpire, pttl, publish_unlock, set_nx_px, through_lua,
};

/// The message Redisson publishes on unlock (`LockPubSub.UNLOCK_MESSAGE`, the long 0).
pub const UNLOCK_MESSAGE: &[u8] = b"0";

/// A lock script with its keys and arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LockScript {
    /// Owner-checked release (seed 000), KEYS `[key]`, ARGV `[token]`:
    /// `if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else
    /// return 0 end`
    CompareAndDelete { key: Vec<u8>, token: Vec<u8> },
    /// Owner-checked renewal (seed 000's watchdog), KEYS `[key]`, ARGV `[token, ttl_ms]`:
    /// `if redis.call('get',KEYS[1]) == ARGV[1] then return
    /// redis.call('pexpire',KEYS[1],ARGV[2]) else return 0 end`
    CompareAndPexpire {
        key: Vec<u8>,
        token: Vec<u8>,
        ttl_ms: i64,
    },
    /// redsync's extension with `WithSetNXOnExtend` (`touchWithSetNXScript`), KEYS `[key]`,
    /// ARGV `[token, ttl_ms]`: the owner's key gets `PEXPIRE`; a missing one is set again
    /// (`SET key token PX ttl NX`, 1); another owner's is left (0). Source:
    /// [`ScriptKind::CompareAndPexpireOrSetNx`].
    CompareAndPexpireOrSetNx {
        key: Vec<u8>,
        token: Vec<u8>,
        ttl_ms: i64,
    },
    /// Redisson 3.17 `tryLockInnerAsync`, KEYS `[key]`, ARGV `[lease_ms, field]`, the field
    /// being `uuid:threadId`; nil when acquired (or re-entered), else the lock's PTTL. Source:
    /// [`ScriptKind::RedissonAcquire`].
    RedissonAcquire {
        key: Vec<u8>,
        field: Vec<u8>,
        lease_ms: i64,
    },
    /// Redisson 3.17 `unlockInnerAsync`, KEYS `[key, channel]`, ARGV `["0", lease_ms, field]`:
    /// nil if the field is absent (the client throws `IllegalMonitorStateException`), 0 if
    /// still re-entered (lease renewed), 1 if released (key deleted, `0` published).
    RedissonRelease {
        key: Vec<u8>,
        channel: Vec<u8>,
        field: Vec<u8>,
        lease_ms: i64,
    },
    /// Redisson 3.17 `renewExpirationAsync` (the watchdog), KEYS `[key]`, ARGV
    /// `[lease_ms, field]`: 1 and a new lease if the field is there, else 0.
    RedissonRenew {
        key: Vec<u8>,
        field: Vec<u8>,
        lease_ms: i64,
    },
    /// Redisson 3.17 `forceUnlockAsync`, KEYS `[key, channel]`, ARGV `["0"]`: deletes the
    /// lock whoever holds it, publishes `0`, returns 1 (0 if there was no lock).
    RedissonForceUnlock { key: Vec<u8>, channel: Vec<u8> },
    /// A fenced acquire, KEYS `[key, counter_key]`, ARGV `[token, ttl_ms]`: `SET key token NX
    /// PX ttl`, and if it succeeded the new value of `INCR counter_key` (the fencing token),
    /// else nil. Source: [`ScriptKind::FencedAcquire`].
    FencedAcquire {
        key: Vec<u8>,
        token: Vec<u8>,
        ttl_ms: i64,
        counter_key: Vec<u8>,
    },
    /// redis-py's `Lock.extend` (`LUA_EXTEND_SCRIPT`, redis-py 4.3 to 7.x), KEYS `[key]`,
    /// ARGV `[token, ms, replace]`: 0 unless the key holds the token and has a TTL; else
    /// the TTL becomes `ms` (`replace_ttl=True`, `ARGV[3]` `"1"`) or `ms` more than what is
    /// left (`ARGV[3]` `"0"`), and 1.
    RedisPyExtend {
        key: Vec<u8>,
        token: Vec<u8>,
        ms: i64,
        replace: bool,
    },
    /// One of Redisson's fair-lock scripts (module `fair_scripts`).
    Fair(FairScript),
}

/// Which script, without its arguments: the Lua source and its SHA1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScriptKind {
    CompareAndDelete,
    CompareAndPexpire,
    CompareAndPexpireOrSetNx,
    RedissonAcquire,
    RedissonRelease,
    RedissonRenew,
    RedissonForceUnlock,
    FencedAcquire,
    RedisPyExtend,
    /// Redisson's fair lock: acquire, release, acquire failed.
    Fair(FairKind),
}

impl ScriptKind {
    /// Every script.
    pub const ALL: [ScriptKind; 12] = [
        ScriptKind::CompareAndDelete,
        ScriptKind::CompareAndPexpire,
        ScriptKind::CompareAndPexpireOrSetNx,
        ScriptKind::RedissonAcquire,
        ScriptKind::RedissonRelease,
        ScriptKind::RedissonRenew,
        ScriptKind::RedissonForceUnlock,
        ScriptKind::FencedAcquire,
        ScriptKind::RedisPyExtend,
        ScriptKind::Fair(FairKind::Acquire),
        ScriptKind::Fair(FairKind::Release),
        ScriptKind::Fair(FairKind::AcquireFailed),
    ];

    /// The Lua source, byte for byte what the client sends (Redisson's concatenated Java
    /// strings, one line).
    pub fn source(self) -> &'static str {
        self.facts().0
    }

    /// The SHA1 of [`ScriptKind::source`], as `SCRIPT LOAD` answers and errors quote it.
    pub fn sha1(self) -> &'static str {
        self.facts().1
    }

    /// How many KEYS and ARGV the script takes.
    pub fn shape(self) -> (usize, usize) {
        self.facts().2
    }

    fn facts(self) -> (&'static str, &'static str, (usize, usize)) {
        match self {
            ScriptKind::CompareAndDelete => (
                "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) \
                 else return 0 end",
                "ae3671744a5dbb24ea37ef607b8b10ac7856d43e",
                (1, 1),
            ),
            ScriptKind::CompareAndPexpire => (
                "if redis.call('get',KEYS[1]) == ARGV[1] then return \
                 redis.call('pexpire',KEYS[1],ARGV[2]) else return 0 end",
                "0be193f9697b4b30826e1bc553c0064e0e04668c",
                (1, 2),
            ),
            ScriptKind::RedissonAcquire => (
                "if (redis.call('exists', KEYS[1]) == 0) then \
                 redis.call('hincrby', KEYS[1], ARGV[2], 1); \
                 redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; \
                 if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then \
                 redis.call('hincrby', KEYS[1], ARGV[2], 1); \
                 redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; \
                 return redis.call('pttl', KEYS[1]);",
                "dad0f8d619e548e04f21fb48d50be5034df3adae",
                (1, 2),
            ),
            ScriptKind::RedissonRelease => (
                "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; \
                 local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); \
                 if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; \
                 else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); \
                 return 1; end; return nil;",
                "3ffe249c16dee540ac8ab32e39bd408626b9aff7",
                (2, 3),
            ),
            ScriptKind::RedissonRenew => (
                "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then \
                 redis.call('pexpire', KEYS[1], ARGV[1]); return 1; end; return 0;",
                "8e19a1ddbdee9138df9f32a480c57addab4353d1",
                (1, 2),
            ),
            ScriptKind::RedissonForceUnlock => (
                "if (redis.call('del', KEYS[1]) == 1) then \
                 redis.call('publish', KEYS[2], ARGV[1]); return 1 else return 0 end",
                "7e9c80b3d786b95d5d4aaf8fd73adb9775fa6fb1",
                (2, 1),
            ),
            ScriptKind::FencedAcquire => (
                "if redis.call('set',KEYS[1],ARGV[1],'NX','PX',ARGV[2]) then return \
                 redis.call('incr',KEYS[2]) else return nil end",
                "7e90e3feba914075bf46b1f5afb2733229b1fc5f",
                (2, 2),
            ),
            ScriptKind::RedisPyExtend => (REDIS_PY_EXTEND, REDIS_PY_EXTEND_SHA1, (1, 3)),
            ScriptKind::CompareAndPexpireOrSetNx => (
                REDSYNC_TOUCH_WITH_SET_NX,
                "b6b55c439e02c6f52ffb8be7ec8c0d0ac816ea79",
                (1, 2),
            ),
            ScriptKind::Fair(kind) => FairScript::facts(kind),
        }
    }
}

/// redsync v4's `touchWithSetNXScript` (`scripts.go` at v4.17.0), byte for byte: the Go raw
/// string, leading newline and tabs included.
const REDSYNC_TOUCH_WITH_SET_NX: &str = concat!(
    "\n",
    "\tif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n",
    "\t\treturn redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n",
    "\telseif redis.call(\"SET\", KEYS[1], ARGV[1], \"PX\", ARGV[2], \"NX\") then\n",
    "\t\treturn 1\n",
    "\telse\n",
    "\t\treturn 0\n",
    "\tend\n",
);

/// redis-py's `LUA_EXTEND_SCRIPT` as the `Lock` class holds it (redis-py 4.3 to 7.x,
/// `redis/lock.py`), its leading newline and indentation included: `register_script` sends
/// these bytes.
const REDIS_PY_EXTEND: &str = concat!(
    "\n",
    "        local token = redis.call('get', KEYS[1])\n",
    "        if not token or token ~= ARGV[1] then\n",
    "            return 0\n",
    "        end\n",
    "        local expiration = redis.call('pttl', KEYS[1])\n",
    "        if not expiration then\n",
    "            expiration = 0\n",
    "        end\n",
    "        if expiration < 0 then\n",
    "            return 0\n",
    "        end\n",
    "\n",
    "        local newttl = ARGV[2]\n",
    "        if ARGV[3] == \"0\" then\n",
    "            newttl = ARGV[2] + expiration\n",
    "        end\n",
    "        redis.call('pexpire', KEYS[1], newttl)\n",
    "        return 1\n",
    "    ",
);
const REDIS_PY_EXTEND_SHA1: &str = "a4e8783852e6b949f9ef3a97212805108459a890";

/// What a client sends for a script: `EVAL source numkeys KEYS... ARGV...`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Eval {
    pub source: &'static str,
    pub keys: Vec<Vec<u8>>,
    pub args: Vec<Vec<u8>>,
}

impl LockScript {
    /// Which script this is.
    pub fn kind(&self) -> ScriptKind {
        match self {
            LockScript::CompareAndDelete { .. } => ScriptKind::CompareAndDelete,
            LockScript::CompareAndPexpire { .. } => ScriptKind::CompareAndPexpire,
            LockScript::CompareAndPexpireOrSetNx { .. } => ScriptKind::CompareAndPexpireOrSetNx,
            LockScript::RedissonAcquire { .. } => ScriptKind::RedissonAcquire,
            LockScript::RedissonRelease { .. } => ScriptKind::RedissonRelease,
            LockScript::RedissonRenew { .. } => ScriptKind::RedissonRenew,
            LockScript::RedissonForceUnlock { .. } => ScriptKind::RedissonForceUnlock,
            LockScript::FencedAcquire { .. } => ScriptKind::FencedAcquire,
            LockScript::RedisPyExtend { .. } => ScriptKind::RedisPyExtend,
            LockScript::Fair(script) => ScriptKind::Fair(script.kind()),
        }
    }

    /// The Lua source with this script's KEYS and ARGV.
    pub fn eval(&self) -> Eval {
        if let LockScript::Fair(script) = self {
            let (keys, args) = script.keys_and_args();
            let source = self.kind().source();
            return Eval { source, keys, args };
        }
        let (keys, args) = match self {
            LockScript::CompareAndDelete { key, token } => (vec![key], vec![token.clone()]),
            LockScript::CompareAndPexpire { key, token, ttl_ms }
            | LockScript::CompareAndPexpireOrSetNx { key, token, ttl_ms } => {
                (vec![key], vec![token.clone(), number(*ttl_ms)])
            }
            LockScript::RedissonAcquire {
                key,
                field,
                lease_ms,
            }
            | LockScript::RedissonRenew {
                key,
                field,
                lease_ms,
            } => (vec![key], vec![number(*lease_ms), field.clone()]),
            LockScript::RedissonRelease {
                key,
                channel,
                field,
                lease_ms,
            } => (
                vec![key, channel],
                vec![UNLOCK_MESSAGE.to_vec(), number(*lease_ms), field.clone()],
            ),
            LockScript::RedissonForceUnlock { key, channel } => {
                (vec![key, channel], vec![UNLOCK_MESSAGE.to_vec()])
            }
            LockScript::FencedAcquire {
                key,
                token,
                ttl_ms,
                counter_key,
            } => (vec![key, counter_key], vec![token.clone(), number(*ttl_ms)]),
            LockScript::RedisPyExtend {
                key,
                token,
                ms,
                replace,
            } => {
                let replace = if *replace { b"1" } else { b"0" };
                (
                    vec![key],
                    vec![token.clone(), number(*ms), replace.to_vec()],
                )
            }
            LockScript::Fair(_) => unreachable!("answered above"),
        };
        Eval {
            source: self.kind().source(),
            keys: keys.into_iter().cloned().collect(),
            args,
        }
    }

    /// `["EVAL", source, numkeys, KEYS..., ARGV...]`.
    pub fn eval_argv(&self) -> Vec<Vec<u8>> {
        let eval = self.eval();
        let mut argv = vec![b"EVAL".to_vec(), eval.source.as_bytes().to_vec()];
        argv.push(eval.keys.len().to_string().into_bytes());
        argv.extend(eval.keys);
        argv.extend(eval.args);
        argv
    }

    /// The script an `EVAL` runs, if its source is one of ours and its KEYS and ARGV fit
    /// (numbers in canonical decimal, the unlock message `0`).
    pub fn from_eval(source: &[u8], keys: &[Vec<u8>], args: &[Vec<u8>]) -> Option<LockScript> {
        let kind = ScriptKind::ALL
            .into_iter()
            .find(|kind| kind.source().as_bytes() == source)?;
        if kind.shape() != (keys.len(), args.len()) {
            return None;
        }
        let key = keys[0].clone();
        let num = |i: usize| parse_i64(&args[i]);
        let message_ok = || args[0] == UNLOCK_MESSAGE;
        Some(match kind {
            ScriptKind::CompareAndDelete => LockScript::CompareAndDelete {
                key,
                token: args[0].clone(),
            },
            ScriptKind::CompareAndPexpire => LockScript::CompareAndPexpire {
                key,
                token: args[0].clone(),
                ttl_ms: num(1)?,
            },
            ScriptKind::CompareAndPexpireOrSetNx => LockScript::CompareAndPexpireOrSetNx {
                key,
                token: args[0].clone(),
                ttl_ms: num(1)?,
            },
            ScriptKind::RedissonAcquire => LockScript::RedissonAcquire {
                key,
                lease_ms: num(0)?,
                field: args[1].clone(),
            },
            ScriptKind::RedissonRelease if message_ok() => LockScript::RedissonRelease {
                key,
                channel: keys[1].clone(),
                lease_ms: num(1)?,
                field: args[2].clone(),
            },
            ScriptKind::RedissonRenew => LockScript::RedissonRenew {
                key,
                lease_ms: num(0)?,
                field: args[1].clone(),
            },
            ScriptKind::RedissonForceUnlock if message_ok() => LockScript::RedissonForceUnlock {
                key,
                channel: keys[1].clone(),
            },
            ScriptKind::FencedAcquire => LockScript::FencedAcquire {
                key,
                counter_key: keys[1].clone(),
                token: args[0].clone(),
                ttl_ms: num(1)?,
            },
            ScriptKind::RedisPyExtend => LockScript::RedisPyExtend {
                key,
                token: args[0].clone(),
                ms: num(1)?,
                replace: args[2] != b"0",
            },
            ScriptKind::Fair(kind) => LockScript::Fair(FairScript::read(kind, keys, args)?),
            ScriptKind::RedissonRelease | ScriptKind::RedissonForceUnlock => return None,
        })
    }

    /// Runs the script as one atomic step; a failing call becomes the script error, with
    /// the line of the call (every script but redis-py's is one line).
    pub(crate) fn run(&self, cx: &mut Execution) -> Reply {
        let result = match self {
            LockScript::RedisPyExtend {
                key,
                token,
                ms,
                replace,
            } => redis_py_extend(cx, key, token, *ms, *replace),
            LockScript::CompareAndPexpireOrSetNx { key, token, ttl_ms } => {
                redsync_touch_set_nx(cx, key, token, *ttl_ms)
            }
            _ => self.body(cx).map_err(|error| (error, 1)),
        };
        result.unwrap_or_else(|(error, line)| {
            let sha1 = self.kind().sha1();
            Reply::Error(format!("{error} script: {sha1}, on @user_script:{line}."))
        })
    }

    fn body(&self, cx: &mut Execution) -> Result<Reply, String> {
        match self {
            LockScript::CompareAndDelete { key, token } => {
                if cx.call(&get(key))? == Reply::bulk(token.clone()) {
                    Ok(through_lua(cx.call(&Command::del(key))?))
                } else {
                    Ok(Reply::Integer(0))
                }
            }
            LockScript::CompareAndPexpire { key, token, ttl_ms } => {
                if cx.call(&get(key))? == Reply::bulk(token.clone()) {
                    Ok(through_lua(cx.call(&pexpire(key, *ttl_ms))?))
                } else {
                    Ok(Reply::Integer(0))
                }
            }
            LockScript::CompareAndPexpireOrSetNx { .. } => {
                unreachable!("`run` runs the multi-line script")
            }
            LockScript::RedissonAcquire {
                key,
                field,
                lease_ms,
            } => redisson_acquire(cx, key, field, *lease_ms),
            LockScript::RedissonRelease {
                key,
                channel,
                field,
                lease_ms,
            } => redisson_release(cx, key, channel, field, *lease_ms),
            LockScript::RedissonRenew {
                key,
                field,
                lease_ms,
            } => {
                if cx.call(&hexists(key, field))? == Reply::Integer(1) {
                    cx.call(&pexpire(key, *lease_ms))?;
                    return Ok(Reply::Integer(1));
                }
                Ok(Reply::Integer(0))
            }
            LockScript::RedissonForceUnlock { key, channel } => {
                if cx.call(&Command::del(key))? == Reply::Integer(1) {
                    cx.call(&publish_unlock(channel))?;
                    return Ok(Reply::Integer(1));
                }
                Ok(Reply::Integer(0))
            }
            LockScript::FencedAcquire {
                key,
                token,
                ttl_ms,
                counter_key,
            } => {
                if cx.call(&set_nx_px(key, token, *ttl_ms))? == Reply::nil() {
                    return Ok(Reply::nil());
                }
                let counter = Command::Incr {
                    key: counter_key.clone(),
                };
                Ok(through_lua(cx.call(&counter)?))
            }
            LockScript::Fair(script) => script.body(cx),
            LockScript::RedisPyExtend { .. } => unreachable!("`run` runs the multi-line script"),
        }
    }
}

fn redisson_acquire(
    cx: &mut Execution,
    key: &[u8],
    field: &[u8],
    lease_ms: i64,
) -> Result<Reply, String> {
    let exists = Command::Exists {
        keys: vec![key.to_vec()],
    };
    let absent = cx.call(&exists)? == Reply::Integer(0);
    if absent || cx.call(&hexists(key, field))? == Reply::Integer(1) {
        cx.call(&hincrby(key, field, 1))?;
        cx.call(&pexpire(key, lease_ms))?;
        return Ok(Reply::nil());
    }
    Ok(through_lua(cx.call(&Command::PTtl { key: key.to_vec() })?))
}

fn redisson_release(
    cx: &mut Execution,
    key: &[u8],
    channel: &[u8],
    field: &[u8],
    lease_ms: i64,
) -> Result<Reply, String> {
    if cx.call(&hexists(key, field))? == Reply::Integer(0) {
        return Ok(Reply::nil());
    }
    let counter = lua_number(cx.call(&hincrby(key, field, -1))?);
    if counter > 0.0 {
        cx.call(&pexpire(key, lease_ms))?;
        return Ok(Reply::Integer(0));
    }
    cx.call(&Command::del(key))?;
    cx.call(&publish_unlock(channel))?;
    Ok(Reply::Integer(1))
}

/// redsync's touch with `SET NX`, line by line ([`REDSYNC_TOUCH_WITH_SET_NX`]: `GET` on
/// line 2, `PEXPIRE` on 3, `SET` on 4); an error with the line of the failing call.
fn redsync_touch_set_nx(
    cx: &mut Execution,
    key: &[u8],
    token: &[u8],
    ttl_ms: i64,
) -> Result<Reply, (String, u32)> {
    let at = |line: u32| move |error: String| (error, line);
    if cx.call(&get(key)).map_err(at(2))? == Reply::bulk(token.to_vec()) {
        return Ok(through_lua(cx.call(&pexpire(key, ttl_ms)).map_err(at(3))?));
    }
    let set = cx.call(&set_nx_px(key, token, ttl_ms)).map_err(at(4))?;
    Ok(Reply::Integer(i64::from(set != Reply::nil())))
}

/// redis-py's extend, line by line ([`REDIS_PY_EXTEND`]); an error with the line of the
/// failing call. `ARGV[2] + expiration` is a Lua number (a double), which `redis.call`
/// passes on as `%.14g` writes it: from 1e14 on an exponent, which `PEXPIRE` refuses.
fn redis_py_extend(
    cx: &mut Execution,
    key: &[u8],
    token: &[u8],
    ms: i64,
    replace: bool,
) -> Result<Reply, (String, u32)> {
    let at = |line: u32| move |error: String| (error, line);
    if cx.call(&get(key)).map_err(at(2))? != Reply::bulk(token.to_vec()) {
        return Ok(Reply::Integer(0));
    }
    let expiration = lua_number(cx.call(&pttl(key)).map_err(at(6))?);
    if expiration < 0.0 {
        return Ok(Reply::Integer(0));
    }
    let new_ttl_ms = match replace {
        true => ms,
        false => {
            let sum = ms as f64 + expiration;
            if sum.abs() >= 1e14 {
                return Err(at(18)("ERR value is not an integer or out of range".into()));
            }
            sum as i64
        }
    };
    cx.call(&pexpire(key, new_ttl_ms)).map_err(at(18))?;
    Ok(Reply::Integer(1))
}
