//! Admitting successors: the one function every search takes a newly reached state in with.
//!
//! Admitting a successor deduplicates it by its key, counts it among the states met,
//! evaluates the properties on it when it is new, records its path when it is new or a
//! property needs the path (a violation, a witness), and hands it back to be pushed. An
//! expansion is absorbed by admitting its successors in order, after the cycle proviso of
//! partial-order reduction where it applies. The batch engine decides newness for a whole
//! batch beforehand (its threads insert the keys of their shards in queue order) and passes
//! it in; everything else is this same code. When nothing is to be recorded, admitting a
//! new state comes down to [`place`]: its path-log node, depth and statistics, which the
//! batch engine's threads then do for their chunks.

use super::expand::{Expanded, Fate, Successor};
use super::search::{Cuts, Flow, Search};
use super::watch::admitted_between_looks;
use crate::frontier::{Frontier, Pending};
use crate::model::Model;
use crate::options::{Options, Stop};
use crate::report::{Limit, Outcome};
use crate::stats::Stats;

/// What became of an admitted state.
pub(super) enum Admitted<S> {
    /// New (or followed again by a walk): to be pushed.
    New(Pending<S>),
    /// Seen before: dropped (on a worker, with workers).
    Seen,
    Stop(Outcome),
}

/// The entry that `next`, a successor of `parent` (none: an initial state), becomes as the
/// path-log node `node`, with the statistics it changes.
pub(super) fn place<S>(
    stats: &mut Stats,
    parent: Option<&Pending<S>>,
    next: Successor<S>,
    node: u32,
) -> Pending<S> {
    let depth = parent.map_or(0, |p| p.depth + 1);
    if parent.is_some() {
        stats.max_depth = stats.max_depth.max(depth);
        stats.max_virtual_time_ms = stats.max_virtual_time_ms.max(next.vt);
    }
    Pending {
        state: next.state,
        node,
        depth,
        obligations: next.obligations,
    }
}

/// Counts the expansion of one entry that `expanded` describes; whether it was expanded
/// (not cut off by a bound).
pub(super) fn count_expansion(stats: &mut Stats, cuts: &mut Cuts, expanded: &Expanded) -> bool {
    stats.expanded_states += 1;
    match expanded.fate {
        Fate::CutByDepth | Fate::CutByTime => {
            cuts.depth |= expanded.fate == Fate::CutByDepth;
            cuts.time |= expanded.fate == Fate::CutByTime;
            stats.cut_off_states += 1;
            false
        }
        Fate::Terminal | Fate::Expanded => {
            stats.branching.add(&expanded.tally);
            true
        }
        Fate::Abandoned(_) => unreachable!("internal bug: an abandoned expansion counted"),
    }
}

impl<M: Model> Search<'_, M> {
    /// Admits `next`, reached from `parent` (none: an initial state). `known_new`, when
    /// given, says whether its key is new (the batch engine inserted it already); otherwise
    /// the visited set is asked. A search that does not prune visited states (`prunes`
    /// false: walks) keeps every state.
    #[inline(always)]
    pub(super) fn admit(
        &mut self,
        parent: Option<&Pending<M::State>>,
        next: Successor<M::State>,
        known_new: Option<bool>,
        prunes: bool,
        options: &Options,
    ) -> Admitted<M::State> {
        let checker = &self.checker;
        (self.hits).extend(next.hits().iter().filter(|&&(i, _)| checker.undecided(i)));
        self.last_key = next.key;
        let new = known_new.unwrap_or_else(|| self.visited.insert(next.key.into()));
        self.met.note(next.own_key(), new, &mut self.stats);
        if new && (options.limits.max_states).is_some_and(|m| self.admitted >= m) {
            // One state beyond the limit: it is neither evaluated nor counted.
            self.hits.clear();
            self.stats.unique_states = self.admitted;
            return Admitted::Stop(Outcome::LimitReached(Limit::States));
        }
        self.admitted += u64::from(new);
        let keep = new || !prunes;
        if keep {
            self.checker
                .evaluate(self.model, &next.state, &mut self.hits);
        } else if self.hits.is_empty() {
            self.bury(next.state);
            return Admitted::Seen;
        }
        let node = match parent {
            Some(parent) => self.log.push(parent.node, next.choice as usize),
            None => self.log.push_root(next.choice as usize),
        };
        if let Flow::Stop(o) = self.record_hits(node, options) {
            return Admitted::Stop(o);
        }
        if !keep {
            self.log.pop_unused(node);
            self.bury(next.state);
            return Admitted::Seen;
        }
        Admitted::New(place(&mut self.stats, parent, next, node))
    }

    /// Admits the initial states the frontier selects and pushes the new ones.
    pub(super) fn admit_roots<F: Frontier<M>>(
        &mut self,
        frontier: &mut F,
        options: &Options,
    ) -> Result<Flow, F::Error> {
        let inits = self.model.init_states();
        self.selected.clear();
        frontier.select_init(inits.len(), &mut self.selected)?;
        let prunes = frontier.prunes_visited();
        for i in std::mem::take(&mut self.selected) {
            let state = inits[i].clone();
            let obligations =
                (self.checker).initial_obligations(self.model.virtual_time_ms(&state));
            let root = self.prep().successor(&obligations, state, i);
            match self.admit(None, root, None, prunes, options) {
                Admitted::Stop(o) => return Ok(Flow::Stop(o)),
                Admitted::Seen => {}
                Admitted::New(entry) => frontier.push(entry),
            }
        }
        Ok(Flow::Go)
    }

    /// Admits what expanding `entry` gave: `expanded`, and its successors in order, each
    /// with its newness when `known_new` knows it (see [`Search::admit`]). Then, after a
    /// reduced expansion, the cycle proviso.
    pub(super) fn absorb<F: Frontier<M>>(
        &mut self,
        entry: &Pending<M::State>,
        expanded: &Expanded,
        successors: impl Iterator<Item = Successor<M::State>>,
        mut known_new: impl FnMut() -> Option<bool>,
        frontier: &mut F,
        options: &Options,
    ) -> Flow {
        if let Fate::Abandoned(stopped) = expanded.fate {
            self.stats.unique_states = self.admitted;
            return Flow::Stop(stopped.outcome());
        }
        if !count_expansion(&mut self.stats, &mut self.cuts, expanded) {
            return Flow::Go;
        }
        self.note_coverage(expanded);
        self.mark_expanded(entry, expanded.own_key.map(Into::into));
        self.stats.visible_expansions += u64::from(expanded.visible);
        if expanded.fate == Fate::Terminal {
            self.checker.at_terminal(&entry.obligations, &mut self.hits);
            return self.record_hits(entry.node, options);
        }
        let mut seen_any = false;
        let every = admitted_between_looks(self.checker.props.len());
        let mut until_look = every;
        for next in successors {
            let new = known_new();
            if let Flow::Stop(o) = self.admit_successor(entry, next, new, frontier, options) {
                return Flow::Stop(o);
            }
            seen_any |= self.last_seen;
            until_look -= 1;
            if until_look == 0 {
                until_look = every;
                if let Some(stopped) = self.watch.says_stop() {
                    self.stats.unique_states = self.admitted;
                    return Flow::Stop(stopped.outcome());
                }
            }
        }
        if expanded.reduced {
            if let Flow::Stop(o) = self.after_reduced(entry, seen_any, frontier, options) {
                return Flow::Stop(o);
            }
        }
        self.stats.unique_states = self.admitted;
        Flow::Go
    }

    /// Admits one successor of `entry` and pushes it when new (settling it first when it is
    /// transient under partial-order reduction). `last_seen` tells whether it (or a state
    /// met while settling it) had been expanded before.
    #[inline(always)]
    pub(super) fn admit_successor<F: Frontier<M>>(
        &mut self,
        entry: &Pending<M::State>,
        next: Successor<M::State>,
        known_new: Option<bool>,
        frontier: &mut F,
        options: &Options,
    ) -> Flow {
        self.stats.transitions += 1;
        self.last_seen = false;
        let prunes = frontier.prunes_visited();
        match self.admit(Some(entry), next, known_new, prunes, options) {
            Admitted::Stop(o) => Flow::Stop(o),
            Admitted::Seen => {
                self.last_seen = self.was_expanded(self.last_key.into());
                Flow::Go
            }
            Admitted::New(next) if self.settles(&next) => self.settle(next, frontier, options),
            Admitted::New(next) => {
                frontier.push(next);
                Flow::Go
            }
        }
    }

    /// Gives the properties in `hits` their verdicts with the path to `node`, if any; stops
    /// where the options say to.
    pub(super) fn record_hits(&mut self, node: u32, options: &Options) -> Flow {
        if self.hits.is_empty() {
            return Flow::Go;
        }
        let path = self.log.path_to(self.model, node, self.seed);
        let violated = self.checker.record(&mut self.hits, path);
        self.stats.unique_states = self.admitted;
        if violated && options.stops_at_first_violation() {
            return Flow::Stop(Outcome::StoppedAtViolation);
        }
        if options.stop == Stop::WhenAllSettled && self.checker.all_settled() {
            return Flow::Stop(Outcome::AllSettled);
        }
        Flow::Go
    }
}
