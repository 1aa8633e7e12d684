//! The plan of a search: what runs and why, decided once before the search starts.
//!
//! The idea: which engine explores (the core loop on one thread, breadth-first batches on
//! several threads, expansions prepared ahead on worker threads, or waves of random walks),
//! which reductions apply and why the others do not, how many bits of each fingerprint are
//! compared and how visited states are stored all follow from the options and from what
//! the model declares. [`Plan::decide`] turns them into one value before the search starts;
//! the search only executes it, and the report carries it, so that what ran and why can be
//! read in one place (`check` prints it). An engine is a schedule, not a semantics: every
//! engine gives the results of the core loop on one thread (the differential and parallel
//! tests hold them to it).

mod engine;
mod reductions;
mod width;

pub use engine::{Engine, Strategy};
pub use reductions::{DeadValues, PartialOrder, Symmetry};
pub use width::Width;

use crate::model::Model;
use crate::options::Options;
use std::fmt;

/// What a search runs, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Which engine explores, on how many threads.
    pub engine: Engine,
    /// Whether partial-order reduction runs, or why not.
    pub partial_order: PartialOrder,
    /// Whether symmetry reduction runs, or why not.
    pub symmetry: Symmetry,
    /// Whether dead values are left out of the keys, or why not.
    pub dead_values: DeadValues,
    /// How many bits of each fingerprint are compared, or why 64 when 128 were asked for.
    pub width: Width,
    /// How the visited set keeps fingerprints.
    pub table: Table,
}

/// How the visited set keeps fingerprints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// Whole fingerprints (8 or 16 bytes a slot), growing as needed.
    Exact,
    /// Hash compaction: 32 bits of each fingerprint in a table sized once for
    /// `planned_states`, whole fingerprints beyond them (`visited::compact`).
    Compact { planned_states: usize },
}

impl Plan {
    /// The plan for a search of `model` under `options` with `strategy`.
    pub fn decide<M: Model>(model: &M, options: &Options, strategy: Strategy) -> Plan {
        let prunes = strategy.prunes();
        let asked = options.reductions;
        let props = options.judged.select(model.properties());
        let partial_order = PartialOrder::decide(&props, asked.partial_order, prunes);
        let dead_values = DeadValues::decide(asked.dead_values, prunes);
        let storage = options.storage;
        let compact = storage.hash_compaction && prunes;
        Plan {
            engine: Engine::decide(options, strategy, &partial_order, &dead_values),
            symmetry: Symmetry::decide(model, asked.symmetry, prunes),
            partial_order,
            dead_values,
            width: Width::decide(model, storage.wide_fingerprints && !storage.hash_compaction),
            table: match options.compact_plan(1) {
                Some(planned_states) if compact => Table::Compact { planned_states },
                _ => Table::Exact,
            },
        }
    }

    /// The plan with its engine replaced by one thread, because `why` (threads that could
    /// not be started).
    pub(crate) fn on_one_thread(mut self, why: String) -> Plan {
        let asked = self.engine.threads();
        self.engine = Engine::OneThread {
            refused: Some((asked, why)),
        };
        self
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Table::Exact => f.write_str("whole fingerprints"),
            Table::Compact { planned_states } => write!(
                f,
                "hash compaction (32 bits a state, sized for {planned_states} states)"
            ),
        }
    }
}

impl fmt::Display for Plan {
    /// One line per decision, each "name: decision".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "engine: {}", self.engine)?;
        writeln!(f, "partial order: {}", self.partial_order)?;
        writeln!(f, "symmetry: {}", self.symmetry)?;
        writeln!(f, "dead values: {}", self.dead_values)?;
        writeln!(f, "fingerprints: {}", self.width)?;
        writeln!(f, "visited set: {}", self.table)
    }
}
