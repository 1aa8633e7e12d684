//! Breadth-first search of the lease world's symbolic states (`world.rs`): each shape's
//! federation in a `SymbolicStore`, a state admitted only for its uncovered part, each shape
//! expanded once per level. Every expanded entry keeps where its parts came from (the entry
//! each was a successor of), so that a violating part can be concretised into a run
//! (`concretise.rs`).

use crate::world::{initial, successors, Lease, Shape, Symbolic};
use lockcheck_sim::dbm::{Federation, NextLevel, SymbolicStore};
use lockcheck_sim::FpHasher;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};

/// A part admitted for a shape, and the expanded entry it is a successor of (`None`: an
/// initial state).
#[derive(Clone, Debug)]
pub struct Part {
    pub far: Federation,
    pub parent: Option<usize>,
}

/// One expanded entry: a shape, the union of the parts it waited with, and those parts.
#[derive(Clone, Debug)]
pub struct Entry {
    pub shape: Shape,
    pub far: Federation,
    pub parts: Vec<Part>,
}

/// What a breadth-first search over symbolic states met.
pub struct Searched {
    /// Every shape with the federation stored for it.
    pub stored: BTreeMap<u64, (Shape, Federation)>,
    /// Every expanded entry, in the order of expansion.
    pub entries: Vec<Entry>,
    /// The first state admitted with client 2 granted while client 1 held: its shape and
    /// admitted part.
    pub overlap: Option<(Shape, Part)>,
}

impl Searched {
    /// Distinct shapes stored.
    pub fn shapes(&self) -> usize {
        self.stored.len()
    }

    /// Entries expanded (one per shape and level).
    pub fn expansions(&self) -> usize {
        self.entries.len()
    }

    /// The concrete states the stored symbolic states stand for.
    pub fn members(&self) -> BTreeSet<Shape> {
        let mut out = BTreeSet::new();
        for (shape, far) in self.stored.values() {
            out.extend(points(far).iter().map(|p| shape.concrete(p)));
        }
        out
    }
}

/// Every integer point of a federation (its pieces' bounding boxes, filtered).
pub fn points(far: &Federation) -> Vec<Vec<i64>> {
    let mut out = BTreeSet::new();
    for piece in far.pieces() {
        let ranges: Vec<(i64, i64)> = (1..=piece.dim())
            .map(|k| (-piece.bound(0, k), piece.bound(k, 0)))
            .collect();
        let boxed = ranges.iter().fold(vec![vec![]], |points, &(lo, hi)| {
            (points.iter())
                .flat_map(|p| {
                    (lo..=hi).map(move |v| {
                        let mut q: Vec<i64> = p.clone();
                        q.push(v);
                        q
                    })
                })
                .collect()
        });
        out.extend(boxed.into_iter().filter(|p| piece.contains(p)));
    }
    out.into_iter().collect()
}

fn shape_key(shape: &Shape) -> u64 {
    let mut h = FpHasher::new();
    shape.hash(&mut h);
    h.finish()
}

/// The store, the shape of each key, the parts waiting for the next level, the first overlap.
struct Seen {
    store: SymbolicStore,
    shapes: BTreeMap<u64, Shape>,
    waiting: BTreeMap<u64, Vec<Part>>,
    overlap: Option<(Shape, Part)>,
}

impl Seen {
    /// Admits `s`, a successor of entry `parent`: its uncovered part waits in `level`.
    fn admit(&mut self, s: Symbolic, parent: Option<usize>, level: &mut NextLevel) {
        let key = shape_key(&s.shape);
        let new = self.store.admit(key, &s.far);
        if new.is_empty() {
            return;
        }
        let part = Part {
            far: new.clone(),
            parent,
        };
        if s.shape.overlap && self.overlap.is_none() {
            self.overlap = Some((s.shape.clone(), part.clone()));
        }
        self.waiting.entry(key).or_default().push(part);
        self.shapes.entry(key).or_insert(s.shape);
        level.push(key, new);
    }
}

/// Breadth-first search of `world`'s symbolic states.
pub fn search(world: &Lease) -> Searched {
    let mut seen = Seen {
        store: SymbolicStore::new(),
        shapes: BTreeMap::new(),
        waiting: BTreeMap::new(),
        overlap: None,
    };
    let mut level = NextLevel::new();
    for s in initial(world) {
        seen.admit(s, None, &mut level);
    }
    let mut entries: Vec<Entry> = Vec::new();
    while !level.is_empty() {
        let mut next = NextLevel::new();
        let waiting = std::mem::take(&mut seen.waiting);
        for (key, far) in level.into_entries() {
            let id = entries.len();
            let shape = seen.shapes[&key].clone();
            entries.push(Entry {
                shape: shape.clone(),
                far: far.clone(),
                parts: waiting[&key].clone(),
            });
            for s in successors(&Symbolic { shape, far }, world) {
                seen.admit(s, Some(id), &mut next);
            }
        }
        level = next;
    }
    let stored = (seen.shapes.iter())
        .map(|(&key, shape)| {
            let far = seen.store.stored(key).expect("every shape met was stored");
            (key, (shape.clone(), far.clone()))
        })
        .collect();
    Searched {
        stored,
        entries,
        overlap: seen.overlap,
    }
}
