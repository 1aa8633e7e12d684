//! Symmetry reduction on the lease world with several identical clients: which processes
//! are found interchangeable and why others are refused, canonical fingerprints that do
//! not depend on which client plays which role, and the same verdicts with and without the
//! reduction (alone and with partial-order reduction), with counterexamples that replay and
//! shrink on the full model; sharded search under symmetry merges to the unsharded one.

mod common;

use common::{Node, NodeState, Phase, KV};
use lockcheck_sim::world::{
    ClockSpec, FaultEnvelope, LinkSpec, Network, ProcessId, ProcessSpec, Renaming, StateOf,
    SymmetryRequest, World, WorldAction,
};
use lockcheck_sim::{
    bfs_order, choice_path, explore, explore_shard, replay, shrink, union_len, BreadthFirst,
    DepthFirst, Model, Options, Prng, Property, Reductions, Report, ShardPlan, ShrinkOptions,
    Status, Symmetry, Trace,
};
use lockcheck_sim::{Limits, Stop};
use proptest::prelude::*;

type State = StateOf<Node>;

/// A lease world: the kv (process 0) and one client per entry of `work_ms`.
#[derive(Clone, Debug)]
struct Lease {
    ttl_ms: u64,
    /// Each client's work duration.
    work_ms: Vec<u64>,
    /// Each client's clock drift.
    drift_ppm: Vec<i64>,
    /// Which clients may pause, and for how long.
    paused: Vec<bool>,
    pauses_ms: Vec<u64>,
    max_pauses: u32,
    delays_ms: Vec<u64>,
    /// Whether the properties declare themselves symmetric.
    symmetric_properties: bool,
}

impl Lease {
    fn uniform(clients: usize, ttl_ms: u64, work_ms: u64, pause_ms: u64) -> Self {
        Lease {
            ttl_ms,
            work_ms: vec![work_ms; clients],
            drift_ppm: vec![0; clients],
            paused: vec![true; clients],
            pauses_ms: vec![pause_ms],
            max_pauses: 1,
            delays_ms: vec![1, 2],
            symmetric_properties: true,
        }
    }

    fn clients(&self) -> std::ops::RangeInclusive<ProcessId> {
        1..=self.work_ms.len()
    }

    fn world(&self) -> World<Node> {
        let mut processes = vec![ProcessSpec {
            name: "kv".into(),
            actor: Node::Kv {
                ttl_ms: self.ttl_ms,
            },
            clock: ClockSpec::default(),
        }];
        for (i, &work_ms) in self.work_ms.iter().enumerate() {
            processes.push(ProcessSpec {
                name: format!("client-{}", i + 1),
                actor: Node::Client { work_ms },
                clock: ClockSpec::new(0, self.drift_ppm[i]),
            });
        }
        let mut faults = FaultEnvelope::none();
        for p in self.clients().filter(|&p| self.paused[p - 1]) {
            faults = faults.pause(p, &self.pauses_ms, 0);
        }
        faults.max_pauses = self.max_pauses;
        let declare = |p: Property<World<Node>>| {
            let p = p.observing(|w: &World<Node>, a: &WorldAction<_, _>| {
                w.action_process(a) != Some(KV)
            });
            if self.symmetric_properties {
                p.symmetric()
            } else {
                p
            }
        };
        World::new("symmetric-lease", processes)
            .with_network(Network::uniform(LinkSpec::choice(self.delays_ms.clone())))
            .with_faults(faults)
            .with_property(declare(Property::always(
                "mutual-exclusion",
                |_, s: &State| holders(s) <= 1,
            )))
            .with_property(declare(Property::sometimes(
                "paused-while-holding",
                |_, s: &State| (1..s.procs.len()).any(|p| s.is_paused(p) && holding(s, p)),
            )))
            .with_property(declare(Property::sometimes(
                "two-waiting",
                |_, s: &State| {
                    (1..s.procs.len())
                        .filter(|&p| phase(s, p) == Some(Phase::Waiting))
                        .count()
                        >= 2
                },
            )))
    }
}

fn phase(s: &State, p: ProcessId) -> Option<Phase> {
    match s.actor(p) {
        Some(NodeState::Client { phase }) => Some(*phase),
        _ => None,
    }
}

fn holding(s: &State, p: ProcessId) -> bool {
    phase(s, p) == Some(Phase::Holding)
}

fn holders(s: &State) -> usize {
    (1..s.procs.len()).filter(|&p| holding(s, p)).count()
}

fn search(world: &World<Node>, reductions: Reductions, depth_first: bool) -> Report<World<Node>> {
    let options = Options {
        stop: Stop::Never,
        reductions,
        limits: Limits::states(400_000),
        ..Options::default()
    };
    if depth_first {
        explore(world, &mut DepthFirst::default(), options)
    } else {
        explore(world, &mut BreadthFirst::default(), options)
    }
}

fn reductions(partial_order: bool, symmetry: bool) -> Reductions {
    Reductions {
        partial_order,
        symmetry,
        dead_values: false,
    }
}

fn verdicts(r: &Report<World<Node>>) -> Vec<(String, &'static str)> {
    r.properties
        .iter()
        .map(|p| (p.name.clone(), p.status.word()))
        .collect()
}

fn groups(world: &World<Node>) -> Vec<Vec<ProcessId>> {
    world
        .symmetry()
        .as_ref()
        .map_or(Vec::new(), |g| g.groups.clone())
}

fn apart(world: &World<Node>) -> Vec<String> {
    match world.symmetry() {
        Ok(g) => g.apart.clone(),
        Err(why) => vec![why.clone()],
    }
}

#[test]
fn identical_clients_are_interchangeable_and_each_refusal_names_its_reason() {
    let base = Lease::uniform(3, 100, 60, 50);
    assert_eq!(groups(&base.world()), vec![vec![1, 2, 3]]);

    let mut one_pauses = base.clone();
    one_pauses.paused = vec![true, false, false];
    assert_eq!(groups(&one_pauses.world()), vec![vec![2, 3]]);
    assert_eq!(
        apart(&one_pauses.world()),
        ["the fault envelope tells client-1 from client-2 (its pauses)"]
    );

    let mut slow = base.clone();
    slow.drift_ppm = vec![-20_000, 0, 0];
    assert_eq!(groups(&slow.world()), vec![vec![2, 3]]);
    assert_eq!(
        apart(&slow.world()),
        ["client-1 and client-2 have different clocks"]
    );

    let fast_link =
        base.world()
            .with_network(Network::uniform(LinkSpec::choice([1, 2])).with_link(
                1,
                KV,
                LinkSpec::fixed(1),
            ));
    assert_eq!(groups(&fast_link), vec![vec![2, 3]]);
    assert_eq!(
        apart(&fast_link),
        ["the link client-1 -> kv differs from client-2 -> kv"]
    );

    let mut unlike = Lease::uniform(2, 100, 60, 50);
    unlike.work_ms = vec![60, 70];
    assert_eq!(
        apart(&unlike.world()),
        vec!["no two processes are configured alike".to_string()]
    );

    let mut undeclared = base.clone();
    undeclared.symmetric_properties = false;
    assert_eq!(
        apart(&undeclared.world()),
        vec!["property mutual-exclusion does not declare that it cannot tell interchangeable processes apart".to_string()]
    );
}

#[test]
fn declared_groups_are_checked_like_inferred_ones() {
    let base = Lease::uniform(3, 100, 60, 50);
    let declared = base
        .world()
        .with_symmetry(SymmetryRequest::Declared(vec![vec![3, 1]]));
    assert_eq!(groups(&declared), vec![vec![1, 3]]);
    let mut slow = base.clone();
    slow.drift_ppm = vec![0, 0, 5_000];
    let refused = slow
        .world()
        .with_symmetry(SymmetryRequest::Declared(vec![vec![1, 3]]));
    assert_eq!(
        apart(&refused),
        vec!["client-1 and client-3 have different clocks".to_string()]
    );
}

/// Random walks of a three-client world; at every state, every renaming of the clients has
/// the state's canonical fingerprint, and renaming moves the kv's lease holder along.
#[test]
fn the_canonical_fingerprint_does_not_depend_on_which_client_plays_which_role() {
    let world = Lease::uniform(3, 100, 60, 50).world();
    let sym = world.symmetry().clone().expect("symmetric");
    let renamings: Vec<Renaming> = [[1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1]]
        .iter()
        .map(|images| Renaming::from_images(vec![0, images[0], images[1], images[2]]).unwrap())
        .collect();
    let (mut holders_renamed, mut renamed_fps) = (0, 0);
    for seed in 0..20 {
        let mut rng = Prng::from_seed(seed);
        let mut state = world.init_states().remove(0);
        for _ in 0..60 {
            let canonical = world.canonical_fingerprint(&state).0;
            for r in &renamings {
                let image = world.rename(&state, r, &sym);
                assert_eq!(world.canonical_fingerprint(&image).0, canonical);
                if let Some(NodeState::Kv {
                    lease: Some((holder, _)),
                }) = state.actor(KV)
                {
                    let Some(NodeState::Kv {
                        lease: Some((moved, _)),
                    }) = image.actor(KV)
                    else {
                        panic!("renaming lost the lease");
                    };
                    assert_eq!(*moved, r.of(*holder));
                    holders_renamed += 1;
                }
            }
            renamed_fps += usize::from(world.canonical_fingerprint(&state).1);
            let mut actions = Vec::new();
            world.actions(&state, &mut actions);
            if actions.is_empty() {
                break;
            }
            let pick = rng.index(actions.len());
            state = world.next_state(&state, &actions[pick]).unwrap();
        }
    }
    assert!(holders_renamed > 0, "the walks met a held lease");
    assert!(renamed_fps > 0, "some state was not its own representative");
}

/// Every combination of the two reductions against the full search, breadth- and
/// depth-first: same verdicts; symmetry never stores more states. Returns the full and the
/// symmetric state counts (breadth-first, no partial order).
fn compare(lease: &Lease) -> (u64, u64) {
    let world = lease.world();
    let full = search(&world, Reductions::none(), false);
    assert_eq!(full.plan.symmetry, Symmetry::Off);
    let mut counts = (full.stats.unique_states, 0);
    for depth_first in [false, true] {
        for (partial_order, symmetry) in [(false, true), (true, false), (true, true)] {
            let reduced = search(&world, reductions(partial_order, symmetry), depth_first);
            let what = format!("{lease:?} por={partial_order} sym={symmetry} dfs={depth_first}");
            assert_eq!(reduced.outcome, full.outcome, "{what}: outcome");
            assert_eq!(verdicts(&reduced), verdicts(&full), "{what}: verdicts");
            if symmetry && !partial_order && !depth_first {
                assert!(
                    reduced.stats.unique_states <= full.stats.unique_states,
                    "{what}"
                );
                counts.1 = reduced.stats.unique_states;
            }
            for p in &reduced.properties {
                if let Status::Violated(path) | Status::Witnessed(path) = &p.status {
                    let trace = Trace::from_path(&world, path, Some(&p.name));
                    let again = replay(&world, &trace).expect("replays on the full model");
                    let status = &again.report.property(&p.name).unwrap().status;
                    assert_eq!(status.word(), p.status.word(), "{what}: {} replays", p.name);
                }
            }
        }
    }
    counts
}

#[test]
fn symmetric_lease_worlds_get_the_same_verdicts_with_fewer_states() {
    // Safe (pause + work below the TTL) and unsafe, two and three clients.
    for (clients, ttl_ms, work_ms, pause_ms) in
        [(2, 100, 40, 30), (2, 100, 60, 50), (3, 80, 40, 50)]
    {
        let (full, symmetric) = compare(&Lease::uniform(clients, ttl_ms, work_ms, pause_ms));
        assert!(
            symmetric * 3 < full * 2,
            "{clients} clients: {symmetric} states with symmetry, {full} without"
        );
    }
}

/// A world where only the slow client can break mutual exclusion (its 95 ms of work outlast
/// the 100 ms lease on a clock 10 % slow): the clients are kept apart, and every combination
/// of reductions finds the violation the full search finds.
#[test]
fn clients_with_different_clocks_are_not_merged() {
    let mut lease = Lease::uniform(2, 100, 95, 0);
    lease.paused = vec![false, false];
    lease.max_pauses = 0;
    lease.drift_ppm = vec![0, -100_000];
    let world = lease.world();
    compare(&lease);
    assert_eq!(groups(&world), Vec::<Vec<ProcessId>>::new());
    let report = search(&world, Reductions::all(), false);
    assert!(matches!(
        report.property("mutual-exclusion").unwrap().status,
        Status::Violated(_)
    ));
}

#[test]
fn a_counterexample_of_the_symmetric_search_shrinks_on_the_full_model() {
    let world = Lease::uniform(3, 80, 40, 50).world();
    let report = search(&world, reductions(false, true), false);
    assert!(report.plan.symmetry.is_on(), "{}", report.plan.symmetry);
    let Status::Violated(path) = &report.property("mutual-exclusion").unwrap().status else {
        panic!("a pause of 50 ms with 40 ms of work outlives an 80 ms lease");
    };
    let shrunk = shrink(&world, path, "mutual-exclusion", ShrinkOptions::default())
        .expect("the path violates the property on the full model");
    assert!(holders(shrunk.last_state()) >= 2);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// Random lease worlds of two or three clients: each client's work, clock and pause
    /// exposure are either shared (interchangeable) or its own.
    #[test]
    fn generated_lease_worlds_get_the_same_verdicts_with_and_without_symmetry(
        clients in 2usize..=3,
        ttl_ms in 40u64..=120,
        work_ms in prop::collection::vec(prop_oneof![Just(40u64), 10u64..=90], 3),
        drift_ppm in prop::collection::vec(prop_oneof![3 => Just(0i64), 1 => -50_000i64..=50_000], 3),
        paused in prop::collection::vec(prop_oneof![3 => Just(true), 1 => Just(false)], 3),
        pause_ms in 10u64..=80,
        two_delays in prop::bool::ANY,
    ) {
        let mut lease = Lease::uniform(clients, ttl_ms, 0, pause_ms);
        lease.work_ms = work_ms[..clients].to_vec();
        lease.drift_ppm = drift_ppm[..clients].to_vec();
        lease.paused = paused[..clients].to_vec();
        lease.delays_ms = if two_delays { vec![1, 2] } else { vec![1] };
        compare(&lease);
    }
}

/// Symmetry reduction in sharded search: 3 shards of a world with identical clients, merged
/// (the union of their keys, each property's hit first in breadth-first order), give the
/// unsharded search's unique-state count, verdicts and paths under the reduction.
#[test]
fn sharded_search_under_symmetry_merges_to_the_unsharded_search() {
    for (clients, ttl_ms, work_ms, pause_ms) in [(2, 100, 60, 50), (3, 80, 40, 50)] {
        let world = Lease::uniform(clients, ttl_ms, work_ms, pause_ms).world();
        let whole = search(&world, reductions(false, true), false);
        assert!(whole.plan.symmetry.is_on());
        let shards: Vec<_> = (0..3)
            .map(|k| {
                let plan = ShardPlan::new(3, k).unwrap().with_roots_per_shard(4);
                let options = Options {
                    stop: Stop::Never,
                    reductions: reductions(false, true),
                    ..Options::default()
                };
                explore_shard(&world, plan, options)
            })
            .collect();
        assert!(shards
            .iter()
            .all(|s| s.split.is_some() && s.report.plan.symmetry.is_on()));
        let merged = union_len(shards.iter().map(|s| s.keys.iter().copied()).collect());
        assert_eq!(merged, whole.stats.unique_states, "{clients} clients");
        let summed: u64 = shards.iter().map(|s| s.report.stats.unique_states).sum();
        assert!(summed > merged, "the shards share their prefix");
        for (i, p) in whole.properties.iter().enumerate() {
            let first = shards
                .iter()
                .filter_map(|s| s.report.properties[i].status.path())
                .map(|path| (choice_path(&world, path), path.labels()))
                .min_by(|a, b| bfs_order(&a.0, &b.0));
            let status_words: Vec<_> = shards
                .iter()
                .map(|s| s.report.properties[i].status.word())
                .collect();
            assert!(status_words.contains(&p.status.word()), "{}", p.name);
            assert_eq!(
                first.map(|f| f.1),
                p.status.path().map(|path| path.labels()),
                "{clients} clients: {}'s path",
                p.name
            );
        }
    }
}
