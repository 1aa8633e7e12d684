//! The symbolic prototype on the lease world (`sim/examples/symbolic_lease/world.rs`) against
//! the concrete search of the same world: the members of the stored symbolic states are
//! exactly the concrete reachable states, the verdicts agree, a symbolic counterexample
//! concretises into a concrete run as short as the concrete search's shortest, and as client
//! 2's retries grow the symbolic search grows linearly where the concrete one grows
//! quadratically.

#[path = "../examples/symbolic_lease/concretise.rs"]
mod concretise;
#[path = "../examples/symbolic_lease/search.rs"]
mod search;
#[path = "../examples/symbolic_lease/world.rs"]
mod world;

use concretise::{concretise, is_concrete_run};
use search::{search, Searched};
use world::Lease;

/// The concrete search and the symbolic one of the same world.
fn both(ttl_ms: i64, work_ms: i64, retry_ms: i64) -> (Searched, Searched) {
    let concrete = search(&Lease::new(ttl_ms, work_ms, retry_ms, i64::MAX));
    let symbolic = search(&Lease::new(ttl_ms, work_ms, retry_ms, 100));
    (concrete, symbolic)
}

#[test]
fn the_symbolic_states_stand_for_exactly_the_concrete_ones() {
    // Leases longer and shorter than the work (an overlap), retries shorter and longer than
    // the far horizon, a job that ends before client 2 starts.
    for (ttl_ms, work_ms, retry_ms) in [
        (900, 400, 30),
        (300, 400, 30),
        (700, 500, 150),
        (250, 600, 120),
        (400, 60, 40),
    ] {
        let (concrete, symbolic) = both(ttl_ms, work_ms, retry_ms);
        let world = format!("ttl {ttl_ms}, work {work_ms}, retry {retry_ms}");
        assert!(
            symbolic.members() == concrete.members(),
            "{world}: {} concrete states, {} members",
            concrete.members().len(),
            symbolic.members().len()
        );
        assert_eq!(
            symbolic.overlap.is_some(),
            concrete.overlap.is_some(),
            "{world}"
        );
        assert_eq!(concrete.overlap.is_some(), ttl_ms < work_ms, "{world}");
        assert!(
            symbolic.shapes() < concrete.shapes() && symbolic.expansions() < concrete.expansions(),
            "{world}: {} shapes and {} expansions for {} states",
            symbolic.shapes(),
            symbolic.expansions(),
            concrete.shapes()
        );
    }
}

#[test]
fn a_symbolic_counterexample_is_a_concrete_run_as_short_as_the_shortest() {
    for (ttl_ms, work_ms, retry_ms) in [(300, 400, 30), (250, 600, 120)] {
        let run = |far_ms| {
            let world = Lease::new(ttl_ms, work_ms, retry_ms, far_ms);
            let searched = search(&world);
            let (shape, part) = searched.overlap.clone().expect("the lease is shorter");
            let run = concretise(&searched, &shape, &part, &world).expect("traced back");
            assert!(is_concrete_run(&run, &world), "ttl {ttl_ms}: {run:?}");
            assert!(run.last().unwrap().overlap && run[0].flights.len() == 1);
            run.len()
        };
        assert_eq!(run(100), run(i64::MAX), "ttl {ttl_ms}, work {work_ms}");
    }
}

#[test]
fn symbolic_states_grow_linearly_with_the_retries_where_concrete_ones_grow_quadratically() {
    let retry_ms = 200;
    let counts: Vec<(usize, usize)> = [4, 8, 16]
        .iter()
        .map(|rounds| {
            let work_ms = 200 + rounds * retry_ms;
            let (concrete, symbolic) = both(work_ms + 500, work_ms, retry_ms);
            (concrete.shapes(), symbolic.shapes())
        })
        .collect();
    // Doubling the rounds: a linear count's growth doubles, a quadratic one's quadruples
    // (less its linear part).
    let growth = |f: fn(&(usize, usize)) -> usize| {
        let [a, b, c] = [f(&counts[0]), f(&counts[1]), f(&counts[2])];
        (c - b) as f64 / (b - a) as f64
    };
    let concrete = growth(|c| c.0);
    let symbolic = growth(|c| c.1);
    assert!(
        concrete > 3.0,
        "concrete grows by {concrete:.2}x: {counts:?}"
    );
    assert!(
        symbolic < 2.2,
        "symbolic grows by {symbolic:.2}x: {counts:?}"
    );
}
