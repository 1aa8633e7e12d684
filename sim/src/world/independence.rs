//! Which of a world's enabled actions may be explored alone: persistent sets for
//! partial-order reduction.
//!
//! The idea: everything due at one instant forms an untimed concurrent system (time cannot
//! move while an event is due, since `Advance` is enabled only when nothing is), and events
//! of different processes commute there. So when process `p` has an event due, the actions
//! *on* `p` (its due events, and the pauses, crashes, clock steps and faults of its actor's
//! own that the envelope still allows for it) may be explored alone, postponing everything else, provided that
//! (a resumed process's overdue timers, which may fire in any order, are all actions on it:
//! their order stays a choice inside the set):
//!
//! 1. **No action outside the set can change an action in it or be changed by it.** An
//!    event runs one handler on one process's state and appends messages to its own outgoing
//!    links; two events on different processes touch disjoint parts of the state, and the
//!    messages in flight are kept grouped by link, so either order gives the same state. A
//!    pause, crash, clock step or fault of its actor's own of another process `q` touches
//!    only `q` (a crash drops the messages *to* `q`: whether `p` sends to `q` before or after
//!    the crash, the message is dropped, or, when `q`'s host refuses connections, answered
//!    by the same refusal on the link `q -> p`, appended there as any send of `q` would be;
//!    an actor's own fault sends nothing). Budgets are
//!    counts: a path that takes a fault outside the set and later one inside took both
//!    within the budget, in either order. What does not commute is refused below.
//! 2. **Nothing outside the set can make a new action on `p` enabled at this instant.**
//!    Another process's handler can give `p` a new due event only by a message with zero
//!    delay; `p` is not chosen when a link into it can have a zero delay. Timers of `p` are
//!    set only by `p`'s own handlers; restarts, resumes and heals happen only at `Advance`.
//!    An anchor of another process (`fault_timing.rs`) that has not held yet could open a
//!    window of a fault on `p` at this instant: `p` is not chosen then either. Nor is a
//!    process that shares its fate with another (`shared_fate.rs`): a pause, crash or clock
//!    step named on the other hits it too.
//! 3. **Partitions.** A partition that cuts a link into `p` carrying a message drops that
//!    message, which disables (or would have disabled) its delivery: `p` is not chosen while
//!    such a partition is enabled.
//! 4. **Invisibility.** No action in the set may be visible to a property (declared by the
//!    properties themselves). Postponing invisible actions preserves what every property
//!    can observe, up to stuttering. An action a property may see but whose effect it can
//!    judge by a digest (`Sight::Checked`) is allowed; the explorer expands fully when, in
//!    this state, it changes the digest. That judgement in one state holds for the states
//!    reached by postponed actions too, because those are other processes' actions and the
//!    digest's part for `p` depends on `p` alone (the digest's contract).
//!
//! States with a message or timer still waiting for its delay or duration (transient states)
//! are never reduced: their only actions settle that choice. The cycle proviso (a state is
//! expanded fully when a reduced expansion leads back to a state already seen) lives in the
//! explorer, which also settles transient states at once under reduction (see
//! `explorer::reduction`), so that a postponed event cannot be ignored around a cycle.

use super::action::WorldAction;
use super::actor::{Actor, ProcessId};
use super::state::StateOf;
use super::World;
use crate::model::Sight;

type Action<A> = super::action::ActionOf<A>;

impl<A: Actor> World<A> {
    /// The process an action happens on, if it is one process's (events and the faults of
    /// one process; not partitions, `Advance` or the settling of a delay or duration).
    pub fn action_process(&self, action: &Action<A>) -> Option<ProcessId> {
        match action {
            WorldAction::Deliver { to, .. } => Some(*to),
            WorldAction::Fire { process, .. }
            | WorldAction::Pause { process, .. }
            | WorldAction::Crash { process, .. }
            | WorldAction::ClockStep { process, .. }
            | WorldAction::ActorFault { process, .. } => Some(*process),
            WorldAction::Partition { .. }
            | WorldAction::Advance
            | WorldAction::Route { .. }
            | WorldAction::Lose
            | WorldAction::TimerDuration { .. } => None,
        }
    }

    /// A smallest persistent, invisible subset of `enabled` (see the module documentation),
    /// as ascending indices in `out`; false when there is none smaller than `enabled`.
    pub(crate) fn persistent_subset(
        &self,
        state: &StateOf<A>,
        enabled: &[Action<A>],
        sight: &dyn Fn(&Action<A>) -> Sight,
        out: &mut Vec<usize>,
    ) -> bool {
        if self.is_transient_state(state) {
            return false;
        }
        // Ranked by (actions a property may see, size): a subset whose actions turn out to be
        // visible is expanded fully after all.
        let mut best: Option<(ProcessId, (usize, usize))> = None;
        for p in 0..self.processes.len() {
            let has_event = enabled.iter().any(|a| {
                matches!(a, WorldAction::Deliver { .. } | WorldAction::Fire { .. })
                    && self.is_on(state, a, p)
            });
            if !has_event || !self.may_go_alone(state, enabled, p, sight) {
                continue;
            }
            let on_p = || enabled.iter().filter(|a| self.is_on(state, a, p));
            let rank = (
                on_p().filter(|a| sight(a) == Sight::Checked).count(),
                on_p().count(),
            );
            if best.is_none_or(|(_, r)| rank < r) {
                best = Some((p, rank));
            }
        }
        let Some((p, (_, size))) = best.filter(|&(_, (_, size))| size < enabled.len()) else {
            return false;
        };
        out.clear();
        out.extend((0..enabled.len()).filter(|&i| self.is_on(state, &enabled[i], p)));
        debug_assert_eq!(out.len(), size);
        true
    }

    /// Whether `action`, enabled in `state`, is an action on `p`: one of the set that may be
    /// explored alone. Every timer of `p` that may fire now is one (a resumed process's
    /// overdue timers fire in any order: they do not commute).
    fn is_on(&self, _state: &StateOf<A>, action: &Action<A>, p: ProcessId) -> bool {
        self.action_process(action) == Some(p)
    }

    /// Whether the actions on `p` may be explored alone in `state` (conditions 2 to 4).
    fn may_go_alone(
        &self,
        state: &StateOf<A>,
        enabled: &[Action<A>],
        p: ProcessId,
        sight: &dyn Fn(&Action<A>) -> Sight,
    ) -> bool {
        let zero_delay_in = (0..self.processes.len())
            .any(|from| from != p && self.network.link(from, p).delays_ms.contains(&0));
        // A fault named on a process that shares `p`'s fate changes `p` too.
        if zero_delay_in || self.anchor_may_open_now(state, p) || self.faults.shares_fate(p) {
            return false;
        }
        let cuts_a_message_to_p = enabled.iter().any(|a| match a {
            WorldAction::Partition { index, .. } => {
                let rule = &self.faults.partitions[*index];
                state
                    .in_flight
                    .iter()
                    .any(|m| m.to == p && rule.blocks(m.from, p))
            }
            _ => false,
        });
        if cuts_a_message_to_p {
            return false;
        }
        !enabled
            .iter()
            .any(|a| self.action_process(a) == Some(p) && sight(a) == Sight::Visible)
    }

    /// Whether a message or timer still waits for its delay or duration.
    pub(crate) fn is_transient_state(&self, state: &StateOf<A>) -> bool {
        !state.unrouted.is_empty() || !state.undecided_timers.is_empty()
    }
}
