//! `sweep`: one scenario checked at every point of a grid of parameter values, as a table
//! and a heat map (SVG or HTML), followed by the field each parameter varies and the faults
//! of the violating runs. An interrupt stops the grid at the point it reaches and the
//! points done are reported. The search limits apply to each point; `--total-time-limit`
//! bounds the whole grid (each point gets at most the time left, and the points after it is
//! spent have no verdict).

use super::grid::{point_checked, with_values, Found};
use super::search::Limits;
use super::set::apply_sets;
use super::sweep_traces::{link, save_point};
use super::{vary, CliError, Output, SweepArgs};
use super::{EXIT_IO, EXIT_LIMIT, EXIT_OK, EXIT_VIOLATION};
use lockcheck::atomic_write::write_whole;
use lockcheck::check::Mode;
use lockcheck::interrupt;
use lockcheck::report::fired::{fired, in_words};
use lockcheck::report::heatmap::{Cell, Sweep, Verdict};
use lockcheck::scenario::file::load_scenario;
use lockcheck::scenario::Scenario;
use lockcheck::wall_clock::SystemWallClock;
use lockcheck::InputError;
use lockcheck_sim::WallClock;
use serde_json::json;
use std::io::IsTerminal;
use std::path::Path;

/// Writes a heat map; a failure is noted in `failed`, and the sweep still reports.
fn write_file(path: &Path, text: &str, failed: &mut Vec<CliError>) {
    if let Err(e) = write_whole(path, text) {
        failed.push(CliError::write(path, &e));
    }
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
    let targets = (a.vary.iter())
        .map(|v| vary::target(&base, &v.name))
        .collect::<Result<Vec<_>, _>>()?;
    let points = vary::grid(&a.vary)?;
    let clock = SystemWallClock::start();
    let scenarios = build_points(a, &base, &points, &clock)?;
    let mut failed = Vec::new();
    let cells = check_grid(
        a,
        (&points, &scenarios),
        mode,
        json_out,
        (&clock, &mut failed),
    )?;
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
        write_file(p, &sw.svg(), &mut failed);
    }
    if let Some(p) = &a.html {
        write_file(p, &sw.html(), &mut failed);
    }
    let mut out = sweep_output(a, &sw, points.len());
    with_fields(&mut out, a, &targets, &sw);
    if !failed.is_empty() {
        // The verdicts stand; what could not be written makes it an I/O failure.
        for e in &failed {
            out.text.push_str(&format!("not written: {e}\n"));
        }
        let errors: Vec<_> = (failed.iter())
            .map(|e| json!({"file": e.error.file, "message": e.error.message}))
            .collect();
        out.json["write_errors"] = json!(errors);
        if !interrupt::requested() {
            out.code = EXIT_IO;
        }
    }
    Ok(out)
}

/// Every point's scenario, built before any is checked (so that a point that does not
/// build is refused first); as many as were built when an interrupt came or the total time
/// limit was spent.
fn build_points(
    a: &SweepArgs,
    base: &Scenario,
    points: &[Vec<u64>],
    clock: &SystemWallClock,
) -> Result<Vec<Scenario>, InputError> {
    let mut scenarios = Vec::with_capacity(points.len());
    for p in points {
        if interrupt::requested() || point_limits(a, clock.elapsed_ms()).is_none() {
            break;
        }
        scenarios.push(with_values(base, &a.vary, p)?);
    }
    Ok(scenarios)
}

/// Checks every point in order until the last or an interrupt; saves the trace of every
/// violating point (and its chart, linked from the heat map, with `--html`). A point
/// without a scenario (`build_points` stopped) is unchecked, or ends the grid after an
/// interrupt.
fn check_grid(
    a: &SweepArgs,
    (points, scenarios): (&[Vec<u64>], &[Scenario]),
    mode: Mode,
    json_out: bool,
    (clock, failed): (&SystemWallClock, &mut Vec<CliError>),
) -> Result<Vec<Cell>, CliError> {
    let bar = (!json_out && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(points.len() as u64);
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar
    });
    let mut cells = Vec::new();
    for (i, values) in points.iter().enumerate() {
        let limits = point_limits(a, clock.elapsed_ms());
        let (Some(limits), Some(s)) = (limits, scenarios.get(i)) else {
            if interrupt::requested() {
                break;
            }
            cells.push(unchecked(values));
            continue;
        };
        let (found, checked) = point_checked(s, mode, &limits)?;
        let Found::Verdict(verdict, oracle, states) = found else {
            break;
        };
        let faults = (checked.report.first_violation())
            .map_or(Vec::new(), |(_, path)| fired(s, &checked.world, path));
        let saved = save_point(
            &a.trace_dir,
            (s, &a.vary, values),
            &checked,
            a.html.is_some(),
        )
        .unwrap_or_else(|e| {
            failed.push(e);
            None
        });
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
            faults,
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

/// The limits of the next point, `elapsed_ms` into the sweep: the per-point limits, the
/// time limit at most what is left of `--total-time-limit`; `None` once it is spent.
fn point_limits(a: &SweepArgs, elapsed_ms: u64) -> Option<Limits> {
    let mut limits = a.limits.clone();
    if let Some(total_ms) = a.total_time_limit {
        let left_ms = total_ms.checked_sub(elapsed_ms).filter(|&ms| ms > 0)?;
        limits.time_limit = Some(limits.time_limit.map_or(left_ms, |ms| ms.min(left_ms)));
    }
    Some(limits)
}

/// A point the total time limit left unchecked: no verdict.
fn unchecked(values: &[u64]) -> Cell {
    Cell {
        values_ms: values.to_vec(),
        verdict: Verdict::Unknown,
        oracle: None,
        states: 0,
        trace: None,
        chart: None,
        faults: Vec::new(),
    }
}

/// The most violating points whose faults the text lists (`--json` has every one).
const FAULT_LINES: usize = 10;

/// `out` followed by the field each parameter varies (every other left as set) and the
/// faults of the violating points' runs beside their values.
fn with_fields(out: &mut Output, a: &SweepArgs, targets: &[vary::Target], sw: &Sweep) {
    let mut varied = Vec::new();
    for (v, t) in a.vary.iter().zip(targets) {
        let named = if v.name == t.path {
            String::new()
        } else {
            format!("{} = ", v.name)
        };
        (out.text).push_str(&format!("varied: {named}{} ({})\n", t.path, t.what));
        varied.push(json!({"parameter": v.name, "path": t.path, "meaning": t.what}));
    }
    out.text.push_str("every other rule and field as set\n");
    out.json["varied"] = json!(varied);
    let broken: Vec<&Cell> = (sw.cells.iter())
        .filter(|c| c.verdict == Verdict::Violated)
        .collect();
    if !broken.is_empty() {
        out.text.push_str("faults of the violating runs:\n");
    }
    for c in broken.iter().take(FAULT_LINES) {
        let at: Vec<String> = (a.vary.iter().zip(&c.values_ms))
            .map(|(v, x)| format!("{} = {}", v.name, super::human(*x)))
            .collect();
        let line = format!("  {}: {}\n", at.join(", "), in_words(&c.faults));
        out.text.push_str(&line);
    }
    if broken.len() > FAULT_LINES {
        let more = broken.len() - FAULT_LINES;
        out.text
            .push_str(&format!("  and {more} more (`--json` lists them all)\n"));
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
