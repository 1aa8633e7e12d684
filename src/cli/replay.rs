//! `replay`: a saved trace run again exactly: whether the recorded violation reproduces, the
//! events it depends on (the `why` block), and its timeline.

use super::loaded::{load_run, Loaded};
use super::words::meaning_of;
use super::{CliError, Output, ReplayArgs, EXIT_OK, EXIT_VIOLATION};
use lockcheck::report::{timeline, why};
use lockcheck::scenario::Scenario;
use lockcheck_sim::Status;
use serde_json::json;

pub(super) fn cmd_replay(a: &ReplayArgs) -> Result<Output, CliError> {
    let Loaded {
        saved,
        world,
        path,
        report,
    } = load_run(&a.trace, a.scenario.as_deref())?;
    let violated: Vec<&str> = report
        .properties
        .iter()
        .filter(|p| p.status.is_violated())
        .map(|p| p.name.as_str())
        .collect();
    let first = violated.first().copied();
    let entries = timeline::entries(&world, &path);
    let recorded = saved.trace.property.as_deref();
    // A trace of a `sometimes` oracle is a witness (`check --save-witnesses`).
    let witnessed = recorded.is_some_and(|p| {
        report
            .property(p)
            .is_some_and(|r| matches!(r.status, Status::Witnessed(_)))
    });
    let reproduced = recorded.is_some_and(|p| violated.contains(&p)) || witnessed;
    let verdict = verdict_line(&saved.scenario, first, recorded, reproduced, witnessed);
    let why = first.map(|_| why::why(&world, &path, path.steps.len()));
    let text = format!(
        "replay of {} (scenario {}, {} steps{})\n{verdict}{}{}",
        a.trace,
        saved.scenario.name,
        path.steps.len(),
        saved
            .trace
            .seed
            .map(|s| format!(", seed {s}"))
            .unwrap_or_default(),
        why.as_ref()
            .map(|w| w.text(a.full) + "\n")
            .unwrap_or_default(),
        timeline::text(&entries, first)
    );
    let j = json!({
        "command": "replay",
        "trace_file": a.trace,
        "scenario": saved.scenario.name,
        "steps": path.steps.len(),
        "recorded_oracle": recorded,
        "violated": violated,
        "reproduced": reproduced,
        "witnessed": witnessed,
        "verdict": if first.is_some() { "violated" } else { "no_violation" },
        "timeline": entries,
        "why": why.map(|w| w.json()),
    });
    Ok(Output {
        text,
        json: j,
        code: if first.is_some() {
            EXIT_VIOLATION
        } else {
            EXIT_OK
        },
    })
}

/// The verdict: the first oracle violated, whether the recorded violation reproduced, or
/// the recorded witness.
fn verdict_line(
    scenario: &Scenario,
    first: Option<&str>,
    recorded: Option<&str>,
    reproduced: bool,
    witnessed: bool,
) -> String {
    match (first, recorded) {
        (Some(_), Some(p)) if reproduced && !witnessed => format!(
            "verdict: VIOLATION of {p} reproduced{}\n",
            meaning_of(scenario, p)
        ),
        (Some(o), _) => format!("verdict: VIOLATION of {o}\n"),
        (None, Some(p)) if witnessed => {
            format!("verdict: no violation; the run witnesses {p}, as recorded\n")
        }
        (None, Some(p)) => {
            format!("verdict: no violation: the recorded violation of {p} does NOT reproduce\n")
        }
        (None, None) => "verdict: no violation\n".to_string(),
    }
}
