//! Scenario files: a built-in name, or a TOML or JSON file read into a [`Scenario`] that
//! builds, every problem one [`InputError`] naming the file, the line and the field.

use crate::input_error::{json_error, line_col, read, strip_position, InputError};
use crate::oracles::RedisWorld;
use crate::scenario::{builtin, Scenario};
use std::path::Path;

/// A built-in name, or a `.toml` / `.json` scenario file.
pub fn load_scenario(arg: &str) -> Result<Scenario, InputError> {
    if let Some(s) = builtin::by_name(arg) {
        return Ok(s);
    }
    let path = Path::new(arg);
    if !path.exists() {
        let like = crate::scenario::suggest::builtin_names_like(arg);
        let hint = match like.as_slice() {
            [] => String::new(),
            [one] => format!("; did you mean {one}?"),
            more => format!("; did you mean one of {}?", more.join(", ")),
        };
        return Err(InputError::new(format!(
            "no built-in scenario and no file named `{arg}`{hint} (`lockcheck scenarios` lists the built-in ones)"
        )));
    }
    let text = read(path)?;
    let is_json = path.extension().is_some_and(|e| e == "json");
    if is_json {
        scenario_from_json(&text).map_err(|e| e.in_file(arg))
    } else {
        scenario_from_toml(&text).map_err(|e| e.in_file(arg))
    }
}

/// A scenario in TOML, checked by building its world.
pub fn scenario_from_toml(text: &str) -> Result<Scenario, InputError> {
    let de = toml::Deserializer::parse(text).map_err(|e| toml_error(text, &e, None))?;
    let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let field = (field != ".").then_some(field);
        let mut err = toml_error(text, e.inner(), field.clone());
        // Inside a tagged table (`[clients.protocol]`) the path stops at the table: find the
        // key the message quotes, or the key whose value it quotes.
        if let Some((f, at)) = field.and_then(|f| refine_toml(text, &f, &err.message)) {
            err.field = Some(f);
            err.line = Some(at.0);
            err.column = Some(at.1);
        }
        err
    })?;
    validate(&scenario, |field| locate_toml(text, field))?;
    Ok(scenario)
}

fn toml_error(text: &str, e: &toml::de::Error, field: Option<String>) -> InputError {
    let mut located = e.span().map(|s| line_col(text, s.start));
    if located.is_none() {
        located = field.as_deref().and_then(|f| locate_toml(text, f));
    }
    let mut message = e.message().trim().to_string();
    if message == "duplicate key" {
        if let Some(key) = e.span().and_then(|s| text.get(s)) {
            message = format!(
                "duplicate key `{}` (a key may appear once in a table)",
                key.trim()
            );
        }
    }
    InputError {
        file: None,
        line: located.map(|l| l.0),
        column: located.map(|l| l.1),
        field,
        message,
    }
}

/// A scenario in JSON, checked by building its world.
pub fn scenario_from_json(text: &str) -> Result<Scenario, InputError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let scenario: Scenario = serde_path_to_error::deserialize(&mut de).map_err(json_error)?;
    // Anything after the scenario is refused, as a parse error where it starts.
    de.end().map_err(|e| InputError {
        file: None,
        line: Some(e.line()),
        column: Some(e.column()),
        field: None,
        message: strip_position(&e.to_string()),
    })?;
    validate(&scenario, |_| None)?;
    Ok(scenario)
}

/// Builds the world (every reference and value checked, and [`Scenario::check_as_read`]);
/// a problem names the field.
pub(crate) fn validate(
    scenario: &Scenario,
    locate: impl Fn(&str) -> Option<(usize, usize)>,
) -> Result<RedisWorld, InputError> {
    let built = scenario.check_as_read().and_then(|_| scenario.build());
    built.map_err(|e| {
        let at = locate(&e.field);
        InputError {
            file: None,
            line: at.map(|a| a.0),
            column: at.map(|a| a.1),
            field: Some(e.field.clone()),
            message: e.message.clone(),
        }
    })
}

/// A more precise field below the table at `path`, from a name or value the message quotes.
fn refine_toml(text: &str, path: &str, message: &str) -> Option<(String, (usize, usize))> {
    use toml::de::{DeTable, DeValue};
    let quoted: Vec<&str> = message.split('`').skip(1).step_by(2).take(1).collect();
    if quoted.is_empty() {
        return None;
    }
    let root = DeTable::parse(text).ok()?;
    let mut value: &DeValue = &DeValue::Table(root.get_ref().clone());
    for segment in path.split('.') {
        let (key, indices) = match segment.find('[') {
            Some(i) => (&segment[..i], &segment[i..]),
            None => (segment, ""),
        };
        if !key.is_empty() {
            let DeValue::Table(t) = value else {
                return None;
            };
            value = t
                .iter()
                .find(|(k, _)| k.get_ref().as_ref() == key)?
                .1
                .get_ref();
        }
        for index in indices.split(['[', ']']).filter(|s| !s.is_empty()) {
            let DeValue::Array(items) = value else {
                return None;
            };
            value = items.get(index.parse::<usize>().ok()?)?.get_ref();
        }
    }
    let DeValue::Table(table) = value else {
        return None;
    };
    if let Some((name, start)) = find_quoted(table, &quoted) {
        return Some((format!("{path}.{name}"), line_col(text, start)));
    }
    // A field the table lacks (`missing field `ttl_ms``), or a message about a field
    // below it (`` `version`: ... ``, `` `attempt.decide`: ... ``): named below the table,
    // where the file writes the deepest part of it.
    let lacking = quoted[0];
    let about_it = message.starts_with(&format!("`{lacking}`:"))
        || message.starts_with(&format!("missing field `{lacking}`"));
    let field = format!("{path}.{lacking}");
    about_it
        .then(|| (field.clone(), locate_toml(text, &field)))
        .and_then(|(field, at)| Some((field, at?)))
}

/// The field of `table` (or of a table in it: `attempt.decide`) named in `quoted`, or whose
/// text value is: its path below `table` and where its key starts.
fn find_quoted(table: &toml::de::DeTable, quoted: &[&str]) -> Option<(String, usize)> {
    use toml::de::DeValue;
    for (k, v) in table.iter() {
        let name = k.get_ref().as_ref();
        let hit = quoted.contains(&name)
            || match v.get_ref() {
                DeValue::String(s) => quoted.contains(&s.as_ref()),
                DeValue::Array(items) => items.iter().any(
                    |i| matches!(i.get_ref(), DeValue::String(s) if quoted.contains(&s.as_ref())),
                ),
                _ => false,
            };
        if hit {
            return Some((name.to_string(), k.span().start));
        }
    }
    table.iter().find_map(|(k, v)| match v.get_ref() {
        DeValue::Table(sub) => find_quoted(sub, quoted)
            .map(|(name, start)| (format!("{}.{name}", k.get_ref().as_ref()), start)),
        _ => None,
    })
}

/// Where the field at `path` (`clients[1].protocol.node`) is written in `text`: the deepest
/// part of the path that the file spells out.
pub(crate) fn locate_toml(text: &str, path: &str) -> Option<(usize, usize)> {
    use toml::de::{DeTable, DeValue};
    let root = DeTable::parse(text).ok()?;
    let mut best: Option<usize> = None;
    let mut table: &DeTable = root.get_ref();
    let mut value: Option<&DeValue> = None;
    for segment in path.split('.') {
        let (key, indices) = match segment.find('[') {
            Some(i) => (&segment[..i], &segment[i..]),
            None => (segment, ""),
        };
        if !key.is_empty() {
            if let Some(DeValue::Table(t)) = value {
                table = t;
            } else if value.is_some() {
                break;
            }
            let Some((k, v)) = table.iter().find(|(k, _)| k.get_ref().as_ref() == key) else {
                break;
            };
            best = Some(k.span().start);
            value = Some(v.get_ref());
            let _ = v;
        }
        for index in indices
            .split(['[', ']'])
            .filter(|s| !s.is_empty())
            .filter_map(|s| s.parse::<usize>().ok())
        {
            let Some(DeValue::Array(items)) = value else {
                return best.map(|b| line_col(text, b));
            };
            let Some(item) = items.get(index) else {
                return best.map(|b| line_col(text, b));
            };
            best = Some(item.span().start);
            value = Some(item.get_ref());
        }
    }
    best.map(|b| line_col(text, b))
}
