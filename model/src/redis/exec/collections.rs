//! Lists and sorted sets run against the keyspace: each command as the server runs it, a
//! key emptied by a removal deleted (Redis never keeps an empty list or sorted set), every
//! write that changed something propagated as given (its effect does not depend on the
//! replica's clock). One difference: a `ZINCRBY` by 0 of an existing member is propagated,
//! where the server (nothing changed) propagates nothing.

use super::super::args::{parse_i64, NOT_AN_INTEGER, WRONGTYPE};
use super::super::collection_command::{kept_score, ListOp, SortedSetOp};
use super::super::command::Command;
use super::super::keyspace::{KeyEntry, Value};
use super::super::reply::Reply;
use super::{count_i64, Execution};

/// A sorted set's `(member, score)` pairs.
type Members = Vec<(Vec<u8>, i64)>;

impl Execution<'_> {
    pub(super) fn list(&mut self, op: &ListOp) -> Result<Reply, String> {
        let reply = match op {
            ListOp::RPush { key, elements } => {
                let list = self.write_list(key)?;
                list.extend(elements.iter().cloned());
                Reply::Integer(count_i64(list.len()))
            }
            ListOp::LPop { key } => {
                let Some(list) = self.read_list(key)? else {
                    return Ok(Reply::nil());
                };
                let head = list.first().cloned();
                self.mutate_list(key, |list| {
                    list.remove(0);
                });
                Reply::Bulk(head)
            }
            ListOp::LIndex { key, index } => {
                let Some(list) = self.read_list(key)? else {
                    return Ok(Reply::nil());
                };
                let index = parse_i64(index).ok_or(NOT_AN_INTEGER)?;
                let at = resolve(index, list.len());
                return Ok(Reply::Bulk(at.and_then(|i| list.get(i)).cloned()));
            }
            ListOp::LRange { key, start, stop } => {
                let items = self.read_list(key)?.cloned().unwrap_or_default();
                let range = ranks(*start, *stop, items.len());
                return Ok(Reply::Array(Some(
                    items[range].iter().cloned().map(Reply::bulk).collect(),
                )));
            }
            ListOp::LRem {
                key,
                count,
                element,
            } => {
                if self.read_list(key)?.is_none() {
                    return Ok(Reply::Integer(0));
                }
                let mut removed = 0;
                self.mutate_list(key, |list| removed = remove_matching(list, *count, element));
                if removed == 0 {
                    return Ok(Reply::Integer(0));
                }
                Reply::Integer(removed)
            }
        };
        self.emit(Command::List(op.clone()));
        Ok(reply)
    }

    pub(super) fn sorted_set(&mut self, op: &SortedSetOp) -> Result<Reply, String> {
        let reply = match op {
            SortedSetOp::ZAdd { key, pairs } => {
                let set = self.write_sorted_set(key)?;
                let before = set.clone();
                let mut added = 0;
                for (score, member) in pairs {
                    added += i64::from(place(set, member, |_| *score));
                }
                if *set == before {
                    // Nothing changed: nothing owed to the replicas (`server.dirty` is 0).
                    return Ok(Reply::Integer(0));
                }
                Reply::Integer(added)
            }
            SortedSetOp::ZIncrBy {
                key,
                increment,
                member,
            } => {
                let set = self.write_sorted_set(key)?;
                let old = score_of(set, member).unwrap_or(0);
                let new = kept_score(old.checked_add(*increment))?;
                place(set, member, |_| new);
                Reply::bulk(new.to_string())
            }
            SortedSetOp::ZRem { key, members } => {
                if self.read_sorted_set(key)?.is_none() {
                    return Ok(Reply::Integer(0));
                }
                let mut removed = 0;
                self.mutate_sorted_set(key, |set| {
                    let before = set.len();
                    set.retain(|(m, _)| !members.contains(m));
                    removed = count_i64(before - set.len());
                });
                if removed == 0 {
                    return Ok(Reply::Integer(0));
                }
                Reply::Integer(removed)
            }
            SortedSetOp::ZScore { key, member } => {
                let set = self.read_sorted_set(key)?;
                let score = set.and_then(|set| score_of(set, member));
                return Ok(Reply::Bulk(score.map(|s| s.to_string().into_bytes())));
            }
            SortedSetOp::ZRange { key, start, stop } => {
                let set = self.read_sorted_set(key)?.cloned().unwrap_or_default();
                let range = ranks(*start, *stop, set.len());
                return Ok(Reply::Array(Some(
                    set[range]
                        .iter()
                        .map(|(m, _)| Reply::bulk(m.clone()))
                        .collect(),
                )));
            }
        };
        self.emit(Command::SortedSet(op.clone()));
        Ok(reply)
    }

    fn read_list(&mut self, key: &[u8]) -> Result<Option<&Vec<Vec<u8>>>, String> {
        match self.lookup(key).map(|entry| &entry.value) {
            None => Ok(None),
            Some(Value::List(list)) => Ok(Some(list)),
            Some(_) => Err(WRONGTYPE.to_string()),
        }
    }

    fn read_sorted_set(&mut self, key: &[u8]) -> Result<Option<&Members>, String> {
        match self.lookup(key).map(|entry| &entry.value) {
            None => Ok(None),
            Some(Value::SortedSet(set)) => Ok(Some(set)),
            Some(_) => Err(WRONGTYPE.to_string()),
        }
    }

    /// The list at `key` for appending, created empty (and without a TTL) if absent.
    fn write_list(&mut self, key: &[u8]) -> Result<&mut Vec<Vec<u8>>, String> {
        self.create_if_absent(key, Value::List(Vec::new()));
        match self.ks.get_mut(key).map(|entry| &mut entry.value) {
            Some(Value::List(list)) => Ok(list),
            _ => Err(WRONGTYPE.to_string()),
        }
    }

    /// The sorted set at `key` for adding, created empty (and without a TTL) if absent.
    fn write_sorted_set(&mut self, key: &[u8]) -> Result<&mut Members, String> {
        self.create_if_absent(key, Value::SortedSet(Vec::new()));
        match self.ks.get_mut(key).map(|entry| &mut entry.value) {
            Some(Value::SortedSet(set)) => Ok(set),
            _ => Err(WRONGTYPE.to_string()),
        }
    }

    fn create_if_absent(&mut self, key: &[u8], empty: Value) {
        if !self.live(key) {
            let entry = KeyEntry {
                value: empty,
                deadline_ms: None,
            };
            self.ks.insert(key, entry);
        }
    }

    /// Changes the live list at `key`, deleting the key if that empties it.
    fn mutate_list(&mut self, key: &[u8], change: impl FnOnce(&mut Vec<Vec<u8>>)) {
        if let Some(KeyEntry {
            value: Value::List(list),
            ..
        }) = self.ks.get_mut(key)
        {
            change(list);
            if list.is_empty() {
                self.ks.remove(key);
            }
        }
    }

    /// Changes the live sorted set at `key`, deleting the key if that empties it.
    fn mutate_sorted_set(&mut self, key: &[u8], change: impl FnOnce(&mut Members)) {
        if let Some(KeyEntry {
            value: Value::SortedSet(set),
            ..
        }) = self.ks.get_mut(key)
        {
            change(set);
            if set.is_empty() {
                self.ks.remove(key);
            }
        }
    }
}

/// A list index as the server resolves it (negative from the end), if it is in range.
fn resolve(index: i64, len: usize) -> Option<usize> {
    let len = count_i64(len);
    let i = if index < 0 { len + index } else { index };
    (0..len).contains(&i).then_some(i as usize)
}

/// The positions `start..=stop` select (`LRANGE`, `ZRANGE` by rank), clamped as the server
/// clamps them; empty when they cross or start past the end.
fn ranks(start: i64, stop: i64, len: usize) -> std::ops::Range<usize> {
    let n = count_i64(len);
    let start = if start < 0 { (n + start).max(0) } else { start };
    let stop = if stop < 0 { n + stop } else { stop.min(n - 1) };
    if start > stop || start >= n {
        return 0..0;
    }
    start as usize..stop as usize + 1
}

/// `LREM`: removes up to `|count|` elements equal to `element` (all if 0), from the head
/// when `count >= 0`, from the tail otherwise; how many.
fn remove_matching(list: &mut Vec<Vec<u8>>, count: i64, element: &[u8]) -> i64 {
    let limit = if count == 0 {
        u64::MAX
    } else {
        count.unsigned_abs()
    };
    let mut removed = 0;
    let positions: Vec<usize> = if count < 0 {
        (0..list.len()).rev().collect()
    } else {
        (0..list.len()).collect()
    };
    let mut doomed = Vec::new();
    for i in positions {
        if removed < limit && list[i] == element {
            doomed.push(i);
            removed += 1;
        }
    }
    doomed.sort_unstable();
    for i in doomed.into_iter().rev() {
        list.remove(i);
    }
    removed as i64
}

fn score_of(set: &Members, member: &[u8]) -> Option<i64> {
    set.iter().find(|(m, _)| m == member).map(|&(_, s)| s)
}

/// Sets `member`'s score to `score(old)` keeping the order (score, then member); whether
/// the member is new.
fn place(set: &mut Members, member: &[u8], score: impl FnOnce(Option<i64>) -> i64) -> bool {
    let old = set.iter().position(|(m, _)| m == member);
    let new_score = score(old.map(|i| set[i].1));
    if let Some(i) = old {
        set.remove(i);
    }
    let at = set.partition_point(|(m, s)| (*s, m.as_slice()) < (new_score, member));
    set.insert(at, (member.to_vec(), new_score));
    old.is_none()
}
