//! The chooser: the one place where a single run's nondeterministic decisions are made.
//!
//! A model exposes every decision as a set of enabled actions. Exhaustive search takes them
//! all; a single run asks a `Chooser` which one to take. `RandomChooser` draws from our own
//! PRNG (a run is then `(model, seed)`), `ReplayChooser` follows the labels of a recorded
//! trace and refuses loudly when the model offers something else. The shrinker and scripted
//! runs have choosers of their own (`shrink.rs`, `script.rs`), and `Recording` keeps the path
//! any chooser takes. A chooser that cannot fail says so with `Error = Infallible`, and the
//! explorer then returns its report without a `Result`.

use crate::model::Model;
use crate::prng::Prng;
use crate::report::{Path, Step};
use std::convert::Infallible;
use std::fmt;

/// Decides, one step at a time, which enabled action a run takes.
pub trait Chooser<M: Model> {
    /// Why a run cannot go on as this chooser means it to (`Infallible` when it always can).
    type Error;

    /// Which of `count` initial states the run starts from.
    fn choose_init(&mut self, count: usize) -> Result<usize, Self::Error>;

    /// Which of the `enabled` actions of `state` to take next, or `None` to end the run here.
    fn choose(
        &mut self,
        model: &M,
        state: &M::State,
        enabled: &[M::Action],
    ) -> Result<Option<usize>, Self::Error>;
}

/// A seeded random chooser. Faults are rare events: with `fault_per_mille` chance a step
/// takes one of the enabled faults, otherwise one of the other actions.
#[derive(Clone, Debug)]
pub struct RandomChooser {
    prng: Prng,
    fault_per_mille: u64,
}

/// The fault rates a random run may draw from, per thousand steps; each seed draws its own,
/// so some runs are calm and others are stormy.
pub const FAULT_RATES_PER_MILLE: [u64; 4] = [10, 30, 100, 300];

impl RandomChooser {
    /// A chooser for `seed` whose fault rate is itself drawn from `FAULT_RATES_PER_MILLE`.
    pub fn from_seed(seed: u64) -> Self {
        let mut prng = Prng::from_seed(seed);
        let fault_per_mille = FAULT_RATES_PER_MILLE[prng.index(FAULT_RATES_PER_MILLE.len())];
        RandomChooser {
            prng,
            fault_per_mille,
        }
    }

    /// A chooser with a fixed fault rate.
    pub fn with_fault_rate(seed: u64, fault_per_mille: u64) -> Self {
        RandomChooser {
            prng: Prng::from_seed(seed),
            fault_per_mille: fault_per_mille.min(1000),
        }
    }

    pub fn fault_per_mille(&self) -> u64 {
        self.fault_per_mille
    }
}

impl<M: Model> Chooser<M> for RandomChooser {
    type Error = Infallible;

    fn choose_init(&mut self, count: usize) -> Result<usize, Infallible> {
        Ok(self.prng.index(count))
    }

    fn choose(
        &mut self,
        model: &M,
        _state: &M::State,
        enabled: &[M::Action],
    ) -> Result<Option<usize>, Infallible> {
        if enabled.is_empty() {
            return Ok(None);
        }
        let faults = enabled.iter().filter(|a| model.is_fault(a)).count();
        let others = enabled.len() - faults;
        let take_fault =
            faults > 0 && (others == 0 || self.prng.chance(self.fault_per_mille, 1000));
        let (wanted, count) = if take_fault {
            (true, faults)
        } else {
            (false, others)
        };
        let k = self.prng.index(count);
        let index = enabled
            .iter()
            .enumerate()
            .filter(|(_, a)| model.is_fault(a) == wanted)
            .nth(k)
            .map(|(i, _)| i)
            .expect("k is below the count of matching actions");
        Ok(Some(index))
    }
}

/// Follows recorded labels; ends the run when they are used up.
#[derive(Clone, Debug)]
pub struct ReplayChooser {
    init: usize,
    labels: Vec<String>,
    next: usize,
}

impl ReplayChooser {
    pub fn new(init: usize, labels: Vec<String>) -> Self {
        ReplayChooser {
            init,
            labels,
            next: 0,
        }
    }
}

impl<M: Model> Chooser<M> for ReplayChooser {
    type Error = ReplayMismatch;

    fn choose_init(&mut self, count: usize) -> Result<usize, ReplayMismatch> {
        if self.init < count {
            Ok(self.init)
        } else {
            Err(ReplayMismatch {
                step: 0,
                expected: format!("initial state #{}", self.init),
                enabled: vec![format!("{count} initial states")],
            })
        }
    }

    fn choose(
        &mut self,
        model: &M,
        state: &M::State,
        enabled: &[M::Action],
    ) -> Result<Option<usize>, ReplayMismatch> {
        let Some(expected) = self.labels.get(self.next) else {
            return Ok(None);
        };
        let step = self.next + 1;
        let labels: Vec<String> = enabled.iter().map(|a| model.label(state, a)).collect();
        match labels.iter().position(|l| l == expected) {
            Some(i) => {
                self.next += 1;
                Ok(Some(i))
            }
            None => Err(ReplayMismatch {
                step,
                expected: expected.clone(),
                enabled: labels,
            }),
        }
    }
}

/// Any chooser, keeping the path its run takes: every state it is asked about and every
/// action it picks. The run must end by the chooser's own decision (a state offered and no
/// action picked, or none enabled), not cut by a limit, so that its last state is kept too.
pub struct Recording<M: Model, C> {
    inner: C,
    path: Path<M>,
}

impl<M: Model, C> Recording<M, C> {
    /// Records the run `inner` chooses; `seed` is the seed the path will name.
    pub fn new(inner: C, seed: Option<u64>) -> Self {
        Recording {
            inner,
            path: Path {
                seed,
                init: 0,
                steps: Vec::new(),
                states: Vec::new(),
            },
        }
    }

    pub fn inner(&self) -> &C {
        &self.inner
    }

    /// The last state the run reached, if it started.
    pub fn last_state(&self) -> Option<&M::State> {
        self.path.states.last()
    }

    /// The path taken: initial state, each action picked and the state it led to.
    pub fn into_path(self) -> Path<M> {
        assert_eq!(
            self.path.states.len(),
            self.path.steps.len() + 1,
            "internal bug: a recorded run ended without offering its last state to the chooser"
        );
        self.path
    }
}

impl<M: Model, C: Chooser<M>> Chooser<M> for Recording<M, C> {
    type Error = C::Error;

    fn choose_init(&mut self, count: usize) -> Result<usize, C::Error> {
        self.path.init = self.inner.choose_init(count)?;
        Ok(self.path.init)
    }

    fn choose(
        &mut self,
        model: &M,
        state: &M::State,
        enabled: &[M::Action],
    ) -> Result<Option<usize>, C::Error> {
        debug_assert_eq!(
            self.path.states.len(),
            self.path.steps.len(),
            "internal bug: a recorded run was offered a state its last action did not lead to"
        );
        self.path.states.push(state.clone());
        let choice = self.inner.choose(model, state, enabled)?;
        if let Some(i) = choice {
            let action = enabled[i].clone();
            let label = model.label(state, &action);
            self.path.steps.push(Step { action, label });
        }
        Ok(choice)
    }
}

/// A recorded choice that the model does not offer: the trace belongs to another model,
/// configuration or version, or the model is not deterministic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayMismatch {
    /// 1-based step of the trace.
    pub step: usize,
    pub expected: String,
    pub enabled: Vec<String>,
}

impl fmt::Display for ReplayMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "replay diverged at step {}: the trace says `{}` but the model offers ",
            self.step, self.expected
        )?;
        if self.enabled.is_empty() {
            write!(f, "nothing (the run had ended)")
        } else {
            write!(f, "[{}]", self.enabled.join("; "))
        }
    }
}

impl std::error::Error for ReplayMismatch {}
