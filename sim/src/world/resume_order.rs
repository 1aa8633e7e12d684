//! The order in which a resumed process's overdue timers may fire (the rule that uses it is
//! `resume.rs`): kept apart so that the state can name it without importing the rule.

use serde::{Deserialize, Serialize};

/// The order in which a resumed process's overdue timers may fire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResumeOrder {
    /// Any overdue timer may fire next (threads scheduled by the operating system).
    #[default]
    Any,
    /// Overdue timers fire in due order (one event loop with a timer heap).
    Due,
}

impl ResumeOrder {
    /// How many of a process's first timers may fire at `now_ms`, given their due times in
    /// firing order: every overdue one under [`ResumeOrder::Any`] when some is overdue,
    /// otherwise the first when it is due.
    pub fn firable(self, dues_ms: impl IntoIterator<Item = u64>, now_ms: u64) -> usize {
        let mut dues_ms = dues_ms.into_iter().peekable();
        match dues_ms.peek() {
            Some(&first) if first < now_ms && self == ResumeOrder::Any => {
                dues_ms.take_while(|&d| d < now_ms).count()
            }
            Some(&first) if first <= now_ms => 1,
            _ => 0,
        }
    }

    /// Whether this is the default, [`ResumeOrder::Any`].
    pub fn is_any(&self) -> bool {
        *self == ResumeOrder::Any
    }

    /// The name a scenario file uses.
    pub fn name(self) -> &'static str {
        match self {
            ResumeOrder::Any => "any",
            ResumeOrder::Due => "due",
        }
    }
}
