//! A trace for every violating point of a sweep, and with `--html` its swimlane chart, so
//! that the heat map's cell links to the run that broke it. Files go under the trace
//! folder (`--trace-dir`, default `lockcheck-traces/`), named after the scenario and the
//! point's values: `pause-past-lease-ttl=5s-pause=12s.trace.json`.

use super::vary::Vary;
use super::words::file_safe;
use super::CliError;
use lockcheck::check::Checked;
use lockcheck::report::{explained, timeline};
use lockcheck::saved::SavedTrace;
use lockcheck::scenario::{duration, Scenario};
use lockcheck_sim::Trace;
use std::path::{Path, PathBuf};

/// Where a violating point's files went: the trace, and the chart if one was drawn.
pub(super) struct Saved {
    pub trace: PathBuf,
    pub chart: Option<PathBuf>,
}

/// `scenario-name=value-…`, safe as a file name.
fn stem(scenario: &Scenario, vary: &[Vary], values: &[u64]) -> String {
    let mut name = scenario.name.clone();
    for (v, x) in vary.iter().zip(values) {
        name.push_str(&format!("-{}={}", v.name, duration::format(*x as i64)));
    }
    file_safe(&name)
}

/// Saves the violation of `checked` at the point `values`; draws its chart when `chart`.
pub(super) fn save_point(
    dir: &Path,
    (scenario, vary, values): (&Scenario, &[Vary], &[u64]),
    checked: &Checked,
    chart: bool,
) -> Result<Option<Saved>, CliError> {
    let Some((oracle, path)) = checked.report.first_violation() else {
        return Ok(None);
    };
    lockcheck::atomic_write::create_dirs(dir).map_err(|e| CliError::write(dir, &e))?;
    let stem = stem(scenario, vary, values);
    let trace_file = dir.join(format!("{stem}.trace.json"));
    let trace = Trace::from_path(&checked.world, path, Some(oracle));
    SavedTrace::new(scenario, trace)
        .save(&trace_file)
        .map_err(|e| CliError::write(&trace_file, &e))?;
    let chart_file = if chart {
        let file = dir.join(format!("{stem}.html"));
        let (drawn, run) = explained::chart(
            &checked.world,
            path.clone(),
            &stem,
            &scenario.description,
            Some(oracle),
        );
        let entries = timeline::entries(&checked.world, &run);
        lockcheck::atomic_write::write_whole(&file, drawn.html(&entries, Some(oracle)))
            .map_err(|e| CliError::write(&file, &e))?;
        Some(file)
    } else {
        None
    };
    Ok(Some(Saved {
        trace: trace_file,
        chart: chart_file,
    }))
}

/// `target` as a link from a page in the folder `from`: relative when it lies below it.
pub(super) fn link(from: &Path, target: &Path) -> String {
    let base = std::fs::canonicalize(if from.as_os_str().is_empty() {
        Path::new(".")
    } else {
        from
    });
    let full = std::fs::canonicalize(target);
    match (base, full) {
        (Ok(base), Ok(full)) => match full.strip_prefix(&base) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => format!("file://{}", full.display()),
        },
        _ => target.display().to_string(),
    }
}
