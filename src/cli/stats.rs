//! What `check` says about the search itself: where the branching came from (by kind of
//! choice) and which reductions ran with what they saved.

use crate::oracles::RedisWorld;
use lockcheck_sim::{DeadValues, PartialOrder, Report, Stats, Symmetry, Width};
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
    let partial_order = match &report.partial_order {
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
    let symmetry = match &report.symmetry {
        Symmetry::On(groups) => format!(
            "reductions: symmetry on: {groups}: {} distinct states met, deduplicated to {} representatives (at least {:.2}x fewer)\n",
            s.symmetric_states_met,
            s.unique_states,
            s.symmetric_states_met as f64 / s.unique_states.max(1) as f64,
        ),
        other => format!("reductions: symmetry {other}\n"),
    };
    let dead_values = match &report.dead_values {
        DeadValues::On => format!(
            "reductions: dead values on: {} distinct states met, deduplicated to {} ({:.2}x fewer{})\n",
            s.live_states_met,
            s.unique_states,
            s.live_states_met as f64 / s.unique_states.max(1) as f64,
            if report.symmetry.is_on() { ", with symmetry" } else { "" },
        ),
        other => format!("reductions: dead values {other}\n"),
    };
    partial_order + &symmetry + &dead_values
}

/// The reductions as JSON.
pub fn reductions_json(report: &Report<RedisWorld>) -> Value {
    let s = &report.stats;
    let partial_order = match &report.partial_order {
        PartialOrder::On => json!({
            "status": "on",
            "reduced_states": s.reduced_states,
            "proviso_expansions": s.proviso_expansions,
            "settled_states": s.settled_states,
        }),
        PartialOrder::Off => json!({"status": "off"}),
        PartialOrder::Unavailable(why) => json!({"status": "unavailable", "reason": why}),
    };
    let symmetry = match &report.symmetry {
        Symmetry::On(groups) => json!({
            "status": "on",
            "groups": groups,
            "states_met": s.symmetric_states_met,
            "representatives": s.unique_states,
        }),
        Symmetry::Off => json!({"status": "off"}),
        Symmetry::Unavailable(why) => json!({"status": "unavailable", "reason": why}),
    };
    let dead_values = match &report.dead_values {
        DeadValues::On => json!({
            "status": "on",
            "states_met": s.live_states_met,
            "stored": s.unique_states,
        }),
        DeadValues::Off => json!({"status": "off"}),
        DeadValues::Unavailable(why) => json!({"status": "unavailable", "reason": why}),
    };
    json!({ "partial_order": partial_order, "symmetry": symmetry, "dead_values": dead_values })
}

/// How the search ran: its threads and, for a complete search, the probability that two
/// of its states shared a fingerprint.
pub fn search_text(report: &Report<RedisWorld>) -> String {
    let mut text = format!("search: {}", report.threads);
    if let (Some(p), Some(c)) = (report.collision_probability(), report.compaction) {
        text.push_str(&format!(
            ", hash compaction: {} fingerprints in {} slots of 4 bytes ({} beyond them whole), {} comparisons: probability that a state was taken for another at most {p:.1e}",
            c.stored, c.slots, c.stored_whole, c.comparisons
        ));
    } else if let Some(p) = report.collision_probability() {
        text.push_str(&format!(
            ", {}-bit fingerprints: probability that two of the {} states collide {p:.1e}{}",
            report.fingerprints.bits(),
            report.stats.unique_states,
            if p > 1e-6 {
                " (above one in a million: --fingerprint-bits 128 makes it negligible)"
            } else {
                ""
            }
        ));
    } else if report.fingerprints != Width::Bits64 {
        text.push_str(&format!(", fingerprints of {}", report.fingerprints));
    }
    text + "\n"
}

/// [`search_text`] as JSON.
pub fn search_json(report: &Report<RedisWorld>) -> Value {
    let mut j = json!({ "threads": report.threads.count() });
    match &report.threads {
        lockcheck_sim::Threads::Refused { asked, why } => {
            j["threads_asked"] = json!(asked);
            j["threads_refused"] = json!(why);
        }
        lockcheck_sim::Threads::Prepared { why, percent, .. } => {
            j["threads_deduplicating"] = json!(1);
            j["threads_deduplicating_why"] = json!(why);
            j["threads_prepared_percent"] = json!(percent);
        }
        lockcheck_sim::Threads::Tuned { percent, .. } => {
            j["threads_used_percent"] = json!(percent);
        }
        lockcheck_sim::Threads::Ran(_) => {}
    }
    j["fingerprint_bits"] = json!(report.fingerprints.bits());
    if let Width::Only64(why) = &report.fingerprints {
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
