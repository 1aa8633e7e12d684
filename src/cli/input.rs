//! What the user hands in: scenarios (a built-in name, a TOML or JSON file) and saved traces,
//! each read into one clear error naming the file, the line and the field.

use crate::oracles::RedisWorld;
use crate::scenario::{builtin, Scenario};
use crate::text::{clip, clip_words};
use lockcheck_sim::{Trace, TraceError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// Bad input: where it is and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// Path of the field, e.g. `clients[1].protocol.ttl_ms`.
    pub field: Option<String>,
    pub message: String,
}

impl InputError {
    pub fn new(message: impl Into<String>) -> Self {
        InputError {
            file: None,
            line: None,
            column: None,
            field: None,
            message: message.into(),
        }
    }
    fn in_file(mut self, file: &str) -> Self {
        self.file = Some(file.to_string());
        self
    }

    /// The same error with long words of the message and the field cut short, so that a
    /// huge value in the input is never echoed whole.
    pub fn clipped(self) -> Self {
        InputError {
            field: self.field.map(|f| clip(&f, MAX_FIELD_CHARS)),
            message: clip_words(&self.message),
            ..self
        }
    }
}

/// The most characters of a field path an error shows.
const MAX_FIELD_CHARS: usize = 200;

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}")?;
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
                if let Some(col) = self.column {
                    write!(f, ":{col}")?;
                }
            }
            f.write_str(": ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}

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
        std::fs::write(path, self.to_json())
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

fn read(path: &Path) -> Result<String, InputError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| InputError::new(format!("cannot read the file: {e}")).in_file(&file))?;
    String::from_utf8(bytes).map_err(|e| utf8_error(&e).in_file(&file))
}

/// Invalid UTF-8, located at its first bad byte.
fn utf8_error(e: &std::string::FromUtf8Error) -> InputError {
    let offset = e.utf8_error().valid_up_to();
    let valid = std::str::from_utf8(&e.as_bytes()[..offset]).expect("valid up to here");
    let (line, column) = line_col(valid, offset);
    InputError {
        line: Some(line),
        column: Some(column),
        ..InputError::new(format!(
            "the file is not valid UTF-8: byte {offset} (0x{:02x}) begins no UTF-8 character",
            e.as_bytes()[offset]
        ))
    }
}

/// 1-based line and column of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
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
    validate(&scenario, |_| None)?;
    Ok(scenario)
}

/// A JSON decoding error, with its line, column and field path.
fn json_error(e: serde_path_to_error::Error<serde_json::Error>) -> InputError {
    let field = e.path().to_string();
    InputError {
        file: None,
        line: Some(e.inner().line()),
        column: Some(e.inner().column()),
        field: (field != ".").then_some(field),
        message: strip_position(&e.inner().to_string()),
    }
}

/// serde_json appends " at line L column C"; we print the position ourselves.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Builds the world (every reference and value checked, and [`Scenario::check_as_read`]);
/// a problem names the field.
fn validate(
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
            return Some((format!("{path}.{name}"), line_col(text, k.span().start)));
        }
    }
    None
}

/// Where the field at `path` (`clients[1].protocol.node`) is written in `text`: the deepest
/// part of the path that the file spells out.
pub fn locate_toml(text: &str, path: &str) -> Option<(usize, usize)> {
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
pub fn parse_trace(text: &str) -> Result<SavedTrace, InputError> {
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
        if v != lockcheck_sim::trace::FORMAT_VERSION as u64 {
            return Err(trace_error(TraceError::Version {
                found: v as u32,
                supported: lockcheck_sim::trace::FORMAT_VERSION,
            }));
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let saved: SavedTrace = serde_path_to_error::deserialize(&mut de).map_err(json_error)?;
    validate(&saved.scenario, |_| None).map_err(|mut e| {
        e.field = e.field.map(|f| format!("scenario.{f}"));
        e
    })?;
    Ok(saved)
}

pub fn trace_error(e: TraceError) -> InputError {
    InputError::new(e.to_string())
}
