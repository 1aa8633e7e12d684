//! Redlock (seed 000 and the Redis documentation), with seed 000's watchdog.
//! STUB: being written; not part of any claim until this line is gone.

use super::engine::{Engine, LockEvent, LockIo};
use crate::msg::LockTimer;
use crate::redis::Reply;
use lockcheck_sim::world::ProcessId;

/// Parameters of Redlock.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Redlock {
    pub nodes: Vec<ProcessId>,
}

impl Engine for Redlock {
    type State = ();
    fn init(&self) {}
    fn acquire(&self, _: &mut (), _: &mut LockIo) {
        unimplemented!("Redlock engine")
    }
    fn release(&self, _: &mut (), _: &mut LockIo) {
        unimplemented!("Redlock engine")
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
