//! `explain`: a saved trace drawn as a swimlane chart, as self-contained HTML or SVG, with
//! the causes of its violation and the overlap drawn to its end.

use super::loaded::{load_run, Loaded};
use super::words::{meaning_of, plural, stem};
use super::{CliError, ExplainArgs, Format, Output, EXIT_OK};
use lockcheck::report::{explained, timeline};
use lockcheck::reproduce::witness_file::WitnessFile;
use serde_json::json;
use std::path::PathBuf;

pub(super) fn cmd_explain(a: &ExplainArgs) -> Result<Output, CliError> {
    if let Some(w) = lockcheck::reproduce::witness_file::read(&a.trace)? {
        return explain_witness_file(a, &w);
    }
    let Loaded {
        saved, world, path, ..
    } = load_run(&a.trace, None)?;
    let format = match (a.format, &a.output) {
        (Some(f), _) => f,
        (None, Some(o)) if o.extension().is_some_and(|e| e == "svg") => Format::Svg,
        _ => Format::Html,
    };
    let out = a.output.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "{}.{}",
            stem(&a.trace),
            if format == Format::Svg { "svg" } else { "html" }
        ))
    });
    let violated = saved.trace.property.as_deref();
    let subtitle = format!(
        "{}{}",
        saved.scenario.description,
        violated
            .map(|o| format!(" | {o} violated{}", meaning_of(&saved.scenario, o)))
            .unwrap_or_default()
    );
    let (chart, path) = explained::chart(&world, path, &saved.scenario.name, &subtitle, violated);
    let entries = timeline::entries(&world, &path);
    let doc = match format {
        Format::Svg => chart.svg(),
        Format::Html => chart.html(&entries, violated),
    };
    lockcheck::atomic_write::write_whole(&out, doc).map_err(|e| CliError::write(&out, &e))?;
    let text = format!(
        "wrote {} ({}, {}, {}, {}, {}, {}, {} of two holders)\n",
        out.display(),
        plural(chart.lanes.len(), "lane"),
        plural(chart.arrows.len(), "message"),
        plural(chart.pauses.len(), "pause"),
        plural(chart.causes.count("clock-step"), "clock step"),
        plural(chart.causes.cuts.len(), "partition"),
        plural(chart.causes.count("crash"), "crash").replace("crashs", "crashes"),
        plural(chart.overlaps.len(), "stretch").replace("stretchs", "stretches")
    );
    let j = json!({
        "command": "explain",
        "trace_file": a.trace,
        "output": out.display().to_string(),
        "format": if format == Format::Svg { "svg" } else { "html" },
        "lanes": chart.lanes.iter().map(|l| l.0.clone()).collect::<Vec<_>>(),
        "messages": chart.arrows.len(),
        "pauses": chart.pauses.len(),
        "clock_steps": chart.causes.count("clock-step"),
        "partitions": chart.causes.cuts.len(),
        "crashes": chart.causes.count("crash"),
        "causes": chart.causes.cause_labels.iter().map(|(t, l)| json!({"at_ms": t, "label": l})).collect::<Vec<_>>(),
        "why": chart.causes.why.json(),
        "overlaps": chart.overlaps.iter().map(|o| json!({"from_ms": o.0, "to_ms": o.1})).collect::<Vec<_>>(),
    });
    Ok(Output {
        text,
        json: j,
        code: EXIT_OK,
    })
}

/// A reproduction's witness file: the model's run and the real one (see `explain_real`).
fn explain_witness_file(a: &ExplainArgs, w: &WitnessFile) -> Result<Output, CliError> {
    let svg = a.format == Some(Format::Svg)
        || a.output
            .as_ref()
            .is_some_and(|o| o.extension().is_some_and(|e| e == "svg"));
    let d = super::explain_real::explain_witness(&a.trace, a.output.clone(), svg, w)?;
    lockcheck::atomic_write::write_whole(&d.out, d.doc).map_err(|e| CliError::write(&d.out, &e))?;
    Ok(Output {
        text: d.text,
        json: d.json,
        code: EXIT_OK,
    })
}
