//! `shrink`: a smaller trace that still violates the same oracle, saved with the command that
//! replays it.

use super::loaded::{load_run, Loaded};
use super::shrink_report::changes;
use super::words::{faults_in, plural, stem};
use super::{CliError, Output, ShrinkArgs, EXIT_IO, EXIT_VIOLATION};
use lockcheck::report::{timeline, why};
use lockcheck::saved::{save_violation, SavedViolation};
use lockcheck::InputError;
use lockcheck_sim::{shrink, PropertyKind, ShrinkOptions, Trace};
use serde_json::json;
use std::path::PathBuf;

pub(super) fn cmd_shrink(a: &ShrinkArgs) -> Result<Output, CliError> {
    let Loaded {
        saved,
        world,
        path,
        report,
    } = load_run(&a.trace, None)?;
    let kind = |p: &str| report.property(p).map(|p| p.kind);
    let property = oracle_to_keep(&a.trace, saved.trace.property.clone(), kind)?;
    let options = ShrinkOptions {
        max_attempts: a.max_attempts,
        ..ShrinkOptions::default()
    };
    let Some(small) = shrink(&world, &path, &property, options) else {
        return Err(InputError {
            file: Some(a.trace.clone()),
            ..InputError::new(format!(
                "the trace does not violate {property}: nothing to shrink"
            ))
        }
        .into());
    };
    let trace = Trace::from_path(&world, &small, Some(&property));
    let out = output_path(a);
    // The shrunk run stands even when its trace cannot be saved: it is printed, and the
    // exit code says the write failed.
    let written =
        save_violation(&saved.scenario, trace, &out).map_err(|e| CliError::write(&out, &e));
    let entries = timeline::entries(&world, &small);
    let changes = changes(&world, &path, &small);
    let why = why::why(&world, &small, small.steps.len());
    let text = format!(
        "{}; {}, {} after; still violates {property}\n{}{}{}\n{}",
        changes.headline(&a.trace),
        plural(small.steps.len(), "step"),
        plural(faults_in(&world, &small), "fault"),
        why.text(a.full) + "\n",
        changes.lines(),
        timeline::text(&entries, Some(&property)),
        saved_note(&written),
    );
    let mut j = json!({
        "command": "shrink",
        "trace_file": a.trace,
        "oracle": property,
        "steps_before": path.steps.len(),
        "faults_before": faults_in(&world, &path),
        "steps_after": small.steps.len(),
        "faults_after": faults_in(&world, &small),
        "output": out.display().to_string(),
        "timeline": entries,
        "why": why.json(),
    });
    if let Err(e) = &written {
        j["write_error"] = json!({"file": e.error.file, "message": e.error.message});
    }
    for (k, v) in changes.json().as_object().into_iter().flatten() {
        j[k] = v.clone();
    }
    Ok(Output {
        text,
        json: j,
        code: exit_code(&written),
    })
}

/// The violated oracle the trace records, which shrinking keeps; refused when the trace
/// records none or a witness of a `sometimes` oracle.
fn oracle_to_keep(
    trace: &str,
    recorded: Option<String>,
    kind: impl Fn(&str) -> Option<PropertyKind>,
) -> Result<String, CliError> {
    let Some(property) = recorded else {
        return Err(InputError {
            file: Some(trace.to_string()),
            field: Some("trace.property".into()),
            ..InputError::new(
                "the trace records no violated oracle, so there is nothing to keep while shrinking",
            )
        }
        .into());
    };
    if kind(&property) == Some(PropertyKind::Sometimes) {
        return Err(InputError {
            file: Some(trace.to_string()),
            field: Some("trace.property".into()),
            ..InputError::new(format!(
                "the trace records a witness of {property}, not a violation: shrink keeps a violation while it removes steps"
            ))
        }
        .into());
    }
    Ok(property)
}

/// A violation, or an I/O failure when the shrunk trace could not be written.
fn exit_code(written: &Result<SavedViolation, CliError>) -> u8 {
    if written.is_ok() {
        EXIT_VIOLATION
    } else {
        EXIT_IO
    }
}

/// Where the shrunk trace was saved, or why it was not.
fn saved_note(written: &Result<SavedViolation, CliError>) -> String {
    match written {
        Ok(written) => written.note(),
        Err(e) => format!("shrunk trace not saved: {e}\n"),
    }
}

/// The file the shrunk trace goes to: `-o`, or the trace's name with `.shrunk.json`.
fn output_path(a: &ShrinkArgs) -> PathBuf {
    (a.output.clone()).unwrap_or_else(|| PathBuf::from(format!("{}.shrunk.json", stem(&a.trace))))
}
