//! Processes that share one fate: threads of one program.
//!
//! The idea: threads of one program are actors of their own (each with its connections and
//! state), but the program is one operating-system process, so a stop-the-world pause, a
//! crash or a clock step hits all of them at once. The envelope lists such groups
//! ([`FaultEnvelope::shared_fate`]); a fault a rule names on one member is applied to every
//! member in the same step (`inject.rs`), and counts once against its budget. Since every
//! such fault hits the whole group, members are paused, down and stepped together.
//!
//! Partial-order reduction stays sound by never exploring a member's actions alone
//! (`independence.rs`): a fault named on one member changes the others. Symmetry keeps the
//! groups: a renaming must map each group onto a group (`symmetry.rs`).

use super::actor::ProcessId;
use super::faults::FaultEnvelope;

impl<F> FaultEnvelope<F> {
    /// Makes `group` share one fate (two or more processes; fewer change nothing).
    pub fn shared_fate(mut self, mut group: Vec<ProcessId>) -> Self {
        group.sort_unstable();
        group.dedup();
        if group.len() > 1 {
            self.shared_fate.push(group);
        }
        self
    }

    /// The other members of `p`'s group (none when `p` shares its fate with nobody).
    pub fn companions(&self, p: ProcessId) -> impl Iterator<Item = ProcessId> + '_ {
        self.shared_fate
            .iter()
            .filter(move |g| g.contains(&p))
            .flatten()
            .copied()
            .filter(move |&q| q != p)
    }

    /// Whether `p` shares its fate with another process.
    pub fn shares_fate(&self, p: ProcessId) -> bool {
        self.companions(p).next().is_some()
    }
}
