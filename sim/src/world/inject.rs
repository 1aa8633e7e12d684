//! Faults applied to a state: the one function every driver uses.
//!
//! The explorer applies a fault as one of its actions; the madsim driver draws the same
//! faults (`World::enabled_faults`) and applies them to its record of the world through
//! [`World::apply_fault`], then does in madsim what the fault means there (pause or kill a
//! node, clog links). Neither writes a state's fault fields by hand, so a fault kind is
//! defined once.

use super::action::{ActionOf, WorldAction};
use super::actor::{Actor, ProcessId};
use super::clock::{add_step, later};
use super::state::{Life, StateOf};
use super::World;

impl<A: Actor> World<A> {
    /// Applies `fault`, one of [`World::enabled_faults`] in `state`, and counts it in its
    /// budget. (A loss is not among them: it is a choice of routing a message.)
    /// What a fault undoes later (a resume, a heal, a restart) happens when time advances.
    pub fn apply_fault(&self, state: &mut StateOf<A>, fault: &ActionOf<A>) {
        match fault {
            WorldAction::Pause {
                process,
                duration_ms,
            } => {
                debug_assert!(state.procs[*process].is_running());
                let until = later(state.now_ms, *duration_ms);
                for q in self.fate_of(*process) {
                    state.procs[q].paused_until_ms = Some(until);
                }
                state.faults_used.pauses += 1;
                self.note_fault(state, *process, Some(until));
            }
            WorldAction::Crash {
                process,
                kind,
                restart_after_ms,
            } => {
                let restart_at_ms = restart_after_ms.map(|d| later(state.now_ms, d));
                self.note_fault(state, *process, restart_at_ms);
                for p in self.fate_of(*process) {
                    self.crash_one(state, p, *kind, restart_at_ms);
                }
                state.faults_used.crashes += 1;
            }
            WorldAction::Partition { index, duration_ms } => {
                let rule = &self.faults.partitions[*index];
                state.in_flight.retain(|m| !rule.blocks(m.from, m.to));
                state.unrouted.retain(|m| !rule.blocks(m.from, m.to));
                state
                    .partitions
                    .push((*index, duration_ms.map(|d| later(state.now_ms, d))));
                state.faults_used.partitions += 1;
            }
            WorldAction::ClockStep { process, delta_ms } => {
                for p in self.fate_of(*process) {
                    let steps = &mut state.procs[p].clock_steps_ms;
                    *steps = add_step(*steps, *delta_ms);
                }
                state.faults_used.clock_steps += 1;
                self.note_fault(state, *process, Some(state.now_ms));
            }
            WorldAction::ActorFault { process, fault } => {
                self.apply_actor_fault(state, *process, fault)
            }
            WorldAction::Deliver { .. }
            | WorldAction::Fire { .. }
            | WorldAction::Advance
            | WorldAction::Route { .. }
            | WorldAction::Lose
            | WorldAction::TimerDuration { .. } => {
                panic!("internal bug: {fault:?} applied as a fault")
            }
        }
    }
    /// The processes a fault named on `p` hits: `p` and those it shares its fate with.
    fn fate_of(&self, p: ProcessId) -> Vec<ProcessId> {
        std::iter::once(p)
            .chain(self.faults.companions(p))
            .collect()
    }

    /// Process `p` goes down (a crash of kind `kind`), to restart at `restart_at_ms`.
    fn crash_one(
        &self,
        state: &mut StateOf<A>,
        p: ProcessId,
        kind: super::actor::CrashKind,
        restart_at_ms: Option<u64>,
    ) {
        let proc = &mut state.procs[p];
        let Life::Up(s) = &proc.life else {
            panic!("internal bug: crash of a process that is down")
        };
        proc.life = Life::Down {
            survived: self.processes[p].actor.on_crash(s, kind),
            restart_at_ms,
            refusing: kind.refuses_connections(),
        };
        proc.paused_until_ms = None;
        proc.timers.clear();
        state.undecided_timers.retain(|t| t.process != p);
        self.reset_connections(state, p);
    }

    /// What was on its way to crashed process `p` is refused by its host, in the order it
    /// was in flight (or lost, when the host does not answer).
    fn reset_connections(&self, state: &mut StateOf<A>, p: ProcessId) {
        let (to_p, others) = std::mem::take(&mut state.in_flight)
            .into_iter()
            .partition::<Vec<_>, _>(|m| m.to == p);
        state.in_flight = others;
        for m in to_p {
            if let Some(refusal) = self.refusal_of(state, m.from, p, &m.msg) {
                self.send_unrouted(state, refusal);
            }
        }
        state.unrouted.retain(|m| m.to != p);
    }

    /// Whether the loss budget allows one more lost message in `state`.
    pub fn losses_left(&self, state: &StateOf<A>) -> bool {
        state.faults_used.losses < self.faults.max_losses
    }

    /// Counts a message lost by a driver that routes messages itself.
    pub fn count_loss(&self, state: &mut StateOf<A>) {
        debug_assert!(self.losses_left(state), "a loss beyond the budget");
        state.faults_used.losses += 1;
    }

    /// Ends process `p`'s pause (what `Advance` does when it is due), for drivers that
    /// schedule the resume themselves.
    pub fn end_pause(&self, state: &mut StateOf<A>, p: ProcessId) {
        state.procs[p].paused_until_ms = None;
    }

    /// Heals the envelope's partition `index` (what `Advance` does when it is due), for
    /// drivers that schedule the heal themselves.
    pub fn heal(&self, state: &mut StateOf<A>, index: usize) {
        state.partitions.retain(|(i, _)| *i != index);
    }
}
