//! `boundary --explain`: why the safe neighbour of a flip is safe. The violating neighbour's
//! counterexample is followed in the safe neighbour's configuration (same choices where
//! offered; see [`lockcheck::report::parting::follow`]); both runs are saved as traces, and the
//! first step where they part is shown with what each does from there.

use super::diff::{compare, Side};
use super::grid::point_checked;
use super::words::file_safe;
use super::{vary, CliError, Limits};
use lockcheck::check::Mode;
use lockcheck::report::parting;
use lockcheck::saved::SavedTrace;
use lockcheck::scenario::{duration, Scenario};
use lockcheck::InputError;
use lockcheck_sim::Trace;
use serde_json::{json, Value};
use std::path::Path;

/// Time a followed run may go on past the counterexample's end, ms.
const FOLLOW_PAST_MS: u64 = 5_000;

/// The explanation of the flip between `safe_ms` and `broken_ms` of parameter `name`.
pub(super) fn explain_flip(
    base: &Scenario,
    name: &str,
    (safe_ms, broken_ms): (u64, u64),
    limits: &Limits,
    dir: &Path,
) -> Result<(String, Value), CliError> {
    let broken = vary::apply(base, name, broken_ms)?;
    let safe = vary::apply(base, name, safe_ms)?;
    let (_, checked) = point_checked(&broken, Mode::Exhaustive, limits)?;
    let Some((oracle, path)) = checked.report.first_violation() else {
        return Err(InputError::new(format!(
            "no counterexample at {name} = {} to explain (a limit came first?)",
            duration::format(broken_ms as i64)
        ))
        .into());
    };
    let safe_world = safe.build().map_err(|e| InputError::new(e.message))?;
    let labels: Vec<String> = path.steps.iter().map(|s| s.label.clone()).collect();
    let until_ms = path.last_state().now_ms + FOLLOW_PAST_MS;
    let followed = parting::follow(&safe_world, &labels, until_ms);
    lockcheck::atomic_write::create_dirs(dir).map_err(|e| CliError::write(dir, &e))?;
    let at = |ms: u64| duration::format(ms as i64);
    let file = |ms: u64| {
        let stem = file_safe(&format!("{}-{name}={}", base.name, at(ms)));
        dir.join(format!("{stem}.trace.json"))
    };
    let (broken_file, safe_file) = (file(broken_ms), file(safe_ms));
    let save = |file: &Path, s: &Scenario, t: Trace| {
        SavedTrace::new(s, t)
            .save(file)
            .map_err(|e| CliError::write(file, &e))
    };
    save(
        &broken_file,
        &broken,
        Trace::from_path(&checked.world, path, Some(oracle)),
    )?;
    save(
        &safe_file,
        &safe,
        Trace::from_path(&safe_world, &followed, None),
    )?;
    let (broken_name, safe_name) = (
        broken_file.display().to_string(),
        safe_file.display().to_string(),
    );
    let (mut text, mut j) = compare(
        &Side {
            name: &broken_name,
            world: &checked.world,
            path,
        },
        &Side {
            name: &safe_name,
            world: &safe_world,
            path: &followed,
        },
    );
    text = format!(
        "why {name} = {} is safe: the counterexample at {} followed there\n{text}draw both: lockcheck diff {broken_name} {safe_name} --html parting.html\n",
        at(safe_ms),
        at(broken_ms)
    );
    j["violating_trace"] = json!(broken_name);
    j["safe_trace"] = json!(safe_name);
    Ok((text, j))
}
