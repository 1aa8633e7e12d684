//! Properties: `always` (safety), `sometimes` (non-vacuity) and `eventually within` a bound.
//!
//! A green run must not be hollow: a `sometimes` property that no explored state satisfies is
//! reported as "never witnessed", so a scenario that claims to test a pause during a holding
//! period proves that such a pause really happened. Bounded liveness is a `leads_to_within`
//! obligation: whenever `trigger` holds, `response` must hold within `bound_ms` of virtual
//! time. The explorer tracks open obligations per path and folds them into the fingerprint,
//! so deduplication stays sound.

use super::Model;
use std::fmt;
use std::sync::Arc;

/// A state predicate over a model.
pub type Condition<M> = Arc<dyn Fn(&M, &<M as Model>::State) -> bool + Send + Sync>;

/// A property's declared visibility: whether an action may change anything the property's
/// predicates read. Partial-order reduction postpones only actions that no property sees.
pub type Visibility<M> = Arc<dyn Fn(&M, &<M as Model>::Action) -> bool + Send + Sync>;

/// A property's declared observation: a digest of everything its predicates read. An action
/// the visibility admits is treated as invisible in a state where it leaves the digest
/// unchanged. Contract: the digest is made of per-process parts, each a function of that
/// process's own state, life, pause and clock at the current instant, so that whether an
/// action of a process changes the digest depends only on that process.
pub type Observation<M> = Arc<dyn Fn(&M, &<M as Model>::State) -> u64 + Send + Sync>;

/// How a property declares what it sees.
pub struct Observes<M: Model> {
    /// The property's name (for the messages of a declaration found wrong).
    pub name: String,
    /// Which actions may change what the predicates read.
    pub visible: Visibility<M>,
    /// A digest of what the predicates read, to tell in a state whether a visible action
    /// really changes it.
    pub observation: Option<Observation<M>>,
}

impl<M: Model> Clone for Observes<M> {
    fn clone(&self) -> Self {
        Observes {
            name: self.name.clone(),
            visible: self.visible.clone(),
            observation: self.observation.clone(),
        }
    }
}

/// What the properties can see of one action, as the model's persistent sets need it
/// ([`Model::persistent_set`](crate::Model::persistent_set)).
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

/// A predicate about one process of a state (its id is the third argument).
pub type ProcessCondition<M> = Arc<dyn Fn(&M, &<M as Model>::State, usize) -> bool + Send + Sync>;

/// What a property claims, with its predicates.
pub enum Claim<M: Model> {
    /// Holds in every reachable state.
    Always(Condition<M>),
    /// Holds in at least one reachable state.
    Sometimes(Condition<M>),
    /// Whenever `trigger` holds (`None`: at the start of the run), `response` holds within
    /// `bound_ms` (in the same state or later). A run that ends while the obligation is open
    /// violates it too.
    LeadsToWithin {
        trigger: Option<Condition<M>>,
        response: Condition<M>,
        bound_ms: u64,
    },
    /// `LeadsToWithin` for each process on its own: whenever `trigger` holds of process
    /// `p`, `response` holds of `p` within `bound_ms`, each process with an obligation of
    /// its own (so one process answered does not excuse another). `processes` is the
    /// world's number of processes, set when the property is added to it.
    EachLeadsToWithin {
        processes: usize,
        trigger: ProcessCondition<M>,
        response: ProcessCondition<M>,
        bound_ms: u64,
    },
    /// First come, first served: a process that stops `waiting` because it `wins` must not
    /// have begun waiting after another process that is still waiting. Each process's
    /// waiting opens an obligation stamped with the instant it began; one that stops waiting
    /// without winning (it gave up, crashed) closes it and overtakes no one. No bound: an
    /// obligation still open when a run ends is not a violation.
    InOrder {
        processes: usize,
        waiting: ProcessCondition<M>,
        wins: ProcessCondition<M>,
    },
}

/// A named property of a model.
pub struct Property<M: Model> {
    pub name: String,
    pub claim: Claim<M>,
    /// Which actions may change what the predicates read; `None` (the default): any action.
    /// A property that declares nothing turns partial-order reduction off, since the
    /// explorer never guesses what a predicate looks at.
    pub observes: Option<Observes<M>>,
    /// Whether the property declared that it cannot tell interchangeable processes apart
    /// (see [`Property::symmetric`]). Symmetry reduction needs every property to declare it.
    pub symmetric: bool,
}

impl<M: Model> Property<M> {
    pub fn always(
        name: impl Into<String>,
        cond: impl Fn(&M, &M::State) -> bool + Send + Sync + 'static,
    ) -> Self {
        Property {
            name: name.into(),
            claim: Claim::Always(Arc::new(cond)),
            observes: None,
            symmetric: false,
        }
    }

    pub fn sometimes(
        name: impl Into<String>,
        cond: impl Fn(&M, &M::State) -> bool + Send + Sync + 'static,
    ) -> Self {
        Property {
            name: name.into(),
            claim: Claim::Sometimes(Arc::new(cond)),
            observes: None,
            symmetric: false,
        }
    }

    /// Whenever `trigger` holds, `response` must hold within `bound_ms` of virtual time.
    pub fn leads_to_within(
        name: impl Into<String>,
        bound_ms: u64,
        trigger: impl Fn(&M, &M::State) -> bool + Send + Sync + 'static,
        response: impl Fn(&M, &M::State) -> bool + Send + Sync + 'static,
    ) -> Self {
        Property {
            name: name.into(),
            claim: Claim::LeadsToWithin {
                trigger: Some(Arc::new(trigger)),
                response: Arc::new(response),
                bound_ms,
            },
            observes: None,
            symmetric: false,
        }
    }

    /// For each process `p` on its own: whenever `trigger` holds of `p`, `response` must
    /// hold of `p` within `bound_ms` (see [`Claim::EachLeadsToWithin`]; sized by
    /// [`Property::for_processes`]).
    pub fn each_leads_to_within(
        name: impl Into<String>,
        bound_ms: u64,
        trigger: impl Fn(&M, &M::State, usize) -> bool + Send + Sync + 'static,
        response: impl Fn(&M, &M::State, usize) -> bool + Send + Sync + 'static,
    ) -> Self {
        Property {
            name: name.into(),
            claim: Claim::EachLeadsToWithin {
                processes: 0,
                trigger: Arc::new(trigger),
                response: Arc::new(response),
                bound_ms,
            },
            observes: None,
            symmetric: false,
        }
    }

    /// First come, first served (see [`Claim::InOrder`]; sized by
    /// [`Property::for_processes`]).
    pub fn in_order(
        name: impl Into<String>,
        waiting: impl Fn(&M, &M::State, usize) -> bool + Send + Sync + 'static,
        wins: impl Fn(&M, &M::State, usize) -> bool + Send + Sync + 'static,
    ) -> Self {
        Property {
            name: name.into(),
            claim: Claim::InOrder {
                processes: 0,
                waiting: Arc::new(waiting),
                wins: Arc::new(wins),
            },
            observes: None,
            symmetric: false,
        }
    }

    /// This property for a world of `processes` processes: a per-process obligation gets
    /// one slot per process; other properties are unchanged.
    pub fn for_processes(mut self, processes: usize) -> Self {
        if let Claim::EachLeadsToWithin { processes: n, .. } | Claim::InOrder { processes: n, .. } =
            &mut self.claim
        {
            *n = processes;
        }
        self
    }

    /// `response` must hold within `bound_ms` of the start of every run.
    pub fn eventually_within(
        name: impl Into<String>,
        bound_ms: u64,
        response: impl Fn(&M, &M::State) -> bool + Send + Sync + 'static,
    ) -> Self {
        Property {
            name: name.into(),
            claim: Claim::LeadsToWithin {
                trigger: None,
                response: Arc::new(response),
                bound_ms,
            },
            observes: None,
            symmetric: false,
        }
    }

    /// Declares that the property cannot tell interchangeable processes apart: renaming the
    /// processes of a symmetry group in a state (their states, the ids the states hold)
    /// never changes its predicates' verdict, nor its observation digest. A property that
    /// names one process of a group, or reads process ids, must not declare it.
    pub fn symmetric(mut self) -> Self {
        self.symmetric = true;
        self
    }

    /// Declares which actions may change what this property reads (see [`Visibility`]).
    /// The declaration must cover every action that can change the truth of a predicate in
    /// some state; an action it leaves out may be reordered with others by the explorer.
    pub fn observing(
        mut self,
        visible: impl Fn(&M, &M::Action) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.observes = Some(Observes {
            name: self.name.clone(),
            visible: Arc::new(visible),
            observation: None,
        });
        self
    }

    /// Declares which actions may change what this property reads, and a digest of what it
    /// reads (see [`Observation`] for its contract): a visible action that leaves the digest
    /// unchanged in a state counts as invisible there.
    pub fn observing_digest(
        mut self,
        visible: impl Fn(&M, &M::Action) -> bool + Send + Sync + 'static,
        observation: impl Fn(&M, &M::State) -> u64 + Send + Sync + 'static,
    ) -> Self {
        self.observes = Some(Observes {
            name: self.name.clone(),
            visible: Arc::new(visible),
            observation: Some(Arc::new(observation)),
        });
        self
    }

    pub fn kind(&self) -> PropertyKind {
        match self.claim {
            Claim::Always(_) => PropertyKind::Always,
            Claim::Sometimes(_) => PropertyKind::Sometimes,
            Claim::LeadsToWithin { .. } | Claim::EachLeadsToWithin { .. } => {
                PropertyKind::EventuallyWithin
            }
            Claim::InOrder { .. } => PropertyKind::InOrder,
        }
    }
}

/// The kind of a property, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PropertyKind {
    Always,
    Sometimes,
    EventuallyWithin,
    InOrder,
}

impl fmt::Display for PropertyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PropertyKind::Always => "always",
            PropertyKind::Sometimes => "sometimes",
            PropertyKind::EventuallyWithin => "eventually-within",
            PropertyKind::InOrder => "in-order",
        })
    }
}

impl<M: Model> Clone for Claim<M> {
    fn clone(&self) -> Self {
        match self {
            Claim::Always(c) => Claim::Always(c.clone()),
            Claim::Sometimes(c) => Claim::Sometimes(c.clone()),
            Claim::LeadsToWithin {
                trigger,
                response,
                bound_ms,
            } => Claim::LeadsToWithin {
                trigger: trigger.clone(),
                response: response.clone(),
                bound_ms: *bound_ms,
            },
            Claim::EachLeadsToWithin {
                processes,
                trigger,
                response,
                bound_ms,
            } => Claim::EachLeadsToWithin {
                processes: *processes,
                trigger: trigger.clone(),
                response: response.clone(),
                bound_ms: *bound_ms,
            },
            Claim::InOrder {
                processes,
                waiting,
                wins,
            } => Claim::InOrder {
                processes: *processes,
                waiting: waiting.clone(),
                wins: wins.clone(),
            },
        }
    }
}

impl<M: Model> Clone for Property<M> {
    fn clone(&self) -> Self {
        Property {
            name: self.name.clone(),
            claim: self.claim.clone(),
            observes: self.observes.clone(),
            symmetric: self.symmetric,
        }
    }
}
