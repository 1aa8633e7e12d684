//! Faults on madsim: pauses with node pause/resume, crashes with kill/restart, partitions
//! with link clogging; clock steps and faults of an actor's own change the process's state
//! alone. Every fault is applied to the record by the kernel's `World::apply_fault`.
//!
//! After every event, and before the first event at a new time, the run takes a fault with
//! its fault rate, drawn uniformly from what the world's envelope allows at that moment
//! (`World::enabled_faults`, the list the kernel's random walks draw from). Undoing a fault
//! (a resume, a restart, a heal) is a task on the carrier node that sleeps until it is due.
//! Where the envelope's timing stops time, a wake-up gives the injector its chance too
//! (`timing.rs`).

use crate::record::Record;
use crate::run::{HostedActor, Run};
use lockcheck_sim::world::{ActionOf, ProcessId, WorldAction};
use madsim::net::NetSim;
use madsim::rand::{thread_rng, Rng};
use madsim::runtime::Handle;
use madsim::time::{sleep_until, Duration, Instant};
use std::sync::Arc;

/// How much earlier than its restart time a crashed process's node is restarted, in madsim
/// time: enough to bind its endpoint (madsim's minimum sleep is 1 ms), far less than a world
/// millisecond (see [`MADSIM_PER_WORLD_MS`](crate::run::MADSIM_PER_WORLD_MS)).
const RESTART_LEAD: Duration = Duration::from_millis(100);

impl<A: HostedActor> Run<A> {
    /// A fault's chance: with the run's fault rate, one fault the envelope allows now.
    pub fn maybe_fault(self: &Arc<Self>) {
        let mut rng = thread_rng();
        let timed = !self.world.faults.timing.is_free();
        if rng.gen_range(0..1000) >= self.fault_per_mille {
            if timed {
                self.keep_timing_wake(&mut self.lock());
            }
            return;
        }
        let now = self.now_ms();
        let mut r = self.lock();
        if !self.catch_up(&mut r, now) {
            return;
        }
        let mut faults = Vec::new();
        self.world.enabled_faults(&r.state, &mut faults);
        if let Some(i) = (!faults.is_empty()).then(|| rng.gen_range(0..faults.len())) {
            let fault = faults.swap_remove(i);
            self.inject(&mut r, now, &fault);
            r.log(now, fault, None);
            r.evaluate(&self.world, now);
        }
        if timed {
            self.keep_timing_wake(&mut r);
        }
        self.wake_if_done(&r);
    }

    /// Applies `fault` to the record through the kernel ([`lockcheck_sim::world::World::apply_fault`], as the
    /// explorer does), then does in madsim what it means there: a pause or crash stops the
    /// process's node and schedules its resume or restart, a partition clogs its links.
    /// Clock steps and faults of an actor's own live in the record's state alone.
    fn inject(self: &Arc<Self>, r: &mut Record<A>, now: u64, fault: &ActionOf<A>) {
        self.world.move_time_to(&mut r.state, now);
        self.world.apply_fault(&mut r.state, fault);
        // A pause or crash named on one process hits every process that shares its fate.
        let fate = |p: ProcessId| -> Vec<ProcessId> {
            std::iter::once(p)
                .chain(self.world.faults.companions(p))
                .collect()
        };
        match *fault {
            WorldAction::Pause { process, .. } => {
                for q in fate(process) {
                    let until = r.state.procs[q].paused_until_ms;
                    let epoch = bump(r, q);
                    Handle::current().pause(self.node(q));
                    if let Some(until) = until {
                        let at = self.instant(until);
                        self.schedule(r, at, move |run| run.resume(q, epoch));
                    }
                }
            }
            WorldAction::Crash { process, .. } => {
                for q in fate(process) {
                    r.work[q] = 0;
                    self.refuse_in_transit(r, q);
                    let epoch = bump(r, q);
                    Handle::current().kill(self.node(q));
                    if let Some(t) = r.restart_at_ms(q) {
                        // Restarted a little early, so that its endpoint is bound when it
                        // comes up (madsim takes a moment to bind); it starts at `t` itself.
                        let at = self.instant(t) - RESTART_LEAD;
                        self.schedule(r, at, move |run| run.restart(q, epoch));
                    }
                }
            }
            WorldAction::Partition { index, .. } => {
                r.partitions_begun.push((index, now));
                let rule = &self.world.faults.partitions[index];
                r.transit.cut(|from, to| rule.blocks(from, to));
                let net = NetSim::current();
                for &(a, b) in &self.world.faults.partitions[index].links {
                    net.clog_link(self.node(a), self.node(b));
                }
                let heal = r.state.partitions.iter().find(|(i, _)| *i == index);
                if let Some(&(_, Some(t))) = heal {
                    let at = self.instant(t);
                    self.schedule(r, at, move |run| run.heal(index));
                }
            }
            _ => {}
        }
    }

    /// Runs `undo` on the carrier node at madsim instant `at`.
    fn schedule(
        self: &Arc<Self>,
        r: &mut Record<A>,
        at: Instant,
        undo: impl FnOnce(&Run<A>) + Send + 'static,
    ) {
        r.controls += 1;
        let run = self.clone();
        self.carrier.spawn(async move {
            sleep_until(at).await;
            undo(&run);
        });
    }

    fn resume(&self, q: ProcessId, epoch: u64) {
        let now = self.now_ms();
        let mut r = self.lock();
        r.controls -= 1;
        if r.epochs[q] == epoch && r.ended.is_none() {
            self.world.end_pause(&mut r.state, q);
            Handle::current().resume(self.node(q));
            r.note(now, format!("resume {}", self.world.process_name(q)));
            r.evaluate(&self.world, now);
        }
        self.wake_if_done(&r);
    }

    fn restart(&self, q: ProcessId, epoch: u64) {
        let mut r = self.lock();
        if r.epochs[q] == epoch && r.ended.is_none() {
            // The node's init task runs the actor's restart at its time, and only then is
            // this control done (see `Run::start_actor`).
            Handle::current().restart(self.node(q));
        } else {
            r.controls -= 1;
        }
        self.wake_if_done(&r);
    }

    fn heal(&self, index: usize) {
        let now = self.now_ms();
        let mut r = self.lock();
        r.controls -= 1;
        self.world.heal(&mut r.state, index);
        let rules = &self.world.faults.partitions;
        let net = NetSim::current();
        for &(a, b) in &rules[index].links {
            let still_cut = r
                .state
                .partitions
                .iter()
                .any(|(i, _)| rules[*i].blocks(a, b));
            if !still_cut {
                net.unclog_link(self.node(a), self.node(b));
            }
        }
        r.note(now, format!("heal partition {}", rules[index].name));
        if r.ended.is_none() {
            r.evaluate(&self.world, now);
        }
        self.wake_if_done(&r);
    }
}

/// A new pause or crash of `q`: scheduled undos of earlier ones no longer apply.
fn bump<A: HostedActor>(r: &mut Record<A>, q: ProcessId) -> u64 {
    r.epochs[q] += 1;
    r.epochs[q]
}
