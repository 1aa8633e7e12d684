//! `check --save-witnesses`: the run that witnessed each `sometimes` oracle of a safe check,
//! saved as a trace. `replay` plays it again and `reproduce` plays it on real Redis: a safe
//! scenario's demonstration that the fault it is about does happen, and where.

use super::trace_paths::witness_trace_path;
use lockcheck::oracles::RedisWorld;
use lockcheck::saved::{save_violation, shell_quoted};
use lockcheck::scenario::Scenario;
use lockcheck::Checked;
use lockcheck_sim::{Status, Trace};
use serde_json::{json, Value};
use std::path::Path;

/// Saves each witness as `<scenario>.<oracle>.witness.trace.json` in the trace folder: the
/// lines to print, and one JSON entry per witness (`oracle`, `trace_file` or `trace_error`,
/// `reproduce_command`).
pub(super) fn save_witnesses(
    trace_dir: &Path,
    scenario: &Scenario,
    checked: &Checked,
) -> (String, Value) {
    let mut text = String::new();
    let mut entries = Vec::new();
    for property in &checked.report.properties {
        let Status::Witnessed(path) = &property.status else {
            continue;
        };
        let oracle = property.name.as_str();
        let file = witness_trace_path(trace_dir, scenario, oracle);
        let trace = Trace::from_path::<RedisWorld>(&checked.world, path, Some(oracle));
        let saved = file
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or(Ok(()), lockcheck::atomic_write::create_dirs)
            .and_then(|()| save_violation(scenario, trace, &file));
        match saved {
            Ok(_) => {
                let reproduce = format!("lockcheck reproduce {}", shell_quoted(&file));
                text.push_str(&format!(
                    "witness of {oracle} ({} steps) saved to {}; on real Redis: {reproduce}\n",
                    path.steps.len(),
                    file.display()
                ));
                entries.push(json!({
                    "oracle": oracle,
                    "steps": path.steps.len(),
                    "trace_file": file.display().to_string(),
                    "reproduce_command": reproduce,
                }));
            }
            Err(e) => {
                text.push_str(&format!("witness of {oracle} not saved: {e}\n"));
                entries.push(json!({ "oracle": oracle, "trace_error": e.to_string() }));
            }
        }
    }
    (text, json!(entries))
}
