//! One node's keyspace: keys with values and absolute expiry deadlines, expired lazily.
//!
//! A key's TTL is kept as an absolute deadline in milliseconds on the node's wall clock. A key
//! whose deadline has passed is *logically* gone, but it stays in the map until an access finds
//! it (lazy expiry) or [`Keyspace::purge_expired`] runs (active expiry). Exactly as in Redis
//! 7.0 (`keyIsExpired`: `now > when`), a key is still there at its deadline and gone from
//! the millisecond after.
//!
//! What an access does with an expired key depends on who accesses it (`Access`): a master
//! deletes it and owes its replicas a `DEL`; a read-only replica serving a client hides it but
//! keeps it (replicas never expire keys themselves); a replica applying its master's stream
//! sees every key as live, because the master decides when keys die.
//!
//! Hashes keep their fields in insertion order, as a small hash (listpack encoding) does in
//! Redis, so `HKEYS` answers in the real server's order.

use std::collections::BTreeMap;

/// A hash's `(field, value)` pairs in insertion order, fields distinct.
pub type Fields = Vec<(Vec<u8>, Vec<u8>)>;

/// A stored value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A string (binary safe).
    String(Vec<u8>),
    /// A hash: `(field, value)` pairs in insertion order, fields distinct.
    Hash(Fields),
}

/// A key's value and its optional absolute expiry deadline (node wall clock, ms).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The value.
    pub value: Value,
    /// The absolute deadline; the key is gone once the clock is past it.
    pub deadline_ms: Option<i64>,
}

impl Entry {
    /// Whether the key is logically gone at `now_ms` (`now > deadline`, as in Redis 7.0).
    pub fn is_expired(&self, now_ms: i64) -> bool {
        self.deadline_ms.is_some_and(|deadline| now_ms > deadline)
    }
}

/// The role a node plays for a normal client's command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A master: an access that finds an expired key deletes it and propagates a `DEL`.
    Master,
    /// A read-only replica: writes are refused with `READONLY`, expired keys are hidden from
    /// reads but kept. What the master sends goes through [`Keyspace::apply_replicated`].
    Replica,
}

/// Who is accessing the keyspace, which decides what an expired key looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Access {
    /// A client of a master: expired keys are deleted (and a `DEL` is propagated).
    Master,
    /// A client of a read-only replica: expired keys are hidden, never deleted.
    ReplicaClient,
    /// A replica applying its master's stream: no key is expired.
    ReplicaStream,
}

impl From<Role> for Access {
    fn from(role: Role) -> Access {
        match role {
            Role::Master => Access::Master,
            Role::Replica => Access::ReplicaClient,
        }
    }
}

/// One node's keys.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Keyspace {
    entries: BTreeMap<Vec<u8>, Entry>,
}

impl Keyspace {
    /// An empty keyspace.
    pub fn new() -> Keyspace {
        Keyspace::default()
    }

    /// Every stored entry in key order, expired ones included (what a snapshot would hold).
    pub fn entries(&self) -> impl Iterator<Item = (&[u8], &Entry)> {
        self.entries
            .iter()
            .map(|(key, entry)| (key.as_slice(), entry))
    }

    /// How many keys are stored, expired ones included (`DBSIZE`).
    pub fn stored_len(&self) -> usize {
        self.entries.len()
    }

    /// The entry a client would see at `now_ms`, without touching anything.
    pub fn peek(&self, key: &[u8], now_ms: i64) -> Option<&Entry> {
        self.entries.get(key).filter(|e| !e.is_expired(now_ms))
    }

    /// Active expiry on a master: deletes every key expired at `now_ms` and returns the keys
    /// deleted, each of which is owed to the replicas as a `DEL`.
    pub fn purge_expired(&mut self, now_ms: i64) -> Vec<Vec<u8>> {
        let expired: Vec<Vec<u8>> = self
            .entries
            .iter()
            .filter(|(_, entry)| entry.is_expired(now_ms))
            .map(|(key, _)| key.clone())
            .collect();
        for key in &expired {
            self.entries.remove(key);
        }
        expired
    }

    /// Whether `key` is logically absent for `access` at `now_ms`; a master deletes an expired
    /// key here and returns `Expiry::Deleted` so the caller propagates a `DEL`.
    pub(crate) fn expire_if_needed(&mut self, key: &[u8], now_ms: i64, access: Access) -> Expiry {
        let expired = match self.entries.get(key) {
            None => return Expiry::Absent,
            Some(entry) => entry.is_expired(now_ms),
        };
        match (expired, access) {
            (false, _) | (true, Access::ReplicaStream) => Expiry::Live,
            (true, Access::ReplicaClient) => Expiry::Hidden,
            (true, Access::Master) => {
                self.entries.remove(key);
                Expiry::Deleted
            }
        }
    }

    pub(crate) fn get(&self, key: &[u8]) -> Option<&Entry> {
        self.entries.get(key)
    }

    pub(crate) fn get_mut(&mut self, key: &[u8]) -> Option<&mut Entry> {
        self.entries.get_mut(key)
    }

    pub(crate) fn insert(&mut self, key: &[u8], entry: Entry) {
        self.entries.insert(key.to_vec(), entry);
    }

    pub(crate) fn remove(&mut self, key: &[u8]) -> bool {
        self.entries.remove(key).is_some()
    }
}

/// What an access found about a key's expiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expiry {
    /// No such key stored.
    Absent,
    /// Stored and live for this access.
    Live,
    /// Expired and hidden (a replica's client), still stored.
    Hidden,
    /// Expired and just deleted by a master: a `DEL` is owed to the replicas.
    Deleted,
}
