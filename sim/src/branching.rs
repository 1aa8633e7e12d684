//! Where a search's branching comes from: for each kind of choice, how many expanded states
//! offered it among others, how many actions of that kind they offered, and how many of
//! those the search expanded.
//!
//! A state with a single enabled action is no choice at all and is not counted. The kinds
//! are the model's (`Model::choice_kind`); a world reports the order of events due at one
//! instant, the order of a resumed process's overdue timers, message delays, timer durations,
//! losses, faults and the advance of time. The
//! difference between "offered" and "expanded" is what a reduction saved at those states.

use std::fmt;

/// The kind of a choice among enabled actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChoiceKind {
    /// Which of the events due now runs next (delivery or timer order within an instant).
    Event,
    /// A resumed process's overdue timer fired ahead of an earlier one (see the world's
    /// `ResumeOrder`): the branching the order of resume adds.
    ResumeOrder,
    /// Which delay a message gets.
    Delay,
    /// Which duration a timer gets.
    TimerDuration,
    /// Whether a message is lost.
    Loss,
    /// Whether (and which) fault strikes now.
    Fault,
    /// Letting time move on.
    Advance,
    /// Anything a model does not classify.
    Other,
}

impl ChoiceKind {
    /// Every kind, in report order.
    pub const ALL: [ChoiceKind; 8] = [
        ChoiceKind::Event,
        ChoiceKind::ResumeOrder,
        ChoiceKind::Delay,
        ChoiceKind::TimerDuration,
        ChoiceKind::Loss,
        ChoiceKind::Fault,
        ChoiceKind::Advance,
        ChoiceKind::Other,
    ];

    fn index(self) -> usize {
        self as usize
    }

    /// A stable snake-case name (JSON keys).
    pub fn key(self) -> &'static str {
        match self {
            ChoiceKind::Event => "event_order",
            ChoiceKind::ResumeOrder => "resume_order",
            ChoiceKind::Delay => "delay",
            ChoiceKind::TimerDuration => "timer_duration",
            ChoiceKind::Loss => "loss",
            ChoiceKind::Fault => "fault",
            ChoiceKind::Advance => "advance",
            ChoiceKind::Other => "other",
        }
    }
}

impl fmt::Display for ChoiceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ChoiceKind::Event => "event order within an instant",
            ChoiceKind::ResumeOrder => "resume order after a pause",
            ChoiceKind::Delay => "message delay",
            ChoiceKind::TimerDuration => "timer duration",
            ChoiceKind::Loss => "message loss",
            ChoiceKind::Fault => "fault",
            ChoiceKind::Advance => "advance of time",
            ChoiceKind::Other => "other",
        })
    }
}

/// The counters of one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindCount {
    /// Expanded states that offered this kind among two or more enabled actions.
    pub choice_points: u64,
    /// Actions of this kind those states offered.
    pub offered: u64,
    /// Actions of this kind the search expanded there (fewer than offered under reduction).
    pub expanded: u64,
}

/// Branching by kind of choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Branching {
    counts: [KindCount; 8],
}

impl Branching {
    pub fn get(&self, kind: ChoiceKind) -> KindCount {
        self.counts[kind.index()]
    }

    /// Every kind with a non-zero count, in report order.
    pub fn nonzero(&self) -> impl Iterator<Item = (ChoiceKind, KindCount)> + '_ {
        ChoiceKind::ALL
            .into_iter()
            .map(|k| (k, self.get(k)))
            .filter(|(_, c)| c.offered > 0)
    }

    /// Adds actions expanded after all at states already counted (the cycle proviso).
    pub(crate) fn add_expanded(&mut self, tally: &Tally) {
        for (count, &expanded) in self.counts.iter_mut().zip(&tally.expanded) {
            count.expanded += expanded as u64;
        }
    }

    /// Adds the counts of `other`.
    pub(crate) fn merge(&mut self, other: &Branching) {
        for (count, o) in self.counts.iter_mut().zip(&other.counts) {
            count.choice_points += o.choice_points;
            count.offered += o.offered;
            count.expanded += o.expanded;
        }
    }

    /// Adds one expanded state's tally.
    pub(crate) fn add(&mut self, tally: &Tally) {
        if tally.offered.iter().sum::<u32>() < 2 {
            return;
        }
        for (count, (&offered, &expanded)) in self
            .counts
            .iter_mut()
            .zip(tally.offered.iter().zip(&tally.expanded))
        {
            if offered > 0 {
                count.choice_points += 1;
                count.offered += offered as u64;
                count.expanded += expanded as u64;
            }
        }
    }
}

/// What one state offered and what of it was expanded, by kind.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    offered: [u32; 8],
    expanded: [u32; 8],
}

impl Tally {
    pub(crate) fn offer(&mut self, kind: ChoiceKind) {
        self.offered[kind.index()] += 1;
    }
    pub(crate) fn expand(&mut self, kind: ChoiceKind) {
        self.expanded[kind.index()] += 1;
    }
}
