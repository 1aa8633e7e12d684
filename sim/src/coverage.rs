//! Fault coverage: which rules of a model's fault envelope the explored runs used, and at
//! how many distinct instants of virtual time.
//!
//! The idea: a safe verdict over an envelope says something only about the faults the
//! search actually took. A model names its rules (`Model::fault_rules`) and says which of
//! them allow a fault action in a state (`Model::note_fault_rules`); each expansion keeps
//! the rules of the fault actions it expanded ([`RulesUsed`], the entry's instant with a bit
//! per rule), and the search unions them into a set of instants per rule
//! ([`FaultCoverage`]). A set union does not depend on the order of expansions, so the
//! coverage is the same on any number of threads, and walks and shards merge theirs by the
//! same union. It is kept only when [`crate::Options::fault_coverage`] asks for it: the
//! search then looks at every action it expands.

use std::collections::BTreeSet;

/// The rules one expansion used: the instant of the state expanded, and the rules (by index
/// into `Model::fault_rules`) of the fault actions it expanded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RulesUsed {
    instant_ms: u64,
    /// Rules 0 to 63, a bit each.
    low: u64,
    /// Rules from 64 on (most envelopes have fewer).
    more: Vec<u32>,
}

impl RulesUsed {
    /// Nothing used yet at `instant_ms`.
    pub(crate) fn at(instant_ms: u64) -> Self {
        RulesUsed {
            instant_ms,
            low: 0,
            more: Vec::new(),
        }
    }

    /// Notes that rule `rule` was used.
    pub fn note(&mut self, rule: usize) {
        if rule < 64 {
            self.low |= 1 << rule;
        } else {
            let rule = u32::try_from(rule).expect("fewer than 2^32 fault rules");
            if !self.more.contains(&rule) {
                self.more.push(rule);
            }
        }
    }

    /// Whether no rule was used.
    pub(crate) fn is_empty(&self) -> bool {
        self.low == 0 && self.more.is_empty()
    }

    /// The rules used, by index.
    fn rules(&self) -> impl Iterator<Item = usize> + '_ {
        let low = (0..64).filter(|&i| self.low & (1 << i) != 0);
        low.chain(self.more.iter().map(|&r| r as usize))
    }
}

/// One rule's coverage: its name, and at how many distinct instants a run used it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCoverage {
    pub rule: String,
    pub instants: u64,
    /// The earliest instant it was used at, in ms.
    pub first_ms: Option<u64>,
}

impl RuleCoverage {
    /// Whether any explored run used the rule.
    pub fn used(&self) -> bool {
        self.instants > 0
    }
}

/// For each rule of the envelope, the instants at which the explored runs used it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultCoverage {
    names: Vec<String>,
    instants: Vec<BTreeSet<u64>>,
}

impl FaultCoverage {
    /// No rule used yet, of the rules `names`.
    pub fn new(names: Vec<String>) -> Self {
        let instants = vec![BTreeSet::new(); names.len()];
        FaultCoverage { names, instants }
    }

    /// No rule used yet, of the rules of `other`.
    pub(crate) fn empty_like(other: &FaultCoverage) -> Self {
        FaultCoverage::new(other.names.clone())
    }

    /// Adds what one expansion used.
    pub(crate) fn note(&mut self, used: &RulesUsed) {
        if used.is_empty() {
            return;
        }
        for rule in used.rules() {
            self.instants[rule].insert(used.instant_ms);
        }
    }

    /// Adds `rule` used at `instant_ms` (a shard file read back).
    pub fn insert(&mut self, rule: usize, instant_ms: u64) {
        self.instants[rule].insert(instant_ms);
    }

    /// Adds what another search of the same model covered.
    pub fn merge(&mut self, other: &FaultCoverage) {
        assert_eq!(
            self.names, other.names,
            "internal bug: coverage of two envelopes merged"
        );
        for (mine, theirs) in self.instants.iter_mut().zip(&other.instants) {
            mine.extend(theirs.iter().copied());
        }
    }

    /// Each rule's coverage, in the model's order.
    pub fn rules(&self) -> Vec<RuleCoverage> {
        (self.names.iter().zip(&self.instants))
            .map(|(rule, at)| RuleCoverage {
                rule: rule.clone(),
                instants: at.len() as u64,
                first_ms: at.first().copied(),
            })
            .collect()
    }

    /// The instants at which rule `rule` was used, ascending.
    pub fn instants_of(&self, rule: usize) -> impl Iterator<Item = u64> + '_ {
        self.instants[rule].iter().copied()
    }

    /// The rules no explored run used.
    pub fn unused(&self) -> Vec<&str> {
        (self.names.iter().zip(&self.instants))
            .filter(|(_, at)| at.is_empty())
            .map(|(rule, _)| rule.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{FaultCoverage, RulesUsed};

    #[test]
    fn rules_past_the_first_64_are_kept_too() {
        let names: Vec<String> = (0..70).map(|i| format!("r{i}")).collect();
        let mut coverage = FaultCoverage::new(names);
        let mut used = RulesUsed::at(5);
        for rule in [0, 63, 64, 69, 69] {
            used.note(rule);
        }
        coverage.note(&used);
        coverage.note(&RulesUsed::at(9));
        let mut later = RulesUsed::at(7);
        later.note(69);
        coverage.note(&later);
        assert_eq!(coverage.instants_of(69).collect::<Vec<_>>(), [5, 7]);
        assert_eq!(coverage.instants_of(63).collect::<Vec<_>>(), [5]);
        assert_eq!(coverage.unused().len(), 70 - 4);
        let rules = coverage.rules();
        assert_eq!((rules[64].instants, rules[64].first_ms), (1, Some(5)));
    }

    #[test]
    fn merging_is_a_union_in_any_order() {
        let names = vec!["a".to_string(), "b".to_string()];
        let at = |t: u64, rule: usize| {
            let mut used = RulesUsed::at(t);
            used.note(rule);
            used
        };
        let (mut x, mut y) = (FaultCoverage::new(names.clone()), FaultCoverage::new(names));
        x.note(&at(1, 0));
        x.note(&at(3, 1));
        y.note(&at(3, 1));
        y.note(&at(2, 0));
        let mut xy = x.clone();
        xy.merge(&y);
        y.merge(&x);
        assert_eq!(xy, y);
        assert_eq!(xy.instants_of(0).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(xy.rules()[1].instants, 1);
    }
}
