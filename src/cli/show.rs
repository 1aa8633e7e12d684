//! `show`: a scenario's name, description and size, or (`--toml`) the whole scenario as a
//! TOML file that `check` reads back to the same scenario: the way to start from a built-in
//! without its source.

use super::{CliError, Output, ShowArgs, EXIT_OK};
use lockcheck::scenario::file::load_scenario;
use lockcheck::scenario::to_toml::to_toml;
use serde_json::json;

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
