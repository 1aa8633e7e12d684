//! When a search with threads (`lookahead`'s workers, `parallel`'s batches) uses them: only
//! while they make it faster.
//!
//! The idea: handing an expansion to a worker pays when preparing it costs more than passing
//! the entry and its successors between threads, and that depends on the model (a world of
//! a few small processes prepares faster than its states travel between cores) and on how
//! far the search has gone; which thread prepares an expansion changes no result
//! (`lookahead`). So a search that has a wall clock measures: after a warm-up on its own
//! thread, it goes on in windows of expansions, each on one thread or with the workers,
//! and times each (but for its first expansions, which a switch disturbs); it tries each
//! way once, then keeps the faster and tries the slower again now and then
//! (`WorkerTrials`), since which is faster changes as the search goes deeper. Only the
//! speed depends on the clock. Without a clock, or with `Options::worker_trials` at
//! `None`, the workers prepare every expansion.
//!
//! Switching the workers off lets the entries they already hold come back first (the search
//! takes them before the frontier's, `Search::next_entry`), so the order of expansions is
//! the queue's whatever the switches.

use super::lookahead::PrepareMany;
use super::search::Search;
use crate::model::Model;
use crate::options::{Options, WallClock, WorkerTrials};
use std::sync::Arc;

/// Windows of expansions timed each way, and which way the next one goes: the clockwork
/// shared by the engines that try whether their threads pay (`Tuning` for the lookahead
/// engine, the batch engine's own).
pub(super) struct Trials {
    clock: Arc<dyn WallClock>,
    trials: WorkerTrials,
    /// Windows begun so far.
    windows: u64,
    /// Where the window in progress starts being timed, and where it ends.
    timed_from: u64,
    ends_at: u64,
    /// When the window in progress started being timed.
    from_ms: Option<u64>,
    /// The last timed window without the threads and with them, in ms.
    last_ms: [Option<u64>; 2],
}

impl Trials {
    /// Trials for a search with `options`, if it has a wall clock and trials are asked for.
    /// The search begins without its threads, for `warmup` expansions.
    pub(super) fn of(options: &Options) -> Option<Trials> {
        let clock = options.hooks.wall_clock.as_ref()?;
        let trials = options.parallelism.worker_trials?;
        Some(Trials {
            clock: clock.clone(),
            trials,
            windows: 0,
            timed_from: u64::MAX,
            ends_at: trials.warmup,
            from_ms: None,
            last_ms: [None; 2],
        })
    }

    /// After the search's `expanded`-th expansion, made with its threads if `on_now`:
    /// starts timing a window, or ends one and says whether the next uses the threads.
    pub(super) fn after(&mut self, expanded: u64, on_now: bool) -> Option<bool> {
        if expanded >= self.timed_from && self.from_ms.is_none() {
            self.from_ms = Some(self.clock.elapsed_ms());
        }
        if expanded < self.ends_at {
            return None;
        }
        if let Some(from_ms) = self.from_ms.take() {
            let took_ms = self.clock.elapsed_ms().saturating_sub(from_ms);
            self.last_ms[usize::from(on_now)] = Some(took_ms);
        }
        let on = self.next_uses_threads();
        let WorkerTrials { window, settle, .. } = self.trials;
        self.windows += 1;
        self.timed_from = expanded + settle.min(window);
        self.ends_at = expanded + window.max(1);
        assert!(
            self.timed_from <= self.ends_at && self.ends_at > expanded,
            "internal bug: a window must end after it starts being timed, and after now"
        );
        Some(on)
    }

    /// Whether the next window uses the threads: each way is tried once, then the faster
    /// is kept but for every `retry_every`-th window, which tries the other again.
    fn next_uses_threads(&self) -> bool {
        match self.last_ms {
            [None, _] => false,
            [Some(_), None] => true,
            [Some(off_ms), Some(on_ms)] => {
                let faster_on = on_ms < off_ms;
                faster_on != self.windows.is_multiple_of(self.trials.retry_every.max(2))
            }
        }
    }
}

/// Whether the lookahead search uses its workers now, and when it decides again.
pub(super) struct Tuning<'m, M: Model> {
    trials: Option<Trials>,
    /// The workers while they are not used.
    parked: Option<&'m dyn PrepareMany<M>>,
}

impl<M: Model> Default for Tuning<'_, M> {
    fn default() -> Self {
        Tuning {
            trials: None,
            parked: None,
        }
    }
}

impl<'m, M: Model> Tuning<'m, M> {
    /// The workers a search starts with: none when it will measure whether they pay (they
    /// wait here until a window uses them), else `many`.
    pub(super) fn adopt(
        &mut self,
        many: Option<&'m dyn PrepareMany<M>>,
        options: &Options,
    ) -> Option<&'m dyn PrepareMany<M>> {
        match (many, Trials::of(options)) {
            (Some(workers), Some(trials)) => {
                self.trials = Some(trials);
                self.parked = Some(workers);
                None
            }
            _ => many,
        }
    }
}

impl<M: Model> Search<'_, M> {
    /// After an expansion: starts timing a window, or ends one and begins the next.
    pub(super) fn tune(&mut self) {
        let expanded = self.stats.expanded_states;
        let on_now = self.many.is_some();
        let tuning = &mut self.tuning;
        let Some(on) = tuning
            .trials
            .as_mut()
            .and_then(|t| t.after(expanded, on_now))
        else {
            return;
        };
        if on {
            self.many = self.many.or(tuning.parked.take());
        } else if let Some(workers) = self.many.take() {
            tuning.parked = Some(workers);
            // States for the workers to free are freed here from now on.
            self.dead.clear();
        }
        // The workers are either in use or parked, never both nor neither; parked workers
        // keep no entry for long: what they hold comes back first (`next_entry`), and is
        // only expanded, never handed over again.
        assert!(
            self.many.is_some() != tuning.parked.is_some(),
            "internal bug: the workers are both in use and parked, or lost"
        );
    }
}
