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

use super::admit::Admitted;
use super::expand::{Fate, Prep, Successor, Which};
use super::search::{Flow, Search};
use crate::fingerprint::Fingerprint;
use crate::frontier::{Frontier, Pending};
use crate::model::{Model, Observes, Sight};
use crate::options::Options;

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
        successors: &[Successor<M::State>],
    ) -> bool {
        let model = self.model;
        self.observes.iter().all(|o| {
            let Some(observation) = &o.observation else {
                return true;
            };
            let mut before = None;
            successors.iter().all(|next| {
                let declared_visible = (o.visible)(model, &enabled[next.choice as usize]);
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
                    enabled[next.choice as usize]
                );
                unchanged
            })
        })
    }
}

impl<M: Model> Search<'_, M> {
    /// Marks `entry` expanded, under partial-order reduction. `own_key`, when given, is its
    /// key, prepared with its expansion.
    pub(super) fn mark_expanded(
        &mut self,
        entry: &Pending<M::State>,
        own_key: Option<Fingerprint>,
    ) {
        if self.expanded.is_none() {
            return;
        }
        let fp = own_key.unwrap_or_else(|| {
            let vt = self.model.virtual_time_ms(&entry.state);
            (self.keys).key(self.model, &entry.state, &entry.obligations, vt)
        });
        if let Some(expanded) = self.expanded.as_mut() {
            expanded.insert(fp);
        }
    }

    /// Whether the state with key `fp` had been expanded (partial-order reduction).
    pub(super) fn was_expanded(&self, fp: Fingerprint) -> bool {
        self.expanded.as_ref().is_some_and(|e| e.contains(fp))
    }

    /// Whether `entry`, just admitted, is settled at once (a transient state under
    /// partial-order reduction).
    pub(super) fn settles(&self, entry: &Pending<M::State>) -> bool {
        self.plan.partial_order.is_on() && self.model.is_transient(&entry.state)
    }

    /// After a reduced expansion of `entry`: the cycle proviso. When a reduced successor
    /// (or a state met settling one) had been expanded before, the postponed actions are
    /// expanded too.
    pub(super) fn after_reduced<F: Frontier<M>>(
        &mut self,
        entry: &Pending<M::State>,
        seen_any: bool,
        frontier: &mut F,
        options: &Options,
    ) -> Flow {
        self.stats.reduced_states += 1;
        if !seen_any {
            return Flow::Go;
        }
        self.stats.proviso_expansions += 1;
        let (mut enabled, mut subset) = (Vec::new(), Vec::new());
        self.model.actions(&entry.state, &mut enabled);
        let prep = self.prep();
        let reduced = prep.reduce(entry, &enabled, &mut subset);
        assert!(
            reduced,
            "internal bug: a persistent set must be chosen the same way twice"
        );
        let mut successors = Vec::new();
        let which = Which::Postponed(&subset);
        let postponed = prep.expand(entry, &enabled, which, &mut Vec::new(), &mut successors);
        if let Fate::Abandoned(stopped) = postponed.fate {
            return Flow::Stop(stopped.outcome());
        }
        self.stats.branching.add_expanded(&postponed.tally);
        self.note_coverage(&postponed);
        for next in &successors {
            self.visited.prefetch(next.key.into());
        }
        for next in successors {
            if let Flow::Stop(o) = self.admit_successor(entry, next, None, frontier, options) {
                return Flow::Stop(o);
            }
        }
        Flow::Go
    }

    /// Settles the transient state `first` at once: every state met is admitted, settled
    /// ones are pushed. Sets `last_seen` when any of them had been expanded before.
    pub(super) fn settle<F: Frontier<M>>(
        &mut self,
        first: Pending<M::State>,
        frontier: &mut F,
        options: &Options,
    ) -> Flow {
        let mut seen = false;
        let mut stack = std::mem::take(&mut self.settling);
        let (mut enabled, mut successors) = (Vec::new(), std::mem::take(&mut self.settled));
        stack.push(first);
        while let Some(entry) = stack.pop() {
            if !self.model.is_transient(&entry.state) {
                frontier.push(entry);
                continue;
            }
            if self.max_depth.is_some_and(|d| entry.depth >= d) {
                self.cuts.depth = true;
                self.stats.cut_off_states += 1;
                continue;
            }
            self.stats.settled_states += 1;
            self.mark_expanded(&entry, None);
            enabled.clear();
            self.model.actions(&entry.state, &mut enabled);
            let prep = self.prep();
            let settled = prep.expand(
                &entry,
                &enabled,
                Which::Every,
                &mut Vec::new(),
                &mut successors,
            );
            if let Fate::Abandoned(stopped) = settled.fate {
                return Flow::Stop(stopped.outcome());
            }
            self.stats.branching.add(&settled.tally);
            self.note_coverage(&settled);
            if settled.fate == Fate::Terminal {
                self.checker.at_terminal(&entry.obligations, &mut self.hits);
                if let Flow::Stop(o) = self.record_hits(entry.node, options) {
                    return Flow::Stop(o);
                }
                continue;
            }
            for next in successors.drain(..) {
                self.stats.transitions += 1;
                debug_assert_eq!(
                    next.vt,
                    self.model.virtual_time_ms(&entry.state),
                    "internal bug: settling a transient state moved time"
                );
                match self.admit(Some(&entry), next, None, frontier.prunes_visited(), options) {
                    Admitted::Stop(o) => return Flow::Stop(o),
                    Admitted::Seen => seen |= self.was_expanded(self.last_key.into()),
                    Admitted::New(next) => stack.push(next),
                }
            }
        }
        self.settling = stack;
        self.settled = successors;
        self.last_seen = seen;
        Flow::Go
    }
}
