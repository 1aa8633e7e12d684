//! The one command that reruns exactly one random walk: a walk is determined by the
//! scenario and its seed alone, so `--first-seed S --seeds 1` repeats the walk of seed `S`.

use super::words::quote;
use std::path::Path;

/// `lockcheck check SCENARIO --random --first-seed SEED --seeds 1`, quoted for the shell.
pub(super) fn rerun_command(scenario: &str, seed: u64) -> String {
    format!(
        "lockcheck check {} --random --first-seed {seed} --seeds 1",
        quote(Path::new(scenario))
    )
}
