//! Properties: `always` (safety), `sometimes` (non-vacuity) and `eventually within` a bound.
//!
//! A green run must not be hollow: a `sometimes` property that no explored state satisfies is
//! reported as "never witnessed", so a scenario that claims to test a pause during a holding
//! period proves that such a pause really happened. Bounded liveness is a `leads_to_within`
//! obligation: whenever `trigger` holds, `response` must hold within `bound_ms` of virtual
//! time. The explorer tracks open obligations per path and folds them into the fingerprint,
//! so deduplication stays sound.

use crate::model::Model;
use std::fmt;
use std::sync::Arc;

/// A state predicate over a model.
pub type Condition<M> = Arc<dyn Fn(&M, &<M as Model>::State) -> bool + Send + Sync>;

/// What kind of property, with its predicates.
pub enum Expectation<M: Model> {
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
}

/// A named property of a model.
pub struct Property<M: Model> {
    pub name: String,
    pub expectation: Expectation<M>,
}

impl<M: Model> Property<M> {
    pub fn always(
        name: impl Into<String>,
        cond: impl Fn(&M, &M::State) -> bool + Send + Sync + 'static,
    ) -> Self {
        Property {
            name: name.into(),
            expectation: Expectation::Always(Arc::new(cond)),
        }
    }

    pub fn sometimes(
        name: impl Into<String>,
        cond: impl Fn(&M, &M::State) -> bool + Send + Sync + 'static,
    ) -> Self {
        Property {
            name: name.into(),
            expectation: Expectation::Sometimes(Arc::new(cond)),
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
            expectation: Expectation::LeadsToWithin {
                trigger: Some(Arc::new(trigger)),
                response: Arc::new(response),
                bound_ms,
            },
        }
    }

    /// `response` must hold within `bound_ms` of the start of every run.
    pub fn eventually_within(
        name: impl Into<String>,
        bound_ms: u64,
        response: impl Fn(&M, &M::State) -> bool + Send + Sync + 'static,
    ) -> Self {
        Property {
            name: name.into(),
            expectation: Expectation::LeadsToWithin {
                trigger: None,
                response: Arc::new(response),
                bound_ms,
            },
        }
    }

    pub fn kind(&self) -> PropertyKind {
        match self.expectation {
            Expectation::Always(_) => PropertyKind::Always,
            Expectation::Sometimes(_) => PropertyKind::Sometimes,
            Expectation::LeadsToWithin { .. } => PropertyKind::EventuallyWithin,
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
}

impl fmt::Display for PropertyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PropertyKind::Always => "always",
            PropertyKind::Sometimes => "sometimes",
            PropertyKind::EventuallyWithin => "eventually-within",
        })
    }
}

impl<M: Model> Clone for Expectation<M> {
    fn clone(&self) -> Self {
        match self {
            Expectation::Always(c) => Expectation::Always(c.clone()),
            Expectation::Sometimes(c) => Expectation::Sometimes(c.clone()),
            Expectation::LeadsToWithin {
                trigger,
                response,
                bound_ms,
            } => Expectation::LeadsToWithin {
                trigger: trigger.clone(),
                response: response.clone(),
                bound_ms: *bound_ms,
            },
        }
    }
}

impl<M: Model> Clone for Property<M> {
    fn clone(&self) -> Self {
        Property {
            name: self.name.clone(),
            expectation: self.expectation.clone(),
        }
    }
}
