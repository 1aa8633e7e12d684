//! `scenarios`: the built-in scenarios, one line each.

use super::{Output, EXIT_OK};
use lockcheck::scenario::builtin;
use serde_json::{json, Value};

pub(super) fn cmd_scenarios() -> Output {
    let all = builtin::all();
    let width = all.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for s in &all {
        text.push_str(&format!("{:<width$}  {}\n", s.name, s.description));
    }
    let json = Value::Array(
        all.iter()
            .map(|s| json!({"name": s.name, "description": s.description}))
            .collect(),
    );
    Output {
        text,
        json,
        code: EXIT_OK,
    }
}
