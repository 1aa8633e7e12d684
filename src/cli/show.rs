//! `show`: a scenario's name, description and size, or (`--toml`) the whole scenario as a
//! TOML file that `check` reads back to the same scenario: the way to start from a built-in
//! without its source.

use super::{CliError, Output, ShowArgs, EXIT_OK};
use crate::scenario::file::load_scenario;
use crate::scenario::Scenario;
use serde_json::{json, Value};

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

pub(super) fn cmd_show(a: &ShowArgs) -> Result<Output, CliError> {
    let scenario = load_scenario(&a.scenario)?;
    let toml = to_toml(&scenario);
    let text = if a.toml {
        toml.clone()
    } else {
        format!(
            "{}\n  {}\n{} Redis nodes, {} clients, oracles: {}\nexport it as a scenario file: lockcheck show {} --toml > {}.toml\n",
            scenario.name,
            scenario.description,
            scenario.nodes.len(),
            scenario.clients.len(),
            scenario
                .oracles
                .iter()
                .map(|o| serde_json::to_value(o).map_or(String::new(), |v| v["kind"].as_str().unwrap_or("").to_string()))
                .collect::<Vec<_>>()
                .join(", "),
            scenario.name,
            scenario.name
        )
    };
    let json = json!({
        "command": "show",
        "scenario": scenario.name,
        "description": scenario.description,
        "toml": toml,
        "definition": serde_json::to_value(&scenario).expect("a scenario serialises"),
    });
    Ok(Output {
        text,
        json,
        code: EXIT_OK,
    })
}
