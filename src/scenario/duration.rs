//! Durations in scenario files: every `*_ms` field takes either an integer number of
//! milliseconds (`ttl_ms = 30000`, as JSON has always written it) or a string with a unit
//! (`ttl_ms = "30s"`, `"200ms"`, `"1.5s"`, `"2m"`, `"1h"`). Optional durations and the
//! lists of optional ones also take `"never"` (JSON: `null`): a partition that never heals,
//! a crashed process that stays down, no acquire timeout.
//!
//! These are `deserialize_with` helpers; serialisation is unchanged (plain integers).

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// Parses `"30s"`, `"200ms"`, `"1.5s"`, `"-2s"`, `"2m"`, `"1h"` or a bare integer (ms) into
/// milliseconds; `"never"` / `"none"` into `None`.
pub fn parse(text: &str) -> Result<Option<i64>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("never") || t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let split = body
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(body.len());
    let (number, unit) = body.split_at(split);
    let number = number.replace('_', "");
    let factor: u64 = match unit.trim() {
        "" | "ms" => 1,
        "s" => 1_000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        other => {
            return Err(format!(
                "`{text}`: unknown unit `{other}` (use ms, s, m or h, e.g. \"30s\" or \"200ms\")"
            ))
        }
    };
    if number.is_empty() || number.matches('.').count() > 1 {
        return Err(format!(
            "`{text}` is not a duration (write e.g. \"30s\", \"200ms\" or 1500)"
        ));
    }
    let (whole, frac) = number.split_once('.').unwrap_or((&number, ""));
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole
            .parse()
            .map_err(|_| format!("`{text}`: number too large"))?
    };
    // The fraction in units of 10^-digits, then scaled to ms; it must be a whole ms.
    let mut ms = whole
        .checked_mul(factor)
        .ok_or_else(|| format!("`{text}`: duration too large"))?;
    if !frac.is_empty() {
        let digits = frac.len() as u32;
        let scale = 10u64
            .checked_pow(digits)
            .ok_or_else(|| format!("`{text}`: too many decimals"))?;
        let f: u64 = frac
            .parse()
            .map_err(|_| format!("`{text}` is not a duration"))?;
        let num = f
            .checked_mul(factor)
            .ok_or_else(|| format!("`{text}`: too many decimals"))?;
        if !num.is_multiple_of(scale) {
            return Err(format!(
                "`{text}` is finer than the model's 1 ms resolution"
            ));
        }
        ms += num / scale;
    }
    let ms = i64::try_from(ms).map_err(|_| format!("`{text}`: duration too large"))?;
    Ok(Some(if negative { -ms } else { ms }))
}

/// `1500` -> `"1.5s"`, `200` -> `"200ms"`, `20001` -> `"20.001s"`: the shortest exact form
/// that [`parse`] reads back.
pub fn format(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let a = ms.unsigned_abs();
    if a == 0 {
        "0s".to_string()
    } else if a.is_multiple_of(3_600_000) {
        format!("{sign}{}h", a / 3_600_000)
    } else if a.is_multiple_of(60_000) && a >= 60_000 {
        format!("{sign}{}m", a / 60_000)
    } else if a < 1_000 {
        format!("{sign}{a}ms")
    } else {
        let s = format!("{}.{:03}", a / 1_000, a % 1_000);
        let s = s.trim_end_matches('0').trim_end_matches('.');
        format!("{sign}{s}s")
    }
}

/// One duration as written: an integer (ms), a string with a unit, or null / "never". An
/// integer keeps its full range here; `Scenario::build` bounds every duration.
struct Raw(Option<i128>);

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a duration: milliseconds as an integer, or a string like \"30s\" or \"200ms\"",
                )
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
                Ok(Raw(Some(v.into())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
                Ok(Raw(Some(v.into())))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
                parse(v).map(|v| Raw(v.map(i128::from))).map_err(E::custom)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Raw, E> {
                Ok(Raw(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Raw, E> {
                Ok(Raw(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
                Raw::deserialize(d)
            }
        }
        d.deserialize_any(V)
    }
}

fn unsigned<E: de::Error>(v: Option<i128>) -> Result<Option<u64>, E> {
    match v {
        None => Ok(None),
        Some(v) if v < 0 => Err(E::custom(format!(
            "a negative duration ({v} ms) is not allowed here"
        ))),
        Some(v) => u64::try_from(v)
            .map(Some)
            .map_err(|_| E::custom(format!("`{v}`: duration too large"))),
    }
}

fn signed<E: de::Error>(v: Option<i128>) -> Result<Option<i64>, E> {
    v.map(|v| i64::try_from(v).map_err(|_| E::custom(format!("`{v}`: duration too large"))))
        .transpose()
}

fn required<T, E: de::Error>(v: Option<T>) -> Result<T, E> {
    v.ok_or_else(|| E::custom("a duration is required here (\"never\" is not allowed)"))
}

/// A non-negative duration in ms.
pub fn ms<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    required(unsigned(Raw::deserialize(d)?.0)?)
}

/// A duration in ms that may be negative (clock offsets and steps).
pub(crate) fn signed_ms<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    required(signed(Raw::deserialize(d)?.0)?)
}

/// An optional duration (`"never"` or null: none).
pub(crate) fn opt_ms<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    unsigned(Raw::deserialize(d)?.0)
}

/// The most values a list of durations may hold: each is a choice the search offers, and
/// a state offers at most 65,535 (its path records a choice in 16 bits).
pub(crate) const MAX_CHOICES: usize = u16::MAX as usize;

fn at_most_max_choices<T, E: de::Error>(list: Vec<T>) -> Result<Vec<T>, E> {
    if list.len() > MAX_CHOICES {
        let n = list.len();
        return Err(E::custom(format!(
            "{n} durations: at most {MAX_CHOICES} (each is a choice the search offers)"
        )));
    }
    Ok(list)
}

/// A list of durations.
pub(crate) fn vec_ms<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    let list = at_most_max_choices(Vec::<Raw>::deserialize(d)?)?;
    list.into_iter().map(|r| required(unsigned(r.0)?)).collect()
}

/// One duration or a list of them (`retry_ms = "2s"` or `retry_ms = ["1s", "2s"]`).
pub fn one_or_vec_ms<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<u64>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a duration (milliseconds, or a string like \"2s\") or a list of them")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vec<u64>, E> {
            Ok(vec![v])
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vec<u64>, E> {
            Ok(vec![required(unsigned(Some(v.into()))?)?])
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u64>, E> {
            let raw = parse(v).map_err(E::custom)?.map(i128::from);
            Ok(vec![required(unsigned(raw)?)?])
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u64>, A::Error> {
            let mut out = Vec::new();
            while let Some(r) = seq.next_element::<Raw>()? {
                out.push(required(unsigned(r.0)?)?);
            }
            at_most_max_choices(out)
        }
    }
    d.deserialize_any(V)
}

/// Writes a list of one duration as that duration (what [`one_or_vec_ms`] reads back).
pub(crate) fn one_or_vec_ser<S: serde::Serializer>(v: &[u64], s: S) -> Result<S::Ok, S::Error> {
    match v {
        [one] => s.serialize_u64(*one),
        many => serde::Serialize::serialize(many, s),
    }
}

/// A list of durations that may be negative.
pub(crate) fn vec_signed_ms<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<i64>, D::Error> {
    let list = at_most_max_choices(Vec::<Raw>::deserialize(d)?)?;
    list.into_iter().map(|r| required(signed(r.0)?)).collect()
}

/// A list of optional durations.
pub(crate) fn vec_opt_ms<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Option<u64>>, D::Error> {
    let list = at_most_max_choices(Vec::<Raw>::deserialize(d)?)?;
    list.into_iter().map(|r| unsigned(r.0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_parse_and_format_back() {
        assert_eq!(parse("30s"), Ok(Some(30_000)));
        assert_eq!(parse("200ms"), Ok(Some(200)));
        assert_eq!(parse("1.5s"), Ok(Some(1_500)));
        assert_eq!(parse("20.001s"), Ok(Some(20_001)));
        assert_eq!(parse("-2s"), Ok(Some(-2_000)));
        assert_eq!(parse("2m"), Ok(Some(120_000)));
        assert_eq!(parse("1500"), Ok(Some(1_500)));
        assert_eq!(parse("never"), Ok(None));
        assert!(parse("1.0001s").is_err());
        assert!(parse("3 parsecs").is_err());
        assert!(parse("s").is_err());
        for ms in [
            0, 1, 200, 1_000, 1_500, 20_001, 60_000, 90_000, 3_600_000, -2_000,
        ] {
            assert_eq!(parse(&format(ms)), Ok(Some(ms)), "{}", format(ms));
        }
    }
}
