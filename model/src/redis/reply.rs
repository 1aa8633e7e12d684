//! A reply as a Redis client receives it: one RESP2 value.
//!
//! The model answers with exactly what a real server sends, so a reply is compared with the real
//! server's byte for byte (error texts included). Lua's conversions inside scripts land here
//! too: Lua `false` and `nil` become a nil bulk, a Lua number becomes an integer.

/// One RESP2 reply.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Reply {
    /// A simple string, e.g. `OK`.
    Status(String),
    /// An error with its full text, code first: `ERR syntax error`,
    /// `WRONGTYPE Operation against a key holding the wrong kind of value`.
    Error(String),
    /// An integer.
    Integer(i64),
    /// A bulk string; `None` is the nil bulk.
    Bulk(Option<Vec<u8>>),
    /// An array; `None` is the nil array.
    Array(Option<Vec<Reply>>),
}

impl Reply {
    /// The `OK` status.
    pub fn ok() -> Reply {
        Reply::Status("OK".to_string())
    }

    /// The nil bulk string.
    pub fn nil() -> Reply {
        Reply::Bulk(None)
    }

    /// A bulk string holding `bytes`.
    pub fn bulk(bytes: impl Into<Vec<u8>>) -> Reply {
        Reply::Bulk(Some(bytes.into()))
    }

    /// An error with the full text `text` (code first).
    pub fn error(text: impl Into<String>) -> Reply {
        Reply::Error(text.into())
    }

    /// Whether this reply is an error.
    pub(crate) fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }
}
