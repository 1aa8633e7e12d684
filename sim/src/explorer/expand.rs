//! Expanding an entry: the one function every search computes successors with.
//!
//! The idea: what an entry's expansion gives (whether a bound cuts it off, its enabled
//! actions, the persistent subset partial-order reduction chooses, each successor with the
//! path's obligations moved on to it and its deduplication key) is a function of the entry
//! alone: it reads the model, the properties' declarations and how keys are made, and
//! nothing the search has done. So any thread may compute it, ahead of its turn: the core
//! loop computes it as it goes (and the next entry's early, so that their memory accesses
//! overlap), the lookahead engine's workers a few batches ahead, the batch engine's threads
//! a chunk of the queue each. What the search does with an expansion (deduplication,
//! verdicts, the path log) is the admission's (`explorer::admit`), also one function.

use super::key::KeyMode;
use super::watch::{Stopped, Watch, EVERY};
use crate::branching::Tally;
use crate::checker::{Hit, Obligations};
use crate::coverage::RulesUsed;
use crate::fingerprint::{Fingerprint, Lanes};
use crate::frontier::Pending;
use crate::model::{Model, Observes};

/// What preparing an entry's expansion reads: the model, the properties' declarations, the
/// bounds that cut an entry off, and how keys are made. A copy any thread may hold.
pub(super) struct Prep<'a, M: Model> {
    pub model: &'a M,
    pub observes: &'a [Observes<M>],
    pub obligations: &'a Obligations<M>,
    pub partial_order: bool,
    pub keys: KeyMode,
    pub max_depth: Option<u32>,
    /// What to look at while computing many successors.
    pub watch: &'a Watch,
    /// Whether to note the fault rules the expanded actions use (`crate::coverage`).
    pub coverage: bool,
}

/// Which of an entry's enabled actions to expand.
#[derive(Clone, Copy)]
pub(super) enum Which<'a> {
    /// All of them, or under partial-order reduction a persistent subset.
    All,
    /// All of them, never a subset (a transient state being settled).
    Every,
    /// These, chosen by the frontier (walks, replay).
    Chosen(&'a [usize]),
    /// Those outside this persistent subset (the cycle proviso asked for them).
    Postponed(&'a [usize]),
}

/// What became of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fate {
    /// Not expanded: at the depth bound.
    CutByDepth,
    /// Not expanded: past the virtual-time bound.
    CutByTime,
    /// No enabled action.
    Terminal,
    /// Expanded.
    Expanded,
    /// Abandoned while its successors were computed: the search ends so (an interrupt, the
    /// time or the memory limit; see `explorer::watch`).
    Abandoned(Stopped),
}

/// An entry's expansion, but for its successors (which go to a buffer of the caller's).
pub(super) struct Expanded {
    pub fate: Fate,
    /// What it offered and what of it is expanded, by kind of choice.
    pub tally: Tally,
    /// Whether a persistent subset was chosen (the rest postponed).
    pub reduced: bool,
    /// Whether a subset was chosen but changed what a property observes (expanded fully).
    pub visible: bool,
    /// The entry's own key, when partial-order reduction will mark it expanded.
    pub own_key: Option<Lanes>,
    /// The fault rules its expanded actions used, when the search keeps coverage and they
    /// used any (boxed: most expansions have none, and an expansion is moved about).
    pub used: Option<Box<RulesUsed>>,
}

impl Expanded {
    /// The expansion of an entry that is not expanded (`fate`: cut off by a bound, or
    /// abandoned).
    pub(super) fn unexpanded(fate: Fate) -> Self {
        Expanded {
            fate,
            tally: Tally::default(),
            reduced: false,
            visible: false,
            own_key: None,
            used: None,
        }
    }
}

/// An entry's expansion with its successors, prepared before the entry's turn (or now).
pub(super) struct Prepared<S> {
    /// The entry's path-log node, unique among pending entries.
    pub node: u32,
    pub expanded: Expanded,
    pub successors: Vec<Successor<S>>,
}

/// What one expansion counts as it goes: the actions offered and expanded by kind, and the
/// fault rules its expanded actions used.
struct Counts {
    tally: Tally,
    used: RulesUsed,
}

/// Reusable buffers for expanding entries.
pub(super) struct Scratch<A> {
    pub enabled: Vec<A>,
    pub subset: Vec<usize>,
}

impl<A> Default for Scratch<A> {
    fn default() -> Self {
        Scratch {
            enabled: Vec::new(),
            subset: Vec::new(),
        }
    }
}

/// A successor, ready to be admitted.
pub(super) struct Successor<S> {
    pub state: S,
    pub vt: u64,
    /// Index of the action among the parent's enabled actions.
    pub choice: u32,
    /// The path's obligations moved on to this state (`None`: the model has none).
    pub obligations: Option<Box<[u64]>>,
    /// The key it is deduplicated by.
    pub key: Lanes,
    /// What few successors have: boxed, so that the others need one word for it.
    rare: Option<Box<Rare>>,
}

/// The parts of a successor only some have.
struct Rare {
    /// The key of the state itself, where the search counts the states it met (under
    /// symmetry, or under the dead-values reduction for a state holding dead values).
    own_key: Option<Fingerprint>,
    /// Hits found moving the obligations on (not yet filtered by the verdicts).
    hits: Vec<(usize, Hit)>,
}

impl<S> Successor<S> {
    /// The key of the state itself, where the search counts the states it met.
    pub fn own_key(&self) -> Option<Fingerprint> {
        self.rare.as_ref().and_then(|r| r.own_key)
    }

    /// Hits found moving the obligations on.
    pub fn hits(&self) -> &[(usize, Hit)] {
        self.rare.as_ref().map_or(&[], |r| &r.hits)
    }
}

impl<M: Model> Prep<'_, M> {
    /// Whether a bound cuts `entry` off instead of expanding it.
    pub(super) fn cut(&self, entry: &Pending<M::State>) -> Option<Fate> {
        if self.max_depth.is_some_and(|d| entry.depth >= d) {
            return Some(Fate::CutByDepth);
        }
        let vt = self.model.virtual_time_ms(&entry.state);
        (self.keys.bound_ms().is_some_and(|t| vt > t)).then_some(Fate::CutByTime)
    }

    /// Expands `entry` under all its actions (under partial-order reduction, a persistent
    /// subset of them) unless a bound cuts it off, appending its successors to `out`.
    pub(super) fn expand_all(
        &self,
        entry: &Pending<M::State>,
        scratch: &mut Scratch<M::Action>,
        out: &mut Vec<Successor<M::State>>,
    ) -> Expanded {
        if let Some(fate) = self.cut(entry) {
            return Expanded::unexpanded(fate);
        }
        scratch.enabled.clear();
        self.model.actions(&entry.state, &mut scratch.enabled);
        self.expand(
            entry,
            &scratch.enabled,
            Which::All,
            &mut scratch.subset,
            out,
        )
    }

    /// [`Prep::expand_all`] on a thread that expands entries in a row for the search (a
    /// batch): unless the watch says stop first, then the entry is abandoned so. An entry
    /// may take long (a state with a hundred thousand locks), so a batch of them looks at
    /// its limits between any two.
    pub(super) fn expand_all_watched(
        &self,
        entry: &Pending<M::State>,
        scratch: &mut Scratch<M::Action>,
        out: &mut Vec<Successor<M::State>>,
    ) -> Expanded {
        match self.watch.says_stop() {
            Some(stopped) => Expanded::unexpanded(Fate::Abandoned(stopped)),
            None => self.expand_all(entry, scratch, out),
        }
    }

    /// [`Prep::expand_all`] with the successors in `buffer` (emptied first).
    pub(super) fn prepare_all(
        &self,
        entry: &Pending<M::State>,
        scratch: &mut Scratch<M::Action>,
        mut buffer: Vec<Successor<M::State>>,
    ) -> Prepared<M::State> {
        buffer.clear();
        let expanded = self.expand_all(entry, scratch, &mut buffer);
        Prepared {
            node: entry.node,
            expanded,
            successors: buffer,
        }
    }

    /// [`Prep::prepare_all`] after a look at the watch, as [`Prep::expand_all_watched`].
    pub(super) fn prepare_all_watched(
        &self,
        entry: &Pending<M::State>,
        scratch: &mut Scratch<M::Action>,
    ) -> Prepared<M::State> {
        let mut successors = Vec::new();
        let expanded = self.expand_all_watched(entry, scratch, &mut successors);
        Prepared {
            node: entry.node,
            expanded,
            successors,
        }
    }

    /// Expands `entry` (not cut off) under `which` of its `enabled` actions, appending its
    /// successors to `out`.
    ///
    /// Successors first, each with its key, so that the caller can prefetch their slots in
    /// the visited table: the table's cache misses, which dominate exhaustive search of
    /// large spaces, then overlap instead of coming one after another.
    pub(super) fn expand(
        &self,
        entry: &Pending<M::State>,
        enabled: &[M::Action],
        which: Which<'_>,
        subset: &mut Vec<usize>,
        out: &mut Vec<Successor<M::State>>,
    ) -> Expanded {
        let model = self.model;
        let mut counts = self.counts(entry, enabled, which);
        let from = out.len();
        let mut reduced = matches!(which, Which::All) && self.reduce(entry, enabled, subset);
        let mut visible = false;
        let abandoned = match which {
            Which::All | Which::Every if !reduced => {
                self.successors_into(entry, enabled, 0..enabled.len(), &mut counts, out)
            }
            Which::All | Which::Every => {
                let subset = &subset[..];
                let chosen = subset.iter().copied();
                let abandoned = self.successors_into(entry, enabled, chosen, &mut counts, out);
                if abandoned.is_none() && !self.invisible_here(&entry.state, enabled, &out[from..])
                {
                    // An action of the subset changed what a property observes: expand fully.
                    visible = true;
                    reduced = false;
                    let rest = outside(subset, enabled.len());
                    self.successors_into(entry, enabled, rest, &mut counts, out)
                } else {
                    abandoned
                }
            }
            Which::Chosen(chosen) => {
                self.successors_into(entry, enabled, chosen.iter().copied(), &mut counts, out)
            }
            Which::Postponed(subset) => {
                let rest = outside(subset, enabled.len());
                self.successors_into(entry, enabled, rest, &mut counts, out)
            }
        };
        if let Some(stopped) = abandoned {
            out.truncate(from);
            return Expanded::unexpanded(Fate::Abandoned(stopped));
        }
        let marks = self.partial_order && !matches!(which, Which::Postponed(_));
        let own_key = (marks && entry.obligations.is_none()).then(|| {
            let vt = model.virtual_time_ms(&entry.state);
            self.keys.key(model, &entry.state, &None, vt).into()
        });
        Expanded {
            fate: if enabled.is_empty() {
                Fate::Terminal
            } else {
                Fate::Expanded
            },
            tally: counts.tally,
            reduced,
            visible,
            own_key,
            used: (!counts.used.is_empty()).then(|| Box::new(counts.used)),
        }
    }

    /// What an expansion of `entry` under `which` of its `enabled` actions starts counting
    /// from: the actions offered (but for the postponed ones of a reduced state, offered
    /// already), and, when the search keeps coverage, the entry's instant.
    fn counts(&self, entry: &Pending<M::State>, enabled: &[M::Action], which: Which) -> Counts {
        let mut tally = Tally::default();
        if !matches!(which, Which::Postponed(_)) {
            for action in enabled {
                tally.offer(self.model.choice_kind(&entry.state, action));
            }
        }
        let instant_ms = if self.coverage {
            self.model.virtual_time_ms(&entry.state)
        } else {
            0
        };
        Counts {
            tally,
            used: RulesUsed::at(instant_ms),
        }
    }

    /// Appends the successors of `entry` under the `chosen` actions to `out`, counting them
    /// in the tally and (when the search keeps coverage) noting the fault rules they use,
    /// looking at the watch every [`EVERY`] of them: what abandons the expansion, if anything.
    fn successors_into(
        &self,
        entry: &Pending<M::State>,
        enabled: &[M::Action],
        chosen: impl Iterator<Item = usize>,
        counts: &mut Counts,
        out: &mut Vec<Successor<M::State>>,
    ) -> Option<Stopped> {
        for (n, choice) in chosen.enumerate() {
            if n % EVERY == EVERY - 1 {
                if let Some(stopped) = self.watch.says_stop() {
                    return Some(stopped);
                }
            }
            let action = &enabled[choice];
            counts
                .tally
                .expand(self.model.choice_kind(&entry.state, action));
            if let Some(state) = self.model.next_state(&entry.state, action) {
                if self.coverage && self.model.is_fault(action) {
                    self.model
                        .note_fault_rules(&entry.state, action, &mut counts.used);
                }
                out.push(self.successor(&entry.obligations, state, choice));
            }
        }
        None
    }

    /// `state`, reached by the `choice`-th action from a state whose path carries
    /// `obligations` (an initial state: the run's first obligations), ready to be admitted.
    #[inline(always)]
    pub(super) fn successor(
        &self,
        obligations: &Option<Box<[u64]>>,
        state: M::State,
        choice: usize,
    ) -> Successor<M::State> {
        let model = self.model;
        let vt = model.virtual_time_ms(&state);
        let choice = u32::try_from(choice).expect("fewer than 2^32 enabled actions");
        let (obligations, key, rare) = match obligations {
            // Most models carry no obligation: nothing to move on, nothing to fold in.
            None => {
                let key = self.keys.key(model, &state, &None, vt);
                let own_key = self.keys.own_key(model, &state, &None, vt);
                let rare = own_key.map(|own_key| {
                    let hits = Vec::new();
                    Box::new(Rare {
                        own_key: Some(own_key),
                        hits,
                    })
                });
                (None, key, rare)
            }
            Some(_) => {
                let mut obligations = obligations.clone();
                let mut hits = Vec::new();
                (self.obligations).update(model, &state, vt, &mut obligations, &mut hits);
                let key = self.keys.key(model, &state, &obligations, vt);
                let own_key = self.keys.own_key(model, &state, &obligations, vt);
                let rare = (own_key.is_some() || !hits.is_empty())
                    .then(|| Box::new(Rare { own_key, hits }));
                (obligations, key, rare)
            }
        };
        Successor {
            state,
            vt,
            choice,
            obligations,
            key: key.into(),
            rare,
        }
    }
}

/// The indices below `len` that are not in the ascending `subset`.
fn outside(subset: &[usize], len: usize) -> impl Iterator<Item = usize> + '_ {
    (0..len).filter(move |i| subset.binary_search(i).is_err())
}
