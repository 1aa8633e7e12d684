//! `profiles`: the client-library profiles a protocol table may name, each with its
//! versions, what it models, the fields it needs, and its defaults as the protocol kind's
//! fields (what `library = ..., version = ...` stands for before any override).

use super::{Output, EXIT_OK};
use lockcheck::scenario::profiles::{catalogue, Profile, Table};
use serde_json::{json, Value};

/// A list longer than this is shown by its ends in text (the JSON has every value).
const LIST_SHOWN_WHOLE: usize = 8;

pub(super) fn cmd_profiles() -> Output {
    let mut text = String::new();
    for p in catalogue() {
        text.push_str(&profile_text(p));
    }
    let json = Value::Array(catalogue().iter().map(profile_json).collect());
    Output {
        text,
        json,
        code: EXIT_OK,
    }
}

fn profile_text(p: &Profile) -> String {
    let mut text = format!(
        "{} {}\n  {}\n  read from {}\n  version = \"{}\" picks it (or any version in the range)\n",
        p.library,
        p.versions,
        p.summary,
        p.source,
        version_text(p.last)
    );
    for (field, why) in p.required {
        text.push_str(&format!("  required: {field} ({why})\n"));
    }
    let mut defaults = listed_defaults(p);
    let kind = defaults.remove("kind").unwrap_or_default();
    text.push_str(&format!("  defaults (kind = {kind}):\n"));
    for (field, value) in defaults {
        let shown = match value {
            Value::Null if field.ends_with("_ms") => "\"never\"".to_string(),
            Value::Null => "none".to_string(),
            value => value_text(&value),
        };
        text.push_str(&format!("    {field} = {shown}\n"));
    }
    text.push('\n');
    text
}

fn profile_json(p: &Profile) -> Value {
    json!({
        "library": p.library,
        "versions": p.versions,
        "first": version_text(p.first),
        "last": version_text(p.last),
        "summary": p.summary,
        "source": p.source,
        "required": p.required.iter().map(|(f, why)| json!({"field": f, "why": why})).collect::<Vec<_>>(),
        "defaults": Value::Object(listed_defaults(p)),
    })
}

/// The defaults to list: without the required fields (the profile's value for them is a
/// placeholder).
fn listed_defaults(p: &Profile) -> Table {
    let mut defaults = p.resolved_defaults();
    for (field, _) in p.required {
        defaults.remove(*field);
    }
    defaults
}

/// `4.17` for `[4, 17, u32::MAX]` (every patch of 4.17).
fn version_text(release: [u32; 3]) -> String {
    let parts: Vec<String> = release
        .iter()
        .take_while(|&&n| n != u32::MAX)
        .map(u32::to_string)
        .collect();
    parts.join(".")
}

/// A value as TOML writes it; a long list by its first values and its last.
fn value_text(value: &Value) -> String {
    match value {
        Value::Array(items) if items.len() > LIST_SHOWN_WHOLE => {
            let head: Vec<String> = items[..3].iter().map(value_text).collect();
            format!(
                "[{}, …, {}]  ({} values)",
                head.join(", "),
                value_text(&items[items.len() - 1]),
                items.len()
            )
        }
        other => toml::Value::try_from(other).map_or_else(|_| other.to_string(), |v| v.to_string()),
    }
}
