//! `check`: one search of a scenario, its outcome, statistics and verdict; a violation is
//! saved as a trace with the command that replays it. When the scenario states an `[expect]`,
//! the verdict is compared with it (`matches expectation` or `DIFFERS from expectation`;
//! the exit code does not change); a scenario changed with `--set` is another scenario, and
//! the original's expectation is said not to apply unless a set states one.
//!
//! A search that ends without a verdict says why: the limit reached (the memory limit with
//! its size, and whether it was the default), or the signal that interrupted it; either way
//! the statistics so far are printed, and the exit code is the limit's (3) or the signal's
//! (130, 143).

use super::rerun::rerun_command;
use super::search::{self, outcome_text, per_second, run_check, stats_json};
use super::set::{apply_sets, expectation_dropped};
use super::stats;
use super::trace_paths::default_trace_path;
use super::words::{faults_in, meaning_of, plural};
use super::{CheckArgs, CliError, Limits, Output};
use super::{EXIT_IO, EXIT_LIMIT, EXIT_OK, EXIT_VIOLATION};
use lockcheck::check::outcome_word;
use lockcheck::check::{Checked, Mode};
use lockcheck::coverage;
use lockcheck::expectation::{limit_hint, VerdictComparison};
use lockcheck::interrupt;
use lockcheck::oracles::RedisWorld;
use lockcheck::report::{seconds, timeline, why};
use lockcheck::saved::{save_violation, SavedViolation};
use lockcheck::scenario::file::load_scenario;
use lockcheck::scenario::Scenario;
use lockcheck::InputError;
use lockcheck_sim::{Limit, Outcome, Trace};
use serde_json::{json, Value};
use std::path::Path;

pub(super) fn cmd_check(a: &CheckArgs, json_out: bool) -> Result<Output, CliError> {
    let Some(loaded) = load(a) else {
        return Ok(interrupted_while_loading(&a.scenario));
    };
    let (scenario, dropped) = loaded?;
    if let (Some(shards), Some(shard)) = (a.shards, a.shard) {
        return super::shard_check::cmd_check_shard(a, &scenario, shards, shard, json_out);
    }
    let mode = if a.random {
        Mode::Random {
            first: a.first_seed,
            count: a.seeds.unwrap_or(scenario.explore.random_seeds),
        }
    } else {
        Mode::Exhaustive
    };
    let checked = run_check(&scenario, mode, &a.limits, json_out, a.all_oracles)?;
    let (mut text, mut j) = summary(a, &scenario, mode, &checked);
    inert_warnings(&scenario, &mut text, &mut j);
    let expectation = Expectation::of(&checked, &scenario, dropped);
    j["expectation"] = expectation.json();
    let violations = checked.violations();
    if violations.is_empty() {
        return Ok(safe_output(a, &scenario, &checked, &expectation, text, j));
    }
    let mut each = Vec::new();
    for (i, &violation) in violations.iter().enumerate() {
        let (more, more_json) = violation_output(a, &scenario, &checked, violation);
        match more.strip_prefix("verdict: ") {
            Some(rest) if i > 0 => text.push_str(&format!("\nand {rest}")),
            _ => text.push_str(&more),
        }
        each.push(more_json);
    }
    for (k, v) in each[0].as_object().into_iter().flatten() {
        j[k] = v.clone();
    }
    if a.all_oracles {
        j["violations"] = json!(each);
    }
    text.extend(expectation.line());
    // The verdict stands; a trace that could not be saved makes it an I/O failure.
    let unsaved = each.iter().any(|v| v.get("trace_error").is_some());
    Ok(Output {
        text,
        json: j,
        code: if unsaved { EXIT_IO } else { EXIT_VIOLATION },
    })
}

/// The scenario with the `--set`s applied, and whether they set its expectation aside;
/// none when an interrupt came first.
fn load(a: &CheckArgs) -> Option<Result<(Scenario, bool), InputError>> {
    let (arg, sets) = (a.scenario.clone(), a.sets.clone());
    interrupt::unless_interrupted(move || {
        let base = load_scenario(&arg)?;
        let dropped = expectation_dropped(&base, &sets);
        Ok((apply_sets(base, &sets)?, dropped))
    })
}

/// The settings of `scenario` that can only hold or go unwitnessed
/// ([`Scenario::inert_warnings`]), a warning line each and `scenario_warnings` in JSON.
fn inert_warnings(scenario: &Scenario, text: &mut String, j: &mut Value) {
    let inert = scenario.inert_warnings();
    for (field, message) in &inert {
        text.push_str(&format!("warning: {field}: {message}\n"));
    }
    let each = inert
        .iter()
        .map(|(field, message)| json!({"field": field, "message": message}));
    j["scenario_warnings"] = json!(each.collect::<Vec<_>>());
}

/// A check interrupted before its scenario was loaded: no search, no statistics.
fn interrupted_while_loading(scenario: &str) -> Output {
    let signal = interrupt::signal_name();
    Output {
        text: format!(
            "outcome: interrupted by {signal} while loading {scenario}\nverdict: NO VERDICT: interrupted by {signal} before the search began\n"
        ),
        json: json!({"command": "check", "scenario_argument": scenario, "outcome": "interrupted",
            "verdict": "interrupted", "signal": signal}),
        code: interrupt::exit_code(),
    }
}

/// What every check prints: the scenario, mode, outcome, statistics, oracles and
/// reductions, in text and JSON.
fn summary(a: &CheckArgs, scenario: &Scenario, mode: Mode, checked: &Checked) -> (String, Value) {
    let report = &checked.report;
    let s = &report.stats;
    let wall = s.wall_ms.unwrap_or(0);
    let mut text = format!(
        "scenario: {}\n  {}\nmode: {}\noutcome: {}\nstatistics: {} states, {} unique, depth {}, {} states/s, virtual time covered {}, wall time {}, peak memory {:.1} MB{}\noracles:\n",
        scenario.name,
        scenario.description,
        match mode {
            Mode::Exhaustive => "exhaustive (breadth-first: a counterexample is a shortest one)".to_string(),
            Mode::Random { first, count } => format!("random walks, seeds {first}..{}", first + count),
        },
        outcome_text(&report.outcome, &a.limits),
        s.expanded_states,
        s.unique_states,
        s.max_depth,
        per_second(s.unique_states, wall),
        seconds(s.max_virtual_time_ms),
        seconds(wall),
        s.peak_memory_bytes as f64 / 1e6,
        if s.runs > 1 { format!(", {} runs", s.runs) } else { String::new() },
    );
    let mut props = Vec::new();
    for p in &report.properties {
        text.push_str(&format!("  {} {}: {}\n", p.kind, p.name, p.status.word()));
        props.push(json!({"name": p.name, "kind": p.kind.to_string(), "status": p.status.word().to_lowercase()}));
    }
    let rules = checked.fault_coverage().unwrap_or_default();
    text.push_str(&coverage::text(&rules));
    let mut j = json!({
        "command": "check",
        "scenario": scenario.name,
        "mode": if a.random { "random" } else { "exhaustive" },
        "outcome": outcome_word(&report.outcome),
        "statistics": stats_json(report),
        "reductions": stats::reductions_json(report),
        "oracles": props,
        "fault_coverage": coverage::json(&rules),
        "unused_fault_rules": checked.unused_fault_rules(),
    });
    if a.stats {
        j["branching"] = stats::branching_json(&report.stats);
        text.push_str(&stats::branching_text(&report.stats));
    }
    text.push_str(&stats::plan_text(&report.plan));
    j["plan"] = stats::plan_json(&report.plan);
    text.push_str(&stats::reductions_text(report));
    text.push_str(&stats::search_text(report));
    j["search"] = stats::search_json(report);
    if let Outcome::LimitReached(l) = report.outcome {
        j["limit"] = json!(l.to_string());
    }
    if let (Some(bytes), default) = search::memory_limit(&a.limits) {
        j["memory_limit_bytes"] = json!(bytes);
        j["memory_limit_is_default"] = json!(default);
    }
    if report.outcome == Outcome::Interrupted {
        j["signal"] = json!(interrupt::signal_name());
    }
    (text, j)
}

/// A check without a violation: the verdict, the hint of a search cut short, a hollow
/// green's warning, the expectation, and the witnesses if asked to save them.
fn safe_output(
    a: &CheckArgs,
    scenario: &Scenario,
    checked: &Checked,
    expectation: &Expectation,
    mut text: String,
    mut j: Value,
) -> Output {
    let hollow = checked.report.hollow();
    let (line, verdict, code) = no_violation_verdict(checked, &a.limits);
    text.push_str(&line);
    if !a.random {
        text.extend(limit_hint(&checked.report));
    }
    if !hollow.is_empty() {
        text.push_str(&format!(
            "warning: never witnessed: {} (the fault this scenario is about never mattered; the green verdict is hollow)\n",
            hollow.join(", ")
        ));
    }
    text.extend(coverage::warning(&checked.unused_fault_rules()));
    text.extend(expectation.line());
    j["verdict"] = json!(verdict);
    j["never_witnessed"] = json!(hollow);
    let mut code = code;
    if a.save_witnesses {
        let (lines, saved) = super::witness_traces::save_witnesses(&a.trace_dir, scenario, checked);
        text.push_str(&lines);
        if saved
            .as_array()
            .into_iter()
            .flatten()
            .any(|w| w.get("trace_error").is_some())
        {
            code = EXIT_IO;
        }
        j["witness_traces"] = saved;
    }
    Output {
        text,
        json: j,
        code,
    }
}

/// A violation: its counterexample's timeline, the trace saved with the command that replays
/// it, and for a random walk the command that reruns exactly that walk.
fn violation_output(
    a: &CheckArgs,
    scenario: &Scenario,
    checked: &Checked,
    (oracle, path): (&str, &lockcheck_sim::Path<RedisWorld>),
) -> (String, Value) {
    let entries = timeline::entries(&checked.world, path);
    let trace = Trace::from_path(&checked.world, path, Some(oracle));
    let own_name = a.all_oracles.then_some(oracle);
    let file = a
        .output
        .clone()
        .unwrap_or_else(|| default_trace_path(&a.trace_dir, scenario, own_name));
    let saved = save_trace(scenario, trace, &file);
    let seed_line = path.seed.map_or(String::new(), |seed| {
        format!(", random walk of seed {seed}")
    });
    let why = why::why(&checked.world, path, path.steps.len());
    let mut text = format!(
        "verdict: VIOLATION of {oracle}{}\n{}\ncounterexample ({}, {}{seed_line}):\n{}\n{}",
        meaning_of(scenario, oracle),
        why.text(a.full),
        plural(path.steps.len(), "step"),
        plural(faults_in(&checked.world, path), "fault"),
        timeline::text(&entries, Some(oracle)),
        match &saved {
            Ok(saved) => saved.note(),
            Err(e) => format!("trace not saved: {e}\n"),
        },
    );
    let mut j = json!({
        "verdict": "violated",
        "oracle": oracle,
        "steps": path.steps.len(),
        "timeline": entries,
        "why": why.json(),
    });
    match saved {
        Ok(saved) => {
            j["trace_file"] = json!(file.display().to_string());
            j["replay_command"] = json!(saved.replay_command);
        }
        Err(e) => j["trace_error"] = json!({"file": e.error.file, "message": e.error.message}),
    }
    if let Some(seed) = path.seed {
        let rerun = rerun_command(&a.scenario, &a.sets, a.all_oracles, seed);
        text.push_str(&format!("rerun exactly this walk: {rerun}\n"));
        j["seed"] = json!(seed);
        j["rerun_command"] = json!(rerun);
    }
    (text, j)
}

/// Saves a violation's trace at `file`, creating its folder.
fn save_trace(scenario: &Scenario, trace: Trace, file: &Path) -> Result<SavedViolation, CliError> {
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        lockcheck::atomic_write::create_dirs(parent).map_err(|e| CliError::write(parent, &e))?;
    }
    save_violation(scenario, trace, file).map_err(|e| CliError::write(file, &e))
}

/// The verdict line, verdict word and exit code of a check that found no violation.
fn no_violation_verdict(checked: &Checked, limits: &Limits) -> (String, &'static str, u8) {
    let report = &checked.report;
    let why = match report.outcome {
        Outcome::LimitReached(Limit::Memory) => search::memory_limit_text(limits),
        Outcome::LimitReached(l) => l.to_string(),
        Outcome::Interrupted => {
            let line = format!(
                "verdict: NO VERDICT: interrupted by {} before the search was done (no violation among the states explored)\n",
                interrupt::signal_name()
            );
            return (line, "interrupted", interrupt::exit_code());
        }
        _ if report.is_exhaustive() => {
            let line = "verdict: no violation found (every state within the bounds explored)\n";
            return (line.into(), "no_violation", EXIT_OK);
        }
        _ => {
            let line = "verdict: no violation found by the random walks\n";
            return (line.into(), "no_violation", EXIT_OK);
        }
    };
    let line = format!(
        "verdict: NO VERDICT: the {why} was reached before the search was done (no violation among the states explored)\n"
    );
    (line, "limit_reached", EXIT_LIMIT)
}

/// The scenario's expectation compared with the verdict, or, for a scenario `--set`
/// changed, the original's expectation set aside: it was stated for another scenario.
enum Expectation {
    Compared(VerdictComparison),
    NotApplicable,
}

impl Expectation {
    fn of(checked: &Checked, scenario: &Scenario, dropped: bool) -> Expectation {
        if dropped {
            Expectation::NotApplicable
        } else {
            Expectation::Compared(VerdictComparison::of(checked, &scenario.expect))
        }
    }

    fn line(&self) -> Option<String> {
        match self {
            Expectation::Compared(c) => c.line(),
            Expectation::NotApplicable => Some(format!("expectation: {NOT_APPLICABLE}\n")),
        }
    }

    fn json(&self) -> Value {
        match self {
            Expectation::Compared(c) => c.json(),
            Expectation::NotApplicable => {
                json!({"status": "not_applicable", "reason": "the scenario was changed with --set"})
            }
        }
    }
}

const NOT_APPLICABLE: &str = "not applicable, the scenario was changed with --set";
