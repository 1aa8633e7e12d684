//! The open fault seam: faults an actor declares of its own (`Actor::Fault`).
//!
//! The idea: the kernel knows five faults by name (pauses, partitions, crashes, clock steps,
//! losses); anything else that may go wrong inside one process (a disk that stalls, a cache
//! that drops entries) is a value of the actor's `Fault` type. The envelope lists, per
//! process, which values may happen ([`ActorFaultRule`]) and how many in all
//! (`max_actor_faults`); the world offers each while the budget lasts and the process is up,
//! applies it through [`super::Actor::on_fault`], counts it in `FaultsUsed::actor_faults`,
//! labels it through [`super::Actor::describe_fault`], lets the shrinker remove it or replace
//! it by a smaller value ([`super::Actor::fault_size`]), and treats it as an action on its
//! process for partial-order reduction (it changes that process's state alone) and for
//! symmetry (the envelope must map onto itself, faults renamed by
//! [`super::Actor::rename_fault`]).

use super::action::{ActionOf, WorldAction};
use super::actor::{Actor, ProcessId};
use super::fault_timing::FaultRule;
use super::faults::FaultEnvelope;
use super::state::{Life, StateOf};
use super::symmetry::Renaming;
use super::World;

type Action<A> = ActionOf<A>;

/// A process whose actor may suffer any of `faults`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ActorFaultRule<F> {
    pub process: ProcessId,
    pub faults: Vec<F>,
}

impl<F> FaultEnvelope<F> {
    /// Allows `max` more faults of the actors' own, any of `faults` on `process`.
    pub fn actor_fault(mut self, process: ProcessId, faults: Vec<F>, max: u32) -> Self {
        self.actor_faults.push(ActorFaultRule { process, faults });
        self.max_actor_faults += max;
        self
    }
}

impl<A: Actor> World<A> {
    /// Pushes the actors' own faults the envelope still allows: every value of every rule
    /// whose process is up.
    pub(crate) fn enabled_actor_faults(&self, state: &StateOf<A>, out: &mut Vec<Action<A>>) {
        if state.faults_used.actor_faults >= self.faults.max_actor_faults {
            return;
        }
        for (i, rule) in self.faults.actor_faults.iter().enumerate() {
            let allowed = self.timing_allows(state, FaultRule::ActorFault(i), Some(rule.process));
            if state.procs[rule.process].is_up() && allowed {
                out.extend(rule.faults.iter().map(|fault| WorldAction::ActorFault {
                    process: rule.process,
                    fault: fault.clone(),
                }));
            }
        }
    }

    /// Applies `fault` to process `p`'s actor state and counts it.
    pub(crate) fn apply_actor_fault(&self, state: &mut StateOf<A>, p: ProcessId, fault: &A::Fault) {
        let now = self.local_now(state, p);
        let Life::Up(s) = &mut state.procs[p].life else {
            panic!("internal bug: a fault of its own on a process that is down")
        };
        self.processes[p].actor.on_fault(s, fault, now);
        state.faults_used.actor_faults += 1;
        self.note_fault(state, p, Some(state.now_ms));
    }

    /// The values of `p`'s rules smaller than `fault`, for the shrinker.
    pub(crate) fn smaller_actor_faults(&self, p: ProcessId, fault: &A::Fault) -> Vec<Action<A>> {
        let actor = &self.processes[p].actor;
        let size = actor.fault_size(fault);
        let mut out: Vec<Action<A>> = Vec::new();
        let values = self.faults.actor_faults.iter().filter(|r| r.process == p);
        for value in values.flat_map(|r| r.faults.iter()) {
            let smaller = WorldAction::ActorFault {
                process: p,
                fault: value.clone(),
            };
            if actor.fault_size(value) < size && !out.contains(&smaller) {
                out.push(smaller);
            }
        }
        out
    }

    /// The label of a fault of `p`'s own: `kv: disk stall for 3000 ms`.
    pub(crate) fn actor_fault_label(&self, p: ProcessId, fault: &A::Fault) -> String {
        format!(
            "{}: {}",
            self.process_name(p),
            self.processes[p].actor.describe_fault(fault)
        )
    }

    /// Whether renaming by `r` maps the actors' own fault rules onto themselves.
    pub(crate) fn actor_fault_refusal(&self, r: &Renaming) -> Result<(), String> {
        let rules = &self.faults.actor_faults;
        for rule in rules {
            let actor = &self.processes[rule.process].actor;
            let image: Vec<A::Fault> = rule
                .faults
                .iter()
                .map(|f| actor.rename_fault(f, r).unwrap_or_else(|| f.clone()))
                .collect();
            let target = r.of(rule.process);
            if !rules
                .iter()
                .any(|g| g.process == target && g.faults == image)
            {
                return Err("its faults of their own".into());
            }
        }
        Ok(())
    }
}
