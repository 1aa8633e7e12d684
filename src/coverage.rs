//! Fault coverage of a check, by the scenario's own field paths: for each rule of the fault
//! envelope (`faults.pauses[0]`, `faults.clock_steps[1]`, `faults.max_losses`, ...), whether
//! any explored run used it and at how many distinct instants of virtual time.
//!
//! The idea: a safe verdict is a statement about the faults the search took. A rule no run
//! used (a clock step placed after the horizon, a pause of a process that never runs, losses
//! on links that are not lossy) leaves the verdict silent about it, so `check` warns, as it
//! warns of a `sometimes` oracle never witnessed. The kernel keeps the coverage
//! (`lockcheck_sim::FaultCoverage`) when the search is asked to; the envelope's rules are
//! built from the scenario's `faults` lists in order, so each kernel rule is one field.

use crate::check::Checked;
use serde_json::{json, Value};

/// One rule of the envelope: its field, and when the explored runs used it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleUse {
    /// The rule's field in the scenario, e.g. `faults.clock_steps[0]`.
    pub rule: String,
    /// At how many distinct instants of virtual time a run used it (0: never).
    pub instants: u64,
    /// The earliest of them, in ms.
    pub first_ms: Option<u64>,
}

impl RuleUse {
    /// Whether any explored run used it.
    pub fn used(&self) -> bool {
        self.instants > 0
    }
}

/// The scenario field of a kernel rule (`pauses[0]` is `faults.pauses[0]`, the actors' own
/// faults are the disk stalls, the losses their budget).
pub(crate) fn field_of(kernel_rule: &str) -> String {
    match kernel_rule {
        "losses" => "faults.max_losses".into(),
        rule => match rule.strip_prefix("actor_faults") {
            Some(index) => format!("faults.disk_stalls{index}"),
            None => format!("faults.{rule}"),
        },
    }
}

impl Checked {
    /// Each fault rule's coverage, in the scenario's order; `None` when the search did not
    /// keep coverage (`lockcheck_sim::Options::fault_coverage`).
    pub fn fault_coverage(&self) -> Option<Vec<RuleUse>> {
        let coverage = self.report.fault_coverage.as_ref()?;
        let rules = coverage.rules().into_iter().map(|r| RuleUse {
            rule: field_of(&r.rule),
            instants: r.instants,
            first_ms: r.first_ms,
        });
        Some(rules.collect())
    }

    /// The fault rules no explored run used (empty when coverage was not kept).
    pub fn unused_fault_rules(&self) -> Vec<String> {
        let rules = self.fault_coverage().unwrap_or_default();
        rules
            .into_iter()
            .filter(|r| !r.used())
            .map(|r| r.rule)
            .collect()
    }
}

/// The coverage in text: a line per rule, after a heading (nothing without coverage or
/// rules).
pub fn text(rules: &[RuleUse]) -> String {
    if rules.is_empty() {
        return String::new();
    }
    let mut text =
        String::from("fault coverage (distinct instants at which a run used each rule):\n");
    for r in rules {
        let line = match r.first_ms {
            Some(first) if r.used() => format!(
                "  {}: {} instant{}, first at {}\n",
                r.rule,
                r.instants,
                if r.instants == 1 { "" } else { "s" },
                crate::report::seconds(first)
            ),
            _ => format!("  {}: NEVER USED\n", r.rule),
        };
        text.push_str(&line);
    }
    text
}

/// The warning a safe verdict carries when some rules were never used (none otherwise).
pub fn warning(unused: &[String]) -> Option<String> {
    (!unused.is_empty()).then(|| {
        format!(
            "warning: no explored run used {} (the safe verdict says nothing about {})\n",
            unused.join(", "),
            if unused.len() == 1 { "it" } else { "them" }
        )
    })
}

/// The coverage in JSON: `[{"rule", "runs_used", "instants", "first_ms"}]`.
pub fn json(rules: &[RuleUse]) -> Value {
    let rules: Vec<Value> = rules
        .iter()
        .map(|r| {
            json!({"rule": r.rule, "runs_used": r.used(), "instants": r.instants,
                "first_ms": r.first_ms})
        })
        .collect();
    json!(rules)
}

#[cfg(test)]
mod tests {
    use super::field_of;

    #[test]
    fn kernel_rules_are_named_by_their_scenario_fields() {
        assert_eq!(field_of("pauses[2]"), "faults.pauses[2]");
        assert_eq!(field_of("clock_steps[0]"), "faults.clock_steps[0]");
        assert_eq!(field_of("actor_faults[1]"), "faults.disk_stalls[1]");
        assert_eq!(field_of("losses"), "faults.max_losses");
    }
}
