//! Successors of a frontier entry: computed (under a persistent subset when partial-order
//! reduction chooses one, with their fingerprints prefetched) and admitted one by one.

use super::{Admit, Options, Pending, Prepared, Search, Step, Successor};
use crate::branching::Tally;
use crate::frontier::Frontier;
use crate::model::Model;

impl<M: Model> Search<'_, M> {
    /// Deduplicates one successor of `entry` and pushes it when new (settling it first when
    /// it is transient under partial-order reduction). `last_seen` tells whether it (or a
    /// state met while settling it) had been seen before.
    pub(super) fn admit_successor<F: Frontier<M>>(
        &mut self,
        entry: &Pending<M::State>,
        next: Successor<M::State>,
        frontier: &mut F,
        prunes: bool,
        options: &Options,
    ) -> Step {
        self.stats.transitions += 1;
        self.last_seen = false;
        let mut obligations = entry.obligations.clone();
        let node = match self.admit(
            &next.state,
            next.vt,
            Some(entry.node),
            next.choice,
            next.fp,
            &mut obligations,
            prunes,
            options,
        ) {
            Admit::Stop(o) => return Step::Stop(o),
            Admit::Seen => {
                self.last_seen = self.was_expanded(self.last_fp);
                return Step::Go;
            }
            Admit::New(node) => node,
        };
        let depth = entry.depth + 1;
        self.stats.max_depth = self.stats.max_depth.max(depth);
        self.stats.max_virtual_time_ms = self.stats.max_virtual_time_ms.max(next.vt);
        let next = Pending {
            state: next.state,
            node,
            depth,
            obligations,
        };
        if self.partial_order.is_on() && self.model.is_transient(&next.state) {
            return self.settle(next, frontier, options);
        }
        frontier.push(next);
        Step::Go
    }

    /// Computes the successors of `entry` under its `selected` actions (or, under
    /// partial-order reduction, under a persistent subset of them) into `out`.
    ///
    /// Successors first. When no obligation rides on the path, a successor's fingerprint
    /// depends on the state alone: it is computed here and its slot in the visited table is
    /// prefetched, so that the table's cache misses (which dominate exhaustive search of
    /// large spaces) overlap instead of coming one after another.
    pub(super) fn prepare(
        &mut self,
        entry: &Pending<M::State>,
        enabled: &[M::Action],
        selected: &[usize],
        mut out: Vec<Successor<M::State>>,
        options: &Options,
    ) -> Prepared<M::State> {
        let model = self.model;
        let mut tally = Tally::default();
        for action in enabled {
            tally.offer(model.choice_kind(action));
        }
        let mut subset = std::mem::take(&mut self.subset);
        let mut reduced =
            selected.len() == enabled.len() && self.reduce(entry, enabled, &mut subset);
        let chosen = if reduced { &subset[..] } else { selected };
        out.clear();
        self.successors_into(entry, enabled, chosen, &mut tally, &mut out, options);
        if reduced && !self.invisible_here(&entry.state, enabled, &out) {
            // An action of the subset changed what a property observes: expand fully.
            self.stats.visible_expansions += 1;
            let rest: Vec<usize> = (0..enabled.len())
                .filter(|i| subset.binary_search(i).is_err())
                .collect();
            self.successors_into(entry, enabled, &rest, &mut tally, &mut out, options);
            reduced = false;
        }
        self.subset = subset;
        Prepared {
            node: entry.node,
            terminal: enabled.is_empty(),
            successors: out,
            tally,
            reduced,
        }
    }

    /// Appends the successors of `entry` under the `chosen` actions to `out`.
    pub(super) fn successors_into(
        &mut self,
        entry: &Pending<M::State>,
        enabled: &[M::Action],
        chosen: &[usize],
        tally: &mut Tally,
        out: &mut Vec<Successor<M::State>>,
        options: &Options,
    ) {
        let model = self.model;
        let known_fp = entry.obligations.is_none();
        for &choice in chosen {
            tally.expand(model.choice_kind(&enabled[choice]));
            let Some(state) = model.next_state(&entry.state, &enabled[choice]) else {
                continue;
            };
            let vt = model.virtual_time_ms(&state);
            let fp = known_fp.then(|| {
                let fp = Self::fingerprint(model, &state, &None, vt, options);
                self.visited.prefetch(fp);
                fp
            });
            out.push(Successor {
                state,
                vt,
                choice,
                fp,
            });
        }
    }
}
