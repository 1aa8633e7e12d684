//! Partial-order reduction in a sharded search, on the smallest model whose reduced cycle
//! runs through two shards: from the initial state the search reaches `A` and `B`, which
//! toggle into each other by an invisible action that each reduces to, and from both a
//! visible action `fail` (independent of the toggle) breaks the property. Split at that
//! level into two shards, each shard's toggle leads to the other shard's root, a state it
//! stored but will not expand. Were that state not counted as expanded, neither shard's
//! cycle proviso would fire and both would postpone `fail` forever: a merged "safe" for a
//! model whose unsharded search finds the violation.

use lockcheck_sim::{
    explore, explore_shard, BreadthFirst, Model, Options, Property, Reductions, ShardPlan, Sight,
    Status,
};

/// Where the run is (`None` before the first step) and whether `fail` happened.
type State = (Option<bool>, bool);

#[derive(Clone, Debug, PartialEq)]
enum Action {
    /// From the initial state: to `A` (`false`) or `B` (`true`).
    Enter(bool),
    /// `A` to `B` and back.
    Toggle,
    /// Breaks the property; commutes with `Toggle`.
    Fail,
}

struct TwoRoots;

impl Model for TwoRoots {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![(None, false)]
    }

    fn actions(&self, state: &State, actions: &mut Vec<Action>) {
        match state {
            (None, _) => actions.extend([Action::Enter(false), Action::Enter(true)]),
            (Some(_), failed) => {
                actions.push(Action::Toggle);
                if !failed {
                    actions.push(Action::Fail);
                }
            }
        }
    }

    fn next_state(&self, state: &State, action: &Action) -> Option<State> {
        Some(match (action, state) {
            (Action::Enter(at), _) => (Some(*at), false),
            (Action::Toggle, (at, failed)) => (at.map(|b| !b), *failed),
            (Action::Fail, (at, _)) => (*at, true),
        })
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("never-fails", |_, s: &State| !s.1)
            .observing(|_, a: &Action| *a == Action::Fail)]
    }

    /// `{Toggle}` is persistent: `Fail`, the only other action, never disables it and
    /// commutes with it; and it is invisible.
    fn persistent_set(
        &self,
        state: &State,
        enabled: &[Action],
        sight: &dyn Fn(&Action) -> Sight,
        out: &mut Vec<usize>,
    ) -> bool {
        if state.0.is_none() || enabled.len() < 2 || sight(&enabled[0]) != Sight::Hidden {
            return false;
        }
        out.push(0);
        true
    }
}

fn options() -> Options {
    Options {
        reductions: Reductions::all(),
        ..Options::default()
    }
}

fn violated(status: &Status<TwoRoots>) -> bool {
    matches!(status, Status::Violated(_))
}

#[test]
fn the_unsharded_reduced_search_finds_the_violation_through_its_proviso() {
    let report = explore(&TwoRoots, &mut BreadthFirst::default(), options());
    assert!(report.plan.partial_order.is_on());
    assert!(violated(&report.properties[0].status));
    assert!(report.stats.proviso_expansions >= 1);
}

#[test]
fn a_shard_counts_the_other_shards_roots_as_expanded_and_finds_the_violation() {
    let mut found = 0;
    for shard in 0..2 {
        let plan = ShardPlan::new(2, shard).unwrap().with_roots_per_shard(1);
        let result = explore_shard(&TwoRoots, plan, options());
        assert!(result.report.plan.partial_order.is_on(), "shard {shard}");
        let split = result.split.expect("the level of A and B is split");
        assert_eq!((split.depth, split.level_states, split.roots), (1, 2, 1));
        if violated(&result.report.properties[0].status) {
            found += 1;
            assert!(result.report.stats.proviso_expansions >= 1);
        }
    }
    // Each shard's toggle meets the other's root: both expand fully and find `fail`.
    assert_eq!(found, 2, "every shard finds the violation");
}
