//! `--set PATH=VALUE` on `check`, `sweep` and `boundary`: change a scenario's field before
//! it runs, so a built-in can be started from without its source. `PATH` is a field path
//! (`clients[*].protocol.retry_ms`, `explore.max_states`) or one of `sweep`'s short
//! names (`ttl`, `pause`, `work`, `delay`) with a duration; `VALUE` is a TOML value or plain
//! text (`10s`). The changed scenario must still build.
//!
//! A changed scenario is a new scenario: its name ends in [`SET_MARKER`] (so its trace has
//! a file of its own), its description opens with the settings (`changed with --set:
//! faults.max_pauses = 2`, which the chart's subtitle shows too), and the original's
//! `[expect]` no longer applies unless a `--set expect...` states one.

use super::vary;
use crate::scenario::set_path::{parse_value, set_all, set_all_creating};
use crate::scenario::{duration, ExpectedVerdict, Scenario};
use crate::InputError;

/// One `--set`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Set {
    pub path: String,
    pub value: String,
}

/// Parses `PATH=VALUE`.
pub fn parse_set(spec: &str) -> Result<Set, String> {
    match spec.split_once('=') {
        Some((path, value)) if !path.trim().is_empty() => Ok(Set {
            path: path.trim().to_string(),
            value: value.trim().to_string(),
        }),
        _ => Err(format!(
            "`{spec}`: write PATH=VALUE, e.g. explore.max_states=100000 or ttl=5s"
        )),
    }
}

const SHORT_NAMES: [&str; 4] = ["ttl", "pause", "work", "delay"];

/// What a changed scenario's name ends in: `redisson-watchdog-gc+set`.
pub const SET_MARKER: &str = "+set";

/// `scenario` with every `--set` applied in order, renamed and described as changed, its
/// expectation dropped unless a set states one (none: the scenario as it is).
pub fn apply_sets(mut scenario: Scenario, sets: &[Set]) -> Result<Scenario, InputError> {
    if sets.is_empty() {
        return Ok(scenario);
    }
    let (name, description) = (scenario.name.clone(), scenario.description.clone());
    for set in sets {
        scenario = apply_one(&scenario, set)?;
    }
    if !name.ends_with(SET_MARKER) {
        scenario.name = format!("{name}{SET_MARKER}");
    }
    let settings: Vec<String> = (sets.iter())
        .map(|s| format!("{} = {}", s.path, s.value))
        .collect();
    let was = if description.is_empty() {
        String::new()
    } else {
        format!(": {description}")
    };
    scenario.description = format!(
        "changed with --set: {}; from {name}{was}",
        settings.join(", ")
    );
    if !states_expectation(sets) {
        scenario.expect = ExpectedVerdict::Unstated;
    }
    Ok(scenario)
}

/// Whether a set gives the changed scenario an expectation of its own (`expect.verdict`,
/// `expect.oracle`, `expect`).
pub fn states_expectation(sets: &[Set]) -> bool {
    (sets.iter()).any(|s| s.path == "expect" || s.path.starts_with("expect."))
}

/// Whether `sets` change `base` so that its stated expectation no longer applies.
pub fn expectation_dropped(base: &Scenario, sets: &[Set]) -> bool {
    !sets.is_empty() && !base.expect.is_unstated() && !states_expectation(sets)
}

fn apply_one(scenario: &Scenario, set: &Set) -> Result<Scenario, InputError> {
    let field = |message: String| InputError {
        field: Some(set.path.clone()),
        ..InputError::new(format!("--set {}={}: {message}", set.path, set.value))
    };
    if SHORT_NAMES.contains(&set.path.as_str()) {
        let ms = match duration::parse(&set.value) {
            Ok(Some(ms)) if ms >= 0 => ms as u64,
            _ => return Err(field("the value must be a non-negative duration".into())),
        };
        return vary::apply(scenario, &set.path, ms);
    }
    let mut value = serde_json::to_value(scenario).expect("a scenario serialises");
    let segments: Vec<&str> = set.path.split('.').collect();
    let new = parse_value(&set.value);
    let mut set_any = set_all(&mut value, &segments, &new) > 0;
    if set.path == "expect.verdict" && new == "safe" {
        // A safe expectation names no oracle: drop the one a violation named.
        (value["expect"].as_object_mut()).map(|e| e.remove("oracle"));
    }
    if !set_any {
        // An optional field the written form leaves out (a fault's `when`), if it is one.
        let mut created = value.clone();
        let creates = set_all_creating(&mut created, &segments, &new) > 0;
        if creates && serde_json::from_value::<Scenario>(created.clone()).is_ok() {
            (value, set_any) = (created, true);
        }
    }
    if !set_any {
        return Err(field(format!(
            "scenario `{}` has no such field (paths as errors name them, e.g. clients[*].protocol.retry_ms; `lockcheck show NAME --toml` prints every field)",
            scenario.name
        )));
    }
    let changed: Scenario =
        serde_json::from_value(value).map_err(|e| field(format!("cannot set it: {e}")))?;
    changed.build().map_err(|e| InputError {
        field: Some(e.field.clone()),
        ..InputError::new(format!("--set {}={}: {}", set.path, set.value, e.message))
    })?;
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(spec: &str) -> Set {
        parse_set(spec).unwrap()
    }

    #[test]
    fn a_changed_scenario_is_renamed_described_and_loses_its_expectation() {
        let s = crate::scenario::builtin::by_name("kleppmann-pause-past-lease").unwrap();
        assert!(!s.expect.is_unstated());
        assert_eq!(apply_sets(s.clone(), &[]).unwrap(), s);
        let changed = apply_sets(s.clone(), &[set("pause=1s"), set("ttl=5s")]).unwrap();
        assert_eq!(changed.name, "kleppmann-pause-past-lease+set");
        assert!(changed.description.starts_with(
            "changed with --set: pause = 1s, ttl = 5s; from kleppmann-pause-past-lease: "
        ));
        assert!(changed.expect.is_unstated());
        assert!(expectation_dropped(&s, &[set("pause=1s")]));
        // Changed again: one marker.
        let again = apply_sets(changed, &[set("work=1s")]).unwrap();
        assert_eq!(again.name, "kleppmann-pause-past-lease+set");
        // A set expectation stays, and is not dropped.
        let stated = [set("pause=1s"), set("expect.verdict=safe")];
        assert_eq!(
            apply_sets(s.clone(), &stated).unwrap().expect,
            ExpectedVerdict::Safe
        );
        assert!(!expectation_dropped(&s, &stated));
    }
}
