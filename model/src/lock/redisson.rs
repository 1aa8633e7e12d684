//! Redisson RLock (seed 003).
//! STUB: being written; not part of any claim until this line is gone.

use super::engine::{Engine, LockEvent, LockIo};
use crate::msg::LockTimer;
use crate::redis::Reply;
use lockcheck_sim::world::ProcessId;

/// Parameters of Redisson.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Redisson {
    pub node: ProcessId,
}

impl Engine for Redisson {
    type State = ();
    fn init(&self) {}
    fn acquire(&self, _: &mut (), _: &mut LockIo) {
        unimplemented!("Redisson engine")
    }
    fn release(&self, _: &mut (), _: &mut LockIo) {
        unimplemented!("Redisson engine")
    }
    fn on_reply(
        &self,
        _: &mut (),
        _: ProcessId,
        _: u16,
        _: Reply,
        _: &mut LockIo,
    ) -> Option<LockEvent> {
        None
    }
    fn on_timer(&self, _: &mut (), _: LockTimer, _: &mut LockIo) -> Option<LockEvent> {
        None
    }
}
