//! Messages on madsim's network, and the queue where a receiver holds them until they are due.
//!
//! madsim's network has one latency range for every link; a scenario gives each link its own
//! set of delays. So the driver sets madsim's latency to zero, picks a message's delay from
//! its link's set when it is sent, and stamps the envelope with the true time it is due. The
//! receiver holds it until then: a FIFO link delivers in send order, a reordering link any
//! due message. madsim decides whether the message gets there at all: a clogged link or a
//! killed receiver drops it. A partition that begins while a message is held drops it too
//! (the kernel drops messages in flight when a partition begins).

use lockcheck_sim::world::ProcessId;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// The madsim tag every envelope is sent with.
pub(crate) const TAG: u64 = 0x6c6f_636b;

/// A message as it travels over madsim's network.
#[derive(Debug)]
pub(crate) struct Envelope<M> {
    pub from: ProcessId,
    pub msg: M,
    /// Position in the sender's send order (FIFO links deliver in this order).
    pub seq: u64,
    /// True time of the send, in ms since the run began.
    pub sent_ms: u64,
    /// True time at which the message is due at the receiver.
    pub due_ms: u64,
}

/// Runs one madsim runtime can hold: each run has a block of addresses of its own, since
/// the nodes of earlier runs keep theirs.
pub(crate) const MAX_RUNS_PER_RUNTIME: u32 = 1 << 16;

/// The madsim address of process `p` in run `run` of a runtime.
pub(crate) fn address(run: u32, p: ProcessId) -> SocketAddr {
    assert!(p < 255, "a world on madsim has at most 254 processes");
    SocketAddr::new(ip(run, 1 + p as u32), 1)
}

/// The IP of run `run`'s carrier node, which carries sends on behalf of the processes.
pub(crate) fn carrier_ip(run: u32) -> IpAddr {
    ip(run, 0)
}

fn ip(run: u32, host: u32) -> IpAddr {
    assert!(
        run < MAX_RUNS_PER_RUNTIME,
        "too many runs in one madsim runtime"
    );
    IpAddr::V4(Ipv4Addr::from(0x0a00_0000 | run << 8 | host))
}

/// A receiver's messages that arrived before they are due.
#[derive(Debug)]
pub(crate) struct Held<M> {
    envelopes: Vec<Envelope<M>>,
}

impl<M> Default for Held<M> {
    fn default() -> Self {
        Held {
            envelopes: Vec::new(),
        }
    }
}

impl<M> Held<M> {
    pub fn push(&mut self, envelope: Envelope<M>) {
        self.envelopes.push(envelope);
    }

    pub fn len(&self) -> usize {
        self.envelopes.len()
    }

    /// The earliest due time of a message that could be delivered once due.
    pub fn next_due_ms(&self, fifo: impl Fn(ProcessId) -> bool) -> Option<u64> {
        (0..self.envelopes.len())
            .filter(|&i| self.is_head(i, &fifo))
            .map(|i| self.envelopes[i].due_ms)
            .min()
    }

    /// Indices of the messages deliverable at `now_ms`: due, and first of their link when the
    /// link is FIFO.
    pub fn deliverable(&self, now_ms: u64, fifo: impl Fn(ProcessId) -> bool) -> Vec<usize> {
        (0..self.envelopes.len())
            .filter(|&i| self.envelopes[i].due_ms <= now_ms && self.is_head(i, &fifo))
            .collect()
    }

    pub fn take(&mut self, i: usize) -> Envelope<M> {
        self.envelopes.remove(i)
    }

    /// Removes and returns the messages `lost` says are lost.
    pub fn remove_lost(&mut self, lost: impl Fn(&Envelope<M>) -> bool) -> Vec<Envelope<M>> {
        let (gone, kept) = std::mem::take(&mut self.envelopes)
            .into_iter()
            .partition(|e| lost(e));
        self.envelopes = kept;
        gone
    }

    /// Whether message `i` may go before every other held message of its link.
    fn is_head(&self, i: usize, fifo: &impl Fn(ProcessId) -> bool) -> bool {
        let e = &self.envelopes[i];
        !fifo(e.from)
            || !self
                .envelopes
                .iter()
                .any(|o| o.from == e.from && o.seq < e.seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(from: ProcessId, seq: u64, due_ms: u64) -> Envelope<&'static str> {
        Envelope {
            from,
            msg: "m",
            seq,
            sent_ms: 0,
            due_ms,
        }
    }

    #[test]
    fn a_fifo_link_delivers_in_send_order_whatever_the_arrival_order() {
        let mut held = Held::default();
        held.push(envelope(1, 7, 5));
        held.push(envelope(1, 6, 9));
        held.push(envelope(2, 0, 3));
        let fifo = |_| true;
        // Sender 1's seq 7 is due first but waits for seq 6; sender 2 is independent.
        assert_eq!(held.deliverable(5, fifo), vec![2]);
        assert_eq!(held.next_due_ms(fifo), Some(3));
        assert_eq!(held.deliverable(9, fifo), vec![1, 2]);
        assert_eq!(held.take(1).seq, 6);
        assert_eq!(held.deliverable(9, fifo), vec![0, 1]);
    }

    #[test]
    fn a_reordering_link_delivers_any_due_message() {
        let mut held = Held::default();
        held.push(envelope(1, 7, 5));
        held.push(envelope(1, 6, 9));
        assert_eq!(held.deliverable(5, |_| false), vec![0]);
        assert_eq!(held.next_due_ms(|_| false), Some(5));
    }

    #[test]
    fn lost_messages_are_removed_and_returned() {
        let mut held = Held::default();
        held.push(envelope(1, 0, 5));
        held.push(envelope(2, 0, 5));
        let lost = held.remove_lost(|e| e.from == 1);
        assert_eq!(lost.len(), 1);
        assert_eq!(held.len(), 1);
        assert_eq!(held.deliverable(5, |_| true), vec![0]);
    }

    #[test]
    fn each_run_of_a_runtime_has_addresses_of_its_own() {
        assert_eq!(address(0, 0).to_string(), "10.0.0.1:1");
        assert_eq!(address(3, 4).to_string(), "10.0.3.5:1");
        assert_eq!(carrier_ip(258).to_string(), "10.1.2.0");
    }
}
