//! The `lockcheck` command line, private to the binary: `scenarios`, `profiles`, `show`,
//! `diff`, `check` (whole, or one shard of the search), `merge`, `replay`, `shrink`, `sweep`,
//! `boundary`, `explain`, `completions` and `man`. It builds on the library's public surface
//! only. Every command prints text, or one JSON object with `--json`,
//! and exits with a documented code ([`EXIT_CODES`]). Bad input is one clear error naming the
//! file, line and field (exit 2), never a panic; a file that cannot be written exits 4.
//! One file per command; [`CliError`] carries the exit code of a failure.

mod args;
mod boundary;
mod boundary_explain;
mod check;
pub mod conventions;
#[cfg(test)]
mod deploy_configs;
mod diff;
mod error;
mod explain;
mod explain_real;
mod grid;
mod loaded;
mod merge;
mod profiles;
mod replay;
mod reproduce;
mod rerun;
mod scenarios;
pub mod search;
mod shard_check;
pub mod show;
mod shrink;
mod shrink_report;
mod stats;
mod sweep;
mod sweep_traces;
mod trace_paths;
mod witness_traces;
mod words;

pub use args::*;
pub use error::{CliError, EXIT_BAD_INPUT, EXIT_IO};
use lockcheck::scenario::{set, vary};
pub use search::Limits;
use serde_json::Value;
pub use words::human;

/// The exit codes, as `--help` prints them.
pub const EXIT_CODES: &str = "Exit codes:
  0  no violation found (or the command did its job: scenarios, explain)
  1  a violation was found (check, sweep, boundary) or the trace violates (replay, shrink;
     reproduce: REPRODUCED on real Redis)
  2  bad input or usage: a malformed or inconsistent scenario or trace, unknown option
     (reproduce: no redis-server 7, or a step with no real mechanism)
  3  a limit (states, time, memory) was reached before a verdict (merge: or shards were
     missing with --partial and none found a violation); reproduce: INCONCLUSIVE, or the
     real servers would not run (a port taken, a server not coming up)
  4  an output file (trace, chart, heat map) could not be written
  130  interrupted by SIGINT (Ctrl-C): the search stopped and reported what it had
  143  interrupted by SIGTERM, likewise";

pub const EXIT_OK: u8 = 0;
pub const EXIT_VIOLATION: u8 = 1;
pub const EXIT_LIMIT: u8 = 3;

/// What a command produced: text for people, JSON for programs, an exit code.
pub struct Output {
    pub text: String,
    pub json: Value,
    pub code: u8,
}

/// Runs the parsed command line.
/// Errors come back clipped (see [`CliError::clipped`]); each carries its exit code.
pub fn run(cli: &Cli) -> Result<Output, CliError> {
    run_command(cli).map_err(CliError::clipped)
}

fn run_command(cli: &Cli) -> Result<Output, CliError> {
    match &cli.command {
        Command::Scenarios => Ok(scenarios::cmd_scenarios()),
        Command::Profiles => Ok(profiles::cmd_profiles()),
        Command::Show(a) => show::cmd_show(a),
        Command::Completions(a) => Ok(conventions::cmd_completions(a)),
        Command::Man => Ok(conventions::cmd_man()),
        Command::Diff(a) => diff::cmd_diff(a),
        Command::Check(a) => check::cmd_check(a, cli.json),
        Command::Merge(a) => merge::cmd_merge(a),
        Command::Replay(a) => replay::cmd_replay(a),
        Command::Reproduce(a) => reproduce::cmd_reproduce(a),
        Command::Shrink(a) => shrink::cmd_shrink(a),
        Command::Sweep(a) => sweep::cmd_sweep(a, cli.json),
        Command::Boundary(a) => boundary::cmd_boundary(a),
        Command::Explain(a) => explain::cmd_explain(a),
    }
}
