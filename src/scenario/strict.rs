//! Tables read as data before they are read as a type (a protocol, an oracle, an
//! expectation), held to what the derived readers hold a struct to.
//!
//! The idea: a table that is first read into a `serde_json` map loses what the format said:
//! a non-finite number (`nan`, `inf`) becomes null, which a duration reads as "never"; a
//! key given twice keeps its last value; and serde's tagged enums accept any key beside the
//! tag of a variant without fields. So [`table`] refuses non-finite numbers and duplicate
//! keys while it reads, and [`tagged`] refuses a key the type does not write back (the type
//! writes every field it has).

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// A table of values, read from any format.
pub type Table = Map<String, Value>;

/// Reads a table, refusing non-finite numbers and duplicate keys at any depth.
pub fn table<'de, D: Deserializer<'de>>(d: D) -> Result<Table, D::Error> {
    match d.deserialize_any(Strict)? {
        Value::Object(table) => Ok(table),
        other => Err(de::Error::custom(format!(
            "expected a table, found {other}"
        ))),
    }
}

/// Reads a table as `T` (with `read`), refusing a key `T` does not write back (`write`).
pub fn tagged<'de, T, D: Deserializer<'de>>(
    d: D,
    read: fn(Value) -> Result<T, serde_json::Error>,
    write: fn(&T) -> Value,
) -> Result<T, D::Error> {
    let table = table(d)?;
    let keys: Vec<String> = table.keys().cloned().collect();
    let value = read(Value::Object(table)).map_err(de::Error::custom)?;
    let written = write(&value);
    if let Some(unknown) = keys.iter().find(|k| written.get(k.as_str()).is_none()) {
        let known: Vec<String> = (written.as_object().into_iter().flatten())
            .map(|(k, _)| format!("`{k}`"))
            .collect();
        return Err(de::Error::custom(format!(
            "unknown field `{unknown}`, expected {}",
            known.join(", ")
        )));
    }
    Ok(value)
}

struct Strict;

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format!("`{v}` is not a finite number")))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(Strict)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(StrictSeed)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut table = Table::new();
        while let Some(key) = map.next_key::<String>()? {
            if table.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "duplicate key `{key}` (a key may appear once in a table)"
                )));
            }
            let value = map.next_value_seed(StrictSeed)?;
            table.insert(key, value);
        }
        Ok(Value::Object(table))
    }
}

struct StrictSeed;

impl<'de> de::DeserializeSeed<'de> for StrictSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(Strict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_table(text: &str) -> Result<Table, serde_json::Error> {
        table(&mut serde_json::Deserializer::from_str(text))
    }

    #[test]
    fn a_table_keeps_what_it_reads() {
        let t = json_table(r#"{"a": 1, "b": [1.5, "x", null], "c": {"d": true}}"#).unwrap();
        assert_eq!(
            Value::Object(t).to_string(),
            r#"{"a":1,"b":[1.5,"x",null],"c":{"d":true}}"#
        );
    }

    #[test]
    fn a_duplicate_key_is_refused_at_any_depth() {
        let e = json_table(r#"{"a": {"b": 1, "b": 2}}"#).unwrap_err();
        assert!(e.to_string().contains("duplicate key `b`"), "{e}");
    }

    #[test]
    fn a_non_finite_number_is_refused() {
        let e = toml::from_str::<TomlTable>("a = nan").unwrap_err();
        assert!(
            e.to_string().contains("`NaN` is not a finite number"),
            "{e}"
        );
        let e = toml::from_str::<TomlTable>("a = [-inf]").unwrap_err();
        assert!(
            e.to_string().contains("`-inf` is not a finite number"),
            "{e}"
        );
    }

    #[derive(Debug)]
    struct TomlTable;
    impl<'de> serde::Deserialize<'de> for TomlTable {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            table(d).map(|_| TomlTable)
        }
    }
}
