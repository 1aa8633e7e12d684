//! A violating part of a symbolic search turned into a concrete run: pick a member of it,
//! then, entry by entry back to an initial state, a member of the parent whose concrete
//! successors hold the state reached; the run is then checked step by step against the
//! concrete semantics (the same world with no far value).

use crate::search::{points, Part, Searched};
use crate::world::{successors, Lease, Shape, Symbolic};
use lockcheck_sim::dbm::{Dbm, Federation};

/// The concrete successors of a concrete state (no far value) under `world`'s rules.
pub fn concrete_successors(state: &Shape, world: &Lease) -> Vec<Shape> {
    let point = Symbolic {
        shape: state.clone(),
        far: Federation::of(Dbm::universe(0)),
    };
    let concrete = Lease {
        far_ms: i64::MAX,
        ..world.clone()
    };
    successors(&point, &concrete)
        .into_iter()
        .map(|s| s.shape)
        .collect()
}

/// The concrete state of shape `shape`'s member `point`, as a symbolic state of one point.
fn single(shape: &Shape, point: &[i64]) -> Symbolic {
    Symbolic {
        shape: shape.clone(),
        far: Federation::of(Dbm::point(point)),
    }
}

/// A concrete run from an initial state to a member of `part` (of shape `shape`): the
/// states in order. `None` if no member can be traced back (a bug in the search).
pub fn concretise(
    searched: &Searched,
    shape: &Shape,
    part: &Part,
    world: &Lease,
) -> Option<Vec<Shape>> {
    let mut run = vec![shape.concrete(points(&part.far).first()?)];
    let mut parent = part.parent;
    while let Some(id) = parent {
        let entry = &searched.entries[id];
        let target = run.last().unwrap().clone();
        // A member of the entry one of whose successors (far values kept symbolic, then
        // made concrete) is the state reached.
        let point = points(&entry.far).into_iter().find(|p| {
            successors(&single(&entry.shape, p), world)
                .iter()
                .any(|s| points(&s.far).iter().any(|q| s.shape.concrete(q) == target))
        })?;
        run.push(entry.shape.concrete(&point));
        parent = entry
            .parts
            .iter()
            .find(|part| part.far.contains(&point))?
            .parent;
    }
    run.reverse();
    Some(run)
}

/// Whether `run` is a concrete run of `world`: each state a concrete successor of the one
/// before.
pub fn is_concrete_run(run: &[Shape], world: &Lease) -> bool {
    run.windows(2)
        .all(|pair| concrete_successors(&pair[0], world).contains(&pair[1]))
}
