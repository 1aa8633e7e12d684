//! Bad input, located: the file, line, column and field path of what is wrong, and the
//! readers that produce such errors for text files and JSON. Scenario files, saved traces
//! and the command line all report through [`InputError`].

use crate::text::{clip, clip_words};
use std::fmt;
use std::path::Path;

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
    /// The same error, in `file`.
    pub fn in_file(mut self, file: &str) -> Self {
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

/// The text of the file at `path`; a read failure or invalid UTF-8 names the file.
pub fn read(path: &Path) -> Result<String, InputError> {
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
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// A JSON decoding error, with its line, column and field path.
pub(crate) fn json_error(e: serde_path_to_error::Error<serde_json::Error>) -> InputError {
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
pub(crate) fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}
