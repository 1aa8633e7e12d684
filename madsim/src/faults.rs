//! Faults on madsim: pauses with node pause/resume, crashes with kill/restart, partitions
//! with link clogging, clock steps on the process's clock.
//!
//! After every event, and before the first event at a new time, the run takes a fault with
//! its fault rate, drawn uniformly from what the world's envelope allows at that moment
//! (`World::enabled_faults`, the list the kernel's random walks draw from). Undoing a fault
//! (a resume, a restart, a heal) is a task on the carrier node that sleeps until it is due.

use crate::record::Record;
use crate::run::{HostedActor, Run};
use lockcheck_sim::world::{Life, ProcessId, WorldAction};
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
        if rng.gen_range(0..1000) >= self.fault_per_mille {
            return;
        }
        let now = self.now_ms();
        let mut r = self.lock();
        if !self.catch_up(&mut r, now) {
            return;
        }
        let mut faults = Vec::new();
        self.world.enabled_faults(&r.state, &mut faults);
        if faults.is_empty() {
            return;
        }
        let fault = faults.swap_remove(rng.gen_range(0..faults.len()));
        self.inject(&mut r, now, &fault);
        r.log(now, fault);
        r.evaluate(&self.world, now);
        self.wake_if_done(&r);
    }

    fn inject(
        self: &Arc<Self>,
        r: &mut Record<A>,
        now: u64,
        fault: &WorldAction<A::Msg, A::Timer>,
    ) {
        match *fault {
            WorldAction::Pause {
                process: q,
                duration_ms,
            } => {
                r.state.procs[q].paused_until_ms = Some(now + duration_ms);
                r.state.faults_used.pauses += 1;
                let epoch = bump(r, q);
                Handle::current().pause(self.node(q));
                let at = self.instant(now + duration_ms);
                self.schedule(r, at, move |run| run.resume(q, epoch));
            }
            WorldAction::Crash {
                process: q,
                kind,
                restart_after_ms,
            } => {
                let Life::Up(state) = &r.state.procs[q].life else {
                    unreachable!("the envelope crashes only processes that are up")
                };
                let survived = self.world.processes[q].actor.on_crash(state, kind);
                let proc = &mut r.state.procs[q];
                proc.life = Life::Down {
                    survived,
                    restart_at_ms: restart_after_ms.map(|d| now + d),
                };
                proc.paused_until_ms = None;
                r.state.faults_used.crashes += 1;
                r.work[q] = 0;
                let epoch = bump(r, q);
                Handle::current().kill(self.node(q));
                if let Some(d) = restart_after_ms {
                    // Restarted a little early, so that its endpoint is bound when it comes
                    // up (madsim takes a moment to bind); it starts at `now + d` itself.
                    let at = self.instant(now + d) - RESTART_LEAD;
                    self.schedule(r, at, move |run| run.restart(q, epoch));
                }
            }
            WorldAction::Partition { index, duration_ms } => {
                r.state
                    .partitions
                    .push((index, duration_ms.map(|d| now + d)));
                r.state.faults_used.partitions += 1;
                r.partitions_begun.push((index, now));
                let net = NetSim::current();
                for &(a, b) in &self.world.faults.partitions[index].links {
                    net.clog_link(self.node(a), self.node(b));
                }
                if let Some(d) = duration_ms {
                    let at = self.instant(now + d);
                    self.schedule(r, at, move |run| run.heal(index));
                }
            }
            WorldAction::ClockStep { process, delta_ms } => {
                r.state.procs[process].clock_steps_ms += delta_ms;
                r.state.faults_used.clock_steps += 1;
            }
            _ => {
                unreachable!("the envelope offers only pauses, crashes, partitions and clock steps")
            }
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
            r.state.procs[q].paused_until_ms = None;
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
        r.state.partitions.retain(|(i, _)| *i != index);
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
