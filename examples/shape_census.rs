//! Shape census for symbolic time (ARCHITECTURE.md, "Time is concrete"): how many symbolic
//! states a search with far deadlines kept as sets of offsets would need.
//!
//! A concrete, complete breadth-first search of the scenario (up to each `--bound-ms` of
//! virtual time, every reduction the scenario's checks use) hashes every state it admits a
//! second time in shape mode (`lockcheck_sim::census`: every time more than `--far-ms` away
//! written as a tag, drifting clocks' phase left out, and unless `--keep-offsets` the Redis
//! nodes' replication offsets too). It prints, per bound: concrete states, distinct shapes,
//! (shape, depth) pairs and (shape, phase) pairs, where a state's phase is its nearest far
//! time; per round of `--round-ms` of virtual time, the states admitted and the shapes and
//! (shape, depth) pairs met for the first time; and how many concrete states and phases a
//! shape holds. Shapes that stop growing with the rounds say that the phase lives only in far
//! values (symbolic time pays); shapes that keep growing say some near value carries it.
//!
//! `cargo run --release --features census --example shape_census -- [--far-ms H] [--round-ms R] [--keep-offsets] --bound-ms B [--bound-ms B ...] NAME|FILE`

use lockcheck::oracles::RedisWorld;
use lockcheck::scenario::file::load_scenario;
use lockcheck_sim::census::{with_shape_mode, ShapeMode};
use lockcheck_sim::{explore, BreadthFirst, Fingerprint, Frontier, Model, Pending, RunStart, Stop};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::convert::Infallible;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

type State = <RedisWorld as Model>::State;

/// What one round of virtual time brought.
#[derive(Default, Clone, Copy)]
struct Round {
    states: u64,
    new_shapes: u64,
    new_shape_depths: u64,
}

/// A breadth-first queue that takes the census of every state pushed on it (every state the
/// search admits).
struct Census<'w> {
    world: &'w RedisWorld,
    mode: ShapeMode,
    round_ms: u64,
    queue: BreadthFirst<State>,
    shapes: HashSet<Fingerprint>,
    shape_depths: HashSet<(Fingerprint, u32)>,
    /// Concrete states of each (shape, phase); `None`: no far time.
    per_phase: HashMap<(Fingerprint, Option<i64>), u64>,
    rounds: BTreeMap<u64, Round>,
}

impl Census<'_> {
    fn record(&mut self, entry: &Pending<State>) {
        let (shape, phase) = with_shape_mode(self.mode, || {
            self.world.fingerprint_from_scratch(&entry.state)
        });
        let round = self
            .rounds
            .entry(entry.state.now_ms / self.round_ms)
            .or_default();
        round.states += 1;
        round.new_shapes += u64::from(self.shapes.insert(shape));
        round.new_shape_depths += u64::from(self.shape_depths.insert((shape, entry.depth)));
        *self.per_phase.entry((shape, phase)).or_default() += 1;
    }
}

impl Frontier<RedisWorld> for Census<'_> {
    type Error = Infallible;
    fn next_run(&mut self) -> Option<RunStart> {
        Frontier::<RedisWorld>::next_run(&mut self.queue)
    }
    fn push(&mut self, entry: Pending<State>) {
        self.record(&entry);
        Frontier::<RedisWorld>::push(&mut self.queue, entry);
    }
    fn pop(&mut self) -> Option<Pending<State>> {
        Frontier::<RedisWorld>::pop(&mut self.queue)
    }
    fn len(&self) -> usize {
        Frontier::<RedisWorld>::len(&self.queue)
    }
}

struct Args {
    far_ms: i64,
    round_ms: u64,
    keep_offsets: bool,
    bounds_ms: Vec<u64>,
    scenario: String,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        far_ms: 100,
        round_ms: 50,
        keep_offsets: false,
        bounds_ms: Vec::new(),
        scenario: String::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            let text = it.next().ok_or(format!("{name} needs a value"))?;
            text.parse().map_err(|e| format!("{name} {text}: {e}"))
        };
        match arg.as_str() {
            "--far-ms" => args.far_ms = value("--far-ms")? as i64,
            "--round-ms" => args.round_ms = value("--round-ms")?.max(1),
            "--bound-ms" => args.bounds_ms.push(value("--bound-ms")?),
            "--keep-offsets" => args.keep_offsets = true,
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
            _ => args.scenario = arg,
        }
    }
    if args.scenario.is_empty() || args.bounds_ms.is_empty() {
        return Err("usage: shape_census [--far-ms H] [--round-ms R] [--keep-offsets] --bound-ms B... NAME|FILE".into());
    }
    Ok(args)
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let scenario = load_scenario(&args.scenario).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let world = scenario.build().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let mode = ShapeMode {
        far_ms: args.far_ms,
        without_replication_offsets: !args.keep_offsets,
    };
    println!(
        "{}: far > {} ms, rounds of {} ms, replication offsets {}",
        scenario.name,
        args.far_ms,
        args.round_ms,
        if args.keep_offsets {
            "kept"
        } else {
            "left out"
        }
    );
    for &bound_ms in &args.bounds_ms {
        census_to(&scenario, &world, mode, &args, bound_ms);
    }
}

fn census_to(
    scenario: &lockcheck::scenario::Scenario,
    world: &RedisWorld,
    mode: ShapeMode,
    args: &Args,
    bound_ms: u64,
) {
    let mut options = scenario.explore.options();
    options.stop = Stop::Never;
    options.limits.max_virtual_time_ms = Some(bound_ms);
    options.limits.max_states = None;
    let mut census = Census {
        world,
        mode,
        round_ms: args.round_ms,
        queue: BreadthFirst::default(),
        shapes: HashSet::new(),
        shape_depths: HashSet::new(),
        per_phase: HashMap::new(),
        rounds: BTreeMap::new(),
    };
    let started = Instant::now();
    let report = explore(world, &mut census, options);
    let seconds = started.elapsed().as_secs_f64();
    print_census(&census, &report.stats, report.outcome, bound_ms, seconds);
}

fn print_census(
    census: &Census,
    stats: &lockcheck_sim::Stats,
    outcome: lockcheck_sim::Outcome,
    bound_ms: u64,
    seconds: f64,
) {
    println!(
        "\nbound {bound_ms} ms: {} concrete states ({outcome:?}, depth {}, {seconds:.1} s)",
        stats.unique_states, stats.max_depth
    );
    let mut phases_per_shape: HashMap<Fingerprint, u64> = HashMap::new();
    for (shape, _) in census.per_phase.keys() {
        *phases_per_shape.entry(*shape).or_default() += 1;
    }
    let per_phase_max = census.per_phase.values().max().copied().unwrap_or(0);
    let phases_max = phases_per_shape.values().max().copied().unwrap_or(0);
    let shapes = census.shapes.len() as f64;
    println!(
        "  shapes {}, (shape, depth) {}, (shape, phase) {}",
        census.shapes.len(),
        census.shape_depths.len(),
        census.per_phase.len()
    );
    println!(
        "  concrete states per shape {:.1}; per (shape, phase): mean {:.1}, max {per_phase_max}; phases per shape: mean {:.1}, max {phases_max}",
        stats.unique_states as f64 / shapes,
        stats.unique_states as f64 / census.per_phase.len() as f64,
        census.per_phase.len() as f64 / shapes,
    );
    println!("  round (ms)   states   new shapes   new (shape, depth)");
    for (round, r) in &census.rounds {
        println!(
            "  {:>10}   {:>6}   {:>10}   {:>18}",
            round * census.round_ms,
            r.states,
            r.new_shapes,
            r.new_shape_depths
        );
    }
}
