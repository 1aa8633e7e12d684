//! A node's persistence as a scenario file writes it (`none`, `aof_everysec`,
//! `aof_always`), and the model's persistence it stands for.

use lockcheck_model::node::Persistence;
use serde::{Deserialize, Serialize};

/// Persistence, as written in scenarios.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PersistenceDe {
    None,
    AofEverysec,
    AofAlways,
}

impl From<PersistenceDe> for Persistence {
    fn from(p: PersistenceDe) -> Self {
        match p {
            PersistenceDe::None => Persistence::None,
            PersistenceDe::AofEverysec => Persistence::AofEverySec,
            PersistenceDe::AofAlways => Persistence::AofAlways,
        }
    }
}

/// A node's persistence unless its file says otherwise.
pub(super) fn none() -> PersistenceDe {
    PersistenceDe::None
}
