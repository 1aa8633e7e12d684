//! A state remembers its representative's fingerprint (`KeyMemo`), and the memo never
//! answers for anything but the state and the kind of key it was written for. Along seeded
//! random walks of every built-in with interchangeable processes, at every state:
//!
//! - the plain and the live key, asked one after the other of the same state (so the memo
//!   holds the other kind), equal the keys a fresh copy (empty memo) computes;
//! - asked again, they are the same, and the memo is written;
//! - a memo moved onto the next state of the walk (a state changed after its memo was
//!   written) is not taken: the next state's key is its own.

mod common;

use common::walks::walk;
use lockcheck::oracles::{RedisState, RedisWorld};
use lockcheck::scenario::builtin;

const SEEDS: u64 = 4;
const STEPS: usize = 300;

/// What one world's walks saw: states checked, and states whose plain and live keys differ
/// (where a memo answering for the wrong kind would be caught).
#[derive(Default)]
struct Seen {
    states: u64,
    kinds_differ: u64,
}

fn check(world: &RedisWorld, name: &str, seen: &mut Seen) {
    let Ok(sym) = world.symmetry().clone() else {
        return;
    };
    let key = |s: &RedisState, live: bool| world.canonical_fingerprint_by(s, &sym, live);
    for seed in 0..SEEDS {
        walk(world, seed, STEPS, |state, _, next| {
            let at = format!("{name}, seed {seed}, at {} ms", state.now_ms);
            let state = state.clone();
            let plain = key(&state, false);
            assert_eq!(format!("{:?}", state.key_memo), "KeyMemo(set)", "{at}");
            let live = key(&state, true);
            assert_eq!(plain, key(&state.clone(), false), "{at}: plain key");
            assert_eq!(live, key(&state.clone(), true), "{at}: live key");
            assert_eq!(plain, key(&state, false), "{at}: plain key asked again");
            assert_eq!(live, key(&state, true), "{at}: live key asked again");
            seen.kinds_differ += u64::from(plain != live);

            let mut moved = next.clone();
            let mut written = state.clone();
            key(&written, false);
            moved.key_memo = std::mem::take(&mut written.key_memo);
            assert_eq!(
                key(&moved, false),
                key(&next.clone(), false),
                "{at}: a memo moved onto the next state answered for it"
            );
            seen.states += 1;
        });
    }
}

#[test]
fn remembered_keys_equal_computed_keys_on_every_symmetric_builtin() {
    let mut seen = Seen::default();
    for scenario in builtin::all() {
        let world = scenario.build().expect("built-ins build");
        check(&world, &scenario.name, &mut seen);
    }
    assert!(seen.states > 1_000, "only {} states checked", seen.states);
    assert!(
        seen.kinds_differ > 100,
        "plain and live keys differed at only {} of {} states",
        seen.kinds_differ,
        seen.states
    );
}
