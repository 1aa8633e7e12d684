//! The simulated network: per-link delay sets, loss, FIFO or reordering links, partitions.
//!
//! A message's delay is a *choice* among the link's delay values (explored exhaustively,
//! sampled in random mode), made right after the send. A lossy link may also lose it, within
//! the envelope's loss budget. A FIFO link delivers in send order (a later message waits for
//! the head even if its own delay is shorter); a reordering link delivers any due message.
//! An active partition drops messages on its blocked links, both those already in flight
//! when it begins and those sent while it lasts.

use super::actor::ProcessId;
use crate::fingerprint::{Fingerprint, FpHasher};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// How one directed link behaves.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LinkSpec {
    /// The delays a message may take, in ms (non-empty, ascending).
    pub delays_ms: Vec<u64>,
    /// Whether a message may be lost (spends the envelope's loss budget).
    pub lossy: bool,
    /// Deliver in send order (TCP-like) or in any order once due.
    pub fifo: bool,
}

impl LinkSpec {
    /// A FIFO, lossless link with a fixed delay.
    pub fn fixed(delay_ms: u64) -> Self {
        LinkSpec {
            delays_ms: vec![delay_ms],
            lossy: false,
            fifo: true,
        }
    }

    /// A FIFO, lossless link whose delay is any of `delays_ms`.
    pub fn choice(delays_ms: impl IntoIterator<Item = u64>) -> Self {
        let mut delays_ms: Vec<u64> = delays_ms.into_iter().collect();
        delays_ms.sort_unstable();
        delays_ms.dedup();
        assert!(
            !delays_ms.is_empty(),
            "a link needs at least one delay value"
        );
        LinkSpec {
            delays_ms,
            lossy: false,
            fifo: true,
        }
    }

    /// Delays `min_ms, min_ms + step_ms, ...` up to and including `max_ms`.
    pub fn range(min_ms: u64, max_ms: u64, step_ms: u64) -> Self {
        assert!(min_ms <= max_ms && step_ms > 0, "bad delay range");
        let mut values: Vec<u64> = (min_ms..=max_ms).step_by(step_ms as usize).collect();
        if values.last() != Some(&max_ms) {
            values.push(max_ms);
        }
        Self::choice(values)
    }

    pub fn lossy(mut self) -> Self {
        self.lossy = true;
        self
    }

    pub fn reordering(mut self) -> Self {
        self.fifo = false;
        self
    }

    /// Whether sending on this link needs a choice (several delays, or a possible loss).
    pub fn is_choice(&self, losses_left: bool) -> bool {
        self.delays_ms.len() > 1 || (self.lossy && losses_left)
    }
}

/// Link behaviour for every ordered pair of processes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Network {
    pub default_link: LinkSpec,
    /// Overrides for particular directed links, searched in order.
    pub links: Vec<((ProcessId, ProcessId), LinkSpec)>,
}

impl Default for Network {
    fn default() -> Self {
        Network {
            default_link: LinkSpec::fixed(1),
            links: Vec::new(),
        }
    }
}

impl Network {
    pub fn uniform(link: LinkSpec) -> Self {
        Network {
            default_link: link,
            links: Vec::new(),
        }
    }

    /// Overrides the link `from -> to`.
    pub fn with_link(mut self, from: ProcessId, to: ProcessId, link: LinkSpec) -> Self {
        self.links.push(((from, to), link));
        self
    }

    /// Overrides both directions between `a` and `b`.
    pub fn with_both(self, a: ProcessId, b: ProcessId, link: LinkSpec) -> Self {
        self.with_link(a, b, link.clone()).with_link(b, a, link)
    }

    pub fn link(&self, from: ProcessId, to: ProcessId) -> &LinkSpec {
        self.links
            .iter()
            .find(|(pair, _)| *pair == (from, to))
            .map(|(_, l)| l)
            .unwrap_or(&self.default_link)
    }
}

/// A message on its way.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InFlight<M> {
    pub from: ProcessId,
    pub to: ProcessId,
    /// Shared with the states it was copied into and with the `Deliver` actions that name
    /// it: copying a state or enumerating its deliveries copies no message body.
    pub msg: Arc<M>,
    /// Lane A of the message body's hash, computed once when it is put on the wire: a
    /// function of `msg` alone, so 64-bit fingerprints read it without rehashing the body.
    /// Lane A only (8 bytes: a message in flight is copied with every state); a hasher of
    /// both lanes hashes the body again ([`InFlight::hash_body`]).
    pub msg_hash: u64,
    /// True time at which it arrives (it may wait longer in a paused receiver's buffer).
    pub due_ms: u64,
}

/// A message body's part of a fingerprint: both lanes when `wide`, lane A alone otherwise
/// (what [`InFlight::msg_hash`] keeps).
pub fn msg_hash<M: Hash>(msg: &M, wide: bool) -> Fingerprint {
    let mut h = FpHasher::of_width(wide);
    msg.hash(&mut h);
    h.finish_wide()
}

impl<M: Hash> InFlight<M> {
    /// Feeds the body's part to `h`: the kept lane A to a 64-bit hasher, the body hashed
    /// again in both lanes to a wide one (same lane A either way).
    #[inline]
    pub fn hash_body(&self, h: &mut FpHasher) {
        if h.is_wide() {
            h.write_fp(msg_hash(&*self.msg, true));
        } else {
            h.write_u64(self.msg_hash);
        }
    }
}

/// A message whose delay (or loss) is still to be chosen.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unrouted<M> {
    pub from: ProcessId,
    pub to: ProcessId,
    pub msg: Arc<M>,
}
