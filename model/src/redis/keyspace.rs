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
//!
//! The keys are a vector sorted by key (the few keys of a lock world make a binary search as
//! fast as a tree, and a copy one allocation). It compares, hashes and prints exactly as an
//! ordered map of the same entries would.
//!
//! A node's fingerprint needs its keys' deadlines relative to the node's clock at every
//! instant, but its keys and values only when they change: [`Keyspace::content_hash`] is
//! the hash of the keys and values alone, kept once [`Keyspace::seal`] computed it and
//! dropped by every write (all writes go through this module), so it always equals a
//! computation from scratch.

use lockcheck_sim::{Fingerprint, FpHasher, Lanes};
use std::fmt;
use std::hash::{Hash, Hasher};

/// A hash's `(field, value)` pairs in insertion order, fields distinct.
pub type Fields = Vec<(Vec<u8>, Vec<u8>)>;

/// A stored value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A string (binary safe).
    String(Vec<u8>),
    /// A hash: `(field, value)` pairs in insertion order, fields distinct.
    Hash(Fields),
    /// A list, head first (never empty: Redis deletes an emptied list's key).
    List(Vec<Vec<u8>>),
    /// A sorted set: `(member, score)` pairs ordered by score, then member, members distinct
    /// (never empty). Scores are integers here, where Redis keeps doubles: the lock scripts
    /// store millisecond timestamps, and a score that is not an integer is refused as
    /// unmodelled.
    SortedSet(Vec<(Vec<u8>, i64)>),
}

/// A key's value and its optional absolute expiry deadline (node wall clock, ms).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyEntry {
    /// The value.
    pub value: Value,
    /// The absolute deadline; the key is gone once the clock is past it.
    pub deadline_ms: Option<i64>,
}

impl KeyEntry {
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
#[derive(Clone, Default)]
pub struct Keyspace {
    /// Sorted by key, keys distinct.
    entries: Vec<(Vec<u8>, KeyEntry)>,
    /// The hash of the keys and values, if computed since the last write.
    /// As [`Lanes`], not a `u128`, whose 16-byte alignment would grow every node state
    /// (and the process state that holds it).
    content: Option<Lanes>,
}

impl PartialEq for Keyspace {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Eq for Keyspace {}

impl Hash for Keyspace {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.entries.hash(state)
    }
}

impl fmt::Debug for Keyspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Map<'a>(&'a [(Vec<u8>, KeyEntry)]);
        impl fmt::Debug for Map<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map()
                    .entries(self.0.iter().map(|(k, v)| (k, v)))
                    .finish()
            }
        }
        f.debug_struct("Keyspace")
            .field("entries", &Map(&self.entries))
            .finish()
    }
}

impl Keyspace {
    /// An empty keyspace.
    pub fn new() -> Keyspace {
        Keyspace::default()
    }

    /// The hash of the stored keys and values in key order (deadlines left out): kept if
    /// [`Keyspace::seal`] ran since the last write, computed otherwise.
    pub fn content_hash(&self) -> Fingerprint {
        self.content
            .map_or_else(|| self.hash_content(), Fingerprint::from)
    }

    /// Computes and keeps [`Keyspace::content_hash`] (until the next write).
    pub fn seal(&mut self) {
        if self.content.is_none() {
            self.content = Some(self.hash_content().into());
        }
    }

    fn hash_content(&self) -> Fingerprint {
        let mut h = FpHasher::new();
        for (key, entry) in &self.entries {
            key.hash(&mut h);
            entry.value.hash(&mut h);
        }
        h.finish_wide()
    }

    /// Every stored entry in key order, expired ones included (what a snapshot would hold).
    pub fn entries(&self) -> impl Iterator<Item = (&[u8], &KeyEntry)> {
        self.entries
            .iter()
            .map(|(key, entry)| (key.as_slice(), entry))
    }

    /// How many keys are stored, expired ones included (`DBSIZE`).
    pub fn stored_len(&self) -> usize {
        self.entries.len()
    }

    /// The entry a client would see at `now_ms`, without touching anything.
    pub fn peek(&self, key: &[u8], now_ms: i64) -> Option<&KeyEntry> {
        self.get(key).filter(|e| !e.is_expired(now_ms))
    }

    /// Active expiry on a master: deletes every key expired at `now_ms` and returns the keys
    /// deleted, each of which is owed to the replicas as a `DEL`.
    pub fn purge_expired(&mut self, now_ms: i64) -> Vec<Vec<u8>> {
        let mut expired = Vec::new();
        self.content = None;
        self.entries.retain_mut(|(key, entry)| {
            let gone = entry.is_expired(now_ms);
            if gone {
                expired.push(std::mem::take(key));
            }
            !gone
        });
        expired
    }

    /// Whether `key` is logically absent for `access` at `now_ms`; a master deletes an expired
    /// key here and returns `Expiry::Deleted` so the caller propagates a `DEL`.
    pub(crate) fn expire_if_needed(&mut self, key: &[u8], now_ms: i64, access: Access) -> Expiry {
        let expired = match self.get(key) {
            None => return Expiry::Absent,
            Some(entry) => entry.is_expired(now_ms),
        };
        match (expired, access) {
            (false, _) | (true, Access::ReplicaStream) => Expiry::Live,
            (true, Access::ReplicaClient) => Expiry::Hidden,
            (true, Access::Master) => {
                self.remove(key);
                Expiry::Deleted
            }
        }
    }

    /// Where `key` is, or where it would go.
    fn find(&self, key: &[u8]) -> Result<usize, usize> {
        self.entries
            .binary_search_by(|(k, _)| k.as_slice().cmp(key))
    }

    pub(crate) fn get(&self, key: &[u8]) -> Option<&KeyEntry> {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    pub(crate) fn get_mut(&mut self, key: &[u8]) -> Option<&mut KeyEntry> {
        self.content = None;
        self.find(key).ok().map(|i| &mut self.entries[i].1)
    }

    pub(crate) fn insert(&mut self, key: &[u8], entry: KeyEntry) {
        self.content = None;
        match self.find(key) {
            Ok(i) => self.entries[i].1 = entry,
            Err(i) => self.entries.insert(i, (key.to_vec(), entry)),
        }
    }

    pub(crate) fn remove(&mut self, key: &[u8]) -> bool {
        self.content = None;
        self.find(key).map(|i| self.entries.remove(i)).is_ok()
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

#[cfg(test)]
mod tests {
    use super::*;
    use lockcheck_sim::fingerprint_of;
    use std::collections::BTreeMap;

    /// The ordered map the keyspace once was, to compare against.
    #[derive(Debug, Hash)]
    struct Keyspace {
        entries: BTreeMap<Vec<u8>, KeyEntry>,
    }

    fn entry(value: &str, deadline_ms: Option<i64>) -> KeyEntry {
        KeyEntry {
            value: Value::String(value.into()),
            deadline_ms,
        }
    }

    #[test]
    fn it_hashes_and_prints_as_an_ordered_map_of_its_entries() {
        let mut keys = super::Keyspace::new();
        let mut map = BTreeMap::new();
        for (key, value, deadline) in [("lock", "p1", Some(30)), ("a", "x", None), ("m", "y", None)]
        {
            keys.insert(key.as_bytes(), entry(value, deadline));
            map.insert(key.as_bytes().to_vec(), entry(value, deadline));
        }
        keys.insert(b"a", entry("z", Some(5)));
        map.insert(b"a".to_vec(), entry("z", Some(5)));
        assert!(keys.remove(b"m") && !keys.remove(b"m"));
        map.remove(b"m".as_slice());
        let map = Keyspace { entries: map };
        assert_eq!(format!("{keys:?}"), format!("{map:?}"));
        assert_eq!(fingerprint_of(&keys), fingerprint_of(&map));
        let order: Vec<&[u8]> = keys.entries().map(|(k, _)| k).collect();
        assert_eq!(order, [b"a".as_slice(), b"lock".as_slice()]);
        let unsealed = keys.content_hash();
        keys.seal();
        assert_eq!(keys.content_hash(), unsealed);
        assert_eq!(keys.purge_expired(10), vec![b"a".to_vec()]);
        assert_ne!(
            keys.content_hash(),
            unsealed,
            "a write drops the sealed hash"
        );
        assert_eq!(keys.stored_len(), 1);
        assert!(keys.peek(b"lock", 30).is_some() && keys.peek(b"lock", 31).is_none());
    }
}
