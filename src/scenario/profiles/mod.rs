//! Client-library profiles: the catalogue of libraries and versions a client's protocol
//! table may name (`library = "redsync"`, `version = "4.17"`) instead of a protocol kind,
//! and how such a table is read ([`LibrarySpec`]).
//!
//! A [`Profile`] is one library over a range of versions whose lock behaves the same: the
//! protocol kind and field values that reproduce it, the fields the library has no default
//! for, and the defaults that follow from another field (redsync's per-node timeout is a
//! share of the expiry). Each profile's module cites the source files and versions it was
//! read from, and says what the model leaves out.

mod library_spec;
mod node_redlock;
mod node_redlock_5;
mod redis_py;
mod redisson;
mod redsync;

pub use library_spec::{LibrarySpec, Table, Version};

use super::ProtocolSpec;

/// One library over a range of versions whose lock behaves the same.
pub struct Profile {
    /// The name a scenario gives (`library = "redsync"`).
    pub library: &'static str,
    /// The versions covered, as messages show them ("4.7.1 to 4.17").
    pub versions: &'static str,
    /// The first and the last release covered (major, minor, patch).
    pub first: [u32; 3],
    pub last: [u32; 3],
    /// What the model of this library is, in a line.
    pub summary: &'static str,
    /// Where its behaviour was read: the repository, the files and the tag (the
    /// profile's module doc gives the lines).
    pub source: &'static str,
    /// The protocol kind with this version's defaults (nodes left empty: the scenario
    /// gives them).
    pub defaults: fn() -> ProtocolSpec,
    /// Fields the library has no usable default for, each with the reason.
    pub required: &'static [(&'static str, &'static str)],
    /// Sets the defaults that follow from other fields, unless the table set them itself.
    pub derive: Derive,
}

/// Sets a profile's defaults that follow from other fields; `overridden(field)` says
/// whether the table set `field` itself.
pub(crate) type Derive = fn(&mut ProtocolSpec, overridden: &dyn Fn(&str) -> bool);

impl Profile {
    /// Whether `version` names a release this profile covers (`4` covers every 4.x).
    pub fn covers(&self, version: &Version) -> bool {
        let (first, last) = version.releases();
        first <= self.last && self.first <= last
    }

    /// The defaults as the protocol kind's fields, those that follow from others derived
    /// from the defaults themselves; without the nodes, which are the scenario's.
    pub fn resolved_defaults(&self) -> Table {
        let mut spec = (self.defaults)();
        (self.derive)(&mut spec, &|_| false);
        without_nodes(spec.to_table())
    }

    /// The defaults as the protocol kind's fields, before any derivation, without the
    /// nodes.
    pub(crate) fn defaults_table(&self) -> Table {
        without_nodes((self.defaults)().to_table())
    }
}

/// A protocol table without its nodes: a profile's are placeholders, not a default.
fn without_nodes(mut table: Table) -> Table {
    table.remove("nodes");
    table.remove("node");
    table
}

/// Every profile, in the order `lockcheck profiles` lists them.
pub fn catalogue() -> &'static [Profile] {
    &[
        redsync::V4,
        node_redlock::V4,
        node_redlock_5::V5,
        redis_py::V4_TO_8,
        redisson::V3_17,
        redisson::V3_44,
    ]
}

/// No field follows from another.
fn derives_nothing(_: &mut ProtocolSpec, _: &dyn Fn(&str) -> bool) {}
