//! What `check` says about the search itself: where the branching came from (by kind of
//! choice) and which reductions ran with what they saved.

use lockcheck::oracles::RedisWorld;
use lockcheck_sim::{
    DeadValues, Engine, PartialOrder, Plan, Report, Stats, Symmetry, Table, Width,
};
use serde_json::{json, Value};

/// The branching table (`check --stats`).
pub fn branching_text(stats: &Stats) -> String {
    let mut text = String::from(
        "branching (expanded states with two or more enabled actions, by kind of choice):\n",
    );
    text.push_str(&format!(
        "  {:<32} {:>14} {:>14} {:>14}\n",
        "kind", "choice points", "offered", "expanded"
    ));
    for (kind, c) in stats.branching.nonzero() {
        text.push_str(&format!(
            "  {:<32} {:>14} {:>14} {:>14}\n",
            kind.to_string(),
            c.choice_points,
            c.offered,
            c.expanded
        ));
    }
    text
}

/// The branching table as JSON: one object per kind of choice.
pub fn branching_json(stats: &Stats) -> Value {
    let mut j = json!({});
    for (kind, c) in stats.branching.nonzero() {
        j[kind.key()] = json!({
            "choice_points": c.choice_points,
            "offered": c.offered,
            "expanded": c.expanded,
        });
    }
    j
}

/// One line: which reductions ran and what they saved.
pub fn reductions_text(report: &Report<RedisWorld>) -> String {
    let s = &report.stats;
    let partial_order = match &report.plan.partial_order {
        PartialOrder::On => {
            let offered: u64 = s.branching.nonzero().map(|(_, c)| c.offered).sum();
            let expanded: u64 = s.branching.nonzero().map(|(_, c)| c.expanded).sum();
            format!(
                "reductions: partial order on: {} states reduced ({} expanded fully by the cycle proviso), {} of {} branching actions expanded ({:.2}x fewer), {} transient states settled at once\n",
                s.reduced_states,
                s.proviso_expansions,
                expanded,
                offered,
                offered as f64 / expanded.max(1) as f64,
                s.settled_states,
            )
        }
        other => format!("reductions: partial order {other}\n"),
    };
    let symmetry = match &report.plan.symmetry {
        Symmetry::On(groups) => format!(
            "reductions: symmetry on: {groups}: {} distinct states met, deduplicated to {} representatives (at least {:.2}x fewer)\n",
            s.symmetric_states_met,
            s.unique_states,
            s.symmetric_states_met as f64 / s.unique_states.max(1) as f64,
        ),
        other => format!("reductions: symmetry {other}\n"),
    };
    let dead_values = match &report.plan.dead_values {
        DeadValues::On => format!(
            "reductions: dead values on: {} distinct states met, deduplicated to {} ({:.2}x fewer{})\n",
            s.dead_values_states_met,
            s.unique_states,
            s.dead_values_states_met as f64 / s.unique_states.max(1) as f64,
            if report.plan.symmetry.is_on() { ", with symmetry" } else { "" },
        ),
        other => format!("reductions: dead values {other}\n"),
    };
    partial_order + &symmetry + &dead_values
}

/// The plan the search ran, decided before it started: one line a decision.
pub fn plan_text(plan: &Plan) -> String {
    let lines = plan.to_string();
    let lines: Vec<String> = lines.lines().map(|l| format!("  {l}\n")).collect();
    format!("plan:\n{}", lines.concat())
}

/// [`plan_text`] as JSON.
pub fn plan_json(plan: &Plan) -> Value {
    let engine = &plan.engine;
    let mut j = json!({
        "engine": engine.name(),
        "engine_text": engine.to_string(),
        "threads": engine.threads(),
        "partial_order": partial_order_json(&plan.partial_order),
        "symmetry": symmetry_json(&plan.symmetry),
        "dead_values": dead_values_json(&plan.dead_values),
        "fingerprint_bits": plan.width.bits(),
    });
    if let Width::Only64(why) = &plan.width {
        j["fingerprint_bits_refused"] = json!(why);
    }
    j["visited_set"] = match plan.table {
        Table::Exact => json!({"kind": "exact"}),
        Table::Compact { planned_states } => {
            json!({"kind": "compact", "planned_states": planned_states})
        }
    };
    j
}

/// Whether partial-order reduction ran, or why not, as JSON.
fn partial_order_json(decision: &PartialOrder) -> Value {
    match decision {
        PartialOrder::On => json!({"status": "on"}),
        PartialOrder::Off => json!({"status": "off"}),
        PartialOrder::Unavailable(why) => json!({"status": "unavailable", "reason": why}),
    }
}

/// Whether symmetry reduction ran (over which groups), or why not, as JSON.
fn symmetry_json(decision: &Symmetry) -> Value {
    match decision {
        Symmetry::On(groups) => json!({"status": "on", "groups": groups}),
        Symmetry::Off => json!({"status": "off"}),
        Symmetry::Unavailable(why) => json!({"status": "unavailable", "reason": why}),
    }
}

/// Whether the dead-values reduction ran, or why not, as JSON.
fn dead_values_json(decision: &DeadValues) -> Value {
    match decision {
        DeadValues::On => json!({"status": "on"}),
        DeadValues::Off => json!({"status": "off"}),
        DeadValues::Unavailable(why) => json!({"status": "unavailable", "reason": why}),
    }
}

/// The reductions as JSON: each decision with what it saved.
pub fn reductions_json(report: &Report<RedisWorld>) -> Value {
    let (s, plan) = (&report.stats, &report.plan);
    let mut partial_order = partial_order_json(&plan.partial_order);
    if plan.partial_order.is_on() {
        partial_order["reduced_states"] = json!(s.reduced_states);
        partial_order["proviso_expansions"] = json!(s.proviso_expansions);
        partial_order["settled_states"] = json!(s.settled_states);
    }
    let mut symmetry = symmetry_json(&plan.symmetry);
    if plan.symmetry.is_on() {
        symmetry["states_met"] = json!(s.symmetric_states_met);
        symmetry["representatives"] = json!(s.unique_states);
    }
    let mut dead_values = dead_values_json(&plan.dead_values);
    if plan.dead_values.is_on() {
        dead_values["states_met"] = json!(s.dead_values_states_met);
        dead_values["stored"] = json!(s.unique_states);
    }
    json!({ "partial_order": partial_order, "symmetry": symmetry, "dead_values": dead_values })
}

/// How the search ran: its threads and, for a complete search, the probability that two
/// of its states shared a fingerprint.
pub fn search_text(report: &Report<RedisWorld>) -> String {
    let mut text = format!("search: {}", report.ran());
    if let (Some(p), Some(c)) = (report.collision_probability(), report.compaction) {
        text.push_str(&format!(
            ", hash compaction: {} fingerprints in {} slots of 4 bytes ({} beyond them whole), {} comparisons: probability that a state was taken for another at most {p:.1e}",
            c.stored, c.slots, c.stored_whole, c.comparisons
        ));
    } else if let Some(p) = report.collision_probability() {
        text.push_str(&format!(
            ", {}-bit fingerprints: probability that two of the {} states collide {p:.1e}{}",
            report.plan.width.bits(),
            report.stats.unique_states,
            if p > 1e-6 {
                " (above one in a million: --fingerprint-bits 128 makes it negligible)"
            } else {
                ""
            }
        ));
    } else if report.plan.width != Width::Bits64 {
        text.push_str(&format!(", fingerprints of {}", report.plan.width));
    }
    text + "\n"
}

/// [`search_text`] as JSON.
pub fn search_json(report: &Report<RedisWorld>) -> Value {
    let engine = &report.plan.engine;
    let mut j = json!({ "threads": engine.threads() });
    match engine {
        Engine::OneThread {
            refused: Some((asked, why)),
        } => {
            j["threads_asked"] = json!(asked);
            j["threads_refused"] = json!(why);
        }
        Engine::Lookahead { why, .. } => {
            j["threads_deduplicating"] = json!(1);
            j["threads_deduplicating_why"] = json!(why);
            j["threads_prepared_percent"] = json!(report.threads_used_percent);
        }
        Engine::Batches { tuned: true, .. } => {
            j["threads_used_percent"] = json!(report.threads_used_percent);
        }
        _ => {}
    }
    j["fingerprint_bits"] = json!(report.plan.width.bits());
    if let Width::Only64(why) = &report.plan.width {
        j["fingerprint_bits_refused"] = json!(why);
    }
    if let Some(p) = report.collision_probability() {
        j["collision_probability"] = json!(p);
    }
    if let Some(c) = report.compaction {
        j["hash_compaction"] = json!({
            "planned_states": c.planned_states,
            "slots": c.slots,
            "stored": c.stored,
            "stored_whole": c.stored_whole,
            "comparisons": c.comparisons,
            "match_bits": c.match_bits,
        });
    }
    j
}
