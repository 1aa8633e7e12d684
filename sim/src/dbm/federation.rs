//! Federations: finite unions of DBMs, the sets a symbolic store keeps per shape.
//!
//! The idea: what a search has stored for one shape is a union of the convex sets it met,
//! and a new set is new only where it lies outside that union (`minus`). Pieces included in
//! another are dropped when one is added, and [`Federation::merge_reduce`] replaces two
//! pieces by their hull wherever the hull adds no vector, so that the union stays small
//! without ever growing as a set.

use super::Dbm;

/// A union of DBMs of one dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Federation {
    dim: usize,
    pieces: Vec<Dbm>,
}

impl Federation {
    /// The empty set of vectors of `dim` integers.
    pub fn empty(dim: usize) -> Self {
        Federation {
            dim,
            pieces: Vec::new(),
        }
    }

    /// The set `dbm` holds.
    pub fn of(dbm: Dbm) -> Self {
        let mut f = Federation::empty(dbm.dim());
        f.add(dbm);
        f
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn pieces(&self) -> &[Dbm] {
        &self.pieces
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    pub fn contains(&self, point: &[i64]) -> bool {
        self.pieces.iter().any(|p| p.contains(point))
    }

    /// Adds the vectors of `dbm`: whether that added a piece (false when one piece already
    /// included it). Pieces it includes are dropped.
    pub fn add(&mut self, dbm: Dbm) -> bool {
        assert_eq!(dbm.dim(), self.dim, "a DBM of another dimension");
        if dbm.is_empty() || self.pieces.iter().any(|p| p.includes(&dbm)) {
            return false;
        }
        self.pieces.retain(|p| !dbm.includes(p));
        self.pieces.push(dbm);
        true
    }

    /// Adds every vector of `other`.
    pub fn union_with(&mut self, other: &Federation) {
        for p in &other.pieces {
            self.add(p.clone());
        }
    }

    /// The vectors of this set outside `dbm`.
    pub fn minus_dbm(&self, dbm: &Dbm) -> Federation {
        let mut out = Federation::empty(self.dim);
        for p in &self.pieces {
            for piece in p.minus(dbm) {
                out.add(piece);
            }
        }
        out
    }

    /// The vectors of this set outside `other`.
    pub fn minus(&self, other: &Federation) -> Federation {
        (other.pieces.iter()).fold(self.clone(), |rest, d| rest.minus_dbm(d))
    }

    /// Whether every vector of `other` is in this set (exact, by subtraction).
    pub fn includes(&self, other: &Federation) -> bool {
        other.minus(self).is_empty()
    }

    /// Moves every vector by `d` on every coordinate.
    pub fn translate(&mut self, d: i64) {
        self.pieces.iter_mut().for_each(|p| p.translate(d));
    }

    /// Keeps the vectors with `xi - xj <= c`.
    pub fn constrain(&mut self, i: usize, j: usize, c: i64) {
        self.pieces.iter_mut().for_each(|p| p.constrain(i, j, c));
        self.pieces.retain(|p| !p.is_empty());
    }

    /// The vectors whose coordinate `k` is due within `due_ms` (`xk <= due_ms`), and the rest
    /// (`xk > due_ms`): where a search advances time by `due_ms`, the first part is where the
    /// far deadline `k` falls due on the way and the second where it is still ahead.
    pub fn split_due(&self, k: usize, due_ms: i64) -> (Federation, Federation) {
        let mut due = self.clone();
        due.constrain(k, 0, due_ms);
        let mut later = self.clone();
        later.constrain(0, k, -(due_ms + 1));
        (due, later)
    }

    /// Every piece over other coordinates ([`Dbm::remap`]).
    pub fn remap(&self, sources: &[Option<usize>]) -> Federation {
        let mut out = Federation::empty(sources.len());
        for p in &self.pieces {
            out.add(p.remap(sources));
        }
        out
    }

    /// Forgets coordinate `k` in every piece.
    pub fn free(&mut self, k: usize) {
        let pieces = std::mem::take(&mut self.pieces);
        for mut p in pieces {
            p.free(k);
            self.add(p);
        }
    }

    /// Replaces two pieces by their hull wherever the hull holds no vector outside them,
    /// until no pair can be merged: the same set in fewer pieces.
    pub fn merge_reduce(&mut self) {
        let mut merged = true;
        while merged {
            merged = false;
            'pairs: for a in 0..self.pieces.len() {
                for b in a + 1..self.pieces.len() {
                    let hull = self.pieces[a].hull(&self.pieces[b]);
                    let both = Federation {
                        dim: self.dim,
                        pieces: vec![self.pieces[a].clone(), self.pieces[b].clone()],
                    };
                    if Federation::of(hull.clone()).minus(&both).is_empty() {
                        self.pieces.swap_remove(b);
                        self.pieces.swap_remove(a);
                        self.add(hull);
                        merged = true;
                        break 'pairs;
                    }
                }
            }
        }
    }
}
