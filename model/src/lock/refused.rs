//! What a client library does when a node's host refuses its connection.
//!
//! The idea: a crashed Redis process's port answers at once (its host resets the
//! connection and refuses new ones), where a paused or cut-off node never answers. The
//! world turns a request to such a node into [`Msg::Refused`](crate::msg::Msg::Refused)
//! back to the client; what the library makes of it is [`OnRefused`]: most raise an error at
//! once (the request fails now instead of at its timeout), some keep the command queued
//! while they reconnect, so the caller waits as for a node that never answers.

/// A library's answer to a refused connection.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum OnRefused {
    /// The request fails at once, as on an error reply (redis-py's `ConnectionError`,
    /// go-redis after its quick retries): the next node, or the next attempt.
    #[default]
    Fail,
    /// The command stays queued while the library reconnects (ioredis's offline queue), so
    /// the caller waits for its own timeout, if it has one, as for a silent node. The
    /// command sent again once the node is back is not modelled.
    Wait,
}

impl OnRefused {
    pub fn is_fail(&self) -> bool {
        *self == OnRefused::Fail
    }
}

/// The error text a refused request is answered with, where a library turns it into an
/// error reply (`ECONNREFUSED`, as the socket reports it).
pub const CONNECTION_REFUSED: &str = "ECONNREFUSED connection refused";
