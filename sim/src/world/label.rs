//! Labels: how a world's actions read in traces and timelines.
//!
//! Labels are what replay matches, so they name processes and messages, never positions in
//! internal vectors: `deliver client-1 -> kv: Acquire`, `pause client-1 for 300 ms`.

use super::action::WorldAction;
use super::actor::Actor;
use super::state::StateOf;
use super::World;

impl<A: Actor> World<A> {
    pub(crate) fn describe(
        &self,
        state: &StateOf<A>,
        action: &WorldAction<A::Msg, A::Timer>,
    ) -> String {
        let name = |p: usize| self.process_name(p);
        match action {
            WorldAction::Deliver { from, to, msg } => format!(
                "deliver {} -> {}: {}",
                name(*from),
                name(*to),
                self.processes[*to].actor.describe_msg(msg)
            ),
            WorldAction::Fire { process, timer } => format!(
                "timer {}: {}",
                name(*process),
                self.processes[*process].actor.describe_timer(timer)
            ),
            WorldAction::Advance => match self.next_due_ms(state) {
                Some(t) => format!("advance to {t} ms"),
                None => "advance (nothing due)".to_string(),
            },
            WorldAction::Route { delay_ms } => {
                let m = state.unrouted.first();
                match m {
                    Some(m) => format!(
                        "delay {} -> {}: {} by {delay_ms} ms",
                        name(m.from),
                        name(m.to),
                        self.processes[m.to].actor.describe_msg(&m.msg)
                    ),
                    None => format!("delay by {delay_ms} ms"),
                }
            }
            WorldAction::TimerDuration { after_ms } => match state.undecided_timers.first() {
                Some(t) => format!(
                    "timer {}: {} after {after_ms} ms",
                    name(t.process),
                    self.processes[t.process].actor.describe_timer(&t.timer)
                ),
                None => format!("timer after {after_ms} ms"),
            },
            WorldAction::Lose => match state.unrouted.first() {
                Some(m) => format!(
                    "lose {} -> {}: {}",
                    name(m.from),
                    name(m.to),
                    self.processes[m.to].actor.describe_msg(&m.msg)
                ),
                None => "lose a message".to_string(),
            },
            WorldAction::Pause {
                process,
                duration_ms,
            } => format!("pause {} for {duration_ms} ms", name(*process)),
            WorldAction::Crash {
                process,
                kind,
                restart_after_ms,
            } => {
                let restart = match restart_after_ms {
                    Some(d) => format!("restart after {d} ms"),
                    None => "no restart".to_string(),
                };
                format!("crash {} ({kind:?}), {restart}", name(*process))
            }
            WorldAction::Partition { index, duration_ms } => {
                let heal = match duration_ms {
                    Some(d) => format!("for {d} ms"),
                    None => "for good".to_string(),
                };
                format!("partition {} {heal}", self.faults.partitions[*index].name)
            }
            WorldAction::ClockStep { process, delta_ms } => {
                format!("step clock of {} by {delta_ms:+} ms", name(*process))
            }
        }
    }
}
