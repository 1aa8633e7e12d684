//! A witness file read back: what one `reproduce --witness` saw on real Redis (the Redis
//! version, the speed, and every run's steps with the real time and reply), so that
//! `explain` can draw the real run beside the model's.

use super::report::WITNESS_FORMAT;
use super::verdict::Verdict;
use crate::InputError;
use serde::Deserialize;
use std::path::Path;

/// A reproduction as its witness file records it.
#[derive(Clone, Debug, Deserialize)]
pub struct WitnessFile {
    /// The trace it played, as the `reproduce` command named it.
    pub trace_file: String,
    pub scenario: String,
    pub redis_version: String,
    pub speed: f64,
    pub oracle: String,
    pub verdict: Verdict,
    pub reproduced_runs: usize,
    pub runs: Vec<WitnessRun>,
}

/// One run on fresh servers.
#[derive(Clone, Debug, Deserialize)]
pub struct WitnessRun {
    pub verdict: Verdict,
    pub worst_late_ms: f64,
    pub steps: Vec<WitnessStep>,
}

/// One planned step: when the replayer acted and what real Redis answered.
#[derive(Clone, Debug, Deserialize)]
pub struct WitnessStep {
    /// The trace step (1-based).
    pub step: usize,
    pub label: String,
    pub model_ms: u64,
    /// Virtual time at which the replayer acted, if it did.
    pub real_ms: Option<f64>,
    pub expected: Option<String>,
    pub actual: Option<String>,
    /// Whether the real reply agreed with the model's (a reply step only).
    #[serde(rename = "match")]
    pub agrees: Option<bool>,
}

impl WitnessFile {
    /// The run to draw: the first whose verdict is the reproduction's.
    pub fn telling_run(&self) -> (usize, &WitnessRun) {
        self.runs
            .iter()
            .enumerate()
            .find(|(_, r)| r.verdict == self.verdict)
            .or_else(|| self.runs.iter().enumerate().next())
            .expect("a witness file has at least one run")
    }

    /// The trace it played: as named, else beside the witness file.
    pub fn trace_path(&self, witness_file: &str) -> String {
        let named = Path::new(&self.trace_file);
        if named.exists() || named.is_absolute() {
            return self.trace_file.clone();
        }
        let beside = Path::new(witness_file)
            .parent()
            .map(|dir| dir.join(named.file_name().unwrap_or(named.as_os_str())));
        match beside {
            Some(p) if p.exists() => p.display().to_string(),
            _ => self.trace_file.clone(),
        }
    }
}

/// Reads `file` as a witness file; `Ok(None)` when it is not one (a trace, say).
pub fn read(file: &str) -> Result<Option<WitnessFile>, InputError> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return Ok(None);
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(None);
    };
    if value.get("format").and_then(|f| f.as_str()) != Some("lockcheck-witness") {
        return Ok(None);
    }
    let version = value.get("format_version").and_then(|v| v.as_u64());
    if version != Some(u64::from(WITNESS_FORMAT)) {
        return Err(InputError {
            field: Some("format_version".into()),
            ..InputError::new(format!(
                "a witness file of format version {}, this lockcheck reads version {WITNESS_FORMAT}",
                version.map_or("(none)".to_string(), |v| v.to_string())
            ))
            .in_file(file)
        });
    }
    let w: WitnessFile = serde_json::from_value(value)
        .map_err(|e| InputError::new(format!("not a complete witness file: {e}")).in_file(file))?;
    if w.runs.is_empty() {
        return Err(InputError {
            field: Some("runs".into()),
            ..InputError::new("a witness file with no run").in_file(file)
        });
    }
    Ok(Some(w))
}
