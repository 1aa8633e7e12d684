//! How many threads a search ran on, or why it ran on one.

use std::fmt;

/// How many threads a search ran on, or why it ran on one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Threads {
    /// On this many threads.
    Ran(usize),
    /// On this many threads for `percent` of the expansions, and on one for the rest
    /// (`explorer::tuner`: the threads were used only while they paid).
    Tuned { threads: usize, percent: u64 },
    /// On one thread although more were asked for: how many, and why.
    Refused { asked: usize, why: String },
    /// Expansions prepared on this many threads, deduplicated on one (why: a reduction
    /// that needs the order of expansions; see `explorer::lookahead`); the threads
    /// prepared `percent` of the expansions (`explorer::tuner`: only while they paid).
    Prepared {
        threads: usize,
        why: String,
        percent: u64,
    },
}

impl Threads {
    /// The number of threads the search ran on.
    pub fn count(&self) -> usize {
        match self {
            Threads::Ran(n)
            | Threads::Tuned { threads: n, .. }
            | Threads::Prepared { threads: n, .. } => *n,
            Threads::Refused { .. } => 1,
        }
    }
}

impl fmt::Display for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Threads::Ran(1) => f.write_str("1 thread"),
            Threads::Ran(n) => write!(f, "{n} threads"),
            Threads::Tuned { threads, percent } => write!(
                f,
                "{threads} threads (for {percent} % of the expansions, while that was faster)"
            ),
            Threads::Refused { asked, why } => {
                write!(f, "1 thread ({asked} asked for, not applicable: {why})")
            }
            Threads::Prepared {
                threads,
                why,
                percent,
            } => write!(
                f,
                "{threads} threads computing successors (for {percent} % of the expansions, \
                 while that was faster), one deduplicating ({why})"
            ),
        }
    }
}
