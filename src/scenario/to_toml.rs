//! A scenario written back as a scenario file (`lockcheck show NAME --toml`): what a
//! built-in or a changed scenario looks like as TOML, to start a file of one's own from.

use super::Scenario;
use serde_json::Value;

/// The scenario as a TOML scenario file.
pub fn to_toml(scenario: &Scenario) -> String {
    let value = without_nulls(serde_json::to_value(scenario).expect("a scenario serialises"));
    let body = toml::to_string(&value).expect("a scenario without nulls serialises as TOML");
    format!(
        "# {}: {}\n# Exported by `lockcheck show {} --toml`; times are in ms.\n\n{body}",
        scenario.name, scenario.description, scenario.name
    )
}

/// TOML has no null: a missing duration is written `"never"` (in a list, or a field whose
/// name ends in `_ms`); any other missing value is left out (its field's default is none).
fn without_nulls(value: Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| match v {
                    Value::Null => Value::from("never"),
                    v => without_nulls(v),
                })
                .collect(),
        ),
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .filter_map(|(k, v)| match v {
                    Value::Null if k.ends_with("_ms") => Some((k, Value::from("never"))),
                    Value::Null => None,
                    v => Some((k, without_nulls(v))),
                })
                .collect(),
        ),
        v => v,
    }
}
