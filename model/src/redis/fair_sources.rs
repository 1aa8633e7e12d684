//! The Lua sources of Redisson's fair lock (`RedissonFairLock.java` at 3.17.7), byte for
//! byte what the client sends: its Java string literals concatenated, comments left out.

/// `tryLockInnerAsync`, the `EVAL_LONG` form (`lock()` and `tryLock(wait)`).
pub(super) const ACQUIRE: &str = concat!(
    "while true do local firstThreadId2 = redis.call('lindex', KEYS[2], 0);if firstThreadId2 ",
    "== false then break;end;local timeout = tonumber(redis.call('zscore', KEYS[3], firstThre",
    "adId2));if timeout <= tonumber(ARGV[4]) then redis.call('zrem', KEYS[3], firstThreadId2)",
    ";redis.call('lpop', KEYS[2]);else break;end;end;if (redis.call('exists', KEYS[1]) == 0) ",
    "and ((redis.call('exists', KEYS[2]) == 0) or (redis.call('lindex', KEYS[2], 0) == ARGV[2",
    "])) then redis.call('lpop', KEYS[2]);redis.call('zrem', KEYS[3], ARGV[2]);local keys = r",
    "edis.call('zrange', KEYS[3], 0, -1);for i = 1, #keys, 1 do redis.call('zincrby', KEYS[3]",
    ", -tonumber(ARGV[3]), keys[i]);end;redis.call('hset', KEYS[1], ARGV[2], 1);redis.call('p",
    "expire', KEYS[1], ARGV[1]);return nil;end;if redis.call('hexists', KEYS[1], ARGV[2]) == ",
    "1 then redis.call('hincrby', KEYS[1], ARGV[2],1);redis.call('pexpire', KEYS[1], ARGV[1])",
    ";return nil;end;local timeout = redis.call('zscore', KEYS[3], ARGV[2]);if timeout ~= fal",
    "se then return timeout - tonumber(ARGV[3]) - tonumber(ARGV[4]);end;local lastThreadId = ",
    "redis.call('lindex', KEYS[2], -1);local ttl;if lastThreadId ~= false and lastThreadId ~=",
    " ARGV[2] then ttl = tonumber(redis.call('zscore', KEYS[3], lastThreadId)) - tonumber(ARG",
    "V[4]);else ttl = redis.call('pttl', KEYS[1]);end;local timeout = ttl + tonumber(ARGV[3])",
    " + tonumber(ARGV[4]);if redis.call('zadd', KEYS[3], timeout, ARGV[2]) == 1 then redis.ca",
    "ll('rpush', KEYS[2], ARGV[2]);end;return ttl;",
);
pub(super) const ACQUIRE_SHA1: &str = "762bfafa6be221431a0b668685dd15c926483619";

/// `unlockInnerAsync`.
pub(super) const RELEASE: &str = concat!(
    "while true do local firstThreadId2 = redis.call('lindex', KEYS[2], 0);if firstThreadId2 ",
    "== false then break;end; local timeout = tonumber(redis.call('zscore', KEYS[3], firstThr",
    "eadId2));if timeout <= tonumber(ARGV[4]) then redis.call('zrem', KEYS[3], firstThreadId2",
    "); redis.call('lpop', KEYS[2]); else break;end; end;if (redis.call('exists', KEYS[1]) ==",
    " 0) then local nextThreadId = redis.call('lindex', KEYS[2], 0); if nextThreadId ~= false",
    " then redis.call('publish', KEYS[4] .. ':' .. nextThreadId, ARGV[1]); end; return 1; end",
    ";if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = ",
    "redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire',",
    " KEYS[1], ARGV[2]); return 0; end; redis.call('del', KEYS[1]); local nextThreadId = redi",
    "s.call('lindex', KEYS[2], 0); if nextThreadId ~= false then redis.call('publish', KEYS[4",
    "] .. ':' .. nextThreadId, ARGV[1]); end; return 1; ",
);
pub(super) const RELEASE_SHA1: &str = "35d32367b21753c39b55dc64d1906fee627cc9a8";

/// `acquireFailedAsync`: a `tryLock` that ran out of time leaves the queue.
pub(super) const ACQUIRE_FAILED: &str = concat!(
    "local queue = redis.call('lrange', KEYS[1], 0, -1);local i = 1;while i <= #queue and que",
    "ue[i] ~= ARGV[1] do i = i + 1;end;i = i + 1;while i <= #queue do redis.call('zincrby', K",
    "EYS[2], -tonumber(ARGV[2]), queue[i]);i = i + 1;end;redis.call('zrem', KEYS[2], ARGV[1])",
    ";redis.call('lrem', KEYS[1], 0, ARGV[1]);",
);
pub(super) const ACQUIRE_FAILED_SHA1: &str = "d1ddef65ad80886b5d36e023c99930044ddd653a";
