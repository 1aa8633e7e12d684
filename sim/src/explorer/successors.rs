//! Successors of a frontier entry: computed (under a persistent subset when partial-order
//! reduction chooses one, with their fingerprints prefetched) and admitted one by one.

use super::{Admit, KeyMode, Options, Pending, Prepared, Search, Step, Successor};
use crate::branching::Tally;
use crate::frontier::Frontier;
use crate::model::Model;
use crate::property::Observes;

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
            next.fp.map(crate::fingerprint::Fingerprint::from),
            &mut obligations,
            prunes,
            options,
        ) {
            Admit::Stop(o) => return Step::Stop(o),
            Admit::Seen => {
                self.last_seen = self.was_expanded(self.last_fp);
                self.bury(next.state);
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

    /// What preparing an expansion reads, for this search.
    pub(super) fn prep(&self, options: &Options) -> Prep<'_, M> {
        Prep {
            model: self.model,
            observes: &self.observes,
            partial_order: self.partial_order.is_on(),
            keys: KeyMode::of(options),
        }
    }

    /// Prepares the expansion of `entry` under its `selected` actions (see
    /// [`Prep::prepare`]) and prefetches its successors' slots in the visited table.
    pub(super) fn prepare(
        &mut self,
        entry: &Pending<M::State>,
        enabled: &[M::Action],
        selected: &[usize],
        out: Vec<Successor<M::State>>,
        options: &Options,
    ) -> Prepared<M::State> {
        let mut subset = std::mem::take(&mut self.subset);
        let prepared = self
            .prep(options)
            .prepare(entry, enabled, selected, &mut subset, out);
        self.subset = subset;
        self.prefetch_prepared(&prepared);
        prepared
    }

    /// Starts loading the table slots `prepared` will touch: its successors' in the visited
    /// table and, under partial-order reduction, its own in the expanded set.
    pub(super) fn prefetch_prepared(&self, prepared: &Prepared<M::State>) {
        self.prefetch(&prepared.successors);
        if let (Some(key), Some(expanded)) = (prepared.own_key, &self.expanded) {
            expanded.prefetch(key.into());
        }
    }

    /// Starts loading the visited-table slots of `successors` into the cache.
    pub(super) fn prefetch(&self, successors: &[Successor<M::State>]) {
        for fp in successors.iter().filter_map(|s| s.fp) {
            self.visited.prefetch(fp.into());
        }
    }

    /// Appends the successors of `entry` under the `chosen` actions to `out`, their slots
    /// prefetched.
    pub(super) fn successors_into(
        &mut self,
        entry: &Pending<M::State>,
        enabled: &[M::Action],
        chosen: &[usize],
        tally: &mut Tally,
        out: &mut Vec<Successor<M::State>>,
        options: &Options,
    ) {
        let from = out.len();
        self.prep(options)
            .successors_into(entry, enabled, chosen, tally, out);
        self.prefetch(&out[from..]);
    }
}

/// What preparing an entry's expansion reads: the model, the properties' declarations and
/// how keys are made. An expansion prepared is a function of the entry alone, so entries can
/// be prepared on any thread and ahead of their turn (`lookahead`).
pub(super) struct Prep<'a, M: Model> {
    pub model: &'a M,
    pub observes: &'a [Observes<M>],
    pub partial_order: bool,
    pub keys: KeyMode,
}

impl<M: Model> Prep<'_, M> {
    /// Computes the successors of `entry` under its `selected` actions (or, under
    /// partial-order reduction, under a persistent subset of them) into `out`.
    ///
    /// Successors first. When no obligation rides on the path, a successor's fingerprint
    /// depends on the state alone: it is computed here (and the caller prefetches its slot
    /// in the visited table, so that the table's cache misses, which dominate exhaustive
    /// search of large spaces, overlap instead of coming one after another).
    pub(super) fn prepare(
        &self,
        entry: &Pending<M::State>,
        enabled: &[M::Action],
        selected: &[usize],
        subset: &mut Vec<usize>,
        mut out: Vec<Successor<M::State>>,
    ) -> Prepared<M::State> {
        let model = self.model;
        let mut tally = Tally::default();
        for action in enabled {
            tally.offer(model.choice_kind(action));
        }
        let mut reduced = selected.len() == enabled.len() && self.reduce(entry, enabled, subset);
        let chosen = if reduced { &subset[..] } else { selected };
        out.clear();
        self.successors_into(entry, enabled, chosen, &mut tally, &mut out);
        let mut visible = false;
        if reduced && !self.invisible_here(&entry.state, enabled, &out) {
            // An action of the subset changed what a property observes: expand fully.
            visible = true;
            let rest: Vec<usize> = (0..enabled.len())
                .filter(|i| subset.binary_search(i).is_err())
                .collect();
            self.successors_into(entry, enabled, &rest, &mut tally, &mut out);
            reduced = false;
        }
        let own_key = (self.partial_order && entry.obligations.is_none()).then(|| {
            let vt = model.virtual_time_ms(&entry.state);
            self.keys.key(model, &entry.state, &None, vt).into()
        });
        Prepared {
            node: entry.node,
            terminal: enabled.is_empty(),
            successors: out,
            tally,
            reduced,
            visible,
            own_key,
        }
    }

    /// Appends the successors of `entry` under the `chosen` actions to `out`.
    pub(super) fn successors_into(
        &self,
        entry: &Pending<M::State>,
        enabled: &[M::Action],
        chosen: &[usize],
        tally: &mut Tally,
        out: &mut Vec<Successor<M::State>>,
    ) {
        let model = self.model;
        let known_fp = entry.obligations.is_none();
        for &choice in chosen {
            tally.expand(model.choice_kind(&enabled[choice]));
            let Some(state) = model.next_state(&entry.state, &enabled[choice]) else {
                continue;
            };
            let vt = model.virtual_time_ms(&state);
            let fp = known_fp.then(|| self.keys.key(model, &state, &None, vt).into());
            out.push(Successor {
                state,
                vt,
                choice,
                fp,
            });
        }
    }
}
