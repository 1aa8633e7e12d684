//! What a scenario expects of its check (`[expect]`): a violation of an oracle, no
//! violation, or nothing stated.

use super::strict;
use serde::{Deserialize, Serialize};

/// The verdict a scenario is expected to get.
///
/// Read through `strict::tagged`, as an oracle is.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    remote = "Self",
    tag = "verdict",
    rename_all = "snake_case",
    deny_unknown_fields
)]
pub enum ExpectedVerdict {
    /// A violation of this oracle is found.
    Violated { oracle: String },
    /// No violation up to the exploration bounds.
    Safe,
    /// The scenario states no expectation (no `[expect]` section).
    #[default]
    #[serde(skip)]
    Unstated,
}

impl Serialize for ExpectedVerdict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ExpectedVerdict::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for ExpectedVerdict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        strict::tagged(d, ExpectedVerdict::deserialize, |e| {
            ExpectedVerdict::serialize(e, serde_json::value::Serializer).unwrap_or_default()
        })
    }
}

impl ExpectedVerdict {
    pub fn is_unstated(&self) -> bool {
        *self == ExpectedVerdict::Unstated
    }
}
