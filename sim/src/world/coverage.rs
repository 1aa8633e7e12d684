//! The envelope's rules for fault coverage (`crate::coverage`): their names, and which of
//! them allow a fault action.
//!
//! The idea: a fault action names its process and value, not the rule it came from, and two
//! rules may allow the same action (two pause rules of one process with a duration in
//! common). An action is credited to every rule that would have offered it in that state
//! (its process and value listed, its timing allowing it), the same test that offers it
//! (`World::enabled_faults`). Rules are numbered in the envelope's order: pauses,
//! partitions, crashes, clock steps, the actors' own, then the losses when the envelope
//! allows any.

use super::action::WorldAction;
use super::actor::{Actor, ProcessId};
use super::fault_timing::FaultRule;
use super::state::StateOf;
use super::{ActionOf, World};
use crate::coverage::RulesUsed;

impl<A: Actor> World<A> {
    /// The envelope's rules, named after their list and position (`pauses[0]`, ...), and
    /// `losses` when the envelope allows losses.
    pub(crate) fn fault_rule_names(&self) -> Vec<String> {
        let f = &self.faults;
        let lists = [
            ("pauses", f.pauses.len()),
            ("partitions", f.partitions.len()),
            ("crashes", f.crashes.len()),
            ("clock_steps", f.clock_steps.len()),
            ("actor_faults", f.actor_faults.len()),
        ];
        let mut names: Vec<String> = lists
            .iter()
            .flat_map(|&(list, n)| (0..n).map(move |i| format!("{list}[{i}]")))
            .collect();
        if f.max_losses > 0 {
            names.push("losses".into());
        }
        names
    }

    /// Notes in `used` the rules that allow the fault `action` in `state`.
    pub(crate) fn note_rules_of(
        &self,
        state: &StateOf<A>,
        action: &ActionOf<A>,
        used: &mut RulesUsed,
    ) {
        let f = &self.faults;
        let base_partitions = f.pauses.len();
        let base_crashes = base_partitions + f.partitions.len();
        let base_steps = base_crashes + f.crashes.len();
        let base_actor = base_steps + f.clock_steps.len();
        let losses = base_actor + f.actor_faults.len();
        let allows = |rule: FaultRule, p: ProcessId| self.timing_allows(state, rule, Some(p));
        let mut credit = |base: usize, matches: &mut dyn Iterator<Item = (usize, bool)>| {
            for (i, _) in matches.filter(|&(_, m)| m) {
                used.note(base + i);
            }
        };
        let only = |rule: usize| std::iter::once((rule, true));
        match action {
            WorldAction::Pause {
                process,
                duration_ms,
            } => credit(
                0,
                &mut f.pauses.iter().enumerate().map(|(i, r)| {
                    let listed = r.process == *process && r.durations_ms.contains(duration_ms);
                    (i, listed && allows(FaultRule::Pause(i), r.process))
                }),
            ),
            WorldAction::Partition { index, .. } => credit(base_partitions, &mut only(*index)),
            WorldAction::Crash {
                process,
                kind,
                restart_after_ms,
            } => credit(
                base_crashes,
                &mut f.crashes.iter().enumerate().map(|(i, r)| {
                    let listed = r.process == *process
                        && r.kinds.contains(kind)
                        && r.restart_after_ms.contains(restart_after_ms);
                    (i, listed && allows(FaultRule::Crash(i), r.process))
                }),
            ),
            WorldAction::ClockStep { process, delta_ms } => credit(
                base_steps,
                &mut f.clock_steps.iter().enumerate().map(|(i, r)| {
                    let listed = r.process == *process && r.deltas_ms.contains(delta_ms);
                    (i, listed && allows(FaultRule::ClockStep(i), r.process))
                }),
            ),
            WorldAction::ActorFault { process, fault } => credit(
                base_actor,
                &mut f.actor_faults.iter().enumerate().map(|(i, r)| {
                    let listed = r.process == *process && r.faults.contains(fault);
                    (i, listed && allows(FaultRule::ActorFault(i), r.process))
                }),
            ),
            WorldAction::Lose => credit(losses, &mut only(0)),
            _ => {}
        }
    }
}
