//! Saved traces: the file format that `check` writes and `replay`, `shrink` and `explain`
//! read (the kernel's trace with the scenario it ran on), where failing runs put them, and
//! the one way a violation is saved with the command that replays it.

use crate::input_error::{json_error, read, strip_position, InputError};
use crate::scenario::{builtin, Scenario};
use lockcheck_sim::{Trace, TraceError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The version of the saved-trace wrapper this build writes and reads.
pub const SAVED_FORMAT: u32 = 1;

/// A trace as `lockcheck check` saves it: the kernel's trace and the scenario it ran on, so
/// that `replay`, `shrink` and `explain` can rebuild the world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedTrace {
    pub lockcheck_trace_format: u32,
    pub lockcheck_version: String,
    pub scenario: Scenario,
    pub trace: Trace,
}

impl SavedTrace {
    pub fn new(scenario: &Scenario, trace: Trace) -> Self {
        SavedTrace {
            lockcheck_trace_format: SAVED_FORMAT,
            lockcheck_version: env!("CARGO_PKG_VERSION").to_string(),
            scenario: scenario.clone(),
            trace,
        }
    }
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a saved trace always serialises") + "\n"
    }
    /// Writes the trace to `path`.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        crate::atomic_write::write_whole(path, self.to_json())
    }
}

/// Where failing runs save their traces: `$LOCKCHECK_TRACE_DIR`, else
/// `$CARGO_TARGET_DIR/lockcheck-traces`, else `target/lockcheck-traces` below the crate
/// under test, else the system's temporary folder.
pub fn trace_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("LOCKCHECK_TRACE_DIR") {
        return d.into();
    }
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(d).join("lockcheck-traces");
    }
    if let Some(d) = std::env::var_os("CARGO_MANIFEST_DIR") {
        return PathBuf::from(d).join("target").join("lockcheck-traces");
    }
    std::env::temp_dir().join("lockcheck-traces")
}

/// A violation's trace, written where it can be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedViolation {
    pub file: PathBuf,
    /// `lockcheck replay <file>`, the file quoted for a POSIX shell where needed.
    pub replay_command: String,
}

impl SavedViolation {
    /// `trace saved to F` and `replay it with: C`, one line each.
    pub fn note(&self) -> String {
        format!(
            "trace saved to {}\nreplay it with: {}\n",
            self.file.display(),
            self.replay_command
        )
    }
}

/// Saves `trace`, a run of `scenario`, at `file` and gives the command that replays it: what
/// `lockcheck check`, a failed assertion of [`crate::testing`] and the madsim driver all do
/// with a violation.
pub fn save_violation(
    scenario: &Scenario,
    trace: Trace,
    file: &Path,
) -> std::io::Result<SavedViolation> {
    SavedTrace::new(scenario, trace).save(file)?;
    Ok(SavedViolation {
        file: file.to_path_buf(),
        replay_command: format!("lockcheck replay {}", shell_quoted(file)),
    })
}

/// [`save_violation`] into [`trace_dir`] (created if missing), as `file_name`.
pub fn save_violation_in_trace_dir(
    scenario: &Scenario,
    trace: Trace,
    file_name: &str,
) -> std::io::Result<SavedViolation> {
    let dir = trace_dir();
    crate::atomic_write::create_dirs(&dir)?;
    save_violation(scenario, trace, &dir.join(file_name))
}

/// `path` as a POSIX shell reads it: bare when it is plain, else in single quotes.
pub fn shell_quoted(path: &Path) -> String {
    let s = path.display().to_string();
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A saved trace file, refused clearly if it is not one, or from another version.
pub fn load_trace(file: &str) -> Result<SavedTrace, InputError> {
    let path = Path::new(file);
    if !path.exists() {
        return Err(InputError::new("no such file").in_file(file));
    }
    let text = read(path)?;
    parse_trace(&text).map_err(|e| e.in_file(file))
}

/// Parses a saved trace (see [`load_trace`]). A bare kernel trace (as the `check` example
/// writes) is accepted when its model is a built-in scenario.
pub(crate) fn parse_trace(text: &str) -> Result<SavedTrace, InputError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| InputError {
        file: None,
        line: Some(e.line()),
        column: Some(e.column()),
        field: None,
        message: format!("not a lockcheck trace: {}", strip_position(&e.to_string())),
    })?;
    if value.get("lockcheck_trace_format").is_none() && value.get("format_version").is_some() {
        let trace = Trace::from_json(text).map_err(trace_error)?;
        let scenario = builtin::by_name(&trace.model).ok_or_else(|| {
            InputError::new(format!(
                "a bare trace of model `{}`, which is no built-in scenario: save traces with `lockcheck check`, which keeps the scenario with them",
                trace.model
            ))
        })?;
        return Ok(SavedTrace::new(&scenario, trace));
    }
    match value.get("lockcheck_trace_format").and_then(|v| v.as_u64()) {
        Some(v) if v == SAVED_FORMAT as u64 => {}
        Some(v) => {
            return Err(InputError::new(format!(
                "trace file format {v} is not supported by this lockcheck ({}), which reads format {SAVED_FORMAT}",
                env!("CARGO_PKG_VERSION")
            )))
        }
        None => {
            return Err(InputError::new(
                "not a lockcheck trace (no `lockcheck_trace_format`); `lockcheck check` saves traces",
            ))
        }
    }
    if let Some(v) = value.get("lockcheck_version").and_then(|v| v.as_str()) {
        if v != env!("CARGO_PKG_VERSION") {
            return Err(InputError::new(format!(
                "the trace was written by lockcheck {v}, this is lockcheck {}: its steps may mean something else here; re-run `lockcheck check` to get a trace of this version",
                env!("CARGO_PKG_VERSION")
            )));
        }
    }
    if let Some(v) = value
        .pointer("/trace/format_version")
        .and_then(|v| v.as_u64())
    {
        if v != lockcheck_sim::FORMAT_VERSION as u64 {
            return Err(trace_error(TraceError::Version {
                found: v as u32,
                supported: lockcheck_sim::FORMAT_VERSION,
            }));
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let saved: SavedTrace = serde_path_to_error::deserialize(&mut de).map_err(json_error)?;
    if saved.trace.tool_version != lockcheck_sim::TOOL_VERSION {
        return Err(InputError {
            field: Some("trace.tool_version".into()),
            ..InputError::new(format!(
                "`{}` differs from the trace's lockcheck_version `{}`: the trace was altered",
                saved.trace.tool_version, saved.lockcheck_version
            ))
        });
    }
    crate::scenario::file::validate(&saved.scenario, |_| None).map_err(|mut e| {
        e.field = e.field.map(|f| format!("scenario.{f}"));
        e
    })?;
    Ok(saved)
}

pub(crate) fn trace_error(e: TraceError) -> InputError {
    InputError::new(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_quoted_only_when_the_shell_needs_it() {
        assert_eq!(shell_quoted(Path::new("a/b-c_d.json")), "a/b-c_d.json");
        assert_eq!(shell_quoted(Path::new("my trace.json")), "'my trace.json'");
        assert_eq!(shell_quoted(Path::new("it's.json")), "'it'\\''s.json'");
    }
}
