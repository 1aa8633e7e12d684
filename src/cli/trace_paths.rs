//! Where `check` and `merge` save a violation's trace and `check --save-witnesses` a
//! witness's, unless `--output` names a file.

use super::words::file_safe;
use lockcheck::scenario::Scenario;
use std::path::{Path, PathBuf};

/// Where a violation's trace goes unless `--output` names a file: `<scenario>.trace.json`,
/// or with `--all-oracles` `<scenario>.<oracle>.trace.json`, in the trace folder.
pub(super) fn default_trace_path(dir: &Path, scenario: &Scenario, oracle: Option<&str>) -> PathBuf {
    let name = match oracle {
        Some(oracle) => file_safe(&format!("{}.{oracle}", scenario.name)),
        None => file_safe(&scenario.name),
    };
    dir.join(format!("{name}.trace.json"))
}

/// Where the witness of `oracle` goes: `<scenario>.<oracle>.witness.trace.json` in the trace
/// folder.
pub(super) fn witness_trace_path(dir: &Path, scenario: &Scenario, oracle: &str) -> PathBuf {
    dir.join(format!(
        "{}.witness.trace.json",
        file_safe(&format!("{}.{oracle}", scenario.name))
    ))
}
