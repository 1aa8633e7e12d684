//! How a Redis world's messages and timers read in traces and timelines: like Redis.
//!
//! `SET order_lock service-b NX PX 30000`, `OK`, `nil`, `EVAL compare-and-delete
//! order_lock service-a`, `retry (lock 0)`: a person reading a counterexample should see
//! the commands and replies they would see in `redis-cli` or a client log.

use crate::msg::{
    ClientTimer, DetectorTimer, LockTimer, Msg, ResourceOp, ResourceReply, ServiceTimer, Timer,
};
use crate::redis::{Command, FairKind, Reply, ScriptKind};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn words(argv: &[Vec<u8>]) -> String {
    argv.iter().map(|a| text(a)).collect::<Vec<_>>().join(" ")
}

/// A command as a client would type it; a lock script by its name, keys and arguments.
pub fn command(c: &Command) -> String {
    match c {
        Command::Script(script) => {
            let eval = script.eval();
            let name = script_name(script.kind());
            format!("EVAL {name} {} {}", words(&eval.keys), words(&eval.args))
        }
        other => words(&other.to_argv()),
    }
}

fn script_name(kind: ScriptKind) -> &'static str {
    match kind {
        ScriptKind::CompareAndDelete => "compare-and-delete",
        ScriptKind::CompareAndPexpire => "compare-and-pexpire",
        ScriptKind::CompareAndPexpireOrSetNx => "redsync-touch-set-nx",
        ScriptKind::RedisPyExtend => "redis-py-extend",
        ScriptKind::RedissonAcquire => "redisson-acquire",
        ScriptKind::RedissonRelease => "redisson-release",
        ScriptKind::RedissonRenew => "redisson-renew",
        ScriptKind::RedissonForceUnlock => "redisson-force-unlock",
        ScriptKind::FencedAcquire => "fenced-acquire",
        ScriptKind::Fair(FairKind::Acquire) => "redisson-fair-acquire",
        ScriptKind::Fair(FairKind::Release) => "redisson-fair-release",
        ScriptKind::Fair(FairKind::AcquireFailed) => "redisson-fair-acquire-failed",
    }
}

/// A reply as `redis-cli` shows it (on one line).
pub fn reply(r: &Reply) -> String {
    match r {
        Reply::Status(s) => s.clone(),
        Reply::Error(e) => format!("(error) {e}"),
        Reply::Integer(n) => format!("(integer) {n}"),
        Reply::Bulk(None) | Reply::Array(None) => "nil".to_string(),
        Reply::Bulk(Some(b)) => format!("\"{}\"", text(b)),
        Reply::Array(Some(items)) => {
            let items: Vec<String> = items.iter().map(reply).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// A message.
pub fn msg(m: &Msg) -> String {
    match m {
        Msg::Request { command: c, .. } => command(c),
        Msg::Response { reply: r, .. } => reply(r),
        Msg::Published { channel, message } => {
            format!("message {} {}", text(channel), text(message))
        }
        Msg::Replicate {
            commands, offset, ..
        } => {
            let commands: Vec<String> = commands.iter().map(command).collect();
            format!("replicate [{}] (offset {offset})", commands.join("; "))
        }
        Msg::FullSync { offset, .. } => format!("full sync (offset {offset})"),
        Msg::ReplAck { offset, .. } => format!("ack offset {offset}"),
        Msg::SyncRequest => "sync request".to_string(),
        Msg::Ping => "ping".to_string(),
        Msg::Pong {
            is_master, offset, ..
        } => {
            let role = if *is_master { "master" } else { "replica" };
            format!("pong ({role}, offset {offset})")
        }
        Msg::ReplicaOf {
            master: None,
            epoch,
        } => format!("REPLICAOF NO ONE (epoch {epoch})"),
        Msg::ReplicaOf {
            master: Some(m),
            epoch,
        } => format!("REPLICAOF process {m} (epoch {epoch})"),
        Msg::AskMaster => "which master?".to_string(),
        Msg::MasterIs { master, .. } => format!("master is process {master}"),
        Msg::IsMasterDown { .. } | Msg::MasterDownReply { .. } => sentinel_vote(m),
        Msg::Resource(ResourceOp::Read { biz_id, token }) => {
            format!("read account for op {biz_id}{}", token_text(*token))
        }
        Msg::Resource(ResourceOp::Debit {
            biz_id,
            amount,
            read_balance,
            token,
            ..
        }) => format!(
            "debit {amount} for op {biz_id} (read balance {read_balance}){}",
            token_text(*token)
        ),
        Msg::ResourceReply(ResourceReply::Value {
            balance,
            version,
            done,
        }) => format!("balance {balance} (version {version}, op done: {done})"),
        Msg::ResourceReply(ResourceReply::Debited(ok)) => {
            if *ok { "debited" } else { "debit refused" }.to_string()
        }
        Msg::NextToken => "next token?".to_string(),
        Msg::Token(t) => format!("token {t}"),
        Msg::AbortRound => "deadlock victim: abort".to_string(),
        Msg::LockObject { key, token } => lock_object_text(key, token.as_deref()),
        Msg::Refused { .. } => "connection refused".to_string(),
    }
}

fn lock_object_text(key: &[u8], token: Option<&[u8]>) -> String {
    let key = String::from_utf8_lossy(key);
    match token {
        Some(t) => format!(
            "lock object: token of {key} is {}",
            String::from_utf8_lossy(t)
        ),
        None => format!("lock object: token of {key} cleared"),
    }
}

fn token_text(token: Option<u64>) -> String {
    token.map(|t| format!(", token {t}")).unwrap_or_default()
}

/// A timer.
pub fn timer(t: &Timer) -> String {
    match t {
        Timer::Fsync => "fsync".to_string(),
        Timer::ReplAckTick => "replication ack".to_string(),
        Timer::WaitTimeout { id, .. } => format!("WAIT timeout (request {id})"),
        Timer::SentinelTick => "sentinel check".to_string(),
        Timer::SentinelElection => "election starts".to_string(),
        Timer::ScriptStep(i) => format!("script step {i}"),
        Timer::Client(ClientTimer::Start) => "start round".to_string(),
        Timer::Client(ClientTimer::Work) => "work done".to_string(),
        Timer::Detector(DetectorTimer::Tick) => "detect deadlocks".to_string(),
        Timer::Detector(DetectorTimer::ReadTimeout) => "detector read timed out".to_string(),
        Timer::Detector(DetectorTimer::ReportDone) | Timer::Service(ServiceTimer::ReportDone) => {
            "detector report over".to_string()
        }
        Timer::Client(ClientTimer::Lock { lock, timer }) => {
            let what = match timer {
                LockTimer::RequestTimeout(tag) => format!("request {tag} timed out"),
                LockTimer::SweepTimeout => "requests timed out".to_string(),
                LockTimer::Retry => "retry".to_string(),
                LockTimer::AcquireDeadline => "acquire timeout".to_string(),
                LockTimer::Renew => "renew".to_string(),
                LockTimer::WaitTtl => "wait over".to_string(),
                LockTimer::SentinelScan => "ask Sentinel for the master".to_string(),
                LockTimer::Resend(tag) => format!("send request {tag} again"),
            };
            format!("{what} (lock {lock})")
        }
    }
}

/// The Sentinels' question whether the master is down, and its answer.
fn sentinel_vote(m: &Msg) -> String {
    match m {
        Msg::IsMasterDown {
            master,
            epoch,
            candidate,
        } => {
            let vote = if *candidate { ", vote for me" } else { "" };
            format!("is process {master} down? (epoch {epoch}{vote})")
        }
        Msg::MasterDownReply { down, vote, epoch } => {
            let view = if *down { "down" } else { "up" };
            match vote {
                Some(v) => format!("{view}, my vote in epoch {epoch}: process {v}"),
                None => format!("{view} (epoch {epoch})"),
            }
        }
        other => unreachable!("not a Sentinel vote: {other:?}"),
    }
}
