//! The one command that reruns exactly one random walk: a walk is determined by the
//! scenario (with its `--set` changes) and its seed alone, so `--first-seed S --seeds 1` repeats the walk of seed `S`.

use super::set::Set;
use lockcheck::saved::shell_quoted as quote;
use std::path::Path;

/// `lockcheck check SCENARIO [--set ...] [--all-oracles] --random --first-seed SEED --seeds
/// 1`, quoted for the shell.
pub(super) fn rerun_command(scenario: &str, sets: &[Set], all_oracles: bool, seed: u64) -> String {
    let mut cmd = format!("lockcheck check {}", quote(Path::new(scenario)));
    for set in sets {
        let arg = format!("{}={}", set.path, set.value);
        cmd.push_str(&format!(" --set {}", quote(Path::new(&arg))));
    }
    if all_oracles {
        cmd.push_str(" --all-oracles");
    }
    cmd.push_str(&format!(" --random --first-seed {seed} --seeds 1"));
    cmd
}
