//! No state holds a dead timer: a timer that fires only to do nothing. The Redis world's
//! actors cancel a timer once it can no longer matter (a request's timeout when its answer
//! came, a retry once the lock is taken), so that states differing only in such a timer are
//! not stored twice. Along seeded random walks of every built-in, every timer that fires
//! must change something: its process's state, its other timers, or what is in flight.

mod common;

use common::walks::{walk, Action};
use lockcheck::oracles::{RedisState, RedisWorld};
use lockcheck::scenario::builtin;
use lockcheck_sim::world::WorldAction;

const SEEDS: u64 = 6;
const STEPS: usize = 400;

/// Whether firing `process`'s timer took `state` to `next` without any other change.
fn did_nothing(state: &RedisState, next: &RedisState, process: usize) -> bool {
    let (before, after) = (&state.procs[process], &next.procs[process]);
    let mut timers_left = before.timers.clone();
    timers_left.remove(0);
    after.life == before.life
        && after.timers == timers_left
        && next.in_flight == state.in_flight
        && next.unrouted == state.unrouted
        && next.undecided_timers == state.undecided_timers
}

/// Walks `world`; returns how many timers fired, and a description of each that did nothing.
fn dead_firings(world: &RedisWorld, name: &str) -> (u64, Vec<String>) {
    let (mut fired, mut dead) = (0, Vec::new());
    for seed in 0..SEEDS {
        walk(world, seed, STEPS, |state, action: &Action, next| {
            if let WorldAction::Fire { process, timer } = action {
                fired += 1;
                if did_nothing(state, next, *process) {
                    dead.push(format!(
                        "{name}, seed {seed}, at {} ms: {timer:?}",
                        state.now_ms
                    ));
                }
            }
        });
    }
    (fired, dead)
}

#[test]
fn every_timer_that_fires_changes_something_on_every_builtin() {
    let (mut fired, mut dead) = (0, Vec::new());
    for scenario in builtin::all() {
        let world = scenario.build().expect("built-ins build");
        let (f, d) = dead_firings(&world, &scenario.name);
        fired += f;
        dead.extend(d);
    }
    assert!(fired > 1_000, "only {fired} timers fired");
    assert!(
        dead.is_empty(),
        "{} of {fired} firings did nothing:\n{}",
        dead.len(),
        dead.join("\n")
    );
}
