//! Which engine runs a search, on how many threads, and why.
//!
//! Every engine executes the core loop's expansion and admission (`explorer`); they differ
//! in how they schedule them:
//!
//! | search asked for | threads | reductions | engine |
//! |---|---|---|---|
//! | any frontier of the caller's (depth-first, replay, shrink, scripts, shards) | any | any | `OneThread` |
//! | breadth-first | 1 | any | `OneThread` |
//! | breadth-first | 2 or more | partial order or dead values on | `Lookahead`: workers prepare expansions, one thread admits them in queue order |
//! | breadth-first | 2 or more | neither | `Batches`: batches expanded and deduplicated on every thread |
//! | random walks | 2 or more | a search that depends on every walk before | `OneThread`, refused with the reason |
//! | random walks | 2 or more | otherwise | `Walks`: waves of seeds on every thread |
//!
//! With a wall clock and worker trials, `Batches` and `Lookahead` use their threads only
//! while that is faster (`tuned`; `explorer::tuner`): which thread does the work never
//! changes a result.

use super::{DeadValues, PartialOrder};
use crate::options::{Options, Stop};
use std::fmt;

/// The kind of search a caller asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Exhaustive breadth-first search: may run on several threads.
    BreadthFirst,
    /// This many seeded random walks: may run on several threads.
    Walks { seeds: u64 },
    /// A search driven by a frontier of the caller's, on the caller's thread; `prunes`:
    /// whether it prunes visited states (exhaustive) or follows every action (walks,
    /// replay, shrinking candidates, scripts).
    Frontier { prunes: bool },
}

impl Strategy {
    /// Whether the search prunes visited states (reductions apply only then).
    pub fn prunes(self) -> bool {
        match self {
            Strategy::BreadthFirst => true,
            Strategy::Walks { .. } => false,
            Strategy::Frontier { prunes } => prunes,
        }
    }
}

/// Which engine explores, on how many threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The core loop on the caller's thread; `refused`: the threads asked for, and why one
    /// thread runs instead.
    OneThread { refused: Option<(usize, String)> },
    /// Breadth-first batches, each expanded and deduplicated on `threads` threads; with
    /// `tuned`, a batch goes to the threads only while that is faster.
    Batches { threads: usize, tuned: bool },
    /// Breadth-first search whose expansions are prepared on `threads` worker threads and
    /// admitted on one thread in queue order, because `why` (a reduction that needs the
    /// order of expansions); with `tuned`, the workers are used only while that is faster.
    Lookahead {
        threads: usize,
        why: String,
        tuned: bool,
    },
    /// Waves of seeded random walks on `threads` threads.
    Walks { threads: usize },
}

impl Engine {
    /// The engine for `strategy` under `options`, given the reductions decided.
    pub(super) fn decide(
        options: &Options,
        strategy: Strategy,
        partial_order: &PartialOrder,
        dead_values: &DeadValues,
    ) -> Engine {
        let threads = options.parallelism.threads;
        let tuned =
            options.hooks.wall_clock.is_some() && options.parallelism.worker_trials.is_some();
        let one = Engine::OneThread { refused: None };
        match strategy {
            Strategy::Frontier { .. } => one,
            _ if threads <= 1 => one,
            Strategy::BreadthFirst => match ordered_by(partial_order, dead_values) {
                Some(why) => Engine::Lookahead {
                    threads,
                    why: why.into(),
                    tuned,
                },
                None => Engine::Batches { threads, tuned },
            },
            Strategy::Walks { seeds } if seeds <= 1 => one,
            Strategy::Walks { .. } => match walks_on_one_thread(options) {
                Some(why) => Engine::OneThread {
                    refused: Some((threads, why.into())),
                },
                None => Engine::Walks { threads },
            },
        }
    }

    /// A short, stable name of the engine (for machine-readable output).
    pub fn name(&self) -> &'static str {
        match self {
            Engine::OneThread { .. } => "one_thread",
            Engine::Batches { .. } => "batches",
            Engine::Lookahead { .. } => "lookahead",
            Engine::Walks { .. } => "walks",
        }
    }

    /// The threads the engine runs on.
    pub fn threads(&self) -> usize {
        match self {
            Engine::OneThread { .. } => 1,
            Engine::Batches { threads, .. }
            | Engine::Lookahead { threads, .. }
            | Engine::Walks { threads } => *threads,
        }
    }

    /// What ran, with `percent`: the share of the expansions the threads took (for the
    /// engines that measure it).
    pub fn ran(&self, percent: Option<u64>) -> String {
        match (self, percent) {
            (
                Engine::Batches {
                    threads,
                    tuned: true,
                },
                Some(percent),
            ) => format!(
                "{threads} threads (for {percent} % of the expansions, while that was faster)"
            ),
            (Engine::Lookahead { threads, why, .. }, Some(percent)) => format!(
                "{threads} threads computing successors (for {percent} % of the expansions, \
                 while that was faster), one deduplicating ({why})"
            ),
            _ => self.to_string(),
        }
    }
}

/// Why a breadth-first search must admit its states on one thread in queue order, if it
/// must: a reduction that depends on the order of expansions.
fn ordered_by(partial_order: &PartialOrder, dead_values: &DeadValues) -> Option<&'static str> {
    if partial_order.is_on() {
        Some("partial-order reduction's cycle proviso depends on the order of expansions")
    } else if dead_values.is_on() {
        Some("the dead-values reduction's count of the states met is kept by one thread")
    } else {
        None
    }
}

/// Why a search of random walks under `options` must run on one thread, if it must: what
/// one walk finds changes what the next one does.
fn walks_on_one_thread(options: &Options) -> Option<&'static str> {
    match options.stop {
        Stop::Never => {
            Some("the search goes on after a violation, which changes what later walks evaluate")
        }
        Stop::WhenAllSettled => Some(
            "the search stops once every property is settled, which depends on every walk before",
        ),
        Stop::AtFirstViolation if options.limits.max_states.is_some() => {
            Some("a state limit counts the states of every walk before")
        }
        Stop::AtFirstViolation => None,
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Engine::OneThread { refused: None } => f.write_str("1 thread"),
            Engine::OneThread {
                refused: Some((asked, why)),
            } => write!(f, "1 thread ({asked} asked for, not applicable: {why})"),
            Engine::Batches {
                threads,
                tuned: true,
            } => write!(
                f,
                "{threads} threads (breadth-first batches, on the threads while that is faster)"
            ),
            Engine::Batches { threads, .. } | Engine::Walks { threads } => {
                write!(f, "{threads} threads")
            }
            Engine::Lookahead {
                threads,
                why,
                tuned,
                ..
            } => write!(
                f,
                "{threads} threads computing successors{}, one deduplicating ({why})",
                if *tuned { " while that is faster" } else { "" }
            ),
        }
    }
}
