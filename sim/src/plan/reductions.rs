//! Whether each reduction runs in a search, or why not: decided from what the options ask
//! for, whether the search prunes visited states (walks and replay follow every action, so
//! no reduction applies to them), and what the model and its properties declare.

use crate::model::Model;
use crate::model::Property;
use std::fmt;

/// Why no reduction applies to a search that does not prune visited states.
const FOLLOWS_EVERY_ACTION: &str = "random walks and replay follow every action";

/// Whether a search used partial-order reduction, or why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartialOrder {
    /// Used.
    On,
    /// Not asked for.
    Off,
    /// Asked for, but not applicable (the reason).
    Unavailable(String),
}

impl PartialOrder {
    /// Decides for a search of `props` that asked for it when `asked` and prunes visited
    /// states when `prunes`: every property must declare what it observes.
    pub(crate) fn decide<M: Model>(props: &[Property<M>], asked: bool, prunes: bool) -> Self {
        if !asked {
            return PartialOrder::Off;
        }
        if !prunes {
            return PartialOrder::Unavailable(FOLLOWS_EVERY_ACTION.into());
        }
        match props.iter().find(|p| p.observes.is_none()) {
            Some(p) => PartialOrder::Unavailable(format!(
                "property {} does not declare what it observes",
                p.name
            )),
            None => PartialOrder::On,
        }
    }

    pub fn is_on(&self) -> bool {
        *self == PartialOrder::On
    }
}

/// Whether a search used symmetry reduction, or why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Symmetry {
    /// Used, over the interchangeable processes described.
    On(String),
    /// Not asked for.
    Off,
    /// Asked for, but not applicable (the reason).
    Unavailable(String),
}

impl Symmetry {
    /// Decides for a search of `model` that asked for it when `asked` and prunes visited
    /// states when `prunes`: the model must find interchangeable processes.
    pub(crate) fn decide<M: Model>(model: &M, asked: bool, prunes: bool) -> Self {
        if !asked {
            return Symmetry::Off;
        }
        if !prunes {
            return Symmetry::Unavailable(FOLLOWS_EVERY_ACTION.into());
        }
        match model.symmetry() {
            Ok(groups) => Symmetry::On(groups),
            Err(why) => Symmetry::Unavailable(why),
        }
    }

    pub fn is_on(&self) -> bool {
        matches!(self, Symmetry::On(_))
    }
}

/// Whether a search left dead values out of its keys (the dead-values reduction), or why
/// not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeadValues {
    /// Used.
    On,
    /// Not asked for.
    Off,
    /// Asked for, but not applicable (the reason).
    Unavailable(String),
}

impl DeadValues {
    /// Decides for a search that asked for it when `asked` and prunes visited states when
    /// `prunes`.
    pub(crate) fn decide(asked: bool, prunes: bool) -> Self {
        match (asked, prunes) {
            (false, _) => DeadValues::Off,
            (true, false) => DeadValues::Unavailable(FOLLOWS_EVERY_ACTION.into()),
            (true, true) => DeadValues::On,
        }
    }

    pub fn is_on(&self) -> bool {
        *self == DeadValues::On
    }
}

impl fmt::Display for PartialOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartialOrder::On => f.write_str("on"),
            PartialOrder::Off => f.write_str("off"),
            PartialOrder::Unavailable(why) => write!(f, "not applicable: {why}"),
        }
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Symmetry::On(groups) => write!(f, "on: {groups}"),
            Symmetry::Off => f.write_str("off"),
            Symmetry::Unavailable(why) => write!(f, "not applicable: {why}"),
        }
    }
}

impl fmt::Display for DeadValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeadValues::On => f.write_str("on"),
            DeadValues::Off => f.write_str("off"),
            DeadValues::Unavailable(why) => write!(f, "not applicable: {why}"),
        }
    }
}
