//! Client-library profiles: a client's protocol table may name the library its code uses
//! instead of a protocol kind, `library = "redsync"`, `version = "4.13"`, and then stands
//! for the protocol that version implements, with that version's defaults; every other
//! field of the table overrides one default, by the protocol kind's field names
//! (`retry_ms = [50, 150]`, `ttl_ms = "10s"`), and a field of a sub-table overrides that
//! field alone (`attempt = { decide = "all_answers" }` keeps the profile's other rules).
//!
//! A profile is resolved when the table is read: the library's defaults written as the
//! protocol kind's table ([`ProtocolSpec::to_table`]), the overrides laid over it, the result
//! read as that kind, so an override is checked exactly as the same field of a `kind` table
//! is (an unknown field, a bad duration). The nodes are the scenario's, never the library's:
//! `nodes` (or `node`) must be given. Written back (`show --toml`), the table is the library,
//! the version and the overrides, as the user wrote them.
//!
//! The catalogue is [`super::catalogue`]: one entry per library and range of versions whose
//! behaviour is the same, each read from the library's source (its module doc cites the
//! files and the version).

use super::{catalogue, Profile};
use crate::scenario::ProtocolSpec;
use serde::{Serialize, Serializer};
use std::fmt;

/// A table's fields as read (any JSON or TOML value), in key order.
pub type Table = serde_json::Map<String, serde_json::Value>;

/// A library version: `major.minor[.patch]` (a missing part is 0 for ordering; a version
/// given as `major` alone matches every minor of that major).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u32,
    pub minor: Option<u32>,
    pub patch: Option<u32>,
}

impl Version {
    /// Reads `4`, `4.13`, `v4.13.0` or `5.0.0-beta.2` (a pre-release counts as its
    /// release).
    pub fn parse(text: &str) -> Result<Version, String> {
        let release = text.trim().trim_start_matches('v');
        let release = release.split_once('-').map_or(release, |(r, _)| r);
        let parts: Vec<&str> = release.split('.').collect();
        let number = |s: &str| {
            s.parse::<u32>().map_err(|_| {
                format!("`version`: `{text}` is not a version (write e.g. \"4\" or \"4.13\")")
            })
        };
        if parts.len() > 3 {
            return Err(format!(
                "`version`: `{text}` has more than three parts (major.minor.patch)"
            ));
        }
        Ok(Version {
            major: number(parts[0])?,
            minor: parts.get(1).map(|s| number(s)).transpose()?,
            patch: parts.get(2).map(|s| number(s)).transpose()?,
        })
    }

    /// The releases this version names: `4` is every 4.x.y, `4.13` every 4.13.y.
    pub fn releases(&self) -> ([u32; 3], [u32; 3]) {
        let first = [self.major, self.minor.unwrap_or(0), self.patch.unwrap_or(0)];
        let last = [
            self.major,
            self.minor.unwrap_or(u32::MAX),
            self.patch.unwrap_or(u32::MAX),
        ];
        (first, last)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.major)?;
        if let Some(minor) = self.minor {
            write!(f, ".{minor}")?;
        }
        if let Some(patch) = self.patch {
            write!(f, ".{patch}")?;
        }
        Ok(())
    }
}

/// A client library's version and the fields that override its defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct LibrarySpec {
    library: String,
    version: String,
    overrides: Table,
    /// The protocol kind the profile and the overrides make (computed when read).
    resolved: Box<ProtocolSpec>,
}

impl LibrarySpec {
    /// Reads a table that has a `library` field: the profile, then the overrides.
    pub(crate) fn from_table(mut table: Table) -> Result<LibrarySpec, String> {
        let library = text_field(&mut table, "library")?
            .ok_or("`library`: name the client library (e.g. \"redsync\")")?;
        let version = text_field(&mut table, "version")?.ok_or_else(|| {
            format!(
                "`version`: give the version of `{library}` the client runs ({})",
                versions_of(&library)
            )
        })?;
        if table.contains_key("kind") {
            return Err(format!(
                "`kind`: a profile (`library = \"{library}\"`) already says which protocol it is; remove `kind`"
            ));
        }
        let profile = find(&library, &version)?;
        if let Some((field, why)) = profile
            .required
            .iter()
            .find(|(field, _)| !table.contains_key(*field))
        {
            return Err(format!("`{field}`: {why}"));
        }
        let mut resolved = profile.defaults_table();
        overlay(&mut resolved, &table);
        let mut resolved = ProtocolSpec::from_table(resolved)
            .map_err(|e| format!("{e} (in `{library}` {version}'s profile)"))?;
        (profile.derive)(&mut resolved, &|field| table.contains_key(field));
        // Each override as the kind writes it (`"10s"` as 10000), so that two tables that
        // mean the same are equal; one the kind leaves out when it has the kind's default
        // stays as given (it is not the profile's default).
        let written = resolved.to_table();
        let overrides = table
            .into_iter()
            .map(|(k, v)| {
                // A sub-table stays as given: the kind writes it merged with the profile's.
                let v = match (&v, written.get(&k)) {
                    (serde_json::Value::Object(_), _) | (_, None) => v,
                    (_, Some(kind_written)) => kind_written.clone(),
                };
                (k, v)
            })
            .collect();
        Ok(LibrarySpec {
            library,
            version,
            overrides,
            resolved: Box::new(resolved),
        })
    }

    /// The protocol kind this library version and the overrides make.
    pub fn resolved(&self) -> &ProtocolSpec {
        &self.resolved
    }

    pub fn library(&self) -> &str {
        &self.library
    }

    pub fn version(&self) -> &str {
        &self.version
    }
}

impl ProtocolSpec {
    /// `library` at `version` with `overrides` (a JSON object of the kind's fields), for
    /// the built-in scenarios; panics if it does not read (every built-in is checked by
    /// the tests).
    pub fn library(library: &str, version: &str, overrides: serde_json::Value) -> ProtocolSpec {
        let serde_json::Value::Object(mut table) = overrides else {
            panic!("a profile's overrides are a JSON object, not {overrides}");
        };
        table.insert("library".into(), library.into());
        table.insert("version".into(), version.into());
        match LibrarySpec::from_table(table) {
            Ok(spec) => ProtocolSpec::Library(spec),
            Err(e) => panic!("{library} {version}: {e}"),
        }
    }
}

impl Serialize for LibrarySpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut table = Table::new();
        table.insert("library".into(), self.library.clone().into());
        table.insert("version".into(), self.version.clone().into());
        table.extend(self.overrides.clone());
        table.serialize(s)
    }
}

/// Lays `overrides` over `defaults`, field by field; a sub-table (`attempt`, `watchdog`)
/// given where the defaults have one is laid over it field by field too.
fn overlay(defaults: &mut Table, overrides: &Table) {
    for (field, value) in overrides {
        match (defaults.get_mut(field), value) {
            (Some(serde_json::Value::Object(under)), serde_json::Value::Object(over)) => {
                overlay(under, over)
            }
            _ => {
                defaults.insert(field.clone(), value.clone());
            }
        }
    }
}

/// A text field taken out of the table (`None` if absent).
fn text_field(table: &mut Table, name: &str) -> Result<Option<String>, String> {
    match table.remove(name) {
        None => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s)),
        // A bare number is a version written without quotes (`version = 4`).
        Some(serde_json::Value::Number(n)) if name == "version" => Ok(Some(n.to_string())),
        Some(other) => Err(format!("`{name}`: expected a string, found {other}")),
    }
}

/// The profile for `library` at `version`, or an error listing what there is.
fn find(library: &str, version: &str) -> Result<&'static Profile, String> {
    let entries: Vec<&Profile> = catalogue()
        .iter()
        .filter(|p| p.library == library)
        .collect();
    if entries.is_empty() {
        let known: Vec<&str> = library_names();
        return Err(format!(
            "`library`: no profile for `{library}` (profiles: {})",
            known.join(", ")
        ));
    }
    let v = Version::parse(version)?;
    let matching: Vec<&Profile> = entries.into_iter().filter(|p| p.covers(&v)).collect();
    match matching.as_slice() {
        [one] => Ok(one),
        [] => Err(format!(
            "`version`: `{library}` {version} has no profile ({})",
            versions_of(library)
        )),
        several => Err(format!(
            "`version`: `{library}` {version} is ambiguous: give the minor version ({})",
            several
                .iter()
                .map(|p| p.versions)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The libraries with a profile, each once, in catalogue order.
pub(crate) fn library_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for p in catalogue() {
        if !names.contains(&p.library) {
            names.push(p.library);
        }
    }
    names
}

/// "profiles for versions 4.0 to 4.x, ..." for an error message.
fn versions_of(library: &str) -> String {
    let ranges: Vec<&str> = catalogue()
        .iter()
        .filter(|p| p.library == library)
        .map(|p| p.versions)
        .collect();
    if ranges.is_empty() {
        format!("profiles: {}", library_names().join(", "))
    } else {
        format!("profiles for versions {}", ranges.join(", "))
    }
}
