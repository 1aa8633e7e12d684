//! A sweep: one round of the same request to every Redlock node (acquire, release, renew),
//! with one slot per node recording whether it was asked and what came of it.
//!
//! Nodes of the *sequential prefix* are asked one after another (the next once the previous
//! answered or timed out); the others are all asked at once when the sweep begins. A request
//! is tagged with the sweep's kind and parity, the try number and the node's index, so that
//! a late answer to an earlier sweep or try is recognised and ignored.

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

/// One node's part in a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// Not asked yet: a node of the sequential prefix waiting for its turn.
    Queued,
    /// Asked, try number `n` (0-based; only renewals try again).
    Sent(u8),
    /// It did what was asked (counts towards the quorum).
    Ok,
    /// It refused, failed or did not answer in time, for good.
    Failed,
}

/// How a node's try ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
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
    pub node: usize,
}

const NODE_BITS: u16 = 8;
const TRY_BITS: u16 = 2;
/// Tries per node are limited by the tag's try field.
pub const MAX_TRIES: u8 = 1 << TRY_BITS;

impl Tag {
    pub fn encode(self) -> u16 {
        let mut tag = self.kind.bits();
        tag = (tag << 1) | u16::from(self.parity);
        tag = (tag << TRY_BITS) | u16::from(self.try_no);
        (tag << NODE_BITS) | self.node as u16
    }

    pub fn decode(tag: u16) -> Option<Tag> {
        let node = (tag & ((1 << NODE_BITS) - 1)) as usize;
        let rest = tag >> NODE_BITS;
        let try_no = (rest & ((1 << TRY_BITS) - 1)) as u8;
        let parity = (rest >> TRY_BITS) & 1 == 1;
        let kind = *Kind::ALL.get((rest >> (TRY_BITS + 1)) as usize)?;
        Some(Tag {
            kind,
            parity,
            try_no,
            node,
        })
    }
}

/// One round of requests to every node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sweep {
    pub kind: Kind,
    /// Alternates between consecutive sweeps of the same kind.
    pub parity: bool,
    pub slots: Vec<Slot>,
    /// The engine's clock reading when the sweep began (T1); unused by releases.
    pub started_ms: i64,
    /// Renewals: nodes whose script really extended the lock (answered 1).
    pub extended: u8,
}

impl Sweep {
    pub fn new(kind: Kind, parity: bool, nodes: usize, started_ms: i64) -> Self {
        Sweep {
            kind,
            parity,
            slots: vec![Slot::Queued; nodes],
            started_ms,
            extended: 0,
        }
    }

    /// The tag of try `try_no` to node `node` in this sweep.
    pub fn tag(&self, node: usize, try_no: u8) -> Tag {
        Tag {
            kind: self.kind,
            parity: self.parity,
            try_no,
            node,
        }
    }

    /// Whether `tag` is the request this sweep is waiting for.
    pub fn expects(&self, tag: Tag) -> bool {
        tag.kind == self.kind
            && tag.parity == self.parity
            && self.slots.get(tag.node) == Some(&Slot::Sent(tag.try_no))
    }

    /// Marks the nodes that may be asked now as sent and returns them: every queued node past
    /// the sequential prefix, and the first queued node of the prefix if none of it is
    /// waiting for an answer.
    pub fn due_requests(&mut self, sequential: usize) -> Vec<usize> {
        let sequential = sequential.min(self.slots.len());
        let mut due = Vec::new();
        let prefix_busy = self.slots[..sequential]
            .iter()
            .any(|s| matches!(s, Slot::Sent(_)));
        if !prefix_busy {
            due.extend(
                self.slots[..sequential]
                    .iter()
                    .position(|s| *s == Slot::Queued),
            );
        }
        due.extend((sequential..self.slots.len()).filter(|&i| self.slots[i] == Slot::Queued));
        for &i in &due {
            self.slots[i] = Slot::Sent(0);
        }
        due
    }

    /// Records how node `node`'s current try ended. Returns the next try to send to it, if
    /// an error leaves tries (of `tries`) to spend.
    pub fn settle(&mut self, node: usize, outcome: Outcome, tries: u8) -> Option<u8> {
        let Slot::Sent(n) = self.slots[node] else {
            return None;
        };
        self.slots[node] = match outcome {
            Outcome::Ok => Slot::Ok,
            Outcome::Error if n + 1 < tries => Slot::Sent(n + 1),
            Outcome::Error | Outcome::Refused => Slot::Failed,
        };
        match self.slots[node] {
            Slot::Sent(next) => Some(next),
            _ => None,
        }
    }

    pub fn ok_count(&self) -> usize {
        self.slots.iter().filter(|s| **s == Slot::Ok).count()
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

    /// The requests still waiting for an answer (to cancel their timeouts).
    pub fn outstanding(&self) -> Vec<Tag> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Slot::Sent(n) => Some(self.tag(i, *n)),
                _ => None,
            })
            .collect()
    }

    /// Hashes the sweep with its start as time elapsed (`elapsed_ms`, already clamped).
    pub fn hash_relative(&self, elapsed_ms: i64, h: &mut FpHasher) {
        (self.kind, self.parity, &self.slots, self.extended).hash(h);
        if self.kind != Kind::Release {
            h.write_i64(elapsed_ms);
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
                    for node in [0, 1, 7, 255] {
                        let tag = Tag {
                            kind,
                            parity,
                            try_no,
                            node,
                        };
                        assert_eq!(Tag::decode(tag.encode()), Some(tag));
                    }
                }
            }
        }
    }

    #[test]
    fn a_sequential_prefix_is_asked_one_node_at_a_time_and_the_rest_at_once() {
        let mut s = Sweep::new(Kind::Acquire, false, 5, 0);
        assert_eq!(s.due_requests(3), vec![0, 3, 4]);
        assert_eq!(s.due_requests(3), Vec::<usize>::new());
        s.settle(0, Outcome::Refused, 1);
        assert_eq!(s.due_requests(3), vec![1]);
        s.settle(1, Outcome::Ok, 1);
        s.settle(3, Outcome::Ok, 1);
        assert_eq!(s.due_requests(3), vec![2]);
        assert!(s.resolved(2) && !s.resolved(3));
    }

    #[test]
    fn an_error_is_tried_again_until_the_tries_are_spent() {
        let mut s = Sweep::new(Kind::Renew, true, 1, 0);
        s.due_requests(1);
        assert_eq!(s.settle(0, Outcome::Error, 3), Some(1));
        assert_eq!(s.settle(0, Outcome::Error, 3), Some(2));
        assert_eq!(s.settle(0, Outcome::Error, 3), None);
        assert_eq!(s.slots[0], Slot::Failed);
        assert!(s.finished());
    }
}
