//! `sweep`: one scenario checked at every point of a grid of parameter values, as a table
//! and a heat map (SVG or HTML). An interrupt stops the grid at the point it reaches and the
//! points done are reported.

use super::grid::{point_checked, with_values, Found};
use super::set::apply_sets;
use super::sweep_traces::{link, save_point};
use super::{vary, CliError, Output, SweepArgs};
use super::{EXIT_LIMIT, EXIT_OK, EXIT_VIOLATION};
use lockcheck::check::Mode;
use lockcheck::interrupt;
use lockcheck::report::heatmap::{Cell, Sweep, Verdict};
use lockcheck::scenario::file::load_scenario;
use lockcheck::scenario::Scenario;
use lockcheck::InputError;
use serde_json::json;
use std::io::IsTerminal;
use std::path::Path;

fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| CliError::write(path, &e))
}

pub(super) fn cmd_sweep(a: &SweepArgs, json_out: bool) -> Result<Output, CliError> {
    let base = apply_sets(load_scenario(&a.scenario)?, &a.sets)?;
    if a.vary.len() > 3 {
        return Err(InputError::new("give at most three --vary parameters").into());
    }
    let mode = if a.random {
        Mode::Random {
            first: 0,
            count: a.seeds.unwrap_or(base.explore.random_seeds),
        }
    } else {
        Mode::Exhaustive
    };
    let points = vary::grid(&a.vary);
    // Every point is checked once its scenario is known to build.
    let scenarios: Vec<Scenario> = points
        .iter()
        .map(|p| with_values(&base, &a.vary, p))
        .collect::<Result<_, _>>()?;
    let cells = check_grid(a, &points, &scenarios, mode, json_out)?;
    let sw = Sweep {
        scenario: base.name.clone(),
        params: a
            .vary
            .iter()
            .map(|v| (v.name.clone(), v.values.clone()))
            .collect(),
        cells,
    };
    if let Some(p) = &a.svg {
        write_file(p, &sw.svg())?;
    }
    if let Some(p) = &a.html {
        write_file(p, &sw.html())?;
    }
    Ok(sweep_output(a, &sw, points.len()))
}

/// Checks every point in order until the last or an interrupt; saves the trace of every
/// violating point (and its chart, linked from the heat map, with `--html`).
fn check_grid(
    a: &SweepArgs,
    points: &[Vec<u64>],
    scenarios: &[Scenario],
    mode: Mode,
    json_out: bool,
) -> Result<Vec<Cell>, CliError> {
    let bar = (!json_out && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(points.len() as u64);
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar
    });
    let mut cells = Vec::new();
    for (values, s) in points.iter().zip(scenarios) {
        let (found, checked) = point_checked(s, mode, &a.limits)?;
        let Found::Verdict(verdict, oracle, states) = found else {
            break;
        };
        let saved = save_point(
            &a.trace_dir,
            (s, &a.vary, values),
            &checked,
            a.html.is_some(),
        )?;
        let html_dir = a
            .html
            .as_ref()
            .and_then(|h| h.parent())
            .unwrap_or(Path::new(""));
        cells.push(Cell {
            values_ms: values.clone(),
            verdict,
            oracle,
            states,
            trace: saved.as_ref().map(|f| f.trace.display().to_string()),
            chart: saved.and_then(|f| f.chart).map(|c| link(html_dir, &c)),
        });
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(cells)
}

/// `sweep of S over N points`, or where an interrupt stopped it.
fn headline(sw: &Sweep, total_points: usize, interrupted: bool) -> String {
    if interrupted {
        format!(
            "sweep of {}: interrupted by {} after {} of {total_points} points\n",
            sw.scenario,
            interrupt::signal_name(),
            sw.cells.len(),
        )
    } else {
        format!("sweep of {} over {} points\n", sw.scenario, sw.cells.len())
    }
}

fn sweep_output(a: &SweepArgs, sw: &Sweep, total_points: usize) -> Output {
    let count = |v: Verdict| sw.cells.iter().filter(|c| c.verdict == v).count();
    let (safe, bad, unknown) = (
        count(Verdict::Safe),
        count(Verdict::Violated),
        count(Verdict::Unknown),
    );
    let interrupted = sw.cells.len() < total_points;
    let table = if sw.prefers_compact() {
        sw.compact()
    } else {
        sw.table()
    };
    let mut text = headline(sw, total_points, interrupted) + &table;
    text.push_str(&format!(
        "{safe} safe, {bad} violated, {unknown} without a verdict (limit)\n"
    ));
    if bad > 0 {
        text.push_str(&format!(
            "traces of the violating points saved under {}{}\n",
            a.trace_dir.display(),
            if a.html.is_some() {
                ", with their charts"
            } else {
                ""
            }
        ));
    }
    for p in [&a.svg, &a.html].into_iter().flatten() {
        text.push_str(&format!("heat map written to {}\n", p.display()));
    }
    let code = if interrupted {
        interrupt::exit_code()
    } else if bad > 0 {
        EXIT_VIOLATION
    } else if unknown > 0 {
        EXIT_LIMIT
    } else {
        EXIT_OK
    };
    let mut j = serde_json::to_value(sw).expect("a sweep serialises");
    j["command"] = json!("sweep");
    j["outcome"] = json!(if interrupted {
        "interrupted"
    } else {
        "complete"
    });
    if interrupted {
        j["signal"] = json!(interrupt::signal_name());
    }
    j["points"] = json!(total_points);
    j["safe"] = json!(safe);
    j["violated"] = json!(bad);
    j["limit_reached"] = json!(unknown);
    Output {
        text,
        json: j,
        code,
    }
}
