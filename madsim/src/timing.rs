//! Fault timing on madsim: a run stops where the kernel's `Advance` stops for the envelope's
//! timing (a fault window's opening, the end of a process's quiet gap), so that a fault may
//! happen there, as in the kernel, and the run's trace replays there step for step.
//!
//! After every fault chance the run asks the kernel for the next such instant
//! (`World::next_timing_ms` on its record) and keeps a wake-up task for it. When one fires
//! and its instant is still the kernel's next stop, the run notes the advance (the trace gets
//! `advance to ...`) and gives the fault injector its chance there. A wake-up counts as a
//! control, as a scheduled resume does: the run is not over before it, as the kernel's is not.

use crate::record::Record;
use crate::run::{HostedActor, Run};
use madsim::time::sleep_until;
use std::sync::Arc;

impl<A: HostedActor> Run<A> {
    /// Keeps a wake-up at the next instant the envelope's timing stops time, if there is one
    /// and none is kept for it yet.
    pub(crate) fn keep_timing_wake(self: &Arc<Self>, r: &mut Record<A>) {
        let Some(t) = self.world.next_timing_ms(&r.state) else {
            return;
        };
        if r.ended.is_some() || r.timing_wakes_ms.contains(&t) {
            return;
        }
        r.timing_wakes_ms.push(t);
        r.controls += 1;
        let run = self.clone();
        let at = self.instant(t);
        self.carrier.spawn(async move {
            sleep_until(at).await;
            run.timing_wake(t);
        });
    }

    /// The wake-up at `t`: if `t` is still the next stop, time moves there and the fault
    /// injector has its chance.
    fn timing_wake(self: &Arc<Self>, t: u64) {
        let due = {
            let mut r = self.lock();
            r.controls -= 1;
            r.timing_wakes_ms.retain(|&w| w != t);
            let pending = r.state.now_ms < t && self.world.next_timing_ms(&r.state) == Some(t);
            let due = r.ended.is_none() && pending;
            if due {
                r.note(t, "a fault window opens or a quiet gap ends".into());
            }
            self.wake_if_done(&r);
            due
        };
        if due {
            self.maybe_fault();
        }
    }
}
