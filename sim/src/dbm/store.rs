//! The symbolic visited store: what a breadth-first search over symbolic states has met, as
//! one federation of far-time vectors per shape.
//!
//! The idea: a symbolic state is a *shape* (a state with its far times left out, named by its
//! fingerprint) and a set of far-time vectors, the times left of its far deadlines. A search
//! admits a state only for the part of its set that no earlier state of the same shape
//! covered: [`SymbolicStore::admit`] returns that part, empty when the state is covered (the
//! inclusion is exact, by subtraction, so nothing is pruned that was not met). Breadth-first,
//! the new parts one shape receives while a level is expanded wait as a single entry of the
//! next level ([`NextLevel::push`] unions them), so each shape is expanded at most once per
//! level, however many predecessors reached it (waiting-list aggregation). Shapes are kept in
//! ordered maps and entries in arrival order: the store never depends on hash iteration.

use super::Federation;
use std::collections::BTreeMap;

/// Every shape's stored federation, with the counts a search reports.
#[derive(Clone, Debug, Default)]
pub struct SymbolicStore {
    shapes: BTreeMap<u64, Stored>,
    /// States admitted with something new.
    admitted: u64,
    /// States whose whole set was already stored.
    covered: u64,
}

/// One shape's federation and the piece count at which it is next merge-reduced.
#[derive(Clone, Debug)]
struct Stored {
    set: Federation,
    reduce_at: usize,
}

/// A federation is merge-reduced once its pieces reach this many (and then each time they
/// double), which keeps inclusion checks short without reducing on every admission.
const FIRST_REDUCE_AT_PIECES: usize = 8;

impl SymbolicStore {
    pub fn new() -> Self {
        SymbolicStore::default()
    }

    /// Admits the vectors `set` of shape `shape`: stores them and returns the part not
    /// stored before (empty: the state is covered and need not be expanded).
    ///
    /// # Panics
    ///
    /// When `set` has another dimension than the federation stored for `shape`: one shape
    /// has one layout of far coordinates.
    pub fn admit(&mut self, shape: u64, set: &Federation) -> Federation {
        let stored = self.shapes.entry(shape).or_insert_with(|| Stored {
            set: Federation::empty(set.dim()),
            reduce_at: FIRST_REDUCE_AT_PIECES,
        });
        assert_eq!(
            stored.set.dim(),
            set.dim(),
            "shape {shape:#x}: far sets of two dimensions"
        );
        let new = set.minus(&stored.set);
        if new.is_empty() {
            self.covered += 1;
            return new;
        }
        self.admitted += 1;
        stored.set.union_with(&new);
        if stored.set.pieces().len() >= stored.reduce_at {
            stored.set.merge_reduce();
            stored.reduce_at = (stored.set.pieces().len() * 2).max(FIRST_REDUCE_AT_PIECES);
        }
        new
    }

    /// What is stored for `shape`, if anything.
    pub fn stored(&self, shape: u64) -> Option<&Federation> {
        self.shapes.get(&shape).map(|s| &s.set)
    }

    /// Distinct shapes met.
    pub fn shapes(&self) -> usize {
        self.shapes.len()
    }

    /// DBMs stored over all shapes.
    pub fn pieces(&self) -> usize {
        self.shapes.values().map(|s| s.set.pieces().len()).sum()
    }

    /// States admitted with something new.
    pub fn admitted(&self) -> u64 {
        self.admitted
    }

    /// States found covered by what was stored.
    pub fn covered(&self) -> u64 {
        self.covered
    }
}

/// The entries of the next breadth-first level: one per shape, holding the union of the new
/// parts that shape received while the current level was expanded.
#[derive(Clone, Debug, Default)]
pub struct NextLevel {
    entries: Vec<(u64, Federation)>,
    slot_of: BTreeMap<u64, usize>,
}

impl NextLevel {
    pub fn new() -> Self {
        NextLevel::default()
    }

    /// Queues `part` (a new part [`SymbolicStore::admit`] returned) for `shape`: a shape
    /// already waiting absorbs it. Whether the shape was new to this level.
    pub fn push(&mut self, shape: u64, part: Federation) -> bool {
        if part.is_empty() {
            return false;
        }
        match self.slot_of.get(&shape) {
            Some(&slot) => {
                self.entries[slot].1.union_with(&part);
                false
            }
            None => {
                self.slot_of.insert(shape, self.entries.len());
                self.entries.push((shape, part));
                true
            }
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The waiting entries, in the order their shapes first arrived.
    pub fn into_entries(self) -> Vec<(u64, Federation)> {
        self.entries
    }
}
