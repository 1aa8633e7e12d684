//! 128-bit fingerprints: a search that compares both lanes keeps apart states whose lane A
//! collides, and a model that does not build lane B is searched with 64 bits and says why.
//!
//! The model counts from 0 to `N - 1`; its fingerprint's lane A is deliberately weak (the
//! count modulo 8), its lane B the whole count. A 64-bit search merges the counts that
//! share lane A and stops early, a 128-bit one reaches every count. This is what a
//! fingerprint collision does to a real search, made certain instead of rare.

use lockcheck_sim::{
    explore, explore_parallel, from_lanes, BreadthFirst, Fingerprint, Model, Options, Outcome,
    Property, Reductions, Width,
};
use lockcheck_sim::{Parallelism, Stop, Storage};

const N: u32 = 200;

struct Counter {
    declares_wide: bool,
}

impl Model for Counter {
    type State = u32;
    type Action = ();

    fn init_states(&self) -> Vec<u32> {
        vec![0]
    }

    fn actions(&self, state: &u32, actions: &mut Vec<()>) {
        if *state + 1 < N {
            actions.push(());
        }
    }

    fn next_state(&self, state: &u32, _: &()) -> Option<u32> {
        Some(state + 1)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::sometimes("reaches the end", |_, s: &u32| {
            *s + 1 == N
        })]
    }

    fn fingerprint(&self, state: &u32) -> Fingerprint {
        from_lanes(u64::from(state % 8) + 1, u64::from(*state))
    }

    fn wide_fingerprints(&self) -> bool {
        self.declares_wide
    }
}

fn search(model: &Counter, wide: bool) -> lockcheck_sim::Report<Counter> {
    let options = Options {
        stop: Stop::Never,
        storage: Storage {
            wide_fingerprints: wide,
            ..Storage::default()
        },
        ..Options::default()
    };
    explore(model, &mut BreadthFirst::default(), options)
}

#[test]
fn a_wide_search_keeps_apart_what_lane_a_merges() {
    let model = Counter {
        declares_wide: true,
    };
    let narrow = search(&model, false);
    assert_eq!(narrow.plan.width, Width::Bits64);
    assert_eq!(narrow.stats.unique_states, 8, "lane A has 8 values");
    assert!(
        narrow.hollow().contains(&"reaches the end"),
        "a collision hid the end"
    );

    let wide = search(&model, true);
    assert_eq!(wide.plan.width, Width::Bits128);
    assert_eq!(wide.outcome, Outcome::Complete);
    assert_eq!(wide.stats.unique_states, u64::from(N));
    assert!(wide.hollow().is_empty(), "the end is witnessed");
    let p = wide.collision_probability().unwrap();
    assert!(p > 0.0 && p < 1e-30, "{p}");
}

/// Both parallel searches compare both lanes: the batch search (no reduction) and the one
/// that prepares expansions on the threads (with the dead-values reduction on).
#[test]
fn a_wide_search_on_threads_keeps_apart_what_lane_a_merges() {
    let model = Counter {
        declares_wide: true,
    };
    for reductions in [Reductions::none(), Reductions::all()] {
        for wide in [false, true] {
            let options = Options {
                stop: Stop::Never,
                reductions,
                parallelism: Parallelism {
                    threads: 2,
                    ..Parallelism::default()
                },
                storage: Storage {
                    wide_fingerprints: wide,
                    ..Storage::default()
                },
                ..Options::default()
            };
            let report = explore_parallel(&model, options);
            assert_eq!(report.plan.engine.threads(), 2, "{}", report.plan.engine);
            let expected = if wide { u64::from(N) } else { 8 };
            assert_eq!(report.stats.unique_states, expected, "{reductions:?}");
        }
    }
}

#[test]
fn a_model_without_lane_b_is_searched_with_64_bits_and_says_why() {
    let model = Counter {
        declares_wide: false,
    };
    let report = search(&model, true);
    assert_eq!(report.stats.unique_states, 8);
    let Width::Only64(why) = &report.plan.width else {
        panic!("{:?}", report.plan.width)
    };
    assert!(why.contains("64-bit fingerprints only"), "{why}");
    assert_eq!(report.plan.width.bits(), 64);
}
