//! The cause first: the events a violation depends on, in order, one line each, and the
//! mechanism in the protocol's own words where the model knows it. One function
//! ([`why`]) computes the list; `check`, `replay` and `shrink` print it right after their
//! verdict, and `explain` draws the same list.
//!
//! The events are the steps of the causal slice (`causal.rs`) that did something the
//! lock's story shows: a fault, a change to a lock key, a node's role, a Sentinel's master
//! or an account, a belief begun or ended, a failed renewal, a long delay chosen for a
//! message, a resumed process's overdue timer fired ahead of an earlier one (what ran first
//! after a pause), and the step where the violation fires. Steps that only carried the story on
//! (a request sent, an answer that changed nothing) are left out. A run of the same event
//! (a holder's renewals, a client's retries) folds into one line with a count, where it
//! last happens, unless the list is asked for in full.

use super::causal::{self, began_belief, ended_belief, renewal_failed_at};
use super::mechanism::mechanisms;
use crate::oracles::RedisWorld;
use lockcheck_sim::world::WorldAction;
use lockcheck_sim::{Model, Path};
use serde_json::{json, Value};

/// One event the violation depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhyEvent {
    /// Its index in the run.
    pub step: usize,
    /// True time after it, in ms.
    pub at_ms: u64,
    pub label: String,
    pub fault: bool,
    /// Where the violation fires or a belief begins: never folded with another event.
    pub root: bool,
}

/// The events a violation depends on and its mechanism.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Why {
    /// In the order of the run.
    pub events: Vec<WhyEvent>,
    /// The mechanism, one sentence each, where the model knows it.
    pub mechanisms: Vec<String>,
}

/// Why the violation after `upto` steps of `path` happened.
pub fn why(world: &RedisWorld, path: &Path<RedisWorld>, upto: usize) -> Why {
    let upto = upto.min(path.steps.len());
    let slice = causal::slice(world, path, upto);
    let shown = |k: usize| {
        let step = &path.steps[k];
        slice.roots.contains(&k)
            || world.is_fault(&step.action)
            || matches!(step.action, WorldAction::Route { .. })
            || world.overtaken(&path.states[k], &step.action).is_some()
            || !slice.links[k].changed.is_empty()
            || began_belief(world, path, k)
            || ended_belief(world, path, k)
            || renewal_failed_at(world, path, k)
    };
    let events = slice
        .steps
        .iter()
        .copied()
        .filter(|&k| shown(k))
        .map(|k| WhyEvent {
            step: k,
            at_ms: path.states[k + 1].now_ms,
            label: path.steps[k].label.clone(),
            fault: world.is_fault(&path.steps[k].action),
            root: slice.roots.contains(&k) || began_belief(world, path, k),
        })
        .collect();
    Why {
        events,
        mechanisms: mechanisms(world, path, &slice),
    }
}

impl Why {
    /// The list, one line per event, then the mechanism. Unless `full`, an event that
    /// happens several times (a holder's renewals, a client's retries) is one line where it
    /// last happens, with its count and first time.
    pub fn lines(&self, full: bool) -> Vec<String> {
        let mut out = Vec::new();
        for (i, e) in self.events.iter().enumerate() {
            let like = |x: &&WhyEvent| !x.root && !e.root && x.label == e.label;
            let same: Vec<&WhyEvent> = self.events.iter().filter(like).collect();
            let later = self.events[i + 1..].iter().any(|x| like(&x));
            if !full && later {
                continue;
            }
            let mark = if e.fault { "FAULT " } else { "" };
            let mut line = format!("t={:>8} ms  {mark}{}", e.at_ms, e.label);
            if !full && same.len() > 1 {
                line.push_str(&format!(
                    " ({} times from t={} ms; --full lists each)",
                    same.len(),
                    same[0].at_ms
                ));
            }
            out.push(line);
        }
        out.extend(self.mechanisms.iter().map(|m| format!("mechanism: {m}")));
        out
    }

    /// The block printed after a verdict: a heading and the lines, indented.
    pub fn text(&self, full: bool) -> String {
        if self.events.is_empty() {
            return String::new();
        }
        let mut s = String::from("why (the events the violation depends on, in order):\n");
        for line in self.lines(full) {
            s.push_str("  ");
            s.push_str(&line);
            s.push('\n');
        }
        s
    }

    /// The list and the mechanism as JSON.
    pub fn json(&self) -> Value {
        json!({
            "events": self.events.iter().map(|e| json!({"step": e.step, "at_ms": e.at_ms, "label": e.label, "fault": e.fault, "root": e.root})).collect::<Vec<_>>(),
            "mechanisms": self.mechanisms,
        })
    }
}
