//! How many bits of each state's fingerprint a search compares: 64 (lane A) by default, or
//! 128 (both lanes) when the options ask for it and the model computes both.
//!
//! The idea: a search that stores fingerprints instead of states may merge two distinct
//! states whose fingerprints coincide, and then never explores the successors of one of
//! them. The chance grows with the square of the state count (the birthday bound,
//! `fingerprint::collision_probability`): about 3 in a million at ten million states with
//! 64 bits, but 2.7 % at a billion. With 128 bits the same billion states give about 1e-21.
//! The wide mode costs 8 more bytes a visited slot and a little more hashing; the keys, the
//! order of the search and its results are otherwise those of the 64-bit search, which is
//! lane A of the same fingerprints.
//!
//! Only a model that builds both lanes from the whole state may be searched wide: a model
//! whose fingerprint is a 64-bit value of its own (lane B zero) would compare no more bits,
//! and the 128-bit estimate would be a lie. `Model::wide_fingerprints` declares it; a model
//! that does not is searched with 64 bits, and the report says why.

use crate::model::Model;
use std::fmt;

/// The fingerprint width a search used, or why it used 64 bits when asked for 128.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Width {
    /// Lane A: 64-bit fingerprints.
    Bits64,
    /// Both lanes: 128-bit fingerprints.
    Bits128,
    /// 128 bits were asked for, but the model computes 64-bit fingerprints only.
    Only64(String),
}

impl Width {
    /// The width for a search of `model` that asked for 128 bits when `wide`.
    pub fn decide<M: Model>(model: &M, wide: bool) -> Width {
        match (wide, model.wide_fingerprints()) {
            (false, _) => Width::Bits64,
            (true, true) => Width::Bits128,
            (true, false) => Width::Only64(format!(
                "model {} computes 64-bit fingerprints only",
                model.name()
            )),
        }
    }

    /// The bits compared.
    pub fn bits(&self) -> u32 {
        match self {
            Width::Bits128 => 128,
            Width::Bits64 | Width::Only64(_) => 64,
        }
    }

    /// Whether both lanes are compared.
    pub fn is_wide(&self) -> bool {
        *self == Width::Bits128
    }
}

impl fmt::Display for Width {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Width::Bits64 => f.write_str("64 bits"),
            Width::Bits128 => f.write_str("128 bits"),
            Width::Only64(why) => write!(f, "64 bits (128 not applicable: {why})"),
        }
    }
}
