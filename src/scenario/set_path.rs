//! Setting a scenario's fields by path, as errors name them: `clients[*].protocol.retry_ms`,
//! `faults.pauses[0].durations_ms`, `explore.max_states`; `[*]` is every element. A list
//! field given one value becomes a list of that value. Used by `--set PATH=VALUE` and by
//! the parameters `sweep` and `boundary` vary.

use serde_json::Value;

/// Sets every field matched by `path` (split into segments) below `value` to `new`;
/// returns how many were set.
pub fn set_all(value: &mut Value, path: &[&str], new: &Value) -> usize {
    set_matching(value, path, new, false)
}

/// [`set_all`], creating the fields of `path` that `value` leaves out (optional fields are
/// not written when they hold their default, such as a fault's `when`). Whether the created
/// field exists is for the scenario's deserialisation to say.
pub(crate) fn set_all_creating(value: &mut Value, path: &[&str], new: &Value) -> usize {
    set_matching(value, path, new, true)
}

fn set_matching(value: &mut Value, path: &[&str], new: &Value, create: bool) -> usize {
    let Some((first, rest)) = path.split_first() else {
        return match value {
            Value::Array(items) if !new.is_array() => {
                *items = vec![new.clone()];
                1
            }
            Value::Object(_) if !new.is_object() => 0,
            _ => {
                *value = new.clone();
                1
            }
        };
    };
    let (key, indices) = match first.find('[') {
        Some(i) => (&first[..i], &first[i..]),
        None => (*first, ""),
    };
    if create && indices.is_empty() {
        if let Some(object) = value.as_object_mut() {
            if !object.contains_key(key) {
                let empty = if rest.is_empty() {
                    new.clone()
                } else {
                    Value::Object(Default::default())
                };
                object.insert(key.to_string(), empty);
            }
        }
    }
    let mut targets: Vec<&mut Value> = vec![value];
    if !key.is_empty() {
        targets = targets
            .into_iter()
            .filter_map(|v| v.as_object_mut().and_then(|o| o.get_mut(key)))
            .collect();
    }
    for index in indices.split(['[', ']']).filter(|s| !s.is_empty()) {
        let mut next = Vec::new();
        for t in targets {
            if let Value::Array(items) = t {
                if index == "*" {
                    next.extend(items.iter_mut());
                } else if let Some(item) =
                    index.parse::<usize>().ok().and_then(|i| items.get_mut(i))
                {
                    next.push(item);
                }
            }
        }
        targets = next;
    }
    targets
        .into_iter()
        .map(|t| set_matching(t, rest, new, create))
        .sum()
}

/// `VALUE` of `--set PATH=VALUE` as data: a TOML value (`5000`, `true`, `[1, 2]`,
/// `"text"`), else the text itself as a string (`10s`, `power-loss`). A non-finite number
/// (`nan`, `inf`) stays text, which no field takes.
pub(crate) fn parse_value(text: &str) -> Value {
    let text = text.trim();
    let line = format!("v = {text}");
    toml::Deserializer::parse(&line)
        .ok()
        .and_then(|d| super::strict::table(d).ok())
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| Value::String(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_reach_every_match() {
        let mut v = json!({"clients": [{"p": {"ttl_ms": 1}}, {"p": {"ttl_ms": 2}}], "d": [1, 2]});
        assert_eq!(
            set_all(&mut v, &["clients[*]", "p", "ttl_ms"], &json!(7)),
            2
        );
        assert_eq!(
            set_all(&mut v, &["clients[1]", "p", "ttl_ms"], &json!(9)),
            1
        );
        assert_eq!(set_all(&mut v, &["d"], &json!(5)), 1);
        assert_eq!(
            v,
            json!({"clients": [{"p": {"ttl_ms": 7}}, {"p": {"ttl_ms": 9}}], "d": [5]})
        );
        assert_eq!(set_all(&mut v, &["nothing", "here"], &json!(1)), 0);
        assert_eq!(set_all(&mut v, &["clients[*]", "p"], &json!(1)), 0);
    }

    #[test]
    fn values_are_toml_or_text() {
        assert_eq!(parse_value("5000"), json!(5000));
        assert_eq!(parse_value("true"), json!(true));
        assert_eq!(parse_value("[1, 2]"), json!([1, 2]));
        assert_eq!(parse_value("\"a b\""), json!("a b"));
        assert_eq!(parse_value("10s"), json!("10s"));
    }
}
