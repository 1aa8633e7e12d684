//! The integer DBMs and federations of `lockcheck_sim::dbm` against brute force: random
//! constraints on up to three coordinates inside a small box, every operation's result
//! compared point by point with the set the constraints define, enumerated; and the symbolic
//! store over them against a plain set of points per shape.

use lockcheck_sim::dbm::{Dbm, Federation, NextLevel, SymbolicStore, INF};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// Every coordinate of a generated set lies in `-BOX..=BOX`.
const BOX: i64 = 3;

/// A DBM of `dim` coordinates from raw constraints `(i, j, c)`: `xi - xj <= c`, inside
/// the box.
#[derive(Clone, Debug)]
struct Raw {
    dim: usize,
    constraints: Vec<(usize, usize, i64)>,
}

impl Raw {
    fn dbm(&self) -> Dbm {
        let mut d = Dbm::universe(self.dim);
        for k in 1..=self.dim {
            d.constrain(k, 0, BOX);
            d.constrain(0, k, BOX);
        }
        for &(i, j, c) in &self.constraints {
            d.constrain(i, j, c);
        }
        d
    }

    fn holds(&self, p: &[i64]) -> bool {
        let at = |k: usize| if k == 0 { 0 } else { p[k - 1] };
        p.iter().all(|v| v.abs() <= BOX)
            && (self.constraints.iter()).all(|&(i, j, c)| at(i) - at(j) <= c)
    }
}

/// Every point with coordinates in `-reach..=reach`.
fn points(dim: usize, reach: i64) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for _ in 0..dim {
        out = (out.into_iter())
            .flat_map(|p| {
                (-reach..=reach).map(move |v| {
                    let mut q = p.clone();
                    q.push(v);
                    q
                })
            })
            .collect();
    }
    out
}

fn raw(dim: usize) -> impl Strategy<Value = Raw> {
    prop::collection::vec((0..=dim, 0..=dim, -2 * BOX..=2 * BOX), 0..5).prop_map(
        move |constraints| Raw {
            dim,
            constraints: constraints.into_iter().filter(|(i, j, _)| i != j).collect(),
        },
    )
}

fn two_raws() -> impl Strategy<Value = (Raw, Raw)> {
    (1usize..=3).prop_flat_map(|dim| (raw(dim), raw(dim)))
}

fn some_raws() -> impl Strategy<Value = Vec<Raw>> {
    (1usize..=3).prop_flat_map(|dim| prop::collection::vec(raw(dim), 1..5))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_dbm_holds_exactly_the_points_its_constraints_allow_with_tightest_bounds(r in (1usize..=3).prop_flat_map(raw)) {
        let d = r.dbm();
        let members: Vec<Vec<i64>> = points(r.dim, BOX).into_iter().filter(|p| r.holds(p)).collect();
        for p in points(r.dim, BOX + 1) {
            prop_assert_eq!(d.contains(&p), r.holds(&p), "point {:?}", p);
        }
        prop_assert_eq!(d.is_empty(), members.is_empty());
        if !d.is_empty() {
            for i in 0..=r.dim {
                for j in 0..=r.dim {
                    let at = |p: &[i64], k: usize| if k == 0 { 0 } else { p[k - 1] };
                    let widest = members.iter().map(|p| at(p, i) - at(p, j)).max().unwrap();
                    prop_assert_eq!(d.bound(i, j), widest, "bound ({}, {})", i, j);
                }
            }
        }
    }

    #[test]
    fn inclusion_intersection_hull_and_difference_agree_with_the_point_sets((a, b) in two_raws()) {
        let (da, db) = (a.dbm(), b.dbm());
        let all = points(a.dim, BOX);
        let subset = all.iter().all(|p| !b.holds(p) || a.holds(p));
        prop_assert_eq!(da.includes(&db), subset);
        let both = da.intersection(&db);
        let hull = da.hull(&db);
        let pieces = da.minus(&db);
        for p in &all {
            prop_assert_eq!(both.contains(p), a.holds(p) && b.holds(p));
            if a.holds(p) || b.holds(p) {
                prop_assert!(hull.contains(p));
            }
            let inside = pieces.iter().filter(|piece| piece.contains(p)).count();
            prop_assert_eq!(inside, usize::from(a.holds(p) && !b.holds(p)), "point {:?}", p);
        }
    }

    #[test]
    fn translating_and_freeing_move_and_forget_coordinates(r in (1usize..=3).prop_flat_map(raw), d in -3i64..=3, k in 1usize..=3) {
        let mut moved = r.dbm();
        moved.translate(d);
        for p in points(r.dim, BOX + 3) {
            let back: Vec<i64> = p.iter().map(|v| v - d).collect();
            prop_assert_eq!(moved.contains(&p), r.holds(&back));
        }
        let k = 1 + (k - 1) % r.dim;
        let mut freed = r.dbm();
        freed.free(k);
        for p in points(r.dim, BOX + 1) {
            let some = (-BOX..=BOX).any(|v| {
                let mut q = p.clone();
                q[k - 1] = v;
                r.holds(&q)
            });
            prop_assert_eq!(freed.contains(&p), some, "point {:?}", p);
        }
        prop_assert_eq!(freed.bound(k, 0), if r.dbm().is_empty() { freed.bound(k, 0) } else { INF });
    }

    #[test]
    fn a_federation_is_the_union_of_its_sets_before_and_after_merging(raws in some_raws(), cut in (1usize..=3).prop_flat_map(raw)) {
        let dim = raws[0].dim;
        let mut fed = Federation::empty(dim);
        for r in &raws {
            fed.add(r.dbm());
        }
        let in_union = |p: &[i64]| raws.iter().any(|r| r.holds(p));
        let all = points(dim, BOX);
        for p in &all {
            prop_assert_eq!(fed.contains(p), in_union(p));
        }
        let before = fed.pieces().len();
        let mut merged = fed.clone();
        merged.merge_reduce();
        prop_assert!(merged.pieces().len() <= before);
        for p in &all {
            prop_assert_eq!(merged.contains(p), in_union(p));
        }
        if cut.dim == dim {
            let cut_fed = Federation::of(cut.dbm());
            let rest = fed.minus(&cut_fed);
            for p in &all {
                prop_assert_eq!(rest.contains(p), in_union(p) && !cut.holds(p));
            }
            let covered = all.iter().all(|p| !cut.holds(p) || in_union(p));
            prop_assert_eq!(fed.includes(&cut_fed), covered);
        }
    }

    #[test]
    fn splitting_where_a_deadline_falls_due_parts_the_set_at_that_instant(raws in some_raws(), k in 1usize..=3, due in -4i64..=4) {
        let dim = raws[0].dim;
        let k = 1 + (k - 1) % dim;
        let mut fed = Federation::empty(dim);
        raws.iter().for_each(|r| { fed.add(r.dbm()); });
        let (now_due, later) = fed.split_due(k, due);
        for p in points(dim, BOX) {
            let member = raws.iter().any(|r| r.holds(&p));
            prop_assert_eq!(now_due.contains(&p), member && p[k - 1] <= due, "point {:?}", p);
            prop_assert_eq!(later.contains(&p), member && p[k - 1] > due, "point {:?}", p);
        }
    }

    #[test]
    fn remapping_projects_copies_and_adds_coordinates(
        r in (1usize..=3).prop_flat_map(raw),
        sources in prop::collection::vec(prop::option::of(1usize..=3), 0..=3),
    ) {
        let sources: Vec<Option<usize>> =
            sources.into_iter().map(|s| s.map(|k| 1 + (k - 1) % r.dim)).collect();
        let moved = r.dbm().remap(&sources);
        let olds: Vec<Vec<i64>> = points(r.dim, BOX).into_iter().filter(|p| r.holds(p)).collect();
        for q in points(sources.len(), BOX + 1) {
            let member = olds.iter().any(|p| {
                sources.iter().zip(&q).all(|(s, v)| s.is_none_or(|k| p[k - 1] == *v))
            });
            prop_assert_eq!(moved.contains(&q), member, "point {:?} from {:?}", q, sources);
        }
        prop_assert_eq!(moved.is_empty(), olds.is_empty());
    }

    #[test]
    fn the_store_admits_exactly_the_points_no_earlier_state_of_the_shape_had(levels in store_levels()) {
        let mut store = SymbolicStore::new();
        let mut seen: BTreeMap<u64, BTreeSet<Vec<i64>>> = BTreeMap::new();
        for level in &levels {
            let mut next = NextLevel::new();
            let mut waiting: BTreeMap<u64, BTreeSet<Vec<i64>>> = BTreeMap::new();
            for (shape, raws) in level {
                let dim = raws[0].dim;
                let mut set = Federation::empty(dim);
                raws.iter().for_each(|r| { set.add(r.dbm()); });
                let new = store.admit(*shape, &set);
                let before = seen.entry(*shape).or_default();
                for p in points(dim, BOX) {
                    let arriving = raws.iter().any(|r| r.holds(&p));
                    prop_assert_eq!(new.contains(&p), arriving && !before.contains(&p), "shape {} point {:?}", shape, p);
                    if arriving && !before.contains(&p) {
                        waiting.entry(*shape).or_default().insert(p.clone());
                    }
                }
                before.extend(points(dim, BOX).into_iter().filter(|p| raws.iter().any(|r| r.holds(p))));
                next.push(*shape, new);
                let stored = store.stored(*shape).unwrap();
                for p in points(dim, BOX) {
                    prop_assert_eq!(stored.contains(&p), before.contains(&p));
                }
            }
            let entries = next.into_entries();
            let shapes: Vec<u64> = entries.iter().map(|(s, _)| *s).collect();
            prop_assert_eq!(shapes.iter().collect::<BTreeSet<_>>().len(), shapes.len(), "a shape queued twice in one level");
            prop_assert_eq!(shapes.iter().copied().collect::<BTreeSet<_>>(), waiting.keys().copied().collect::<BTreeSet<_>>());
            for (shape, part) in &entries {
                for p in points(part.dim(), BOX) {
                    prop_assert_eq!(part.contains(&p), waiting[shape].contains(&p), "shape {} point {:?}", shape, p);
                }
            }
        }
        prop_assert_eq!(store.shapes(), seen.len());
    }
}

/// Levels of admissions: each a list of (shape, union of sets); shape `s` has `s % 3 + 1`
/// far coordinates, as one shape has one layout.
fn store_levels() -> impl Strategy<Value = Vec<Vec<(u64, Vec<Raw>)>>> {
    let admission = (0u64..4).prop_flat_map(|shape| {
        let dim = (shape % 3 + 1) as usize;
        (Just(shape), prop::collection::vec(raw(dim), 1..3))
    });
    prop::collection::vec(prop::collection::vec(admission, 1..6), 1..4)
}
