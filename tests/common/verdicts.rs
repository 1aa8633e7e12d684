//! What differential tests compare between two searches of a scenario.

use lockcheck::check::{check, Checked, Mode};
use lockcheck::scenario::builtin;
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

/// Built-in scenario `name` checked exhaustively.
pub fn exhaustive(name: &str) -> Checked {
    let scenario = builtin::by_name(name).unwrap_or_else(|| panic!("no built-in {name}"));
    check(&scenario, Mode::Exhaustive).unwrap_or_else(|e| panic!("{name} does not build: {e}"))
}

/// Both searches gave every property the same verdict, with the same path.
pub fn assert_same_verdicts(a: &Checked, b: &Checked, name: &str) {
    assert_eq!(
        a.report.properties.len(),
        b.report.properties.len(),
        "{name}"
    );
    for (a, b) in a.report.properties.iter().zip(&b.report.properties) {
        assert_eq!(a.name, b.name, "{name}");
        assert_eq!(a.status.word(), b.status.word(), "{name}: {}", a.name);
        assert_eq!(
            a.status.path().map(|p| p.labels()),
            b.status.path().map(|p| p.labels()),
            "{name}: {}",
            a.name
        );
    }
}
