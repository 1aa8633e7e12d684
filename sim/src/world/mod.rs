//! The world: a discrete-event system of sans-IO actors that implements [`Model`].
//!
//! Virtual time is integer milliseconds. Timers and messages have due times; when nothing is
//! due, the only step is `Advance`, which jumps to the earliest due time; everything due at
//! the same time is enabled together, so their order is a branch point. Each process has
//! its own clock ([`ClockSpec`]). A paused process runs no handler: messages to it wait in its
//! buffer and its due timers fire after it resumes (in any order, or in due order: see
//! [`ResumeOrder`]). Faults from the
//! [`FaultEnvelope`] are enabled at every step while their budget lasts, which is what lets a
//! pause begin just before a due event (after `Advance`, before the event runs).
//!
//! Fingerprints use times relative to `now` (see [`WorldState::hash_relative`]), so a world
//! with periodic timers still has finitely many distinct states. Process states are
//! copy-on-write and carry their part of the fingerprint ([`Shared`]), so a successor costs
//! a copy and a hash of what its step changed.

mod action;
mod actor;
mod actor_fault;
mod canonical;
mod clock;
mod coverage;
mod dead_values;
mod drive;
mod fault_timing;
mod faults;
mod fixed_swap;
mod independence;
mod inject;
mod key_memo;
mod label;
mod network;
mod renamed_hash;
mod resume;
mod resume_order;
mod shared;
mod shared_fate;
mod state;
mod step;
mod symmetry;

pub use action::{ActionOf, WorldAction};
pub use actor::{Actor, Context, CrashKind, LocalNow, NoFault, ProcessId, TimerEffect};
pub use actor_fault::ActorFaultRule;
pub use canonical::MAX_CANDIDATES;
pub use clock::{add_step, later, ClockSpec, MAX_INSTANT_MS, MAX_READING_MS};
pub use drive::EffectsOf;
pub use fault_timing::{Anchor, FaultRule, FaultTimes, FaultTiming, FaultWindow, ProcessFaults};
pub use faults::{
    ClockStepFault, CrashFault, FaultEnvelope, FaultsUsed, PartitionFault, PauseFault,
};
pub use key_memo::KeyMemo;
pub use label::advance_label;
pub use network::{InFlight, LinkSpec, Network, Unrouted};
pub use resume_order::ResumeOrder;
pub use shared::{time_shifts_verified, verify_time_shifts, Shared};
pub use state::{Life, PendingTimer, ProcState, StateOf, UndecidedTimer, WorldState};
pub use symmetry::{Renaming, SymmetryGroups, SymmetryRequest};

use crate::branching::ChoiceKind;
use crate::fingerprint::{fingerprint_of, Fingerprint, FpHasher};
use crate::model::Model;
use crate::model::Property;
use std::sync::OnceLock;

/// One process of a world: a name, its behaviour and its clock.
#[derive(Clone, Debug)]
pub struct ProcessSpec<A> {
    pub name: String,
    pub actor: A,
    pub clock: ClockSpec,
}

/// A world of actors, a network, a fault envelope and properties.
pub struct World<A: Actor> {
    pub name: String,
    pub processes: Vec<ProcessSpec<A>>,
    pub network: Network,
    pub faults: FaultEnvelope<A::Fault>,
    pub properties: Vec<Property<World<A>>>,
    /// Events of one process that fault windows count from (see `fault_timing.rs`).
    pub anchors: Vec<Anchor<A::State>>,
    actors: Vec<A>,
    clocks: Vec<ClockSpec>,
    /// How the symmetry groups are chosen ([`World::with_symmetry`]).
    symmetry_request: SymmetryRequest,
    /// The symmetry groups, checked at the first search (see `symmetry.rs`).
    symmetry: OnceLock<Result<SymmetryGroups, String>>,
    /// Whether fingerprints are built in both lanes ([`World::with_wide_fingerprints`]).
    wide: bool,
    /// The order a resumed process's overdue timers may fire in ([`World::with_resume_order`]).
    resume_order: ResumeOrder,
}

impl<A: Actor + Clone> World<A> {
    /// A world of `processes` on a network with a 1 ms FIFO link everywhere and no faults.
    pub fn new(name: impl Into<String>, processes: Vec<ProcessSpec<A>>) -> Self {
        let actors = processes.iter().map(|p| p.actor.clone()).collect();
        let clocks = processes.iter().map(|p| p.clock).collect();
        World {
            name: name.into(),
            processes,
            network: Network::default(),
            faults: FaultEnvelope::none(),
            properties: Vec::new(),
            anchors: Vec::new(),
            actors,
            clocks,
            symmetry_request: SymmetryRequest::default(),
            symmetry: OnceLock::new(),
            wide: false,
            resume_order: ResumeOrder::default(),
        }
    }
}

impl<A: Actor> World<A> {
    /// Builds fingerprints in both lanes when `wide`, so that a search may compare 128 bits
    /// (`Options::wide_fingerprints`); otherwise lane A alone, at half the hashing. Lane A
    /// is the same either way, and so is a 64-bit search.
    pub fn with_wide_fingerprints(mut self, wide: bool) -> Self {
        self.wide = wide;
        self
    }

    pub fn with_network(mut self, network: Network) -> Self {
        self.network = network;
        self.symmetry = OnceLock::new();
        self
    }

    pub fn with_faults(mut self, faults: FaultEnvelope<A::Fault>) -> Self {
        self.faults = faults;
        self.symmetry = OnceLock::new();
        self
    }

    pub fn with_property(mut self, property: Property<World<A>>) -> Self {
        self.properties
            .push(property.for_processes(self.processes.len()));
        self.symmetry = OnceLock::new();
        self
    }

    /// Adds an anchor that fault windows may count from
    /// ([`FaultWindow::after_anchor`] names it by its position among the anchors).
    pub fn with_anchor(mut self, anchor: Anchor<A::State>) -> Self {
        self.anchors.push(anchor);
        self.symmetry = OnceLock::new();
        self
    }

    /// Chooses how symmetry groups are found (inferred by default); they are checked
    /// against the world as it stands at the first search.
    pub fn with_symmetry(mut self, request: SymmetryRequest) -> Self {
        self.symmetry_request = request;
        self.symmetry = OnceLock::new();
        self
    }

    /// The world's symmetry groups, or why it has none (checked once, then kept).
    pub fn symmetry(&self) -> &Result<SymmetryGroups, String> {
        self.symmetry
            .get_or_init(|| self.symmetry_groups(&self.symmetry_request))
    }

    /// The process called `name`.
    pub fn process_id(&self, name: &str) -> Option<ProcessId> {
        self.processes.iter().position(|p| p.name == name)
    }

    pub fn process_name(&self, p: ProcessId) -> &str {
        &self.processes[p].name
    }

    /// The fingerprint of `state` computed without any cached process part: what
    /// [`Model::fingerprint`] must always equal.
    pub fn fingerprint_from_scratch(&self, state: &StateOf<A>) -> Fingerprint {
        let mut h = FpHasher::of_width(self.wide);
        state.hash_from_scratch(&self.actors, &self.clocks, self.resume_order, &mut h);
        self.hash_fault_timing(state, &mut h);
        h.finish_wide()
    }

    /// Process `p`'s clock readings in `state`.
    pub fn local_now(&self, state: &StateOf<A>, p: ProcessId) -> LocalNow {
        self.clocks[p].local_now(state.now_ms, state.procs[p].clock_steps_ms)
    }
}

impl<A: Actor> Model for World<A> {
    type State = StateOf<A>;
    type Action = ActionOf<A>;

    fn init_states(&self) -> Vec<Self::State> {
        vec![self.initial_state()]
    }

    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
        self.enabled(state, actions);
    }

    fn next_state(&self, state: &Self::State, action: &Self::Action) -> Option<Self::State> {
        let mut next: StateOf<A> = state.clone();
        self.apply(&mut next, action);
        next.refresh_hashes(&self.actors, &self.clocks, self.resume_order, self.wide);
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        self.properties.clone()
    }

    fn fingerprint(&self, state: &Self::State) -> Fingerprint {
        let mut h = FpHasher::of_width(self.wide);
        state.hash_relative(&self.actors, &self.clocks, self.resume_order, &mut h);
        self.hash_fault_timing(state, &mut h);
        h.finish_wide()
    }

    /// A world built for 128-bit fingerprints ([`World::with_wide_fingerprints`]) builds
    /// every part of them (a process's, a message body's, and what actors hash, keyspaces
    /// included) in both lanes and writes it whole; others hash lane A alone.
    fn wide_fingerprints(&self) -> bool {
        self.wide
    }

    fn symmetry(&self) -> Result<String, String> {
        let groups = World::symmetry(self).as_ref().map_err(Clone::clone)?;
        let names = |g: &Vec<ProcessId>| {
            let names: Vec<&str> = g.iter().map(|&p| self.process_name(p)).collect();
            format!("{{{}}}", names.join(", "))
        };
        let mut text = groups
            .groups
            .iter()
            .map(names)
            .collect::<Vec<_>>()
            .join(" ");
        if !groups.apart.is_empty() {
            text.push_str(&format!(" (apart: {})", symmetry::summary(&groups.apart)));
        }
        Ok(text)
    }

    fn canonical_fingerprint(&self, state: &Self::State) -> (Fingerprint, bool) {
        match World::symmetry(self) {
            Ok(groups) => self.canonical_fingerprint_under(state, groups),
            Err(_) => (self.fingerprint(state), false),
        }
    }

    fn fingerprint_without_dead_values(&self, state: &Self::State) -> Fingerprint {
        World::fingerprint_without_dead_values(self, state)
    }

    fn has_dead_values(&self, state: &Self::State) -> bool {
        self.any_dead_values(state)
    }

    fn canonical_fingerprint_without_dead_values(
        &self,
        state: &Self::State,
    ) -> (Fingerprint, bool) {
        match World::symmetry(self) {
            Ok(groups) => self.canonical_fingerprint_by(state, groups, true),
            Err(_) => (World::fingerprint_without_dead_values(self, state), false),
        }
    }

    fn label(&self, state: &Self::State, action: &Self::Action) -> String {
        self.describe(state, action)
    }

    fn virtual_time_ms(&self, state: &Self::State) -> u64 {
        state.now_ms
    }

    fn is_fault(&self, action: &Self::Action) -> bool {
        action.is_fault()
    }

    fn fault_rules(&self) -> Vec<String> {
        self.fault_rule_names()
    }

    fn note_fault_rules(
        &self,
        state: &Self::State,
        action: &Self::Action,
        used: &mut crate::coverage::RulesUsed,
    ) {
        self.note_rules_of(state, action, used)
    }

    fn choice_kind(&self, state: &Self::State, action: &Self::Action) -> ChoiceKind {
        match action {
            WorldAction::Fire { .. } if self.overtaken(state, action).is_some() => {
                ChoiceKind::ResumeOrder
            }
            WorldAction::Deliver { .. } | WorldAction::Fire { .. } => ChoiceKind::Event,
            WorldAction::Route { .. } => ChoiceKind::Delay,
            WorldAction::TimerDuration { .. } => ChoiceKind::TimerDuration,
            WorldAction::Lose => ChoiceKind::Loss,
            WorldAction::Advance => ChoiceKind::Advance,
            WorldAction::Pause { .. }
            | WorldAction::Crash { .. }
            | WorldAction::Partition { .. }
            | WorldAction::ClockStep { .. }
            | WorldAction::ActorFault { .. } => ChoiceKind::Fault,
        }
    }

    fn is_transient(&self, state: &Self::State) -> bool {
        self.is_transient_state(state)
    }

    fn persistent_set(
        &self,
        state: &Self::State,
        enabled: &[Self::Action],
        sight: &dyn Fn(&Self::Action) -> crate::model::Sight,
        out: &mut Vec<usize>,
    ) -> bool {
        self.persistent_subset(state, enabled, sight, out)
    }

    fn shrink_action(&self, action: &Self::Action) -> Vec<Self::Action> {
        self.smaller(action)
    }

    fn model_hash(&self) -> u64 {
        let config = format!(
            "{:?}|{:?}|{:?}|{:?}",
            self.processes, self.network, self.faults, self.name
        );
        let mut props: Vec<&str> = self.properties.iter().map(|p| p.name.as_str()).collect();
        // Anchors are named after the properties, only when there are some: a world without
        // them keeps the hash it always had.
        props.extend(self.anchors.iter().map(|a| a.name.as_str()));
        // A process crash's host refuses connections (`step.rs`): worlds that can have one
        // say so, so that a trace saved before refusals existed does not replay on them.
        let refusing = self
            .faults
            .crashes
            .iter()
            .any(|c| c.kinds.iter().any(|k| k.refuses_connections()));
        if refusing {
            props.push("crashes refuse connections");
        }
        // Likewise the resume order, only when it is not the default.
        if self.resume_order == ResumeOrder::Due {
            props.push("resume order: due");
        }
        crate::fingerprint::lane_a(fingerprint_of(&(config, props)))
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}
