//! What a process runs first when it resumes: the order of its overdue timers.
//!
//! A running process's timers fire in due order while time moves normally: `Advance` stops
//! at each due time, so no timer of a running process is ever late. Only a process that could
//! not run while time passed (a paused one) has *overdue* timers, due strictly before now.
//! When it resumes, they are all ready at once, beside the messages that waited in its socket
//! buffer, and which runs first is a real race in a program with several threads (a
//! watchdog's tick against the routine's next write, an abort signal against a buffered
//! reply): a timer thread and the thread it wakes are scheduled by the operating system.
//!
//! [`ResumeOrder::Any`] (the default) makes that race a choice: every overdue timer may fire
//! next, in any order; once none is overdue, the earliest timer due now fires first as
//! always, so a timer set after the resume keeps due order (it is due now or later, after
//! every overdue one). [`ResumeOrder::Due`] fires overdue timers in due order, as a single
//! event loop whose timer queue is a heap does (Node's libuv runs expired timers by due
//! time). Messages due now interleave with the timer that may fire next either way.
//!
//! Timers are kept in firing order (due time, then order of setting), so the overdue ones
//! are a prefix of a process's list and the timers that may fire now are a prefix too:
//! [`ResumeOrder::firable`] says how long it is. A timer fired from inside that prefix but
//! not at its head was taken *ahead* of an earlier one: such a step is a resume-order
//! choice (`ChoiceKind::ResumeOrder`) and its label names the timer it overtook.

use super::action::WorldAction;
use super::actor::Actor;
use super::resume_order::ResumeOrder;
use super::state::{ProcState, StateOf};
use super::World;

type Action<A> = super::action::ActionOf<A>;

impl<S, T> ProcState<S, T> {
    /// How many of this process's timers it may choose among now: the overdue ones of a
    /// running process when there are two or more, 0 when there is no choice. A fingerprint
    /// takes it, when there is a choice, beside the timers' times left, which it clamps at 0
    /// (due now and overdue alike): where there is no choice, a timer due now and an overdue
    /// one behave alike, and where there is one, its size is what the clamp hides.
    pub fn timer_choice(&self, resume: ResumeOrder, now_ms: u64) -> usize {
        if !self.is_running() {
            // Every timer due by now will be overdue when it resumes, whatever its due time.
            return 0;
        }
        match resume.firable(self.timers.iter().map(|t| t.due_ms), now_ms) {
            n if n >= 2 => n,
            _ => 0,
        }
    }
}

impl<A: Actor> World<A> {
    /// Sets the order in which a resumed process's overdue timers may fire.
    pub fn with_resume_order(mut self, order: ResumeOrder) -> Self {
        self.resume_order = order;
        self
    }

    pub fn resume_order(&self) -> ResumeOrder {
        self.resume_order
    }

    /// How many of process `p`'s first timers may fire now in `state`.
    pub(crate) fn firable_timers(&self, state: &StateOf<A>, p: usize) -> usize {
        let timers = &state.procs[p].timers;
        self.resume_order
            .firable(timers.iter().map(|t| t.due_ms), state.now_ms)
    }

    /// When `action` fires an overdue timer ahead of an earlier one of its process (a
    /// resume-order choice), the timer it overtakes and that timer's due time.
    pub fn overtaken<'s>(
        &self,
        state: &'s StateOf<A>,
        action: &Action<A>,
    ) -> Option<(&'s A::Timer, u64)> {
        let WorldAction::Fire { process, timer } = action else {
            return None;
        };
        let first = state.procs[*process].timers.first()?;
        (&first.timer != timer).then_some((&first.timer, first.due_ms))
    }
}
