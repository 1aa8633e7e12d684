//! What can make a command fail before its verdict, and the exit code each kind gets: bad
//! input or usage exits 2, a machine that would not run what `reproduce` needs exits 3, an
//! output file that cannot be written exits 4. Callers choose
//! the kind where the error arises; nothing downstream looks at the message text.

use lockcheck::InputError;
use std::fmt;
use std::path::Path;

/// Bad input or usage: a malformed or inconsistent scenario or trace.
pub const EXIT_BAD_INPUT: u8 = 2;
/// An I/O failure: an output file (trace, chart, heat map) could not be written.
pub const EXIT_IO: u8 = 4;

/// Why a command failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input is wrong: the user can fix it by changing what they handed in.
    BadInput,
    /// The machine refused: an output path is unwritable, a disk is full.
    Io,
    /// The real servers of `reproduce` would not run: a port taken, a server not coming up.
    Environment,
}

impl ErrorKind {
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::BadInput => EXIT_BAD_INPUT,
            ErrorKind::Io => EXIT_IO,
            ErrorKind::Environment => super::EXIT_LIMIT,
        }
    }

    /// The kind as `--json` names it.
    pub fn word(self) -> &'static str {
        match self {
            ErrorKind::BadInput => "bad_input",
            ErrorKind::Io => "io",
            ErrorKind::Environment => "environment",
        }
    }
}

/// A failed command: its kind and where and what the problem is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError {
    pub kind: ErrorKind,
    pub error: InputError,
}

impl CliError {
    /// `file` could not be written.
    pub fn write(file: &Path, e: &std::io::Error) -> Self {
        CliError {
            kind: ErrorKind::Io,
            error: InputError {
                file: Some(file.display().to_string()),
                ..InputError::new(format!("cannot write: {e}"))
            },
        }
    }

    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }

    /// The same error, its message and field cut short (see [`InputError::clipped`]).
    pub fn clipped(self) -> Self {
        CliError {
            error: self.error.clipped(),
            ..self
        }
    }
}

impl From<InputError> for CliError {
    fn from(error: InputError) -> Self {
        CliError {
            kind: ErrorKind::BadInput,
            error,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for CliError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_own_exit_code() {
        let bad: CliError = InputError::new("no such scenario").into();
        assert_eq!(bad.exit_code(), 2);
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let write = CliError::write(Path::new("/out/x.json"), &io);
        assert_eq!(write.exit_code(), 4);
        assert_eq!(write.to_string(), "/out/x.json: cannot write: denied");
    }
}
