//! The machine's random-access limit for the explorer: random 8-byte inserts a second into
//! the explorer's own visited table (`VisitedSet`), sized for as many states as a search
//! stores. Exhaustive search of a large space costs at least one such insert per state (a
//! cache miss, since the table is far larger than the caches), so this is the rate no
//! search on this machine can beat; `bench/membound/run.sh` prints a search's states a
//! second per thread over it.
//!
//! ```text
//! cargo run --release --example membound -- [--threads T] STATES
//! ```
//!
//! With T threads the table is split into T shards, one per thread, as the parallel search
//! splits it, and each thread inserts STATES / T keys. The last line is
//! `inserts=<n> threads=<t> seconds=<s> per_second=<rate> per_second_per_thread=<rate>`.

use lockcheck::sim::Prng;
use lockcheck::sim::VisitedSet;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: membound [--threads T] STATES

  STATES  random 8-byte keys to insert (the unique states of the search to compare with)
  T       threads, each inserting into its own shard of the table (default 1)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (threads, states) = match parse(&args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("membound: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let per_thread = states / threads;
    let mut shards: Vec<VisitedSet> = (0..threads)
        .map(|_| VisitedSet::with_capacity(per_thread as usize))
        .collect();
    // Touch every page first, as a search has by the time its table is this full.
    for shard in &mut shards {
        shard.clear();
    }
    let start = Instant::now();
    let inserted: u64 = std::thread::scope(|scope| {
        let handles: Vec<_> = shards
            .iter_mut()
            .enumerate()
            .map(|(t, shard)| scope.spawn(move || fill(shard, t as u64, per_thread)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .sum()
    });
    let seconds = start.elapsed().as_secs_f64();
    let bytes: usize = shards.iter().map(VisitedSet::bytes).sum();
    println!(
        "table {:.1} MB in {threads} shard(s), {:.1} M random inserts/s, {:.1} M a thread",
        bytes as f64 / 1e6,
        inserted as f64 / seconds / 1e6,
        inserted as f64 / seconds / 1e6 / threads as f64
    );
    println!(
        "inserts={inserted} threads={threads} seconds={seconds:.3} per_second={:.0} per_second_per_thread={:.0}",
        inserted as f64 / seconds,
        inserted as f64 / seconds / threads as f64
    );
    ExitCode::SUCCESS
}

/// Inserts `count` random non-zero keys (seeded by `seed`) into `shard`; returns how many
/// were new.
fn fill(shard: &mut VisitedSet, seed: u64, count: u64) -> u64 {
    let mut prng = Prng::from_seed(seed);
    let mut new = 0;
    for _ in 0..count {
        new += shard.insert(u128::from(prng.next_u64() | 1)) as u64;
    }
    new
}

fn parse(args: &[String]) -> Result<(u64, u64), String> {
    let (threads, rest) = match args {
        [flag, t, rest @ ..] if flag == "--threads" => {
            let t: u64 = t
                .parse()
                .ok()
                .filter(|&t| t >= 1)
                .ok_or(format!("--threads must be a positive integer, got {t:?}"))?;
            (t, rest)
        }
        _ => (1, args),
    };
    let [states] = rest else {
        return Err(format!("expected STATES, got {} arguments", rest.len()));
    };
    let states: u64 = states
        .parse()
        .ok()
        .filter(|&s| s >= 1)
        .ok_or(format!("STATES must be a positive integer, got {states:?}"))?;
    Ok((threads, states))
}
