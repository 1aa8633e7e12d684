//! Property evaluation along the explorer's paths.
//!
//! `always` and `sometimes` look at one state. `leads_to_within` needs memory of the path:
//! each path carries one open deadline per such property, and per process for one that
//! keeps an obligation per process (absolute virtual ms, `CLOSED` when none), and the
//! explorer folds the *remaining* time of open deadlines into the state's fingerprint, so
//! two paths reaching the same state with different obligations stay apart. Moving a
//! path's obligations on reads no verdict ([`Obligations`]), so it is part of computing a
//! successor, on any thread; the verdicts decide which of the hits it finds still count.

use crate::fingerprint::{combine_parts, Fingerprint, FpHasher};
use crate::model::{Claim, Model, ProcessCondition, Property};
use crate::report::{Path, PropertyReport, Status};
use std::hash::Hasher;

/// No open obligation.
pub const CLOSED: u64 = u64::MAX;

/// Why the explorer must record a path now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    Violated,
    Witnessed,
}

/// Evaluates properties and keeps their verdicts.
pub struct Checker<M: Model> {
    pub props: Vec<Property<M>>,
    pub statuses: Vec<Status<M>>,
    /// The bounded-liveness obligations a path carries.
    pub obligations: Obligations<M>,
}

impl<M: Model> Checker<M> {
    pub fn new(props: Vec<Property<M>>) -> Self {
        let statuses = props
            .iter()
            .map(|p| match p.claim {
                Claim::Sometimes(_) => Status::NotWitnessed,
                _ => Status::Holds,
            })
            .collect();
        Checker {
            obligations: Obligations::new(&props),
            props,
            statuses,
        }
    }

    /// Obligations of a fresh run at virtual time `vt_ms`: `eventually_within` opens at once.
    pub fn initial_obligations(&self, vt_ms: u64) -> Option<Box<[u64]>> {
        self.obligations.initial(vt_ms)
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
    /// undecided ones that need a path now onto `hits`.
    pub fn evaluate(&self, model: &M, state: &M::State, hits: &mut Vec<(usize, Hit)>) {
        for (i, prop) in self.props.iter().enumerate() {
            match &prop.claim {
                Claim::Always(cond) => {
                    if self.undecided(i) && !cond(model, state) {
                        hits.push((i, Hit::Violated));
                    }
                }
                Claim::Sometimes(cond) => {
                    if self.undecided(i) && cond(model, state) {
                        hits.push((i, Hit::Witnessed));
                    }
                }
                Claim::LeadsToWithin { .. }
                | Claim::EachLeadsToWithin { .. }
                | Claim::InOrder { .. } => {}
            }
        }
    }

    /// A run ended with no enabled action: every open obligation of a property still
    /// undecided is violated (see [`Obligations::at_terminal`]).
    pub fn at_terminal(&self, obligations: &Option<Box<[u64]>>, hits: &mut Vec<(usize, Hit)>) {
        let mut open = Vec::new();
        self.obligations.at_terminal(obligations, &mut open);
        hits.extend(open.into_iter().filter(|&(i, _)| self.undecided(i)));
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

    /// The verdicts, one per property in order.
    pub fn into_verdicts(self) -> Vec<PropertyReport<M>> {
        (self.props.iter())
            .zip(self.statuses)
            .map(|(p, status)| PropertyReport {
                name: p.name.clone(),
                kind: p.kind(),
                status,
            })
            .collect()
    }

    /// Folds open obligations (as time remaining) into a state's fingerprint. Call it after
    /// [`Obligations::update`], so that every open deadline lies at or after `vt_ms` (asserted:
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

/// The bounded-liveness obligations of a model's properties: one slot per
/// `leads_to_within` property, one per process for a per-process one. A path carries one
/// deadline per slot. Moving them on is a function of the path and the state alone (it
/// reads no verdict), so any thread may do it; hits it finds are filtered by the verdicts
/// when they are admitted (a hit counts only for a property still undecided).
pub struct Obligations<M: Model> {
    /// Per slot: the property (index into the properties), the process it is about (0 for
    /// a property of the whole state), and the property's claim.
    slots: Vec<(usize, usize, Claim<M>)>,
}

impl<M: Model> Obligations<M> {
    /// The slots of `props`.
    pub fn new(props: &[Property<M>]) -> Self {
        let slots = props
            .iter()
            .enumerate()
            .flat_map(|(i, p)| {
                let parts = match p.claim {
                    Claim::LeadsToWithin { .. } => 1,
                    Claim::EachLeadsToWithin { processes, .. }
                    | Claim::InOrder { processes, .. } => processes,
                    _ => 0,
                };
                (0..parts).map(move |part| (i, part, p.claim.clone()))
            })
            .collect();
        Obligations { slots }
    }

    /// Obligations of a fresh run at virtual time `vt_ms`: `eventually_within` opens at once.
    pub fn initial(&self, vt_ms: u64) -> Option<Box<[u64]>> {
        if self.slots.is_empty() {
            return None;
        }
        let obligations = self.slots.iter().map(|(_, _, claim)| match claim {
            Claim::LeadsToWithin {
                trigger: None,
                bound_ms,
                ..
            } => vt_ms.saturating_add(*bound_ms),
            _ => CLOSED,
        });
        Some(obligations.collect())
    }

    /// Moves the path's obligations on to `state` at `vt_ms`: a deadline that passed is a
    /// violation (pushed onto `hits`), a response closes an obligation, a trigger opens one.
    /// Must run before the state's fingerprint is taken.
    pub fn update(
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
        debug_assert_eq!(deadlines.len(), self.slots.len(), "one deadline per slot");
        for (k, (i, part, claim)) in self.slots.iter().enumerate() {
            if let Claim::InOrder { waiting, wins, .. } = claim {
                let turn = Turn {
                    slot: k,
                    property: *i,
                    process: *part,
                };
                self.update_in_order(
                    turn,
                    (waiting, wins),
                    (model, state, vt_ms),
                    deadlines,
                    hits,
                );
                continue;
            }
            let slot = Slot::of(claim, *part);
            if deadlines[k] != CLOSED {
                if vt_ms > deadlines[k] {
                    deadlines[k] = CLOSED;
                    hits.push((*i, Hit::Violated));
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

    /// One process's first-come-first-served obligation moved on to `state`: opened, stamped
    /// [`IN_ORDER_HORIZON_MS`] after the instant it begins waiting (so that stamps compare
    /// as those instants do); closed when it stops waiting, a violation if it won while a
    /// process that began waiting earlier is still waiting.
    fn update_in_order(
        &self,
        turn: Turn,
        (waiting, wins): (&ProcessCondition<M>, &ProcessCondition<M>),
        (model, state, vt_ms): (&M, &M::State, u64),
        deadlines: &mut [u64],
        hits: &mut Vec<(usize, Hit)>,
    ) {
        let k = turn.slot;
        let waits = waiting(model, state, turn.process);
        if deadlines[k] == CLOSED {
            if waits {
                deadlines[k] = vt_ms.saturating_add(IN_ORDER_HORIZON_MS);
            }
            return;
        }
        if waits {
            return;
        }
        if wins(model, state, turn.process) {
            let began = deadlines[k];
            let overtaken = self.slots.iter().enumerate().any(|(j, (i, process, _))| {
                j != k
                    && *i == turn.property
                    && deadlines[j] != CLOSED
                    && deadlines[j] < began
                    && waiting(model, state, *process)
            });
            if overtaken {
                hits.push((turn.property, Hit::Violated));
            }
        }
        deadlines[k] = CLOSED;
    }

    /// A run ended in a state with no enabled action: every open obligation is violated
    /// (first-come-first-served ones have no bound, and are not).
    pub fn at_terminal(&self, obligations: &Option<Box<[u64]>>, hits: &mut Vec<(usize, Hit)>) {
        let Some(deadlines) = obligations else { return };
        for (k, (i, _, claim)) in self.slots.iter().enumerate() {
            if deadlines[k] != CLOSED && !matches!(claim, Claim::InOrder { .. }) {
                hits.push((*i, Hit::Violated));
            }
        }
    }
}

/// How far ahead of the instant a process begins waiting its first-come-first-served stamp
/// lies: beyond any run (2^50 ms is some 35,000 years), so that it stays an open deadline
/// while stamps compare as the instants do.
const IN_ORDER_HORIZON_MS: u64 = 1 << 50;

/// Which slot, property and process a first-come-first-served update is about.
struct Turn {
    slot: usize,
    property: usize,
    process: usize,
}

/// One obligation slot's predicates: a `leads_to_within` property's, or one process's part
/// of a per-process one.
struct Slot<'p, M: Model> {
    claim: &'p Claim<M>,
    part: usize,
    bound_ms: u64,
}

impl<'p, M: Model> Slot<'p, M> {
    fn of(claim: &'p Claim<M>, part: usize) -> Self {
        let bound_ms = match claim {
            Claim::LeadsToWithin { bound_ms, .. } | Claim::EachLeadsToWithin { bound_ms, .. } => {
                *bound_ms
            }
            _ => unreachable!("obligation slots belong to leads-to properties"),
        };
        Slot {
            claim,
            part,
            bound_ms,
        }
    }

    /// Whether the slot opens here (never for `eventually_within`, open from the start).
    fn triggers(&self, model: &M, state: &M::State) -> bool {
        match self.claim {
            Claim::LeadsToWithin { trigger, .. } => {
                trigger.as_ref().is_some_and(|t| t(model, state))
            }
            Claim::EachLeadsToWithin { trigger, .. } => trigger(model, state, self.part),
            _ => unreachable!("obligation slots belong to leads-to properties"),
        }
    }

    /// Whether the slot's response holds here.
    fn responds(&self, model: &M, state: &M::State) -> bool {
        match self.claim {
            Claim::LeadsToWithin { response, .. } => response(model, state),
            Claim::EachLeadsToWithin { response, .. } => response(model, state, self.part),
            _ => unreachable!("obligation slots belong to leads-to properties"),
        }
    }
}
