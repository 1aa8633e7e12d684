//! Symmetry reduction hashes its candidates without building them, and skips the ties whose
//! swap leaves a state as it is; both are exact. Along seeded random walks of every
//! built-in with interchangeable processes, at every state and for every swap of two
//! members of a group (and a rotation of every group at once):
//!
//! - `World::renamed_fingerprint` equals the fingerprint of the state `World::rename`
//!   builds, plain and live (without dead values), 64 and 128 bits wide;
//! - when `World::swap_fixes` says a swap leaves the state as it is, the renamed state
//!   equals the state, field by field.

use lockcheck::oracles::{RedisState, RedisWorld};
use lockcheck::scenario::builtin;
use lockcheck_sim::world::{Renaming, SymmetryGroups};
use lockcheck_sim::{Model, Prng};

const SEEDS: u64 = 6;
const STEPS: usize = 400;

/// Visits every state of a seeded random walk of `world` from its initial state.
fn walk(world: &RedisWorld, seed: u64, mut visit: impl FnMut(&RedisState)) {
    let mut rng = Prng::from_seed(seed);
    let mut state = world.init_states().remove(0);
    let mut actions = Vec::new();
    for _ in 0..STEPS {
        visit(&state);
        actions.clear();
        world.actions(&state, &mut actions);
        if actions.is_empty() {
            return;
        }
        let action = &actions[rng.index(actions.len())];
        state = world
            .next_state(&state, action)
            .expect("a world always steps");
    }
}

/// Every swap of two members of one group, and every group rotated by one place at once.
fn renamings(n: usize, sym: &SymmetryGroups) -> Vec<Renaming> {
    let mut out = Vec::new();
    let mut rotated: Vec<usize> = (0..n).collect();
    for group in &sym.groups {
        for (i, &a) in group.iter().enumerate() {
            for &b in &group[i + 1..] {
                out.push(Renaming::swap(n, a, b));
            }
            rotated[a] = group[(i + 1) % group.len()];
        }
    }
    out.push(Renaming::from_images(rotated).expect("a rotation is a permutation"));
    out
}

/// Checks one world; returns how many swaps were found to fix a state and how many not.
fn check(world: &RedisWorld, name: &str, seeds: u64) -> (u64, u64) {
    let Ok(sym) = world.symmetry().clone() else {
        return (0, 0);
    };
    let (mut fixed, mut moved) = (0, 0);
    for seed in 0..seeds {
        walk(world, seed, |state| {
            for r in renamings(state.procs.len(), &sym) {
                let image = world.rename(state, &r, &sym);
                assert_eq!(
                    world.renamed_fingerprint(state, &r, &sym, false),
                    world.fingerprint(&image),
                    "{name}, seed {seed}, at {} ms, {r:?}: plain fingerprints differ",
                    state.now_ms
                );
                assert_eq!(
                    world.renamed_fingerprint(state, &r, &sym, true),
                    world.fingerprint_without_dead_values(&image),
                    "{name}, seed {seed}, at {} ms, {r:?}: live fingerprints differ",
                    state.now_ms
                );
            }
            for group in &sym.groups {
                for w in group.windows(2) {
                    let swap = Renaming::swap(state.procs.len(), w[0], w[1]);
                    if world.swap_fixes(state, &sym, w[0], w[1]) {
                        assert_eq!(
                            &world.rename(state, &swap, &sym),
                            state,
                            "{name}, seed {seed}: a swap said to fix the state moves it"
                        );
                        fixed += 1;
                    } else {
                        moved += 1;
                    }
                }
            }
        });
    }
    (fixed, moved)
}

#[test]
fn renamed_fingerprints_and_fixed_swaps_are_exact_on_every_symmetric_builtin() {
    let (mut fixed, mut moved, mut worlds) = (0, 0, 0);
    for scenario in builtin::all() {
        let world = scenario.build().expect("built-ins build");
        let (f, m) = check(&world, &scenario.name, SEEDS);
        worlds += u64::from(f + m > 0);
        (fixed, moved) = (fixed + f, moved + m);
        let wide = scenario
            .build()
            .expect("built-ins build")
            .with_wide_fingerprints(true);
        check(&wide, &scenario.name, 1);
    }
    assert!(worlds >= 5, "only {worlds} built-ins with symmetry");
    assert!(
        fixed > 1_000 && moved > 1_000,
        "both answers must be exercised: {fixed} fixed, {moved} moved"
    );
}
