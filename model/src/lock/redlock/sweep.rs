//! A sweep: one round of the same request to every Redlock node (acquire, release, renew),
//! with one slot per node recording whether it was asked and what came of it.
//!
//! Nodes of the *sequential prefix* are asked one after another (the next once the previous
//! answered or timed out); the others are all asked at once when the sweep begins. A request
//! is tagged with the sweep's kind and parity and the try number, so that a late answer to an
//! earlier sweep or try is recognised and ignored; which node answered is the answer's
//! sender. A slot waiting for an answer holds its own deadline on the engine's monotonic
//! clock, and the engine keeps one timer at the earliest of them (see `Redlock::arm`), so
//! that requests sent together time out together, in one event.
//!
//! Nothing in a sweep names a node by its process id, and nothing in a message or timer
//! names it by its position: a renaming of interchangeable nodes permutes the slots and
//! leaves every tag as it is (`NodeSweep::permute`, for symmetry reduction).

use lockcheck_sim::FpHasher;
use std::hash::{Hash, Hasher};

/// What a sweep asks every node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `SET key owner NX PX ttl`.
    Acquire,
    /// The owner-checked compare-and-delete script.
    Release,
    /// The owner-checked compare-and-pexpire script (the watchdog).
    Renew,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Acquire, Kind::Release, Kind::Renew];

    fn bits(self) -> u16 {
        self as u16
    }
}

/// The deadline of a try that never times out (a library without a request timeout, such
/// as node-redlock): it is never overdue, arms no timer and hashes as one value.
pub(crate) const NO_DEADLINE: i64 = i64::MAX;

/// One node's part in a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// Not asked yet: a node of the sequential prefix waiting for its turn.
    Queued,
    /// Asked, try number `try_no` (0-based; only renewals try again), without an answer
    /// yet; the try fails once the engine's monotonic clock reaches `deadline_ms`.
    Sent { try_no: u8, deadline_ms: i64 },
    /// It did what was asked (counts towards the quorum).
    Ok,
    /// It refused, failed or did not answer in time, for good.
    Failed,
}

/// How a node's try ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TryOutcome {
    /// Counts as done.
    Ok,
    /// A definite "no" (`SET NX` found the key taken): trying again would not help.
    Refused,
    /// An error reply or no answer in time (the seed's exceptions): a renewal tries again.
    Error,
}

/// A request tag, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    pub kind: Kind,
    pub parity: bool,
    pub try_no: u8,
}

const TRY_BITS: u16 = 2;
/// Tries per node are limited by the tag's try field.
pub(crate) const MAX_TRIES: u8 = 1 << TRY_BITS;

impl Tag {
    pub fn encode(self) -> u16 {
        let tag = (self.kind.bits() << 1) | u16::from(self.parity);
        (tag << TRY_BITS) | u16::from(self.try_no)
    }

    pub fn decode(tag: u16) -> Option<Tag> {
        let try_no = (tag & ((1 << TRY_BITS) - 1)) as u8;
        let parity = (tag >> TRY_BITS) & 1 == 1;
        let kind = *Kind::ALL.get((tag >> (TRY_BITS + 1)) as usize)?;
        Some(Tag {
            kind,
            parity,
            try_no,
        })
    }
}

/// Time elapsed since a sweep began, as a fingerprint takes it: hashed up to `ceiling_ms`
/// (beyond it every outcome is fixed), linearly below (`FpHasher::write_time_since`).
#[derive(Clone, Copy, Debug)]
pub struct Elapsed {
    pub ms: i64,
    pub ceiling_ms: i64,
}

/// One round of requests to every node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeSweep {
    pub kind: Kind,
    /// Alternates between consecutive sweeps of the same kind.
    pub parity: bool,
    pub slots: Vec<Slot>,
    /// The engine's clock reading when the sweep began (T1); unused by releases.
    pub started_ms: i64,
    /// Renewals: nodes whose script really extended the lock (answered 1).
    pub extended: u8,
}

impl NodeSweep {
    pub fn new(kind: Kind, parity: bool, nodes: usize, started_ms: i64) -> Self {
        NodeSweep {
            kind,
            parity,
            slots: vec![Slot::Queued; nodes],
            started_ms,
            extended: 0,
        }
    }

    /// The tag of try `try_no` in this sweep.
    pub fn tag(&self, try_no: u8) -> Tag {
        Tag {
            kind: self.kind,
            parity: self.parity,
            try_no,
        }
    }

    /// Whether `tag`, answered by the node in position `node`, is what this sweep waits for.
    pub fn expects(&self, tag: Tag, node: usize) -> bool {
        tag.kind == self.kind
            && tag.parity == self.parity
            && matches!(self.slots.get(node), Some(Slot::Sent { try_no, .. }) if *try_no == tag.try_no)
    }

    /// Marks the nodes that may be asked now as sent, with `deadline_ms`, and returns them:
    /// every queued node past the sequential prefix, and the first queued node of the prefix
    /// if none of it is waiting for an answer.
    pub(crate) fn due_requests(&mut self, sequential: usize, deadline_ms: i64) -> Vec<usize> {
        let sequential = sequential.min(self.slots.len());
        let mut due = Vec::new();
        let prefix_busy = self.slots[..sequential]
            .iter()
            .any(|s| matches!(s, Slot::Sent { .. }));
        if !prefix_busy {
            due.extend(
                self.slots[..sequential]
                    .iter()
                    .position(|s| *s == Slot::Queued),
            );
        }
        due.extend((sequential..self.slots.len()).filter(|&i| self.slots[i] == Slot::Queued));
        for &i in &due {
            self.slots[i] = Slot::Sent {
                try_no: 0,
                deadline_ms,
            };
        }
        due
    }

    /// Records how node `node`'s current try ended. Returns the next try to send to it, if
    /// an error leaves tries (of `tries`) to spend; that try's deadline is `deadline_ms`.
    pub fn settle(
        &mut self,
        node: usize,
        outcome: TryOutcome,
        tries: u8,
        deadline_ms: i64,
    ) -> Option<u8> {
        let Slot::Sent { try_no: n, .. } = self.slots[node] else {
            return None;
        };
        self.slots[node] = match outcome {
            TryOutcome::Ok => Slot::Ok,
            TryOutcome::Error if n + 1 < tries => Slot::Sent {
                try_no: n + 1,
                deadline_ms,
            },
            TryOutcome::Error | TryOutcome::Refused => Slot::Failed,
        };
        match self.slots[node] {
            Slot::Sent { try_no, .. } => Some(try_no),
            _ => None,
        }
    }

    /// The nodes whose try is past its deadline at `now_ms`, with the try.
    pub fn overdue(&self, now_ms: i64) -> Vec<(usize, u8)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match *s {
                Slot::Sent {
                    try_no,
                    deadline_ms,
                } if deadline_ms <= now_ms => Some((i, try_no)),
                _ => None,
            })
            .collect()
    }

    /// The earliest deadline of a try still waiting for its answer.
    pub(crate) fn next_deadline(&self) -> Option<i64> {
        self.slots
            .iter()
            .filter_map(|s| match *s {
                Slot::Sent { deadline_ms, .. } if deadline_ms != NO_DEADLINE => Some(deadline_ms),
                _ => None,
            })
            .min()
    }

    /// The slots with the node in position `i` moved to position `to[i]`.
    pub fn permute(&mut self, to: &[usize]) {
        let old = self.slots.clone();
        for (i, slot) in old.into_iter().enumerate() {
            self.slots[to[i]] = slot;
        }
    }

    pub(crate) fn ok_count(&self) -> usize {
        self.slots.iter().filter(|s| **s == Slot::Ok).count()
    }

    /// The nodes that refused, failed or did not answer in time.
    pub(crate) fn failed_count(&self) -> usize {
        self.slots.iter().filter(|s| **s == Slot::Failed).count()
    }

    /// Every node answered, failed or timed out.
    pub fn finished(&self) -> bool {
        self.resolved(self.slots.len())
    }

    /// The first `n` nodes answered, failed or timed out.
    pub fn resolved(&self, n: usize) -> bool {
        self.slots[..n.min(self.slots.len())]
            .iter()
            .all(|s| matches!(s, Slot::Ok | Slot::Failed))
    }

    /// Hashes the sweep with its start as time elapsed (`elapsed_ms`, already clamped) and
    /// each deadline as the time left until it on the monotonic clock at `mono_now_ms` (a
    /// deadline already passed as 0: every passed deadline is settled alike when the timer
    /// fires).
    pub fn hash_relative(&self, elapsed: Elapsed, mono_now_ms: i64, h: &mut FpHasher) {
        (self.kind, self.parity, self.extended).hash(h);
        for i in 0..self.slots.len() {
            self.hash_slot(i, mono_now_ms, h);
        }
        if self.kind != Kind::Release {
            h.write_time_since(elapsed.ms, elapsed.ceiling_ms);
        }
    }

    /// Hashes the slot in position `i`, its deadline as the time left at `mono_now_ms`.
    pub(crate) fn hash_slot(&self, i: usize, mono_now_ms: i64, h: &mut FpHasher) {
        match self.slots[i] {
            Slot::Sent {
                try_no,
                deadline_ms,
            } if deadline_ms == NO_DEADLINE => (1u8, try_no, -1i64).hash(h),
            Slot::Sent {
                try_no,
                deadline_ms,
            } => {
                (1u8, try_no).hash(h);
                h.write_time_left(deadline_ms - mono_now_ms, 0);
            }
            Slot::Queued => h.write_u8(0),
            Slot::Ok => h.write_u8(2),
            Slot::Failed => h.write_u8(3),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip() {
        for kind in Kind::ALL {
            for parity in [false, true] {
                for try_no in 0..MAX_TRIES {
                    let tag = Tag {
                        kind,
                        parity,
                        try_no,
                    };
                    assert_eq!(Tag::decode(tag.encode()), Some(tag));
                }
            }
        }
    }

    #[test]
    fn a_sequential_prefix_is_asked_one_node_at_a_time_and_the_rest_at_once() {
        let mut s = NodeSweep::new(Kind::Acquire, false, 5, 0);
        assert_eq!(s.due_requests(3, 100), vec![0, 3, 4]);
        assert_eq!(s.due_requests(3, 100), Vec::<usize>::new());
        s.settle(0, TryOutcome::Refused, 1, 0);
        assert_eq!(s.due_requests(3, 200), vec![1]);
        s.settle(1, TryOutcome::Ok, 1, 0);
        s.settle(3, TryOutcome::Ok, 1, 0);
        assert_eq!(s.due_requests(3, 300), vec![2]);
        assert!(s.resolved(2) && !s.resolved(3));
        assert_eq!(s.next_deadline(), Some(100));
        assert_eq!(s.overdue(99), vec![]);
        assert_eq!(s.overdue(100), vec![(4, 0)]);
        assert_eq!(s.overdue(300), vec![(2, 0), (4, 0)]);
    }

    #[test]
    fn an_error_is_tried_again_until_the_tries_are_spent() {
        let mut s = NodeSweep::new(Kind::Renew, true, 1, 0);
        s.due_requests(1, 10);
        assert_eq!(s.settle(0, TryOutcome::Error, 3, 20), Some(1));
        assert_eq!(s.next_deadline(), Some(20));
        assert_eq!(s.settle(0, TryOutcome::Error, 3, 30), Some(2));
        assert_eq!(s.settle(0, TryOutcome::Error, 3, 40), None);
        assert_eq!(s.slots[0], Slot::Failed);
        assert_eq!(s.next_deadline(), None);
        assert!(s.finished());
    }

    #[test]
    fn permuting_moves_each_slot_to_its_new_position() {
        let mut s = NodeSweep::new(Kind::Acquire, false, 3, 0);
        s.due_requests(0, 10);
        s.settle(0, TryOutcome::Ok, 1, 0);
        s.settle(1, TryOutcome::Refused, 1, 0);
        s.permute(&[2, 0, 1]);
        let sent = Slot::Sent {
            try_no: 0,
            deadline_ms: 10,
        };
        assert_eq!(s.slots, vec![Slot::Failed, sent, Slot::Ok]);
    }
}
