//! The oracles a scenario can ask for: one [`OracleSpec`] variant per kind, and one
//! definition per kind ([`OracleSpec::definition`]) carrying its name, what a violation
//! means, and its property (whose expectation says whether it is a witness, `sometimes`).
//!
//! Adding an oracle is a variant and its arm in `definition`; the scenario builder, the
//! expected-verdict check and the command line's wording all read from there.

use super::duration;
use crate::oracles::{self, RedisWorld};
use crate::wait_for;
use lockcheck_sim::Property;
use serde::{Deserialize, Serialize};

/// An oracle to check.
///
/// Read through `strict::tagged` (below), which refuses a key the kind does not have (the
/// derived reader of a kind without fields would accept any).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    remote = "Self",
    tag = "kind",
    rename_all = "kebab-case",
    deny_unknown_fields
)]
pub enum OracleSpec {
    MeLock,
    MeResource,
    Liveness {
        #[serde(deserialize_with = "duration::ms")]
        bound_ms: u64,
    },
    /// Whenever a free lock is asked for, some client holds a lock within `bound_ms`.
    Progress {
        #[serde(deserialize_with = "duration::ms")]
        bound_ms: u64,
    },
    /// No client gives up acquiring (acquire timeout or attempt limit).
    NoGiveUp,
    /// First come, first served: no client that began waiting later gets the lock while one
    /// that began earlier still waits.
    Fifo,
    /// Every client that keeps asking for a lock gets it within `bound_ms`.
    NoStarvation {
        #[serde(deserialize_with = "duration::ms")]
        bound_ms: u64,
    },
    PauseWhileHolding,
    RenewalFailed,
    HolderCrashed,
    /// Witness: two clients did believe they held the same lock at once.
    LockOverlap,
    /// Witness: every client finished all its rounds without giving up.
    EveryClientDone,
    /// A detector reported a cycle the true wait-for graph does not have at report time.
    DetectorFalsePositive,
    /// A true deadlock lasted `bound_ms` without being reported.
    DetectorFalseNegative {
        #[serde(deserialize_with = "duration::ms")]
        bound_ms: u64,
    },
    /// A true deadlock was not gone within `bound_ms`.
    DeadlockLiveness {
        #[serde(deserialize_with = "duration::ms")]
        bound_ms: u64,
    },
    /// Witness: a deadlock formed.
    DeadlockFormed,
    /// Witness: a detector reported a cycle.
    DetectorReported,
}

impl Serialize for OracleSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        OracleSpec::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for OracleSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        super::strict::tagged(d, OracleSpec::deserialize, |o| {
            OracleSpec::serialize(o, serde_json::value::Serializer).unwrap_or_default()
        })
    }
}

/// One kind of oracle: its name as scenarios write it (`kind`), what a violation (or, for a
/// witness, its absence) means, and the property checked.
pub struct Oracle {
    pub name: &'static str,
    pub meaning: &'static str,
    pub property: Property<RedisWorld>,
}

impl Oracle {
    fn new(
        name: &'static str,
        meaning: &'static str,
        property: impl FnOnce(&'static str) -> Property<RedisWorld>,
    ) -> Self {
        Oracle {
            name,
            meaning,
            property: property(name),
        }
    }

    /// Whether this oracle is a witness (`sometimes`): the fault a scenario is about must
    /// matter, rather than something must never happen.
    pub fn is_witness(&self) -> bool {
        matches!(self.property.claim, lockcheck_sim::Claim::Sometimes(_))
    }
}

impl OracleSpec {
    /// Everything about this oracle, in one place.
    pub fn definition(&self) -> Oracle {
        use OracleSpec as O;
        match *self {
            O::MeLock => Oracle::new(
                "me-lock",
                "two clients believed they held the same lock at the same time",
                oracles::me_lock,
            ),
            O::MeResource => Oracle::new(
                "me-resource",
                "the protected account accepted a stale holder's write (lost update or duplicate debit)",
                oracles::me_resource,
            ),
            O::Liveness { bound_ms } => Oracle::new(
                "liveness",
                "a lock stayed unavailable longer than the bound after its holder crashed or was cut off",
                |n| oracles::liveness(n, bound_ms),
            ),
            O::Progress { bound_ms } => Oracle::new(
                "progress",
                "a lock stayed free while clients asked for it, and none held it within the bound (livelock, or every contender gave up)",
                |n| oracles::progress(n, bound_ms),
            ),
            O::NoGiveUp => Oracle::new(
                "no-give-up",
                "a client gave up acquiring a lock (its acquire timeout passed or its attempts ran out)",
                oracles::no_give_up,
            ),
            O::NoStarvation { bound_ms } => Oracle::new(
                "no-starvation",
                "a client kept asking for a lock and did not get it within the bound (starved by the others)",
                |n| oracles::no_starvation(n, bound_ms),
            ),
            O::Fifo => Oracle::new(
                "fifo",
                "a client got the lock while another that began waiting earlier was still waiting (not first come, first served)",
                oracles::first_come_first_served,
            ),
            O::PauseWhileHolding => Oracle::new(
                "pause-while-holding",
                "a pause overlapped a holding period",
                oracles::pause_while_holding,
            ),
            O::RenewalFailed => Oracle::new(
                "renewal-failed",
                "a watchdog's renewal failed",
                oracles::renewal_failure,
            ),
            O::HolderCrashed => Oracle::new(
                "holder-crashed",
                "a client crashed or was cut off while its lock was stored",
                oracles::holder_crashed,
            ),
            O::LockOverlap => Oracle::new(
                "lock-overlap",
                "two clients believed they held the same lock at once",
                oracles::lock_overlap,
            ),
            O::EveryClientDone => Oracle::new(
                "every-client-done",
                "no run in which every client held its locks and finished its rounds",
                oracles::every_client_done,
            ),
            O::DetectorFalsePositive
            | O::DetectorFalseNegative { .. }
            | O::DeadlockLiveness { .. }
            | O::DeadlockFormed
            | O::DetectorReported => self.detector_definition(),
        }
    }

    /// The definitions of the deadlock detector's oracles (`wait_for`).
    fn detector_definition(&self) -> Oracle {
        use OracleSpec as O;
        match *self {
            O::DetectorFalsePositive => Oracle::new(
                "detector-false-positive",
                "a detector reported a deadlock cycle that did not exist in the true wait-for graph at report time",
                wait_for::false_positive,
            ),
            O::DetectorFalseNegative { bound_ms } => Oracle::new(
                "detector-false-negative",
                "a real deadlock cycle persisted longer than the bound without being reported",
                |n| wait_for::false_negative(n, bound_ms),
            ),
            O::DeadlockLiveness { bound_ms } => Oracle::new(
                "deadlock-liveness",
                "a real deadlock was not resolved within the bound",
                |n| wait_for::deadlock_liveness(n, bound_ms),
            ),
            O::DeadlockFormed => Oracle::new(
                "deadlock-formed",
                "a deadlock formed",
                wait_for::deadlock_formed,
            ),
            O::DetectorReported => Oracle::new(
                "detector-reported",
                "a detector reported a cycle",
                wait_for::detector_reported,
            ),
            _ => unreachable!("only the detector's oracles are defined here"),
        }
    }

    /// The oracle's name, as scenarios and traces write it.
    pub fn name(&self) -> &'static str {
        self.definition().name
    }
}

impl super::Scenario {
    /// The definition of this scenario's oracle named `name`.
    pub fn oracle(&self, name: &str) -> Option<Oracle> {
        self.oracles
            .iter()
            .map(OracleSpec::definition)
            .find(|o| o.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One of every kind.
    fn every_kind() -> Vec<OracleSpec> {
        use OracleSpec as O;
        vec![
            O::MeLock,
            O::MeResource,
            O::Liveness { bound_ms: 5 },
            O::Progress { bound_ms: 5 },
            O::NoGiveUp,
            O::NoStarvation { bound_ms: 5 },
            O::PauseWhileHolding,
            O::RenewalFailed,
            O::HolderCrashed,
            O::LockOverlap,
            O::EveryClientDone,
            O::DetectorFalsePositive,
            O::DetectorFalseNegative { bound_ms: 5 },
            O::DeadlockLiveness { bound_ms: 5 },
            O::DeadlockFormed,
            O::DetectorReported,
        ]
    }

    #[test]
    fn the_name_is_the_kind_scenarios_write_and_the_property_checks() {
        for o in every_kind() {
            let form = serde_json::to_value(&o).unwrap();
            let d = o.definition();
            assert_eq!(form["kind"], d.name, "{o:?}");
            assert_eq!(d.property.name, d.name, "{o:?}");
            assert!(!d.meaning.is_empty());
        }
    }

    #[test]
    fn witnesses_are_the_sometimes_oracles() {
        let witnesses: Vec<&str> = every_kind()
            .iter()
            .map(OracleSpec::definition)
            .filter(Oracle::is_witness)
            .map(|d| d.name)
            .collect();
        assert_eq!(
            witnesses,
            [
                "pause-while-holding",
                "renewal-failed",
                "holder-crashed",
                "lock-overlap",
                "every-client-done",
                "deadlock-formed",
                "detector-reported"
            ]
        );
    }
}
