//! Partial-order reduction in the explorer: persistent subsets, the cycle proviso, and
//! transient states settled at once.
//!
//! The model chooses a persistent, invisible subset of a state's enabled actions
//! ([`Model::persistent_set`]); the explorer expands only that subset, unless the *cycle
//! proviso* requires more. The proviso guards against *ignoring*: a postponed action that
//! stays enabled around a cycle of reduced states would never be explored. Here a reduced
//! state is expanded fully when one of its reduced successors (or a state met while
//! settling one) had already been *expanded* (a state is marked expanded when its
//! expansion begins; transient states when they are settled).
//!
//! Why that suffices, for any frontier: transient states (a message waiting for its delay,
//! a timer for its duration) offer only those settling choices, so under reduction the
//! explorer settles each transient successor at once, as part of the expansion that made
//! it: every state met doing so is admitted (deduplicated, judged, logged) and every settled
//! one is pushed. Take a cycle of the reduced graph and the non-transient state `X` on it
//! whose expansion began last. The cycle leaves `X` by a reduced action, through transient
//! states settled then or earlier, to the next non-transient state `Y` on the cycle. Either
//! a transient state on the way had been settled before (already expanded), or all were
//! settled during `X`'s expansion and `Y` was met then; `Y`'s expansion began before `X`'s
//! (or `Y` is `X`). Either way `X` met an expanded state and was expanded fully. So every
//! cycle has a fully expanded state, which is the proviso the theory asks for. Asking
//! "expanded" rather than "seen" matters for breadth-first search: the many diamonds that
//! meet states still waiting in the queue do not force full expansions.
//!
//! Random walks and replay follow every action; reduction applies to exhaustive search.

use super::{Admit, Options, Pending, Prep, Search, Step};
use crate::branching::Tally;
use crate::frontier::Frontier;
use crate::model::Model;
use crate::property::{Observes, Property};
use std::fmt;

/// What the properties can see of one action, as the model's persistent sets need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sight {
    /// No property can see it.
    Hidden,
    /// A property may see it and declared an observation digest: the explorer checks, in
    /// each state, whether it really changes what the property observes.
    Checked,
    /// A property sees it.
    Visible,
}

/// Which reductions an exhaustive search may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reductions {
    /// Partial-order reduction (persistent sets with the cycle proviso).
    pub partial_order: bool,
    /// Symmetry reduction (states deduplicated as their class's representative).
    pub symmetry: bool,
    /// Value abstraction (values the model declares dead left out of the fingerprint).
    pub dead_values: bool,
}

impl Reductions {
    /// Every reduction the kernel has.
    pub fn all() -> Self {
        Reductions {
            partial_order: true,
            symmetry: true,
            dead_values: true,
        }
    }
    /// No reduction: the full state space.
    pub fn none() -> Self {
        Reductions {
            partial_order: false,
            symmetry: false,
            dead_values: false,
        }
    }
}

impl Default for Reductions {
    fn default() -> Self {
        Reductions::none()
    }
}

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
    /// Decides for a search of `props` with `frontier`.
    pub(crate) fn decide<M: Model, F: Frontier<M>>(
        props: &[Property<M>],
        reductions: &Reductions,
        frontier: &F,
    ) -> Self {
        if !reductions.partial_order {
            return PartialOrder::Off;
        }
        if !frontier.prunes_visited() {
            return PartialOrder::Unavailable("random walks and replay follow every action".into());
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

impl fmt::Display for PartialOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartialOrder::On => f.write_str("on"),
            PartialOrder::Off => f.write_str("off"),
            PartialOrder::Unavailable(why) => write!(f, "not applicable: {why}"),
        }
    }
}

/// What the properties' declarations say of `action`.
fn sight_of<M: Model>(model: &M, observes: &[Observes<M>], action: &M::Action) -> Sight {
    let mut sight = Sight::Hidden;
    for o in observes {
        if (o.visible)(model, action) {
            if o.observation.is_none() {
                return Sight::Visible;
            }
            sight = Sight::Checked;
        }
    }
    sight
}

impl<M: Model> Prep<'_, M> {
    /// Chooses a persistent subset of `enabled` for `entry` into `subset`, if reduction is
    /// on and the model offers one. States carrying obligations are expanded fully.
    pub(super) fn reduce(
        &self,
        entry: &Pending<M::State>,
        enabled: &[M::Action],
        subset: &mut Vec<usize>,
    ) -> bool {
        if !self.partial_order || entry.obligations.is_some() || enabled.len() < 2 {
            return false;
        }
        let model = self.model;
        let sight = |a: &M::Action| sight_of(model, self.observes, a);
        subset.clear();
        let reduced = model.persistent_set(&entry.state, enabled, &sight, subset);
        debug_assert!(
            !reduced
                || (!subset.is_empty()
                    && subset.len() < enabled.len()
                    && subset.windows(2).all(|w| w[0] < w[1])
                    && subset.iter().all(|&i| i < enabled.len())),
            "internal bug: a persistent set must be a proper, ascending, non-empty subset"
        );
        reduced
    }

    /// Whether every successor in `successors` (of `state`, under a persistent subset) left
    /// what each property observes unchanged; `Checked` actions are judged by the digests.
    pub(super) fn invisible_here(
        &self,
        state: &M::State,
        enabled: &[M::Action],
        successors: &[super::Successor<M::State>],
    ) -> bool {
        let model = self.model;
        self.observes.iter().all(|o| {
            let Some(observation) = &o.observation else {
                return true;
            };
            let mut before = None;
            successors.iter().all(|next| {
                let declared_visible = (o.visible)(model, &enabled[next.choice]);
                if !declared_visible && !cfg!(debug_assertions) {
                    return true;
                }
                let before = *before.get_or_insert_with(|| observation(model, state));
                let unchanged = observation(model, &next.state) == before;
                // Debug builds check the declaration itself: an action declared invisible
                // must not change what the property observes.
                assert!(
                    declared_visible || unchanged,
                    "internal bug: property {} declares {:?} invisible, but it changed what the property observes",
                    o.name,
                    enabled[next.choice]
                );
                unchanged
            })
        })
    }
}

impl<M: Model> Search<'_, M> {
    /// Marks `entry` (at virtual time `vt`) expanded, under partial-order reduction.
    /// `own_key`, when given, is its key, prepared with its expansion.
    pub(super) fn mark_expanded(
        &mut self,
        entry: &Pending<M::State>,
        vt: u64,
        own_key: Option<crate::fingerprint::Fingerprint>,
        options: &Options,
    ) {
        if self.expanded.is_none() {
            return;
        }
        let fp = own_key.unwrap_or_else(|| {
            Self::fingerprint(self.model, &entry.state, &entry.obligations, vt, options)
        });
        if let Some(expanded) = self.expanded.as_mut() {
            expanded.insert(fp);
        }
    }

    /// Whether the state with fingerprint `fp` had been expanded (partial-order reduction).
    pub(super) fn was_expanded(&self, fp: crate::fingerprint::Fingerprint) -> bool {
        self.expanded.as_ref().is_some_and(|e| e.contains(fp))
    }

    /// After a reduced expansion of `entry`: the cycle proviso. When a reduced successor
    /// (or a state met settling one) had been visited before, the postponed actions are
    /// expanded too.
    pub(super) fn after_reduced<F: Frontier<M>>(
        &mut self,
        entry: &Pending<M::State>,
        seen_any: bool,
        frontier: &mut F,
        options: &Options,
    ) -> Step {
        self.stats.reduced_states += 1;
        if !seen_any {
            return Step::Go;
        }
        self.stats.proviso_expansions += 1;
        let model = self.model;
        let mut enabled = Vec::new();
        model.actions(&entry.state, &mut enabled);
        let mut subset = Vec::new();
        let reduced = self.prep(options).reduce(entry, &enabled, &mut subset);
        assert!(
            reduced,
            "internal bug: a persistent set must be chosen the same way twice"
        );
        let postponed: Vec<usize> = (0..enabled.len())
            .filter(|i| subset.binary_search(i).is_err())
            .collect();
        let mut tally = Tally::default();
        let mut successors = Vec::new();
        self.successors_into(
            entry,
            &enabled,
            &postponed,
            &mut tally,
            &mut successors,
            options,
        );
        self.stats.branching.add_expanded(&tally);
        let prunes = frontier.prunes_visited();
        for next in successors {
            if let Step::Stop(o) = self.admit_successor(entry, next, frontier, prunes, options) {
                return Step::Stop(o);
            }
        }
        Step::Go
    }

    /// Settles the transient state `first` at once: every state met is admitted, settled
    /// ones are pushed. Sets `last_seen` when any of them had been seen before.
    pub(super) fn settle<F: Frontier<M>>(
        &mut self,
        first: Pending<M::State>,
        frontier: &mut F,
        options: &Options,
    ) -> Step {
        let model = self.model;
        let mut seen = false;
        let mut stack = std::mem::take(&mut self.settling);
        let mut enabled = Vec::new();
        stack.push(first);
        while let Some(entry) = stack.pop() {
            if !model.is_transient(&entry.state) {
                frontier.push(entry);
                continue;
            }
            if options.max_depth.is_some_and(|d| entry.depth >= d) {
                self.cut_by_depth = true;
                self.stats.cut_off_states += 1;
                continue;
            }
            self.stats.settled_states += 1;
            let vt = model.virtual_time_ms(&entry.state);
            self.mark_expanded(&entry, vt, None, options);
            enabled.clear();
            model.actions(&entry.state, &mut enabled);
            let mut tally = Tally::default();
            for action in &enabled {
                tally.offer(model.choice_kind(action));
                tally.expand(model.choice_kind(action));
            }
            self.stats.branching.add(&tally);
            if enabled.is_empty() {
                self.checker.at_terminal(&entry.obligations, &mut self.hits);
                if let Step::Stop(o) = self.record_hits(entry.node, options) {
                    return Step::Stop(o);
                }
                continue;
            }
            for (choice, action) in enabled.iter().enumerate() {
                let Some(state) = model.next_state(&entry.state, action) else {
                    continue;
                };
                self.stats.transitions += 1;
                let vt = model.virtual_time_ms(&state);
                let mut obligations = entry.obligations.clone();
                let prunes = frontier.prunes_visited();
                match self.admit(
                    &state,
                    vt,
                    Some(entry.node),
                    choice,
                    None,
                    &mut obligations,
                    prunes,
                    options,
                ) {
                    Admit::Stop(o) => return Step::Stop(o),
                    Admit::Seen => seen |= self.was_expanded(self.last_fp),
                    Admit::New(node) => {
                        let depth = entry.depth + 1;
                        self.stats.max_depth = self.stats.max_depth.max(depth);
                        stack.push(Pending {
                            state,
                            node,
                            depth,
                            obligations,
                        });
                    }
                }
            }
        }
        self.settling = stack;
        self.last_seen = seen;
        Step::Go
    }
}
