//! The messages on their way to each process, as the driver knows them, so that a crash can
//! have its host refuse them.
//!
//! The kernel keeps every message in flight in its state; the driver leaves them to madsim's
//! network and to the receiver's task, which a crash kills. A crash whose host refuses
//! connections answers each message on its way to the dead process with the actor's
//! refusal (`World::refusal`), as the kernel's crash does; so the driver books each message
//! sent to a process that is up until its receiver takes it (or a partition cuts it), and a
//! crash takes the receiver's out, in the kernel's order (by sender, then send order).

use lockcheck_sim::world::ProcessId;

/// One message on its way.
#[derive(Debug)]
pub(crate) struct Sent<M> {
    pub from: ProcessId,
    pub to: ProcessId,
    /// Its position in the sender's send order.
    pub seq: u64,
    pub msg: M,
}

/// Every message sent and not yet taken by its receiver.
#[derive(Debug)]
pub(crate) struct Transit<M> {
    sent: Vec<Sent<M>>,
}

impl<M> Default for Transit<M> {
    fn default() -> Self {
        Transit { sent: Vec::new() }
    }
}

impl<M> Transit<M> {
    pub fn push(&mut self, sent: Sent<M>) {
        self.sent.push(sent);
    }

    /// The receiver took (or dropped) the message `seq` of `from`.
    pub fn taken(&mut self, from: ProcessId, to: ProcessId, seq: u64) {
        self.sent
            .retain(|s| (s.from, s.to, s.seq) != (from, to, seq));
    }

    /// Forgets the messages `cut` says a partition dropped on their way.
    pub fn cut(&mut self, cut: impl Fn(ProcessId, ProcessId) -> bool) {
        self.sent.retain(|s| !cut(s.from, s.to));
    }

    /// Takes out the messages on their way to `to`, by sender, then in send order.
    pub fn take_to(&mut self, to: ProcessId) -> Vec<Sent<M>> {
        let (mut gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.sent)
            .into_iter()
            .partition(|s| s.to == to);
        self.sent = kept;
        gone.sort_by_key(|s| (s.from, s.seq));
        gone
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(from: ProcessId, to: ProcessId, seq: u64) -> Sent<&'static str> {
        Sent {
            from,
            to,
            seq,
            msg: "m",
        }
    }

    #[test]
    fn a_crash_takes_its_messages_by_sender_then_send_order() {
        let mut t = Transit::default();
        t.push(sent(2, 0, 5));
        t.push(sent(1, 0, 9));
        t.push(sent(1, 3, 1));
        t.push(sent(1, 0, 4));
        t.taken(1, 0, 9);
        let order: Vec<_> = t.take_to(0).iter().map(|s| (s.from, s.seq)).collect();
        assert_eq!(order, vec![(1, 4), (2, 5)]);
        assert_eq!(t.take_to(3).len(), 1);
        assert!(t.take_to(0).is_empty());
    }

    #[test]
    fn a_cut_message_is_forgotten() {
        let mut t = Transit::default();
        t.push(sent(1, 0, 0));
        t.push(sent(2, 0, 0));
        t.cut(|from, _| from == 1);
        assert_eq!(t.take_to(0).len(), 1);
    }
}
