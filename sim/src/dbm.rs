//! Integer difference-bound matrices: convex sets of integer time vectors, for symbolic time.
//!
//! The idea: a symbolic state keeps its far deadlines not as values but as a set of vectors
//! `x = (x1 .. xn)` of times left, and the sets a search meets are described by bounds on
//! differences, `xi - xj <= c` (with `x0 = 0`, so `xi <= c` and `-xj <= c` are differences
//! too). A [`Dbm`] holds one bound for each ordered pair; closing it (shortest paths) makes
//! every bound the tightest its constraints imply, after which emptiness, inclusion and
//! equality are read off the entries. Times are integers (milliseconds), so a strict bound
//! `< c` is the bound `<= c - 1` and no strictness flag is kept. A union of DBMs is a
//! [`Federation`]; subtraction, which convex sets are not closed
//! under, gives one.
//!
//! Every operation keeps the matrix closed, so a `Dbm` is always canonical: two DBMs are the
//! same set exactly when their entries are equal (empty ones are marked and compare equal).

mod federation;
mod store;

pub use federation::Federation;
pub use store::{NextLevel, SymbolicStore};

/// No bound.
pub const INF: i64 = i64::MAX;

/// Bound sum, where no bound stays no bound.
#[inline]
fn add(a: i64, b: i64) -> i64 {
    if a == INF || b == INF {
        INF
    } else {
        a + b
    }
}

/// A closed integer DBM of dimension `n`: coordinates `1..=n` and the reference `0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dbm {
    /// Coordinates, the reference not counted.
    dim: usize,
    /// `bounds[i * (dim + 1) + j]`: the bound on `xi - xj`.
    bounds: Vec<i64>,
    /// No vector satisfies the bounds (the entries are then meaningless).
    empty: bool,
}

impl Dbm {
    /// Every vector of `dim` integers.
    pub fn universe(dim: usize) -> Self {
        let side = dim + 1;
        let mut bounds = vec![INF; side * side];
        for i in 0..side {
            bounds[i * side + i] = 0;
        }
        Dbm {
            dim,
            bounds,
            empty: false,
        }
    }

    /// The single vector `point` (`point[k]` is coordinate `k + 1`).
    pub fn point(point: &[i64]) -> Self {
        let mut d = Dbm::universe(point.len());
        for (k, &v) in point.iter().enumerate() {
            d.constrain(k + 1, 0, v);
            d.constrain(0, k + 1, -v);
        }
        d
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn is_empty(&self) -> bool {
        self.empty
    }

    /// The bound on `xi - xj` (`INF`: none); meaningless when empty.
    pub fn bound(&self, i: usize, j: usize) -> i64 {
        self.bounds[i * (self.dim + 1) + j]
    }

    fn set(&mut self, i: usize, j: usize, c: i64) {
        let side = self.dim + 1;
        self.bounds[i * side + j] = c;
    }

    /// Whether `point` lies in the set.
    pub fn contains(&self, point: &[i64]) -> bool {
        assert_eq!(point.len(), self.dim, "a point of another dimension");
        if self.empty {
            return false;
        }
        let at = |k: usize| if k == 0 { 0 } else { point[k - 1] };
        (0..=self.dim).all(|i| {
            (0..=self.dim).all(|j| {
                let c = self.bound(i, j);
                c == INF || at(i) - at(j) <= c
            })
        })
    }

    /// Adds `xi - xj <= c`, closing again in `O(n^2)` (the other bounds can only tighten
    /// through the new one).
    pub fn constrain(&mut self, i: usize, j: usize, c: i64) {
        if self.empty || c >= self.bound(i, j) {
            return;
        }
        if add(c, self.bound(j, i)) < 0 {
            self.empty = true;
            return;
        }
        self.set(i, j, c);
        let side = self.dim + 1;
        for k in 0..side {
            let k_i = self.bound(k, i);
            if k_i == INF {
                continue;
            }
            for l in 0..side {
                let through = add(add(k_i, c), self.bound(j, l));
                if through < self.bound(k, l) {
                    self.set(k, l, through);
                }
            }
        }
        debug_assert!(self.is_closed(), "constrain left the DBM unclosed");
    }

    /// Moves every vector by `d` on every coordinate (time left after `-d` ms: `translate(-d)`).
    pub fn translate(&mut self, d: i64) {
        for k in 1..=self.dim {
            let up = self.bound(k, 0);
            let down = self.bound(0, k);
            self.set(k, 0, add(up, d));
            self.set(0, k, if down == INF { INF } else { down - d });
        }
    }

    /// Forgets coordinate `k`: every value of it, with the others as they were.
    pub fn free(&mut self, k: usize) {
        assert!(k >= 1 && k <= self.dim, "no coordinate {k}");
        for j in 0..=self.dim {
            if j != k {
                self.set(k, j, INF);
                self.set(j, k, INF);
            }
        }
    }

    /// The same set over other coordinates: new coordinate `i` (1-based) is old coordinate
    /// `sources[i - 1]`, or a new one without bounds where that is `None`; old coordinates no
    /// source names are projected away. Exact: a closed DBM's projection is its submatrix,
    /// and a coordinate without bounds tightens no path.
    pub fn remap(&self, sources: &[Option<usize>]) -> Dbm {
        let dim = sources.len();
        let mut out = Dbm::universe(dim);
        out.empty = self.empty;
        let source = |i: usize| if i == 0 { Some(0) } else { sources[i - 1] };
        for i in 0..=dim {
            for j in 0..=dim {
                if let (Some(a), Some(b)) = (source(i), source(j)) {
                    assert!(a <= self.dim && b <= self.dim, "no coordinate {a} or {b}");
                    out.set(i, j, self.bound(a, b));
                }
            }
        }
        out
    }

    /// Whether every vector of `other` is one of this set's.
    pub fn includes(&self, other: &Dbm) -> bool {
        assert_eq!(self.dim, other.dim, "DBMs of different dimensions");
        if other.empty {
            return true;
        }
        !self.empty
            && (self.bounds.iter())
                .zip(&other.bounds)
                .all(|(&mine, &theirs)| theirs <= mine)
    }

    /// The vectors in both.
    pub fn intersection(&self, other: &Dbm) -> Dbm {
        let mut out = self.clone();
        for i in 0..=self.dim {
            for j in 0..=self.dim {
                out.constrain(i, j, other.bound(i, j));
            }
        }
        if other.empty {
            out.empty = true;
        }
        out
    }

    /// The smallest DBM holding both (their convex hull in bounds).
    pub fn hull(&self, other: &Dbm) -> Dbm {
        if self.empty {
            return other.clone();
        }
        if other.empty {
            return self.clone();
        }
        let bounds = (self.bounds.iter().zip(&other.bounds))
            .map(|(&a, &b)| a.max(b))
            .collect();
        Dbm {
            dim: self.dim,
            bounds,
            empty: false,
        }
    }

    /// The vectors of this set not in `other`, as disjoint DBMs: for each bound of `other`
    /// that this set does not already satisfy, the part beyond it, within the earlier
    /// bounds.
    pub fn minus(&self, other: &Dbm) -> Vec<Dbm> {
        assert_eq!(self.dim, other.dim, "DBMs of different dimensions");
        if self.empty {
            return Vec::new();
        }
        if other.empty {
            return vec![self.clone()];
        }
        let mut rest = self.clone();
        let mut pieces = Vec::new();
        for i in 0..=self.dim {
            for j in 0..=self.dim {
                let c = other.bound(i, j);
                if i == j || c == INF || rest.bound(i, j) <= c {
                    continue;
                }
                let mut beyond = rest.clone();
                beyond.constrain(j, i, -c - 1);
                if !beyond.empty {
                    pieces.push(beyond);
                }
                rest.constrain(i, j, c);
                if rest.empty {
                    return pieces;
                }
            }
        }
        pieces
    }

    /// Whether every bound is the tightest its constraints imply.
    fn is_closed(&self) -> bool {
        let side = self.dim + 1;
        (0..side).all(|k| {
            (0..side).all(|i| {
                (0..side).all(|j| add(self.bound(i, k), self.bound(k, j)) >= self.bound(i, j))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_holds_itself_alone() {
        let p = Dbm::point(&[3, -2]);
        assert!(p.contains(&[3, -2]));
        assert!(!p.contains(&[3, -1]));
        assert_eq!(p.bound(1, 2), 5);
    }

    #[test]
    fn contradicting_bounds_give_the_empty_set() {
        let mut d = Dbm::universe(2);
        d.constrain(1, 2, 1);
        d.constrain(2, 1, -2);
        assert!(d.is_empty());
        assert!(!d.contains(&[0, 0]));
    }

    #[test]
    fn translating_moves_every_coordinate_and_keeps_their_differences() {
        let mut d = Dbm::point(&[10, 4]);
        d.translate(-3);
        assert!(d.contains(&[7, 1]));
        assert_eq!(d.bound(1, 2), 6);
    }
}
