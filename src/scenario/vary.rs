//! The parameters `sweep` and `boundary` vary: parsing `--vary`, the grid of its values, and
//! a scenario with a parameter set to one value.
//!
//! A parameter is a short name or a field path. Short names: `ttl` (every client's TTL, or
//! Redisson's lease, or its watchdog timeout when it has no lease), `pause` (every pause's
//! duration), `work` (every client's work time), `delay` (the network's delay). A path
//! names fields as errors do, with `[*]` for every element: `clients[*].protocol.retry_ms`,
//! `faults.pauses[0].durations_ms`. A list field is set to the one value.

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

/// Sets every field matched by `path` to `ms`.
fn set_path(value: &mut Value, path: &[&str], ms: u64) -> usize {
    set_all(value, path, &Value::from(ms))
}

/// `scenario` with parameter `name` set to `ms`.
pub fn apply(scenario: &Scenario, name: &str, ms: u64) -> Result<Scenario, InputError> {
    let mut value = serde_json::to_value(scenario).expect("a scenario serialises");
    let changed = match name {
        "ttl" => scenario
            .clients
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let field = format!("clients[{i}]");
                set_path(
                    &mut value,
                    &[&field, "protocol", c.protocol.ttl_field()],
                    ms,
                )
            })
            .sum(),
        "pause" => set_path(&mut value, &["faults", "pauses[*]", "durations_ms"], ms),
        "work" => set_path(&mut value, &["clients[*]", "workload", "work_ms"], ms),
        "delay" => set_path(&mut value, &["network", "delays_ms"], ms),
        path => {
            let segments: Vec<&str> = path.split('.').collect();
            set_path(&mut value, &segments, ms)
        }
    };
    if changed == 0 {
        return Err(InputError {
            field: Some(name.to_string()),
            ..InputError::new(format!(
                "scenario `{}` has nothing to vary here (short names: ttl, pause, work, delay; or a field path such as clients[*].protocol.retry_ms)",
                scenario.name
            ))
        });
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
}
