//! What differential tests compare between two searches of a scenario.

use lockcheck::check::Checked;
use lockcheck_sim::Outcome;

/// Whether the search explored its whole (possibly bounded) space.
pub fn complete(c: &Checked) -> bool {
    matches!(
        c.report.outcome,
        Outcome::Complete | Outcome::Bounded { .. }
    )
}

/// Each property's final status, as a word.
pub fn verdicts(c: &Checked) -> Vec<(String, &'static str)> {
    c.report
        .properties
        .iter()
        .map(|p| (p.name.clone(), p.status.word()))
        .collect()
}
