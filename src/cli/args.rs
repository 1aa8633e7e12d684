//! The command line as clap reads it: the commands and their arguments.

use super::conventions::VERSION;
use super::search::{parse_ms, Limits};
use super::EXIT_CODES;
use super::{set, vary};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "lockcheck",
    version = VERSION,
    about = "A deterministic simulation model checker for distributed locks on Redis",
    long_about = "A deterministic simulation model checker for distributed locks on Redis.\n\n\
        Scenarios are built-in names (`lockcheck scenarios`) or TOML files. `check` explores \
        every interleaving of a scenario's faults (or seeded random walks) and saves a \
        violation as a trace that `replay`, `shrink` and `explain` read.",
    after_help = EXIT_CODES
)]
pub struct Cli {
    /// Print one JSON object on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the built-in scenarios with a one-line description.
    Scenarios,
    /// List the client-library profiles a protocol table may name (`library`, `version`),
    /// with their defaults.
    Profiles,
    /// Show a built-in scenario, or export it as a scenario file (`--toml`).
    Show(ShowArgs),
    /// Check a scenario: exhaustively (breadth-first, shortest counterexample) or by seeded
    /// random walks.
    Check(CheckArgs),
    /// Combine the result files of a sharded check into one verdict, one shortest
    /// counterexample and the statistics of the whole search.
    Merge(MergeArgs),
    /// Replay a saved trace exactly and print its timeline.
    Replay(ReplayArgs),
    /// Play a saved counterexample (or a witness that `check --save-witnesses` saved)
    /// against real redis-server processes: a step table and REPRODUCED, NOT REPRODUCED,
    /// DIVERGED at step k or INCONCLUSIVE.
    Reproduce(ReproduceArgs),
    /// Write a smaller trace that still violates the same oracle.
    Shrink(ShrinkArgs),
    /// Check a scenario over a grid of parameter values: a table and a heat map. The search
    /// limits (`--max-states`, `--time-limit`, `--memory-limit`, ...) apply to each point;
    /// `--total-time-limit` bounds the whole sweep.
    Sweep(SweepArgs),
    /// Bisect one parameter to the exact value where the verdict flips.
    Boundary(BoundaryArgs),
    /// Draw a saved trace as a swimlane chart (self-contained HTML, or SVG).
    Explain(ExplainArgs),
    /// Compare two saved runs: where they part and what each does from there.
    Diff(DiffArgs),
    /// Print a shell completion script: `lockcheck completions bash > /etc/bash_completion.d/lockcheck`.
    Completions(CompletionsArgs),
    /// Print the man page (roff): `lockcheck man > lockcheck.1`.
    Man,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The first trace.
    pub a: String,
    /// The second trace.
    pub b: String,
    /// Also draw both runs, the parting marked, on one HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// A built-in scenario name or a scenario file (.toml or .json).
    pub scenario: String,
    /// Seeded random walks instead of the exhaustive search.
    #[arg(long, conflicts_with = "hash_compaction")]
    pub random: bool,
    /// Number of random walks (default: the scenario's `explore.random_seeds`).
    #[arg(long, value_name = "N", requires = "random")]
    pub seeds: Option<u64>,
    /// First seed of the random walks.
    #[arg(long, value_name = "SEED", default_value_t = 0, requires = "random")]
    pub first_seed: u64,
    /// Change a field before running: `PATH=VALUE`, e.g. `--set explore.max_states=100000`,
    /// `--set clients[*].protocol.retry_ms=500`, `--set ttl=5s` (short names as for
    /// `--vary`). Repeatable; applied in order. The changed scenario is a new one,
    /// `<name>+set`, whose original `[expect]` no longer applies (unless `--set expect...`).
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = set::parse_set)]
    pub sets: Vec<set::Set>,
    #[command(flatten)]
    pub limits: Limits,
    /// Where to save the trace of a violation (default: `<scenario>.trace.json` in the
    /// trace folder).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The folder traces are saved in unless `--output` names a file.
    #[arg(long, value_name = "DIR", default_value = "lockcheck-traces")]
    pub trace_dir: PathBuf,
    /// Also print where the branching came from (by kind of choice) and what the reductions
    /// saved.
    #[arg(long)]
    pub stats: bool,
    /// Keep searching after the first violation until every oracle has a verdict; each
    /// violated oracle gets a counterexample and a trace of its own
    /// (`<scenario>.<oracle>.trace.json` in the trace folder).
    #[arg(long, conflicts_with = "output")]
    pub all_oracles: bool,
    /// On a safe verdict, save the run that witnessed each `sometimes` oracle
    /// (`<scenario>.<oracle>.witness.trace.json` in the trace folder), for `replay` and for
    /// `reproduce` on real Redis.
    #[arg(long)]
    pub save_witnesses: bool,
    /// List every event the violation depends on in the `why` block (runs of the same event,
    /// such as renewals or retries, are otherwise folded into one line with a count).
    #[arg(long)]
    pub full: bool,
    /// Split the exhaustive search into this many shards and run one of them (`--shard`);
    /// `lockcheck merge` combines their result files.
    #[arg(long, value_name = "N", requires = "shard", conflicts_with_all = ["random", "hash_compaction"])]
    pub shards: Option<u32>,
    /// Which shard to run, from 0 to N-1.
    #[arg(long, value_name = "K", requires = "shards")]
    pub shard: Option<u32>,
    /// The folder a shard writes its result file and key file in.
    #[arg(long, value_name = "DIR", default_value = "lockcheck-shards")]
    pub shard_dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The result files of a sharded check (`<scenario>.shard-K-of-N.json`), one per shard.
    #[arg(required = true, value_name = "RESULT")]
    pub results: Vec<PathBuf>,
    /// Merge even when shards are missing: violations found are reported (not necessarily
    /// the shortest), and no run without one is called safe.
    #[arg(long)]
    pub partial: bool,
    /// Where to save the merged counterexample's trace (default: `<scenario>.trace.json` in
    /// the trace folder).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The folder traces are saved in unless `--output` names a file.
    #[arg(long, value_name = "DIR", default_value = "lockcheck-traces")]
    pub trace_dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A trace saved by `lockcheck check` or `lockcheck shrink`.
    pub trace: String,
    /// Replay against this scenario instead of the one saved with the trace (refused if
    /// the trace was recorded on another configuration).
    #[arg(long, value_name = "NAME|FILE")]
    pub scenario: Option<String>,
    /// List every event the violation depends on in the `why` block (runs of the same event,
    /// such as renewals or retries, are otherwise folded into one line with a count).
    #[arg(long)]
    pub full: bool,
}

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// A trace saved by `lockcheck check` or `lockcheck shrink`.
    pub trace: String,
    /// Runs, each on fresh servers.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub repeat: usize,
    /// Time runs this many times faster for the replayer and the servers (1 to 10).
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    pub speed: f64,
    /// The redis-server program (major version 7).
    #[arg(long, value_name = "PATH", default_value = "redis-server")]
    pub redis_server: PathBuf,
    /// Node i listens on PORT + i (default: free loopback ports).
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,
    /// Also write a witness file: every observation, the Redis version and the speed.
    #[arg(long, value_name = "FILE")]
    pub witness: Option<PathBuf>,
    /// Run the real client libraries (redis-py, node-redlock 4 and 5) in processes of their
    /// own instead of the model's clients, and compare the commands they send with the
    /// profile's (see `harness/`).
    #[arg(long, conflicts_with = "witness")]
    pub library: bool,
}

#[derive(Args, Debug)]
pub struct ShrinkArgs {
    /// A trace saved by `lockcheck check`.
    pub trace: String,
    /// Where to write the smaller trace (default: `<trace>.shrunk.json`).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Candidates to try at most.
    #[arg(long, value_name = "N", default_value_t = 5_000)]
    pub max_attempts: usize,
    /// List every event the violation depends on in the `why` block (runs of the same event,
    /// such as renewals or retries, are otherwise folded into one line with a count).
    #[arg(long)]
    pub full: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Html,
    Svg,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A trace saved by `lockcheck check` or `lockcheck shrink`, or a witness file written by
    /// `reproduce --witness` (drawn beside the model's run).
    pub trace: String,
    /// Output file (default: `<trace>.html`, or `.svg` with `--format svg`); its extension
    /// `.svg` selects SVG.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The chart's format (default: from the output file's extension, else HTML).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// A built-in scenario name (`lockcheck scenarios` lists them) or a scenario file.
    pub scenario: String,
    /// Print the scenario as a TOML scenario file that `check` reads.
    #[arg(long)]
    pub toml: bool,
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// A built-in scenario name or a scenario file.
    pub scenario: String,
    /// A parameter and its values: `ttl=1s..40s:1s`, `pause=0s..60s:5s`, `work=100ms,1s`.
    /// A parameter is one field, every other rule left as set: a short name (ttl, pause,
    /// work, delay; refused when it could mean several fields) or a field path like
    /// `faults.pauses[1].durations_ms`. Give one or two (the heat map uses the first two).
    #[arg(long, value_name = "NAME=RANGE", required = true, value_parser = vary::parse_vary)]
    pub vary: Vec<vary::Vary>,
    /// Write the heat map as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write the heat map and the table as a self-contained HTML page; each violating
    /// cell links to its swimlane chart, drawn next to its trace.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Where the trace of every violating point is saved (and its chart, with `--html`).
    #[arg(long, value_name = "DIR", default_value = "lockcheck-traces")]
    pub trace_dir: PathBuf,
    /// Random walks instead of the exhaustive search at each point.
    #[arg(long)]
    pub random: bool,
    /// Number of random walks at each point (default: the scenario's `explore.random_seeds`).
    #[arg(long, value_name = "N", requires = "random")]
    pub seeds: Option<u64>,
    /// Change a field before running: `PATH=VALUE`, e.g. `--set explore.max_states=100000`,
    /// `--set clients[*].protocol.retry_ms=500`, `--set ttl=5s` (short names as for
    /// `--vary`). Repeatable; applied in order. The changed scenario is a new one,
    /// `<name>+set`, whose original `[expect]` no longer applies (unless `--set expect...`).
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = set::parse_set)]
    pub sets: Vec<set::Set>,
    /// Stop the whole sweep after this much wall time, e.g. `10m`: each point's time limit
    /// is at most what is left, and the points left unchecked have no verdict (exit code
    /// 3). The other limits apply to each point.
    #[arg(long, value_name = "DURATION", value_parser = super::search::parse_ms)]
    pub total_time_limit: Option<u64>,
    #[command(flatten)]
    pub limits: Limits,
}

#[derive(Args, Debug)]
pub struct BoundaryArgs {
    /// A built-in scenario name or a scenario file.
    pub scenario: String,
    /// The parameter (one field, as for `sweep --vary`) and the range to bisect:
    /// `pause=0s..60s`, `faults.pauses[1].durations_ms=0s..3s`.
    #[arg(long, value_name = "NAME=FROM..TO", value_parser = vary::parse_vary)]
    pub vary: vary::Vary,
    /// Stop bisecting at this precision.
    #[arg(long, value_name = "DURATION", default_value = "1ms", value_parser = parse_ms)]
    pub resolution: u64,
    /// Random walks at every value instead of the exhaustive search (which otherwise falls
    /// back to them at a value where it reaches a limit).
    #[arg(long)]
    pub random: bool,
    /// Random walks per value (default: the scenario's `explore.random_seeds`).
    #[arg(long, value_name = "N")]
    pub seeds: Option<u64>,
    /// Explain the flip: follow the violating neighbour's counterexample in the safe
    /// neighbour, save both runs under --trace-dir and show where they part.
    #[arg(long)]
    pub explain: bool,
    /// Where `--explain` saves the two runs.
    #[arg(long, value_name = "DIR", default_value = "lockcheck-traces")]
    pub trace_dir: PathBuf,
    /// Change a field before running: `PATH=VALUE`, e.g. `--set explore.max_states=100000`,
    /// `--set clients[*].protocol.retry_ms=500`, `--set ttl=5s` (short names as for
    /// `--vary`). Repeatable; applied in order. The changed scenario is a new one,
    /// `<name>+set`, whose original `[expect]` no longer applies (unless `--set expect...`).
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = set::parse_set)]
    pub sets: Vec<set::Set>,
    #[command(flatten)]
    pub limits: Limits,
}
