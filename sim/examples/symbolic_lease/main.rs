//! The symbolic prototype on the lease world against its concrete search, as the work grows:
//! client 2 retries every `retry_ms` while client 1 works, so the rounds grow with the work.
//!
//! `cargo run --release -p lockcheck-sim --example symbolic_lease -- [RETRY_MS]` prints, for
//! each work length, the rounds, the concrete states, the symbolic shapes, the expansions
//! of the symbolic search and its stored DBMs, whether the members of the stored symbolic
//! states are exactly the concrete states, and the verdict of both searches; then, for leases
//! shorter than the work, the symbolic counterexample concretised into a run, checked step by
//! step against the concrete semantics, beside the concrete search's shortest one.

mod concretise;
mod search;
mod world;

use search::search;
use world::Lease;

fn main() {
    let retry_ms: i64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("RETRY_MS is a number of ms"))
        .unwrap_or(20);
    println!("work_ms  rounds  concrete  expansions  symbolic shapes  symbolic expansions  DBMs  members = concrete  overlap");
    for rounds in [2, 4, 8, 16, 32] {
        let work_ms = 200 + rounds * retry_ms;
        let world = |far_ms| Lease::new(work_ms + 500, work_ms, retry_ms, far_ms);
        let concrete = search(&world(i64::MAX));
        let symbolic = search(&world(100));
        let pieces: usize = symbolic
            .stored
            .values()
            .map(|(_, f)| f.pieces().len())
            .sum();
        println!(
            "{work_ms:>7}  {rounds:>6}  {:>8}  {:>10}  {:>15}  {:>19}  {pieces:>4}  {:>18}  {}",
            concrete.shapes(),
            concrete.expansions(),
            symbolic.shapes(),
            symbolic.expansions(),
            symbolic.members() == concrete.members(),
            if symbolic.overlap.is_some() == concrete.overlap.is_some() {
                format!("{} in both", symbolic.overlap.is_some())
            } else {
                "DIFFERS".to_string()
            },
        );
    }
    println!();
    println!("ttl_ms  work_ms  symbolic counterexample  concrete run  concrete shortest");
    for (ttl_ms, work_ms) in [(300, 400), (250, 600), (400, 1_000)] {
        let world = |far_ms| Lease::new(ttl_ms, work_ms, retry_ms, far_ms);
        let run = |w: &Lease| {
            let searched = search(w);
            let (shape, part) = searched
                .overlap
                .clone()
                .expect("a lease shorter than the work");
            concretise::concretise(&searched, &shape, &part, w).expect("traced back")
        };
        let symbolic = run(&world(100));
        let concrete = run(&world(i64::MAX));
        println!(
            "{ttl_ms:>6}  {work_ms:>7}  {:>17} steps  {:>12}  {:>11} steps",
            symbolic.len() - 1,
            concretise::is_concrete_run(&symbolic, &world(100)),
            concrete.len() - 1,
        );
    }
}
