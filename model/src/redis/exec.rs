//! Running a command against a keyspace: the reply, the writes owed to replicas, the messages
//! published.
//!
//! Every command runs at one instant `now_ms` of the node's wall clock. Before a command
//! touches a key, the key is expired lazily as its `Access` dictates (a master deletes it and
//! owes a `DEL`). A write's effect is recorded in [`Executed::propagate`] in the form Redis 7
//! sends to replicas: a TTL as an absolute deadline (`SET … PXAT`, `PEXPIREAT`), a `PEXPIRE`
//! into the past as a `DEL`, a script as the writes it made (applied together, as Redis wraps
//! them in `MULTI`/`EXEC`), never the script itself. A read-only replica's client cannot write
//! (`READONLY`, checked before any argument error, as the server does). What the master sends
//! goes through [`Keyspace::apply_replicated`], which applies it as given.

use super::args::{
    self, parse_i64, HASH_NOT_AN_INTEGER, NOT_AN_INTEGER, OVERFLOW, READONLY, WAIT_ON_REPLICA,
    WRONGTYPE,
};
use super::command::{Command, CommandName, ExpireCondition, Set, SetCondition, SetExpiry};
use super::keyspace::{Access, Expiry, Fields, KeyEntry, Keyspace, Role, Value};
use super::reply::Reply;

mod collections;

/// What running one command produced.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Executed {
    /// The reply to the client. For `PUBLISH` the keyspace cannot know the receivers and
    /// answers 0; the node, which knows its subscribers, answers with their count.
    pub reply: Reply,
    /// The writes owed to replicas, in order, to be applied together: `DEL`s of keys found
    /// expired (masters only), then the command's effects, TTLs as absolute deadlines.
    pub propagate: Vec<Command>,
    /// `(channel, message)` pairs published, in order, for the node to deliver.
    pub publish: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Keyspace {
    /// Runs a normal client's command on a node in `role` at `now_ms`.
    pub fn execute(&mut self, cmd: &Command, now_ms: i64, role: Role) -> Executed {
        self.run(cmd, now_ms, Access::from(role))
    }

    /// Parses `argv` and runs it like [`Keyspace::execute`]; a parse error is the reply.
    pub fn execute_argv(&mut self, argv: &[Vec<u8>], now_ms: i64, role: Role) -> Executed {
        match Command::parse(argv) {
            Ok(cmd) => self.execute(&cmd, now_ms, role),
            Err(reply) => Executed {
                reply,
                propagate: Vec::new(),
                publish: Vec::new(),
            },
        }
    }

    /// Applies on a replica a command its master propagated: nothing is expired or refused,
    /// deadlines in the past are stored as they are (the master will send the `DEL`). What it
    /// propagates is what a chained replica would receive.
    pub fn apply_replicated(&mut self, cmd: &Command, now_ms: i64) -> Executed {
        self.run(cmd, now_ms, Access::ReplicaStream)
    }

    fn run(&mut self, cmd: &Command, now_ms: i64, access: Access) -> Executed {
        let mut cx = Execution {
            ks: self,
            now_ms,
            access,
            propagate: Vec::new(),
            publish: Vec::new(),
        };
        let reply = cx.dispatch(cmd);
        Executed {
            reply,
            propagate: cx.propagate,
            publish: cx.publish,
        }
    }
}

/// One command's run: the keyspace, the frozen instant, and what is owed to others.
pub(crate) struct Execution<'a> {
    ks: &'a mut Keyspace,
    now_ms: i64,
    access: Access,
    propagate: Vec<Command>,
    publish: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Execution<'_> {
    /// `redis.call` from a script: the same command at the same instant; an error reply
    /// becomes the script's error.
    pub(crate) fn call(&mut self, cmd: &Command) -> Result<Reply, String> {
        match self.dispatch(cmd) {
            Reply::Error(error) => Err(error),
            reply => Ok(reply),
        }
    }

    fn dispatch(&mut self, cmd: &Command) -> Reply {
        if let Some(refusal) = self.refusal(cmd.name()) {
            return Reply::error(refusal);
        }
        self.run(cmd).unwrap_or_else(Reply::Error)
    }

    /// The node-level refusal of a replica, found before the command looks at its arguments.
    fn refusal(&self, name: CommandName) -> Option<&'static str> {
        match (self.access, name) {
            (Access::ReplicaClient, name) if name.is_write() => Some(READONLY),
            (Access::ReplicaClient | Access::ReplicaStream, CommandName::Wait) => {
                Some(WAIT_ON_REPLICA)
            }
            _ => None,
        }
    }

    fn run(&mut self, cmd: &Command) -> Result<Reply, String> {
        match cmd {
            Command::Set(set) => self.set(set),
            Command::Get { key } => Ok(Reply::Bulk(self.read_string(key)?)),
            Command::MGet { keys } => Ok(Reply::Array(Some(
                keys.iter()
                    .map(|key| Reply::Bulk(self.read_string(key).unwrap_or(None)))
                    .collect(),
            ))),
            Command::Del { keys } => Ok(self.del(keys)),
            Command::Exists { keys } => Ok(self.exists(keys)),
            Command::PExpire {
                key,
                ttl_ms,
                condition,
            } => self.expire(key, self.now_ms, *ttl_ms, *condition, "pexpire"),
            Command::PExpireAt {
                key,
                deadline_ms,
                condition,
            } => self.expire(key, 0, *deadline_ms, *condition, "pexpireat"),
            Command::PTtl { key } => Ok(self.pttl(key)),
            Command::Incr { key } => self.incr(key),
            Command::HSet { key, pairs } => self.hset(key, pairs),
            Command::HGet { key, field } => Ok(Reply::Bulk(
                self.read_hash(key)?
                    .and_then(|hash| field_value(hash, field)),
            )),
            Command::HIncrBy {
                key,
                field,
                increment,
            } => self.hincrby(key, field, *increment),
            Command::HExists { key, field } => Ok(Reply::Integer(i64::from(
                self.read_hash(key)?
                    .is_some_and(|h| field_value(h, field).is_some()),
            ))),
            Command::HKeys { key } => self.hkeys(key),
            Command::List(op) => self.list(op),
            Command::SortedSet(op) => self.sorted_set(op),
            Command::Publish { channel, message } => Ok(self.publish(channel, message)),
            Command::Subscribe { channels } => Ok(subscribed(channels)),
            Command::Wait { .. } => Ok(Reply::Integer(0)),
            Command::Script(script) => Ok(script.run(self)),
            Command::Rejected { error, .. } => Err(error.clone()),
        }
    }

    // ----- keys as this access sees them -----

    /// Expires `key` if needed (a master's deletion owes a `DEL`) and says if it is live.
    fn live(&mut self, key: &[u8]) -> bool {
        match self.ks.expire_if_needed(key, self.now_ms, self.access) {
            Expiry::Live => true,
            Expiry::Absent | Expiry::Hidden => false,
            Expiry::Deleted => {
                self.propagate.push(Command::del(key));
                false
            }
        }
    }

    fn lookup(&mut self, key: &[u8]) -> Option<&KeyEntry> {
        if self.live(key) {
            self.ks.get(key)
        } else {
            None
        }
    }

    fn read_string(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, String> {
        match self.lookup(key).map(|entry| &entry.value) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(WRONGTYPE.to_string()),
        }
    }

    fn read_hash(&mut self, key: &[u8]) -> Result<Option<&Fields>, String> {
        match self.lookup(key).map(|entry| &entry.value) {
            None => Ok(None),
            Some(Value::Hash(hash)) => Ok(Some(hash)),
            Some(_) => Err(WRONGTYPE.to_string()),
        }
    }

    /// The hash at `key` for writing, created empty if the key is absent.
    fn write_hash(&mut self, key: &[u8]) -> Result<&mut Fields, String> {
        if !self.live(key) {
            let value = Value::Hash(Vec::new());
            let entry = KeyEntry {
                value,
                deadline_ms: None,
            };
            self.ks.insert(key, entry);
        }
        match self.ks.get_mut(key).map(|entry| &mut entry.value) {
            Some(Value::Hash(hash)) => Ok(hash),
            _ => Err(WRONGTYPE.to_string()),
        }
    }

    /// Records a write for the replicas (a replica's own clients never write).
    fn emit(&mut self, cmd: Command) {
        if self.access != Access::ReplicaClient {
            self.propagate.push(cmd);
        }
    }

    // ----- strings -----

    fn set(&mut self, set: &Set) -> Result<Reply, String> {
        let deadline_ms = self.set_deadline(set.expiry)?;
        let old = if set.get {
            Some(self.read_string(&set.key)?)
        } else {
            None
        };
        let found = self.lookup(&set.key).map(|entry| entry.deadline_ms);
        let blocked = match set.condition {
            Some(SetCondition::Nx) => found.is_some(),
            Some(SetCondition::Xx) => found.is_none(),
            None => false,
        };
        if !blocked {
            let kept = found.flatten().filter(|_| set.expiry == SetExpiry::KeepTtl);
            let deadline_ms = deadline_ms.or(kept);
            let value = Value::String(set.value.clone());
            self.ks.insert(&set.key, KeyEntry { value, deadline_ms });
            self.emit(propagated_set(set, deadline_ms));
        }
        Ok(match old {
            Some(old) => Reply::Bulk(old),
            None if blocked => Reply::nil(),
            None => Reply::ok(),
        })
    }

    /// `SET`'s absolute deadline, checked like `getExpireMillisecondsOrReply`: positive, and
    /// still positive once converted to ms and `now` added (the server's addition wraps).
    fn set_deadline(&self, expiry: SetExpiry) -> Result<Option<i64>, String> {
        let (n, seconds, relative) = match expiry {
            SetExpiry::NoTtl | SetExpiry::KeepTtl => return Ok(None),
            SetExpiry::Ex(n) => (n, true, true),
            SetExpiry::Px(n) => (n, false, true),
            SetExpiry::ExAt(n) => (n, true, false),
            SetExpiry::PxAt(n) => (n, false, false),
        };
        let invalid = || args::invalid_expire("set");
        if n <= 0 || (seconds && n > i64::MAX / 1000) {
            return Err(invalid());
        }
        let ms = if seconds { n * 1000 } else { n };
        let deadline = if relative {
            ms.wrapping_add(self.now_ms)
        } else {
            ms
        };
        if deadline <= 0 {
            return Err(invalid());
        }
        Ok(Some(deadline))
    }

    fn incr(&mut self, key: &[u8]) -> Result<Reply, String> {
        let (current, deadline_ms) = match self.lookup(key) {
            None => (0, None),
            Some(KeyEntry {
                value: Value::String(s),
                deadline_ms,
            }) => (parse_i64(s).ok_or(NOT_AN_INTEGER)?, *deadline_ms),
            Some(_) => return Err(WRONGTYPE.to_string()),
        };
        let new = current.checked_add(1).ok_or(OVERFLOW)?;
        let value = Value::String(new.to_string().into_bytes());
        self.ks.insert(key, KeyEntry { value, deadline_ms });
        self.emit(Command::Incr { key: key.to_vec() });
        Ok(Reply::Integer(new))
    }

    // ----- keys -----

    fn del(&mut self, keys: &[Vec<u8>]) -> Reply {
        let mut deleted = Vec::new();
        for key in keys {
            if self.live(key) && self.ks.remove(key) {
                deleted.push(key.clone());
            }
        }
        let count = deleted.len();
        if !deleted.is_empty() {
            self.emit(Command::Del { keys: deleted });
        }
        Reply::Integer(count_i64(count))
    }

    fn exists(&mut self, keys: &[Vec<u8>]) -> Reply {
        let live = keys.iter().filter(|key| self.live(key)).count();
        Reply::Integer(count_i64(live))
    }

    /// `PEXPIRE` (`base` = now) and `PEXPIREAT` (`base` = 0), as `expireGenericCommand`.
    fn expire(
        &mut self,
        key: &[u8],
        base: i64,
        n: i64,
        condition: ExpireCondition,
        name: &str,
    ) -> Result<Reply, String> {
        if i128::from(n) > i128::from(i64::MAX) - i128::from(base) {
            return Err(args::invalid_expire(name));
        }
        let when = n.wrapping_add(base);
        let Some(entry) = self.lookup(key) else {
            return Ok(Reply::Integer(0));
        };
        if !condition_allows(condition, entry.deadline_ms, when) {
            return Ok(Reply::Integer(0));
        }
        if self.access == Access::Master && when <= self.now_ms {
            self.ks.remove(key);
            self.emit(Command::del(key));
        } else {
            if let Some(entry) = self.ks.get_mut(key) {
                entry.deadline_ms = Some(when);
            }
            let condition = ExpireCondition::default();
            let key = key.to_vec();
            self.emit(Command::PExpireAt {
                key,
                deadline_ms: when,
                condition,
            });
        }
        Ok(Reply::Integer(1))
    }

    fn pttl(&mut self, key: &[u8]) -> Reply {
        let now_ms = self.now_ms;
        Reply::Integer(match self.lookup(key) {
            None => -2,
            Some(KeyEntry {
                deadline_ms: None, ..
            }) => -1,
            Some(KeyEntry {
                deadline_ms: Some(deadline),
                ..
            }) => deadline.saturating_sub(now_ms).max(0),
        })
    }

    // ----- hashes -----

    fn hset(&mut self, key: &[u8], pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<Reply, String> {
        let hash = self.write_hash(key)?;
        let mut created = 0;
        for (field, value) in pairs {
            match hash.iter_mut().find(|(f, _)| f == field) {
                Some(slot) => slot.1 = value.clone(),
                None => {
                    hash.push((field.clone(), value.clone()));
                    created += 1;
                }
            }
        }
        let (key, pairs) = (key.to_vec(), pairs.to_vec());
        self.emit(Command::HSet { key, pairs });
        Ok(Reply::Integer(created))
    }

    fn hincrby(&mut self, key: &[u8], field: &[u8], increment: i64) -> Result<Reply, String> {
        let hash = self.write_hash(key)?;
        let slot = hash.iter().position(|(f, _)| f == field);
        let current = match slot {
            Some(i) => parse_i64(&hash[i].1).ok_or(HASH_NOT_AN_INTEGER)?,
            None => 0,
        };
        let new = current.checked_add(increment).ok_or(OVERFLOW)?;
        let text = new.to_string().into_bytes();
        match slot {
            Some(i) => hash[i].1 = text,
            None => hash.push((field.to_vec(), text)),
        }
        let (key, field) = (key.to_vec(), field.to_vec());
        self.emit(Command::HIncrBy {
            key,
            field,
            increment,
        });
        Ok(Reply::Integer(new))
    }

    fn hkeys(&mut self, key: &[u8]) -> Result<Reply, String> {
        let fields = self.read_hash(key)?.into_iter().flatten();
        let fields = fields.map(|(f, _)| Reply::bulk(f.clone())).collect();
        Ok(Reply::Array(Some(fields)))
    }

    // ----- pub/sub -----

    fn publish(&mut self, channel: &[u8], message: &[u8]) -> Reply {
        let (channel, message) = (channel.to_vec(), message.to_vec());
        self.publish.push((channel.clone(), message.clone()));
        self.emit(Command::Publish { channel, message });
        Reply::Integer(0)
    }
}

/// The conditions of `PEXPIRE`, as the server tests them (no TTL is an infinite one).
fn condition_allows(c: ExpireCondition, current: Option<i64>, when: i64) -> bool {
    let nx_ok = !c.nx || current.is_none();
    let xx_ok = !c.xx || current.is_some();
    let gt_ok = !c.gt || current.is_some_and(|current| when > current);
    let lt_ok = !c.lt || current.is_none_or(|current| when < current);
    nx_ok && xx_ok && gt_ok && lt_ok
}

/// The `SET` a replica receives: the value, and the TTL as an absolute deadline.
fn propagated_set(set: &Set, deadline_ms: Option<i64>) -> Command {
    let expiry = match (set.expiry, deadline_ms) {
        (SetExpiry::KeepTtl, _) => SetExpiry::KeepTtl,
        (_, Some(deadline)) => SetExpiry::PxAt(deadline),
        (_, None) => SetExpiry::NoTtl,
    };
    Command::Set(Set {
        key: set.key.clone(),
        value: set.value.clone(),
        condition: None,
        get: false,
        expiry,
    })
}

fn field_value(hash: &[(Vec<u8>, Vec<u8>)], field: &[u8]) -> Option<Vec<u8>> {
    hash.iter()
        .find(|(f, _)| f == field)
        .map(|(_, v)| v.clone())
}

fn count_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// What a fresh connection receives for `SUBSCRIBE`: one `subscribe` confirmation per channel
/// with the running count of distinct channels, here packed in one array. The node actor,
/// which owns connections, answers `SUBSCRIBE` itself.
fn subscribed(channels: &[Vec<u8>]) -> Reply {
    let mut seen: Vec<&[u8]> = Vec::new();
    let confirmations = channels.iter().map(|channel| {
        if !seen.contains(&channel.as_slice()) {
            seen.push(channel);
        }
        Reply::Array(Some(vec![
            Reply::bulk(b"subscribe".to_vec()),
            Reply::bulk(channel.clone()),
            Reply::Integer(count_i64(seen.len())),
        ]))
    });
    Reply::Array(Some(confirmations.collect()))
}
