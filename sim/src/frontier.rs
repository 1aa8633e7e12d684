//! Frontiers: the only thing that differs between search strategies.
//!
//! The explorer has one expansion and one admission of states; a frontier decides which
//! pending state comes next and which of a state's enabled actions are expanded. A stack
//! gives depth-first search, a queue gives breadth-first search (the first counterexample
//! found is a shortest one), and a `Walk` keeps a single state and lets a `Chooser` pick one
//! action per step: seeded random walks, replay of a recorded trace, shrinking candidates
//! and scripted runs; a shard of a breadth-first search has a frontier of its own
//! (`explorer/shard.rs`). Only a frontier whose chooser can refuse (replay, scripts) has an
//! `Error` other than `Infallible`.

use crate::chooser::{Chooser, RandomChooser, ReplayChooser};
use crate::model::Model;
use std::collections::VecDeque;
use std::convert::Infallible;

/// A state waiting to be expanded.
#[derive(Clone, Debug)]
pub struct Pending<S> {
    pub state: S,
    /// Index of this state's node in the explorer's path log.
    pub node: u32,
    pub depth: u32,
    /// Open `eventually` deadlines (absolute virtual ms; `u64::MAX` = none), if the model
    /// has such properties.
    pub obligations: Option<Box<[u64]>>,
}

/// What starts a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunStart {
    /// The seed of a random run.
    pub seed: Option<u64>,
}

/// A search strategy.
pub trait Frontier<M: Model> {
    /// Why a run cannot go on as the frontier means it to (`Infallible` for exhaustive
    /// search and random walks).
    type Error;

    /// Begins the next run, or `None` when all runs are done. Exhaustive frontiers have one.
    fn next_run(&mut self) -> Option<RunStart>;
    fn push(&mut self, entry: Pending<M::State>);
    fn pop(&mut self) -> Option<Pending<M::State>>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The entry the next `pop` will return, if pushes in between cannot change which one
    /// it is and `select` expands every enabled action (a queue: breadth-first search). The
    /// explorer then prepares that entry's expansion early, so that its memory accesses
    /// overlap with the current one's. `None` (the default) when that is not known.
    fn peek_next(&self) -> Option<&Pending<M::State>> {
        None
    }
    /// The entries this frontier dropped since it was last asked, for another search to
    /// expand (a shard keeps only its block of the level it splits at). Partial-order
    /// reduction counts them as expanded, so that its cycle proviso never postpones an
    /// action past a state this search will not expand (see `explorer::shard`).
    fn take_handed_off(&mut self) -> Vec<Pending<M::State>> {
        Vec::new()
    }
    /// The bytes the frontier's own storage would take at once to hold `extra` more entries
    /// (the reallocation of a queue or stack that is full), which a memory limit must
    /// expect: 0 when they fit, or by default.
    fn growth_bytes(&self, _extra: usize) -> usize {
        0
    }
    /// Whether a successor already visited is pruned (exhaustive) or followed again (walks).
    fn prunes_visited(&self) -> bool {
        true
    }
    /// Which of `count` initial states to start from.
    fn select_init(&mut self, count: usize, out: &mut Vec<usize>) -> Result<(), Self::Error> {
        out.extend(0..count);
        Ok(())
    }
    /// Which of the `enabled` actions of `state` to expand (indices into `enabled`).
    fn select(
        &mut self,
        _model: &M,
        _state: &M::State,
        enabled: &[M::Action],
        out: &mut Vec<usize>,
    ) -> Result<(), Self::Error> {
        out.extend(0..enabled.len());
        Ok(())
    }
}

/// Depth-first search: a stack.
pub struct DepthFirst<S> {
    stack: Vec<Pending<S>>,
    started: bool,
}

impl<S> Default for DepthFirst<S> {
    fn default() -> Self {
        DepthFirst {
            stack: Vec::new(),
            started: false,
        }
    }
}

impl<M: Model> Frontier<M> for DepthFirst<M::State> {
    type Error = Infallible;
    fn next_run(&mut self) -> Option<RunStart> {
        (!std::mem::replace(&mut self.started, true)).then_some(RunStart { seed: None })
    }
    fn push(&mut self, entry: Pending<M::State>) {
        self.stack.push(entry);
    }
    fn pop(&mut self) -> Option<Pending<M::State>> {
        self.stack.pop()
    }
    fn len(&self) -> usize {
        self.stack.len()
    }
    fn growth_bytes(&self, extra: usize) -> usize {
        reallocation_bytes::<Pending<M::State>>(self.stack.len(), self.stack.capacity(), extra)
    }
}

/// Breadth-first search: a queue. The first violation found is at the smallest depth.
pub struct BreadthFirst<S> {
    queue: VecDeque<Pending<S>>,
    started: bool,
}

impl<S> Default for BreadthFirst<S> {
    fn default() -> Self {
        BreadthFirst {
            queue: VecDeque::new(),
            started: false,
        }
    }
}

impl<S> BreadthFirst<S> {
    /// The queue itself, for the batch engine, which reads its front in place.
    pub(crate) fn entries(&mut self) -> &mut VecDeque<Pending<S>> {
        &mut self.queue
    }

    /// The entries waiting.
    pub(crate) fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// The bytes the queue would allocate at once to take `extra` more entries.
    pub(crate) fn growth(&self, extra: usize) -> usize {
        reallocation_bytes::<Pending<S>>(self.queue.len(), self.queue.capacity(), extra)
    }
}

impl<M: Model> Frontier<M> for BreadthFirst<M::State> {
    type Error = Infallible;
    fn next_run(&mut self) -> Option<RunStart> {
        (!std::mem::replace(&mut self.started, true)).then_some(RunStart { seed: None })
    }
    fn push(&mut self, entry: Pending<M::State>) {
        self.queue.push_back(entry);
    }
    fn pop(&mut self) -> Option<Pending<M::State>> {
        self.queue.pop_front()
    }
    fn peek_next(&self) -> Option<&Pending<M::State>> {
        self.queue.front()
    }
    fn len(&self) -> usize {
        self.waiting()
    }
    fn growth_bytes(&self, extra: usize) -> usize {
        self.growth(extra)
    }
}

/// The bytes a vector or ring of `len` elements `T` in `capacity` touches at once when
/// `extra` more are pushed: if they do not fit, it moves to a buffer twice as large, copying
/// its `len` elements there before it frees the old one (the rest of the new buffer is
/// touched as it fills, which the growth rate seen covers).
pub(crate) fn reallocation_bytes<T>(len: usize, capacity: usize, extra: usize) -> usize {
    if len.saturating_add(extra) <= capacity {
        return 0;
    }
    len.saturating_mul(size_of::<T>())
}

/// Steps a random walk takes at most before it ends (a model with periodic timers may never
/// go quiet on its own); replay walks follow their trace to the end.
pub const DEFAULT_WALK_STEPS: u32 = 10_000;

/// Single-path runs, each driven by a chooser: random walks, replay, shrinking candidates
/// and scripted runs.
pub struct Walk<S, C> {
    /// The run `single` was given, taken first.
    first: Option<(Option<u64>, C)>,
    runs: Option<Box<dyn Iterator<Item = (Option<u64>, C)>>>,
    chooser: Option<C>,
    slot: Option<Pending<S>>,
    max_steps: u32,
}

impl<S> Walk<S, RandomChooser> {
    /// One random walk for each seed in `seeds`.
    pub fn random(seeds: impl Iterator<Item = u64> + 'static) -> Self {
        Walk::new(seeds.map(|s| (Some(s), RandomChooser::from_seed(s))))
            .with_max_steps(DEFAULT_WALK_STEPS)
    }
}

impl<S> Walk<S, ReplayChooser> {
    /// One run that follows `labels` from initial state `init`.
    pub fn replay(seed: Option<u64>, init: usize, labels: Vec<String>) -> Self {
        Walk::new(std::iter::once((seed, ReplayChooser::new(init, labels))))
    }
}

impl<S, C> Walk<S, C> {
    pub fn new(runs: impl Iterator<Item = (Option<u64>, C)> + 'static) -> Self {
        Walk {
            first: None,
            runs: Some(Box::new(runs)),
            chooser: None,
            slot: None,
            max_steps: u32::MAX,
        }
    }

    /// One run driven by `chooser` (which, unlike the runs `new` takes, may borrow).
    pub fn single(seed: Option<u64>, chooser: C) -> Self {
        Walk {
            first: Some((seed, chooser)),
            runs: None,
            chooser: None,
            slot: None,
            max_steps: u32::MAX,
        }
    }

    /// The chooser of the current run (after the last run: of the last run).
    pub fn chooser(&self) -> Option<&C> {
        self.chooser.as_ref()
    }

    /// The chooser of the last run, once the walk is done.
    pub fn into_chooser(self) -> Option<C> {
        self.chooser
    }

    /// Ends each run after `max_steps` steps.
    pub fn with_max_steps(mut self, max_steps: u32) -> Self {
        self.max_steps = max_steps;
        self
    }
}

impl<M: Model, C: Chooser<M>> Frontier<M> for Walk<M::State, C> {
    type Error = C::Error;

    fn next_run(&mut self) -> Option<RunStart> {
        self.slot = None;
        let (seed, chooser) = match self.first.take() {
            Some(run) => run,
            None => self.runs.as_mut()?.next()?,
        };
        self.chooser = Some(chooser);
        Some(RunStart { seed })
    }
    fn push(&mut self, entry: Pending<M::State>) {
        debug_assert!(
            self.slot.is_none(),
            "a walk expands one successor at a time"
        );
        if entry.depth < self.max_steps {
            self.slot = Some(entry);
        }
    }
    fn pop(&mut self) -> Option<Pending<M::State>> {
        self.slot.take()
    }
    fn len(&self) -> usize {
        self.slot.is_some() as usize
    }
    fn prunes_visited(&self) -> bool {
        false
    }
    fn select_init(&mut self, count: usize, out: &mut Vec<usize>) -> Result<(), C::Error> {
        let chooser = self.chooser.as_mut().expect("next_run was called");
        out.push(chooser.choose_init(count)?);
        Ok(())
    }
    fn select(
        &mut self,
        model: &M,
        state: &M::State,
        enabled: &[M::Action],
        out: &mut Vec<usize>,
    ) -> Result<(), C::Error> {
        let chooser = self.chooser.as_mut().expect("next_run was called");
        out.extend(chooser.choose(model, state, enabled)?);
        Ok(())
    }
}
