//! The parameters `sweep` and `boundary` vary: parsing `--vary`, the grid of its values, and
//! a scenario with a parameter set to one value.
//!
//! A parameter is one field: every other rule and field stays as set. It is a field path,
//! named as errors name fields (`faults.pauses[1].durations_ms`,
//! `clients[*].protocol.retry_ms`, `[*]` for every element), or a short name resolved to
//! one: `pause` (the one pause rule's durations), `ttl` (every client's TTL, or Redisson's
//! lease, or its watchdog timeout when it has no lease, when all clients hold the same),
//! `work` (every client's work time, likewise), `delay` (the network's delay). A short name
//! that could mean more than one field (two pause rules, clients with different TTLs) is
//! refused with the candidate paths. A list field is set to the one value.

use crate::scenario::set_path::set_all;
use crate::scenario::{duration, Scenario};
use crate::InputError;
use serde_json::Value;

/// One varied parameter and its values (ms).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vary {
    pub name: String,
    pub values: Vec<u64>,
}

fn dur(text: &str, spec: &str) -> Result<u64, String> {
    match duration::parse(text) {
        Ok(Some(v)) if v >= 0 => Ok(v as u64),
        Ok(_) => Err(format!(
            "`{spec}`: `{text}` must be a non-negative duration"
        )),
        Err(e) => Err(format!("`{spec}`: {e}")),
    }
}

/// Parses `NAME=FROM..TO[:STEP]` (ten steps when no step is given) or `NAME=V1,V2,...`.
pub fn parse_vary(spec: &str) -> Result<Vary, String> {
    let (name, range) = spec
        .split_once('=')
        .ok_or_else(|| format!("`{spec}`: write NAME=FROM..TO:STEP, e.g. ttl=1s..40s:1s"))?;
    let name = name.trim().to_string();
    if name.is_empty() {
        return Err(format!("`{spec}`: the parameter name is missing"));
    }
    let values = if let Some((from, rest)) = range.split_once("..") {
        let (to, step) = match rest.split_once(':') {
            Some((to, step)) => (to, Some(step)),
            None => (rest, None),
        };
        let (from, to) = (dur(from, spec)?, dur(to, spec)?);
        if to < from {
            return Err(format!("`{spec}`: the range ends before it starts"));
        }
        let step = match step {
            Some(s) => dur(s, spec)?,
            None => ((to - from) / 10).max(1),
        };
        if step == 0 {
            return Err(format!("`{spec}`: the step must be positive"));
        }
        let mut v: Vec<u64> = (from..=to).step_by(step as usize).collect();
        if v.last() != Some(&to) {
            v.push(to);
        }
        if v.len() > 10_000 {
            return Err(format!("`{spec}`: {} values is too many", v.len()));
        }
        v
    } else {
        range
            .split(',')
            .map(|t| dur(t, spec))
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok(Vary { name, values })
}

/// What a parameter sets: one field (or one setting every client holds alike), named by
/// its path, with what it is in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The field path the output names (`faults.pauses[1].durations_ms`,
    /// `clients[*].protocol.ttl_ms`).
    pub path: String,
    /// What it is: `the pauses of instance-a`, `every client's TTL`.
    pub what: String,
    /// The paths set (more than one only for a setting every client holds alike).
    paths: Vec<String>,
}

impl Target {
    fn one(path: String, what: String) -> Target {
        Target {
            paths: vec![path.clone()],
            path,
            what,
        }
    }
}

/// The value at a path without `[*]` (`clients[0].workload.work_ms`), if there is one.
fn value_at<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    let mut at = value;
    for segment in path.split('.') {
        let mut parts = segment.split(['[', ']']).filter(|s| !s.is_empty());
        at = at.get(parts.next()?)?;
        for index in parts {
            at = at.get(index.parse::<usize>().ok()?)?;
        }
    }
    Some(at)
}

/// A short name's candidate fields, each with what it is.
fn candidates(scenario: &Scenario, name: &str) -> Vec<(String, String)> {
    let word = if name == "ttl" { "TTL" } else { "work time" };
    let clients = |field: &dyn Fn(usize) -> String| -> Vec<(String, String)> {
        (0..scenario.clients.len())
            .map(|i| (field(i), format!("{}'s {word}", scenario.clients[i].name)))
            .collect()
    };
    match name {
        "pause" => (scenario.faults.pauses.iter().enumerate())
            .map(|(i, r)| {
                (
                    format!("faults.pauses[{i}].durations_ms"),
                    format!("the pauses of {}", r.process),
                )
            })
            .collect(),
        "ttl" => clients(&|i| {
            let f = scenario.clients[i].protocol.ttl_field();
            format!("clients[{i}].protocol.{f}")
        }),
        "work" => clients(&|i| format!("clients[{i}].workload.work_ms")),
        _ => Vec::new(),
    }
}

/// What parameter `name` sets in `scenario`: a field path as written, or a short name
/// resolved to its one field. `pause` names one pause rule; `ttl` and `work` name every
/// client's field, one setting when all hold the same value. A short name with more than
/// one meaning is refused, the candidate paths listed.
pub fn target(scenario: &Scenario, name: &str) -> Result<Target, InputError> {
    let value = serde_json::to_value(scenario).expect("a scenario serialises");
    let found = match name {
        "delay" => {
            return Ok(Target::one(
                "network.delays_ms".into(),
                "the network's delay".into(),
            ))
        }
        "pause" | "ttl" | "work" => candidates(scenario, name),
        path => {
            let known = ["pause", "ttl", "work"]
                .into_iter()
                .flat_map(|n| candidates(scenario, n))
                .find(|(p, _)| p == path);
            let what = known.map_or(path.to_string(), |(_, what)| what);
            return Ok(Target::one(path.to_string(), what));
        }
    };
    let held: Vec<Option<&Value>> = found.iter().map(|(p, _)| value_at(&value, p)).collect();
    let alike = held.windows(2).all(|w| w[0] == w[1]);
    match found.len() {
        0 => Err(nothing_to_vary(scenario, name)),
        1 => Ok(Target::one(found[0].0.clone(), found[0].1.clone())),
        _ if name != "pause" && alike => Ok(shared(name, found)),
        _ => {
            let listed: Vec<String> = (found.iter().zip(&held))
                .map(|((p, what), v)| {
                    let now = v.map_or("unset".to_string(), durations);
                    format!("{p} ({what}, now {now})")
                })
                .collect();
            Err(InputError {
                field: Some(name.to_string()),
                ..InputError::new(format!(
                    "`{name}` is ambiguous in scenario `{}`: it could mean any of {} fields; vary one by its path: {}",
                    scenario.name,
                    found.len(),
                    listed.join(", ")
                ))
            })
        }
    }
}

/// One setting every client holds alike: all of `found` set together.
fn shared(name: &str, found: Vec<(String, String)>) -> Target {
    let fields: Vec<&str> = found
        .iter()
        .filter_map(|(p, _)| p.rsplit('.').next())
        .collect();
    let same_field = fields.windows(2).all(|w| w[0] == w[1]);
    let parent = if name == "ttl" {
        "protocol"
    } else {
        "workload"
    };
    Target {
        path: if same_field {
            format!("clients[*].{parent}.{}", fields[0])
        } else {
            found
                .iter()
                .map(|(p, _)| p.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        },
        what: format!(
            "every client's {}",
            if name == "ttl" { "TTL" } else { "work time" }
        ),
        paths: found.into_iter().map(|(p, _)| p).collect(),
    }
}

/// A field's value as durations (`200ms`, `[200ms, 2.9s]`), or as it is.
fn durations(value: &Value) -> String {
    let one = |v: &Value| v.as_i64().map_or(v.to_string(), duration::format);
    match value {
        Value::Array(items) if items.len() == 1 => one(&items[0]),
        Value::Array(items) => {
            format!("[{}]", items.iter().map(one).collect::<Vec<_>>().join(", "))
        }
        v => one(v),
    }
}

fn nothing_to_vary(scenario: &Scenario, name: &str) -> InputError {
    InputError {
        field: Some(name.to_string()),
        ..InputError::new(format!(
            "scenario `{}` has nothing to vary here (short names: ttl, pause, work, delay; or a field path such as clients[*].protocol.retry_ms)",
            scenario.name
        ))
    }
}

/// `scenario` with parameter `name` set to `ms`: the one field [`target`] resolves it to.
pub fn apply(scenario: &Scenario, name: &str, ms: u64) -> Result<Scenario, InputError> {
    let target = target(scenario, name)?;
    let mut value = serde_json::to_value(scenario).expect("a scenario serialises");
    let changed: usize = (target.paths.iter())
        .map(|p| {
            let segments: Vec<&str> = p.split('.').collect();
            set_all(&mut value, &segments, &Value::from(ms))
        })
        .sum();
    if changed == 0 {
        return Err(nothing_to_vary(scenario, name));
    }
    let changed: Scenario = serde_json::from_value(value).map_err(|e| InputError {
        field: Some(name.to_string()),
        ..InputError::new(format!(
            "cannot set it to {}: {e}",
            duration::format(ms as i64)
        ))
    })?;
    changed.build().map_err(|e| InputError {
        field: Some(e.field.clone()),
        ..InputError::new(format!(
            "with {name} = {}: {}",
            duration::format(ms as i64),
            e.message
        ))
    })?;
    Ok(changed)
}

/// Every point of the grid, first parameter varying slowest.
/// The most points a grid may have: each is a scenario built and checked.
pub const MAX_POINTS: u128 = 100_000;

/// Every combination of the parameters' values, the first parameter slowest; refused when
/// there are more than [`MAX_POINTS`].
pub fn grid(vary: &[Vary]) -> Result<Vec<Vec<u64>>, InputError> {
    let count: u128 = vary.iter().map(|v| v.values.len() as u128).product();
    if count > MAX_POINTS {
        return Err(InputError::new(format!(
            "the --vary parameters make {count} points: at most {MAX_POINTS} (use fewer values or a coarser step)"
        )));
    }
    let mut points = vec![Vec::new()];
    for v in vary {
        points = points
            .into_iter()
            .flat_map(|p| {
                v.values.iter().map(move |x| {
                    let mut q = p.clone();
                    q.push(*x);
                    q
                })
            })
            .collect();
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_lists() {
        let v = parse_vary("ttl=1s..4s:1s").unwrap();
        assert_eq!(v.values, vec![1_000, 2_000, 3_000, 4_000]);
        let v = parse_vary("pause=0s..25s:10s").unwrap();
        assert_eq!(v.values, vec![0, 10_000, 20_000, 25_000]);
        let v = parse_vary("work=100ms,1s").unwrap();
        assert_eq!(v.values, vec![100, 1_000]);
        assert!(parse_vary("ttl").is_err());
        assert!(parse_vary("ttl=5s..1s").is_err());
    }

    #[test]
    fn parameters_reach_their_fields() {
        let s = crate::scenario::builtin::by_name("kleppmann-pause-past-lease").unwrap();
        let t = apply(&s, "ttl", 5_000).unwrap();
        let json = serde_json::to_string(&t).unwrap();
        assert!(json.contains("\"ttl_ms\":5000"));
        let p = apply(&s, "pause", 1_234).unwrap();
        assert_eq!(p.faults.pauses[0].durations_ms, vec![1_234]);
        let r = apply(&s, "clients[*].protocol.retry_ms", 700).unwrap();
        assert!(serde_json::to_string(&r)
            .unwrap()
            .contains("\"retry_ms\":700"));
        assert!(apply(&s, "nonsense.field", 1).is_err());
    }

    #[test]
    fn a_short_name_with_two_meanings_is_refused_and_a_path_varies_one_rule() {
        let s = crate::scenario::builtin::by_name("seed-003-incident").unwrap();
        let e = apply(&s, "pause", 1_000).unwrap_err();
        assert!(e.message.contains("ambiguous"), "{}", e.message);
        assert!(e
            .message
            .contains("faults.pauses[0].durations_ms (the pauses of redis, now 200ms)"));
        assert!(e
            .message
            .contains("faults.pauses[1].durations_ms (the pauses of instance-a, now 2.9s)"));
        let one = apply(&s, "faults.pauses[1].durations_ms", 1_000).unwrap();
        assert_eq!(one.faults.pauses[0].durations_ms, vec![200]);
        assert_eq!(one.faults.pauses[1].durations_ms, vec![1_000]);
        let t = target(&s, "faults.pauses[1].durations_ms").unwrap();
        assert_eq!(t.what, "the pauses of instance-a");
        // Both clients hold the same lease: `ttl` is one setting.
        let t = target(&s, "ttl").unwrap();
        assert_eq!(t.what, "every client's TTL");
        assert!(t.path.starts_with("clients[*].protocol."), "{}", t.path);
    }
}
