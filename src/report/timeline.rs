//! A run as a timeline people can read: one line per step (time advances folded away),
//! faults marked, and notes when a client starts or stops believing it holds a lock, when
//! two clients hold the same lock, and where the oracle fires.

use crate::oracles::{self, RedisState, RedisWorld};
use lockcheck_sim::{Model, Path};
use serde::Serialize;
use std::fmt::Write;

/// One step of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TimelineEntry {
    /// True time after the step, in ms.
    pub at_ms: u64,
    pub label: String,
    pub fault: bool,
    /// What changed that matters for the lock: `client-2 holds order_lock`.
    pub notes: Vec<String>,
}

/// Lock names each client believes it holds in `state`, by client.
fn beliefs(world: &RedisWorld, state: &RedisState) -> Vec<(String, Vec<String>)> {
    oracles::clients(world)
        .map(|(p, c)| {
            let keys = oracles::believed_keys(world, state, p, c)
                .into_iter()
                .map(|k| String::from_utf8_lossy(k).into_owned())
                .collect();
            (world.process_name(p).to_string(), keys)
        })
        .collect()
}

/// Every step of `path`, with notes.
pub fn entries(world: &RedisWorld, path: &Path<RedisWorld>) -> Vec<TimelineEntry> {
    let mut out = Vec::new();
    let mut before = beliefs(world, &path.states[0]);
    let mut overlap = oracles::two_holders(world, &path.states[0]);
    for (step, state) in path.steps.iter().zip(&path.states[1..]) {
        let after = beliefs(world, state);
        let mut notes = Vec::new();
        for ((name, old), (_, new)) in before.iter().zip(&after) {
            for k in new.iter().filter(|k| !old.contains(k)) {
                notes.push(format!("{name} believes it holds {k}"));
            }
            for k in old.iter().filter(|k| !new.contains(k)) {
                notes.push(format!("{name} no longer believes it holds {k}"));
            }
        }
        let now_overlap = oracles::two_holders(world, state);
        if now_overlap && !overlap {
            notes.push(
                "MUTUAL EXCLUSION BROKEN: two clients believe they hold the same lock".into(),
            );
        } else if overlap && !now_overlap {
            notes.push("the overlap ends".into());
        }
        overlap = now_overlap;
        before = after;
        out.push(TimelineEntry {
            at_ms: state.now_ms,
            label: step.label.clone(),
            fault: world.is_fault(&step.action),
            notes,
        });
    }
    out
}

/// The timeline as text; `advance to` steps are left out (the time column shows them).
pub fn text(entries: &[TimelineEntry], violated: Option<&str>) -> String {
    let mut s = String::new();
    for e in entries {
        if e.label.starts_with("advance") && e.notes.is_empty() {
            continue;
        }
        let mark = if e.fault { "FAULT " } else { "" };
        if !e.label.starts_with("advance") {
            let _ = writeln!(s, "  t={:>8} ms  {mark}{}", e.at_ms, e.label);
        }
        for n in &e.notes {
            let _ = writeln!(s, "  {:>13}    -> {n}", "");
        }
    }
    if let (Some(oracle), Some(last)) = (violated, entries.last()) {
        let _ = writeln!(s, "  t={:>8} ms  ** {oracle} violated here **", last.at_ms);
    }
    s
}
