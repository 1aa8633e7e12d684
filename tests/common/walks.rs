//! Seeded random walks of a world from its initial state, for tests that check something
//! at every step.

use lockcheck::oracles::{RedisState, RedisWorld};
use lockcheck_sim::{Model, Prng};

/// An action of the Redis world.
pub type Action = <RedisWorld as Model>::Action;

/// Walks `world` for at most `steps` steps with seed `seed`, calling `visit` on every step
/// (the state, the action taken, the state it led to).
pub fn walk(
    world: &RedisWorld,
    seed: u64,
    steps: usize,
    mut visit: impl FnMut(&RedisState, &Action, &RedisState),
) {
    let mut rng = Prng::from_seed(seed);
    let mut state = world.init_states().remove(0);
    let mut actions = Vec::new();
    for _ in 0..steps {
        actions.clear();
        world.actions(&state, &mut actions);
        if actions.is_empty() {
            return;
        }
        let action = &actions[rng.index(actions.len())];
        let next = world
            .next_state(&state, action)
            .expect("a world always steps");
        visit(&state, action, &next);
        state = next;
    }
}
