//! Property evaluation along the explorer's paths.
//!
//! `always` and `sometimes` look at one state. `leads_to_within` needs memory of the path:
//! each path carries one open deadline per such property (absolute virtual ms, `CLOSED` when
//! none), and the explorer folds the *remaining* time of open deadlines into the state's
//! fingerprint, so two paths reaching the same state with different obligations stay apart.

use crate::fingerprint::{combine_parts, Fingerprint, FpHasher};
use crate::model::Model;
use crate::property::{Expectation, Property};
use crate::report::{Path, Status};
use std::hash::Hasher;

/// No open obligation.
pub const CLOSED: u64 = u64::MAX;

/// Why the explorer must record a path now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    Violated,
    Witnessed,
}

/// Which of the model's properties a search evaluates and reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Judged {
    /// Every property (searches, walks, replay).
    #[default]
    All,
    /// Only the property of this name (the shrinker follows one violation).
    Only(String),
    /// None (scripted runs, which only want the path).
    Nothing,
    /// Every property but these, settled already (later walks of a parallel search).
    AllBut(Vec<String>),
}

impl Judged {
    pub(crate) fn select<M: Model>(&self, mut properties: Vec<Property<M>>) -> Vec<Property<M>> {
        match self {
            Judged::All => {}
            Judged::Only(name) => properties.retain(|p| p.name == *name),
            Judged::Nothing => properties.clear(),
            Judged::AllBut(settled) => properties.retain(|p| !settled.contains(&p.name)),
        }
        properties
    }
}

/// Evaluates properties and keeps their verdicts.
pub struct Checker<M: Model> {
    pub props: Vec<Property<M>>,
    pub statuses: Vec<Status<M>>,
    /// Per obligation slot: the `leads_to_within` property (index into `props`) and the
    /// process it is about (0 for a property of the whole state).
    within: Vec<(usize, usize)>,
}

impl<M: Model> Checker<M> {
    pub fn new(props: Vec<Property<M>>) -> Self {
        let statuses = props
            .iter()
            .map(|p| match p.expectation {
                Expectation::Sometimes(_) => Status::NotWitnessed,
                _ => Status::Holds,
            })
            .collect();
        let within = props
            .iter()
            .enumerate()
            .flat_map(|(i, p)| {
                let slots = match p.expectation {
                    Expectation::LeadsToWithin { .. } => 1,
                    Expectation::EachLeadsToWithin { processes, .. } => processes,
                    _ => 0,
                };
                (0..slots).map(move |part| (i, part))
            })
            .collect();
        Checker {
            props,
            statuses,
            within,
        }
    }

    /// Obligations of a fresh run at virtual time `vt_ms`: `eventually_within` opens at once.
    pub fn initial_obligations(&self, vt_ms: u64) -> Option<Box<[u64]>> {
        if self.within.is_empty() {
            return None;
        }
        let obligations = self
            .within
            .iter()
            .map(|&(i, _)| match &self.props[i].expectation {
                Expectation::LeadsToWithin {
                    trigger: None,
                    bound_ms,
                    ..
                } => vt_ms.saturating_add(*bound_ms),
                _ => CLOSED,
            });
        Some(obligations.collect())
    }

    /// Whether property `i` still needs a path (violations and witnesses keep the first).
    pub fn undecided(&self, i: usize) -> bool {
        matches!(self.statuses[i], Status::Holds | Status::NotWitnessed)
    }

    /// Whether every property is settled: violated, or (a `sometimes`) witnessed.
    pub fn all_settled(&self) -> bool {
        (0..self.statuses.len()).all(|i| !self.undecided(i))
    }

    /// Evaluates the single-state properties (`always`, `sometimes`) in `state`; pushes the
    /// ones that need a path now onto `hits`.
    pub fn evaluate(&self, model: &M, state: &M::State, hits: &mut Vec<(usize, Hit)>) {
        for (i, prop) in self.props.iter().enumerate() {
            match &prop.expectation {
                Expectation::Always(cond) => {
                    if self.undecided(i) && !cond(model, state) {
                        hits.push((i, Hit::Violated));
                    }
                }
                Expectation::Sometimes(cond) => {
                    if self.undecided(i) && cond(model, state) {
                        hits.push((i, Hit::Witnessed));
                    }
                }
                Expectation::LeadsToWithin { .. } | Expectation::EachLeadsToWithin { .. } => {}
            }
        }
    }

    /// Moves the path's `leads_to_within` obligations on to `state` at `vt_ms`: a deadline
    /// that passed is a violation (pushed onto `hits`), a response closes an obligation, a
    /// trigger opens one. Must run before the state's fingerprint is taken.
    pub fn update_obligations(
        &self,
        model: &M,
        state: &M::State,
        vt_ms: u64,
        obligations: &mut Option<Box<[u64]>>,
        hits: &mut Vec<(usize, Hit)>,
    ) {
        let Some(deadlines) = obligations.as_mut() else {
            return;
        };
        for (k, &(i, part)) in self.within.iter().enumerate() {
            let slot = Slot::of(&self.props[i].expectation, part);
            if deadlines[k] != CLOSED {
                if vt_ms > deadlines[k] {
                    deadlines[k] = CLOSED;
                    if self.undecided(i) {
                        hits.push((i, Hit::Violated));
                    }
                    continue;
                }
                if slot.responds(model, state) {
                    deadlines[k] = CLOSED;
                }
            }
            if deadlines[k] == CLOSED && slot.triggers(model, state) && !slot.responds(model, state)
            {
                deadlines[k] = vt_ms.saturating_add(slot.bound_ms);
            }
        }
    }

    /// Gives each property in `hits` (drained) its verdict with `path`; returns whether one
    /// of them was violated.
    pub fn record(&mut self, hits: &mut Vec<(usize, Hit)>, path: Path<M>) -> bool {
        let mut violated = false;
        for (i, hit) in hits.drain(..) {
            self.statuses[i] = match hit {
                Hit::Violated => {
                    violated = true;
                    Status::Violated(path.clone())
                }
                Hit::Witnessed => Status::Witnessed(path.clone()),
            };
        }
        violated
    }

    /// A run ended in `state` with no enabled action: every open obligation is violated.
    pub fn at_terminal(&self, obligations: &Option<Box<[u64]>>, hits: &mut Vec<(usize, Hit)>) {
        let Some(deadlines) = obligations else { return };
        for (k, &(i, _)) in self.within.iter().enumerate() {
            if deadlines[k] != CLOSED && self.undecided(i) {
                hits.push((i, Hit::Violated));
            }
        }
    }

    /// Folds open obligations (as time remaining) into a state's fingerprint. Call it after
    /// `update_obligations`, so that every open deadline lies at or after `vt_ms` (asserted:
    /// an earlier one would be an obligation that should have fired).
    pub fn fold(fp: Fingerprint, obligations: &Option<Box<[u64]>>, vt_ms: u64) -> Fingerprint {
        match obligations {
            None => fp,
            Some(deadlines) => {
                let mut h = FpHasher::new();
                for &d in deadlines.iter() {
                    assert!(
                        d == CLOSED || d >= vt_ms,
                        "internal bug: an obligation due at {d} ms is still open at {vt_ms} ms"
                    );
                    h.write_u64(if d == CLOSED { CLOSED } else { d - vt_ms });
                }
                combine_parts(fp, h.finish_wide())
            }
        }
    }
}

/// One obligation slot's predicates: a `leads_to_within` property's, or one process's part
/// of a per-process one.
struct Slot<'p, M: Model> {
    expectation: &'p Expectation<M>,
    part: usize,
    bound_ms: u64,
}

impl<'p, M: Model> Slot<'p, M> {
    fn of(expectation: &'p Expectation<M>, part: usize) -> Self {
        let bound_ms = match expectation {
            Expectation::LeadsToWithin { bound_ms, .. }
            | Expectation::EachLeadsToWithin { bound_ms, .. } => *bound_ms,
            _ => unreachable!("obligation slots belong to leads-to properties"),
        };
        Slot {
            expectation,
            part,
            bound_ms,
        }
    }

    /// Whether the slot opens here (never for `eventually_within`, open from the start).
    fn triggers(&self, model: &M, state: &M::State) -> bool {
        match self.expectation {
            Expectation::LeadsToWithin { trigger, .. } => {
                trigger.as_ref().is_some_and(|t| t(model, state))
            }
            Expectation::EachLeadsToWithin { trigger, .. } => trigger(model, state, self.part),
            _ => unreachable!("obligation slots belong to leads-to properties"),
        }
    }

    /// Whether the slot's response holds here.
    fn responds(&self, model: &M, state: &M::State) -> bool {
        match self.expectation {
            Expectation::LeadsToWithin { response, .. } => response(model, state),
            Expectation::EachLeadsToWithin { response, .. } => response(model, state, self.part),
            _ => unreachable!("obligation slots belong to leads-to properties"),
        }
    }
}
