//! The core abstraction: a model is a nondeterministic transition system with properties.
//!
//! Everything lockcheck checks, from the tiny benchmark model to a world of Redis nodes and
//! lock clients, implements this one trait. A state has zero or more *enabled actions*; each
//! action leads to one successor state. All nondeterminism (which event runs next, a
//! message's delay, whether a fault fires and how big it is) is expressed as a choice among
//! enabled actions, so a run is fully described by the sequence of chosen actions. The
//! explorer enumerates them (exhaustive), a `Chooser` picks one (random walks), or a trace
//! dictates them (replay).

mod property;

pub use property::{
    Claim, Condition, Observation, Observes, ProcessCondition, Property, PropertyKind, Sight,
    Visibility,
};

use crate::branching::ChoiceKind;
use crate::fingerprint::{fingerprint_of, Fingerprint};
use std::fmt::Debug;
use std::hash::Hash;

/// A nondeterministic transition system with properties to check.
pub trait Model: Sized {
    /// A state. `Hash` feeds the default fingerprint.
    type State: Clone + Debug + Hash;
    /// An enabled choice. Equality lets the shrinker find a remembered action again.
    type Action: Clone + Debug + PartialEq;

    /// The initial states (usually one).
    fn init_states(&self) -> Vec<Self::State>;

    /// Appends the actions enabled in `state` to `actions` (which arrives empty). The order
    /// must be deterministic: it is part of what a seed means.
    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>);

    /// The successor of `state` under `action`, or `None` if the action turns out to be a
    /// no-op that should not count as a transition.
    fn next_state(&self, state: &Self::State, action: &Self::Action) -> Option<Self::State>;

    /// The properties to check.
    fn properties(&self) -> Vec<Property<Self>>;

    /// The fingerprint used to deduplicate states. Override it to ignore absolute time or to
    /// hash a packed representation faster. Lane A (the low 64 bits) is what a search
    /// compares by default; lane B only counts if [`Model::wide_fingerprints`] says so.
    fn fingerprint(&self, state: &Self::State) -> Fingerprint {
        fingerprint_of(state)
    }

    /// Whether this model's fingerprints (every one of the four kinds) hash the whole state
    /// into both lanes, each part taken whole (see `fingerprint`'s module doc), so that a
    /// search may compare 128 bits (`Options::wide_fingerprints`). False by default: a model
    /// that packs its state into 64 bits of its own says nothing more in lane B. The default
    /// [`Model::fingerprint`] is wide; a model that keeps it may say true.
    fn wide_fingerprints(&self) -> bool {
        false
    }

    /// Symmetry reduction: a description of the interchangeable processes the model found,
    /// or why it has none (the default). See `world::symmetry` for the soundness rule.
    fn symmetry(&self) -> Result<String, String> {
        Err("the model declares no interchangeable processes".into())
    }

    /// The fingerprint of the representative of `state`'s symmetry class, and whether that
    /// representative differs from `state`. Two states may share it only if one is the
    /// other renamed by an automorphism of the model (bisimilar, with the same verdicts).
    fn canonical_fingerprint(&self, state: &Self::State) -> (Fingerprint, bool) {
        (self.fingerprint(state), false)
    }

    /// Dead values: the fingerprint of `state` without the values the model declares dead
    /// (see `world::dead_values` for the soundness rule). Two states may share it only if
    /// they are bisimilar with the same property values along the way. Defaults to
    /// [`Model::fingerprint`].
    fn fingerprint_without_dead_values(&self, state: &Self::State) -> Fingerprint {
        self.fingerprint(state)
    }

    /// Whether `state` holds values the model declares dead (its fingerprint without dead
    /// values then differs from its plain one).
    fn has_dead_values(&self, _state: &Self::State) -> bool {
        false
    }

    /// [`Model::canonical_fingerprint`] over fingerprints without dead values (symmetry and
    /// the dead-values reduction together).
    fn canonical_fingerprint_without_dead_values(
        &self,
        state: &Self::State,
    ) -> (Fingerprint, bool) {
        self.canonical_fingerprint(state)
    }

    /// A human-readable, stable label for `action` in `state`; traces store labels and
    /// replay matches them, so two enabled actions of one state must not share a label.
    fn label(&self, _state: &Self::State, action: &Self::Action) -> String {
        format!("{action:?}")
    }

    /// The virtual time of `state` in milliseconds (0 for untimed models).
    fn virtual_time_ms(&self, _state: &Self::State) -> u64 {
        0
    }

    /// Whether `action` injects a fault. Random walks take faults with a low probability and
    /// the shrinker tries hardest to remove them.
    fn is_fault(&self, _action: &Self::Action) -> bool {
        false
    }

    /// The rules of the model's fault envelope, named, for fault coverage
    /// (`crate::coverage`); none by default.
    fn fault_rules(&self) -> Vec<String> {
        Vec::new()
    }

    /// Notes in `used` which of [`Model::fault_rules`] (by index) allow the fault `action`
    /// in `state`. Called only for actions [`Model::is_fault`] calls faults, and only when
    /// the search keeps fault coverage.
    fn note_fault_rules(
        &self,
        _state: &Self::State,
        _action: &Self::Action,
        _used: &mut crate::coverage::RulesUsed,
    ) {
    }

    /// Smaller variants of `action` (a shorter pause, a smaller delay), best first. The
    /// shrinker tries them in place of the original.
    fn shrink_action(&self, _action: &Self::Action) -> Vec<Self::Action> {
        Vec::new()
    }

    /// A hash of everything that gives a trace its meaning (the model's configuration). A
    /// trace recorded against a different configuration is refused on replay.
    fn model_hash(&self) -> u64 {
        0
    }

    /// What kind of choice `action`, enabled in `state`, is, for the branching statistics.
    fn choice_kind(&self, _state: &Self::State, _action: &Self::Action) -> ChoiceKind {
        ChoiceKind::Other
    }

    /// Whether `state` is *transient*: its enabled actions only settle what the step into it
    /// left open (a message's delay, a timer's duration) and nothing else can happen first.
    /// Under partial-order reduction the explorer settles transient states at once, as part
    /// of the step that made them (see `explorer::reduction`).
    fn is_transient(&self, _state: &Self::State) -> bool {
        false
    }

    /// Partial-order reduction: writes into `out` (which arrives empty) the indices (into
    /// `enabled`, ascending) of a proper subset of the enabled actions of `state` that is
    /// *persistent* (no sequence of actions outside it, taken from `state`, can disable one
    /// of its actions or fail to commute with it) and contains no [`Sight::Visible`] action,
    /// and returns true; or returns false to have every action expanded (the default).
    /// Prefer subsets without [`Sight::Checked`] actions: the explorer expands fully when
    /// one of those turns out to change what a property observes. The model states in its
    /// own documentation why its sets are persistent.
    fn persistent_set(
        &self,
        _state: &Self::State,
        _enabled: &[Self::Action],
        _sight: &dyn Fn(&Self::Action) -> Sight,
        _out: &mut Vec<usize>,
    ) -> bool {
        false
    }

    /// A short name of the model for traces and reports.
    fn name(&self) -> String {
        std::any::type_name::<Self>().to_string()
    }
}
