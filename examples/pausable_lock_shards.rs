//! The pausable-lock benchmark split into shards, run one after another in this process:
//! each shard's unique states, the size of the union of their keys (which must equal the
//! unsharded count), and the work duplicated across shards.
//!
//! ```text
//! cargo run --release --example pausable_lock_shards -- SHARDS N TTL C P B H R [compare]
//! ```
//!
//! With `compare`, the unsharded breadth-first search runs afterwards and its count is printed
//! next to the merged one (`unsharded_states=<count>`).
//!
//! The last line is `shards=<N> merged_states=<union> shard_states=<sum> duplication=<x>
//! violation=<yes|no> seconds=<wall>`.

#[allow(dead_code)] // The benchmark uses part of the model; its tests use the rest.
#[path = "../bench/compare/lockcheck/pausable_lock.rs"]
mod pausable_lock;

use lockcheck::sim::{
    bfs_order, choice_path, explore, explore_shard, union_len, BreadthFirst, Fingerprint, Options,
    ShardPlan,
};
use lockcheck_sim::Stop;
use pausable_lock::PausableLock;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: pausable_lock_shards SHARDS N TTL C P B H R [compare]
  example: pausable_lock_shards 4 4 8 3 4 2 20 2   (large, 4 shards)";

fn main() -> ExitCode {
    let start = Instant::now();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let compare = args.last().is_some_and(|a| a == "compare");
    if compare {
        args.pop();
    }
    let args: Vec<u64> = match args
        .iter()
        .map(|a| a.parse::<u64>().map_err(|_| format!("not a number: {a:?}")))
        .collect::<Result<Vec<u64>, String>>()
    {
        Ok(args) if args.len() == 8 => args,
        Ok(args) => return usage(&format!("expected 8 numbers, got {}", args.len())),
        Err(e) => return usage(&e),
    };
    let model = match PausableLock::try_new(
        args[1], args[2], args[3], args[4], args[5], args[6], args[7],
    ) {
        Ok(model) => model,
        Err(e) => return usage(&e.to_string()),
    };
    let shards = args[0] as u32;
    let (keys, shard_states, first_violation) = match run_shards(&model, shards) {
        Ok(found) => found,
        Err(e) => return usage(&e),
    };
    let merged = union_len(keys.iter().map(|k| k.iter().copied()).collect());
    if let Some(v) = &first_violation {
        println!("shortest counterexample: {} steps", v.len() - 1);
    }
    if compare {
        let options = Options {
            stop: Stop::Never,
            ..Options::default()
        };
        let whole = explore(&model, &mut BreadthFirst::default(), options);
        let violation = whole.first_violation().map(|(_, p)| choice_path(&model, p));
        println!(
            "unsharded_states={} same_counterexample={}",
            whole.stats.unique_states,
            violation == first_violation
        );
    }
    println!(
        "shards={shards} merged_states={merged} shard_states={shard_states} duplication={:.3} violation={} seconds={:.3}",
        shard_states as f64 / merged.max(1) as f64,
        if first_violation.is_some() { "yes" } else { "no" },
        start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

/// Every shard one after another: their key sets, their unique states summed, and the
/// smallest first violation in breadth-first order.
#[allow(clippy::type_complexity)]
fn run_shards(
    model: &PausableLock,
    shards: u32,
) -> Result<(Vec<Vec<Fingerprint>>, u64, Option<Vec<u32>>), String> {
    let mut keys = Vec::new();
    let mut shard_states = 0;
    let mut first_violation: Option<Vec<u32>> = None;
    for k in 0..shards {
        let plan = ShardPlan::new(shards, k)?;
        let options = Options {
            stop: Stop::Never,
            ..Options::default()
        };
        let shard_start = Instant::now();
        let found = explore_shard(model, plan, options);
        let s = &found.report.stats;
        shard_states += s.unique_states;
        if let Some((_, path)) = found.report.first_violation() {
            let choices = choice_path(model, path);
            if first_violation
                .as_ref()
                .is_none_or(|v| bfs_order(&choices, v).is_lt())
            {
                first_violation = Some(choices);
            }
        }
        println!(
            "shard {k}/{shards}: {} unique states, split {:?}, {}, {:.1} s",
            s.unique_states,
            found.split,
            found.report.outcome,
            shard_start.elapsed().as_secs_f64()
        );
        keys.push(found.keys);
    }
    Ok((keys, shard_states, first_violation))
}

fn usage(message: &str) -> ExitCode {
    eprintln!("pausable_lock_shards: {message}\n\n{USAGE}");
    ExitCode::from(2)
}
