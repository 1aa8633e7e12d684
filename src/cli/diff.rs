//! `diff A B`: two saved runs side by side from where they part: the steps they share, the
//! first step that differs, what each does from there, and whether each breaks the lock or
//! the account; with `--html`, both swimlane charts with the parting marked. `boundary
//! --explain` uses it on the two neighbours of a flip.

use super::loaded::load_any_run;
use super::{CliError, DiffArgs, Output, EXIT_OK};
use lockcheck::oracles::RedisWorld;
use lockcheck::report::causes::Mark;
use lockcheck::report::{escape, explained, parting};
use lockcheck_sim::Path;
use serde_json::{json, Value};
use std::path::Path as FsPath;

/// Steps shown on each side after the parting.
const SHOWN_STEPS: usize = 12;

/// One side of a comparison: its name, world and run.
pub(super) struct Side<'a> {
    pub name: &'a str,
    pub world: &'a RedisWorld,
    pub path: &'a Path<RedisWorld>,
}

fn verdict(side: &Side) -> String {
    let (two, damaged) = parting::broken(side.world, side.path);
    format!(
        "{}, {}",
        if two {
            "two holders at once"
        } else {
            "never two holders"
        },
        if damaged {
            "account damaged"
        } else {
            "account intact"
        }
    )
}

/// The comparison as text and JSON.
pub(super) fn compare(a: &Side, b: &Side) -> (String, Value) {
    let common = parting::common_steps(a.path, b.path);
    let at_ms = a.path.states[common].now_ms;
    let mut text = format!(
        "{} and {} agree for {common} steps (to t={at_ms} ms); they part at step {}:\n",
        a.name,
        b.name,
        common + 1
    );
    for side in [a, b] {
        text.push_str(&format!("  {} ({}):\n", side.name, verdict(side)));
        let shown = parting::steps_text(side.world, side.path, common, SHOWN_STEPS);
        if shown.is_empty() {
            text.push_str("    (the run ends here)\n");
        }
        text.push_str(&shown);
    }
    let side_json = |s: &Side| {
        json!({"name": s.name, "steps": s.path.steps.len(),
            "first_different_step": s.path.steps.get(common).map(|st| st.label.clone()),
            "two_holders": parting::broken(s.world, s.path).0,
            "account_damaged": parting::broken(s.world, s.path).1})
    };
    let j =
        json!({"common_steps": common, "parting_ms": at_ms, "a": side_json(a), "b": side_json(b)});
    (text, j)
}

/// Both charts on one page, the parting marked on every lane.
pub(super) fn write_html(file: &FsPath, a: &Side, b: &Side) -> Result<(), CliError> {
    let common = parting::common_steps(a.path, b.path);
    let at_ms = a.path.states[common].now_ms;
    let mut page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{} and {}</title>\n</head>\n<body style=\"font-family:sans-serif;margin:20px\">\n<h1>Where the runs part: step {}, t={at_ms} ms (dashed blue line)</h1>\n",
        escape(a.name),
        escape(b.name),
        common + 1
    );
    for side in [a, b] {
        let (mut chart, _) = explained::chart(side.world, side.path.clone(), side.name, "", None);
        for lane in 0..chart.lanes.len() {
            chart.causes.marks.push(Mark {
                lane,
                at_ms,
                kind: "parting",
                text: format!("the runs part here (step {})", common + 1),
            });
        }
        page.push_str(&format!(
            "<h2>{}: {}</h2>\n",
            escape(side.name),
            verdict(side)
        ));
        page.push_str(&chart.svg());
    }
    page.push_str("</body>\n</html>\n");
    lockcheck::atomic_write::write_whole(file, page).map_err(|e| CliError::write(file, &e))
}

pub(super) fn cmd_diff(args: &DiffArgs) -> Result<Output, CliError> {
    let a = load_any_run(&args.a)?;
    let b = load_any_run(&args.b)?;
    let side_a = Side {
        name: &args.a,
        world: &a.world,
        path: &a.path,
    };
    let side_b = Side {
        name: &args.b,
        world: &b.world,
        path: &b.path,
    };
    let (mut text, mut j) = compare(&side_a, &side_b);
    if let Some(file) = &args.html {
        write_html(file, &side_a, &side_b)?;
        text.push_str(&format!("both runs drawn in {}\n", file.display()));
        j["html"] = json!(file.display().to_string());
    }
    j["command"] = json!("diff");
    Ok(Output {
        text,
        json: j,
        code: EXIT_OK,
    })
}
