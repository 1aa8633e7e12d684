//! Labels: how a world's actions read in traces and timelines.
//!
//! Labels are what replay matches, so they name processes and messages, never positions in
//! internal vectors: `deliver client-1 -> kv: Acquire`, `pause client-1 for 300 ms`. A
//! resumed process's overdue timer fired ahead of an earlier one says which it overtook:
//! `timer client-1: work done (overdue, ahead of extend due at 1200 ms)`.

use super::action::WorldAction;
use super::actor::{Actor, ProcessId};
use super::state::StateOf;
use super::World;

/// The label of `Advance` to `t_ms`.
pub fn advance_label(t_ms: u64) -> String {
    format!("advance to {t_ms} ms")
}

impl<A: Actor> World<A> {
    /// The label of `Route`: `msg` from `from` to `to` takes `delay_ms`.
    pub fn route_label(
        &self,
        from: ProcessId,
        to: ProcessId,
        msg: &A::Msg,
        delay_ms: u64,
    ) -> String {
        format!(
            "delay {} -> {}: {} by {delay_ms} ms",
            self.process_name(from),
            self.process_name(to),
            self.processes[to].actor.describe_msg(msg)
        )
    }

    /// The label of `Lose`: `msg` from `from` to `to` is lost.
    pub fn lose_label(&self, from: ProcessId, to: ProcessId, msg: &A::Msg) -> String {
        format!(
            "lose {} -> {}: {}",
            self.process_name(from),
            self.process_name(to),
            self.processes[to].actor.describe_msg(msg)
        )
    }

    /// The label of `TimerDuration`: process `p`'s `timer` is set to `after_ms`.
    pub fn timer_duration_label(&self, p: ProcessId, timer: &A::Timer, after_ms: u64) -> String {
        format!(
            "timer {}: {} after {after_ms} ms",
            self.process_name(p),
            self.processes[p].actor.describe_timer(timer)
        )
    }

    /// The target of a fault named on `p`: `p`, with the processes that share its fate
    /// (`thread-1 with thread-2`).
    fn fated_name(&self, p: ProcessId) -> String {
        let others: Vec<&str> = self
            .faults
            .companions(p)
            .map(|q| self.process_name(q))
            .collect();
        match others.is_empty() {
            true => self.process_name(p).to_string(),
            false => format!("{} with {}", self.process_name(p), others.join(", ")),
        }
    }

    /// The label of `Fire`: process `p`'s `timer` fires, ahead of the `overtaken` timer due
    /// at the given time when it is a resumed process's overdue timer taken out of due order.
    pub fn fire_label(
        &self,
        p: ProcessId,
        timer: &A::Timer,
        overtaken: Option<(&A::Timer, u64)>,
    ) -> String {
        let actor = &self.processes[p].actor;
        let fired = format!(
            "timer {}: {}",
            self.process_name(p),
            actor.describe_timer(timer)
        );
        match overtaken {
            Some((earlier, due_ms)) => format!(
                "{fired} (overdue, ahead of {} due at {due_ms} ms)",
                actor.describe_timer(earlier)
            ),
            None => fired,
        }
    }

    /// The label of `Fire` in `state` (see [`World::fire_label`]).
    fn fire_label_in(&self, state: &StateOf<A>, action: &super::action::ActionOf<A>) -> String {
        let WorldAction::Fire { process, timer } = action else {
            unreachable!("a Fire action")
        };
        self.fire_label(*process, timer, self.overtaken(state, action))
    }

    pub(crate) fn describe(
        &self,
        state: &StateOf<A>,
        action: &super::action::ActionOf<A>,
    ) -> String {
        let name = |p: usize| self.process_name(p);
        let fated = |p: usize| self.fated_name(p);
        match action {
            WorldAction::Deliver { from, to, msg } => format!(
                "deliver {} -> {}: {}",
                name(*from),
                name(*to),
                self.processes[*to].actor.describe_msg(msg)
            ),
            WorldAction::Fire { .. } => self.fire_label_in(state, action),
            WorldAction::Advance => match self.next_due_ms(state) {
                Some(t) => advance_label(t),
                None => "advance (nothing due)".to_string(),
            },
            WorldAction::Route { delay_ms } => match state.unrouted.first() {
                Some(m) => self.route_label(m.from, m.to, &m.msg, *delay_ms),
                None => format!("delay by {delay_ms} ms"),
            },
            WorldAction::TimerDuration { after_ms } => match state.undecided_timers.first() {
                Some(t) => self.timer_duration_label(t.process, &t.timer, *after_ms),
                None => format!("timer after {after_ms} ms"),
            },
            WorldAction::Lose => match state.unrouted.first() {
                Some(m) => self.lose_label(m.from, m.to, &m.msg),
                None => "lose a message".to_string(),
            },
            WorldAction::Pause {
                process,
                duration_ms,
            } => format!("pause {} for {duration_ms} ms", fated(*process)),
            WorldAction::Crash {
                process,
                kind,
                restart_after_ms,
            } => {
                let restart = match restart_after_ms {
                    Some(d) => format!("restart after {d} ms"),
                    None => "no restart".to_string(),
                };
                format!(
                    "crash {}{}, {restart}",
                    fated(*process),
                    kind.label_suffix()
                )
            }
            WorldAction::Partition { index, duration_ms } => {
                let heal = match duration_ms {
                    Some(d) => format!("for {d} ms"),
                    None => "for good".to_string(),
                };
                format!("partition {} {heal}", self.faults.partitions[*index].name)
            }
            WorldAction::ClockStep { process, delta_ms } => {
                format!("step clock of {} by {delta_ms:+} ms", fated(*process))
            }
            WorldAction::ActorFault { process, fault } => self.actor_fault_label(*process, fault),
        }
    }
}
