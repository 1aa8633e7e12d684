//! The shrinker: a smaller run that still violates the same property.
//!
//! A candidate is the current run with one change: a fault removed, a fault or delay made
//! smaller (`Model::shrink_action`), or a block of ordinary steps dropped. It is executed
//! loosely: each remembered action is taken if the model offers it and skipped otherwise,
//! and when the candidate runs out the run continues with the first enabled non-fault
//! action, so that the system can still reach the violation by itself. A candidate is kept
//! when it violates the property and scores lower on (faults, fault sizes, steps). The score
//! strictly decreases, so shrinking ends. A candidate is one run of the explorer (a `Walk`
//! with the `Loose` chooser) that judges only the property being shrunk and stops at its
//! first violation, so properties are evaluated as the search evaluates them.

use crate::chooser::Chooser;
use crate::explorer::explore;
use crate::frontier::Walk;
use crate::model::Model;
use crate::options::Judged;
use crate::options::Options;
use crate::report::{Path, Status};
use std::convert::Infallible;

/// Bounds on the work of the shrinker.
#[derive(Clone, Copy, Debug)]
pub struct ShrinkOptions {
    /// Candidates to try at most.
    pub max_attempts: usize,
    /// Extra steps a candidate may take after its remembered actions run out.
    pub max_extension: usize,
}

impl Default for ShrinkOptions {
    fn default() -> Self {
        ShrinkOptions {
            max_attempts: 5_000,
            max_extension: 1_000,
        }
    }
}

/// The smallest violating run found from `path`, which must violate `property`.
///
/// Returns `None` if `path` does not violate `property` (or there is no such property).
pub fn shrink<M: Model>(
    model: &M,
    path: &Path<M>,
    property: &str,
    options: ShrinkOptions,
) -> Option<Path<M>> {
    if !model.properties().iter().any(|p| p.name == property) {
        return None;
    }
    let run = |actions: &[M::Action]| attempt(model, property, path, actions, options);
    let original: Vec<M::Action> = path.steps.iter().map(|s| s.action.clone()).collect();
    let mut best = run(&original)?;
    let mut best_score = score(model, &best.0);
    let mut attempts = 0;
    'improve: loop {
        for candidate in candidates(model, &best.0) {
            attempts += 1;
            if attempts > options.max_attempts {
                break 'improve;
            }
            if let Some(found) = run(&candidate) {
                let s = score(model, &found.0);
                if s < best_score {
                    (best, best_score) = (found, s);
                    continue 'improve;
                }
            }
        }
        break;
    }
    Some(best.1)
}

/// (faults, total size rank, steps): lower is simpler. The shrinker only ever keeps a
/// candidate whose score is strictly lower, so a shrunk run never scores higher.
pub fn score<M: Model>(model: &M, actions: &[M::Action]) -> (usize, usize, usize) {
    let faults = actions.iter().filter(|a| model.is_fault(a)).count();
    let sizes = actions.iter().map(|a| model.shrink_action(a).len()).sum();
    (faults, sizes, actions.len())
}

/// Variants of `actions` to try, simplest changes first.
fn candidates<M: Model>(model: &M, actions: &[M::Action]) -> Vec<Vec<M::Action>> {
    let mut out = Vec::new();
    let without = |from: usize, to: usize| {
        let mut v = actions[..from].to_vec();
        v.extend_from_slice(&actions[to..]);
        v
    };
    for (i, a) in actions.iter().enumerate() {
        if model.is_fault(a) {
            out.push(without(i, i + 1));
        }
    }
    for (i, a) in actions.iter().enumerate() {
        for smaller in model.shrink_action(a) {
            let mut v = actions.to_vec();
            v[i] = smaller;
            out.push(v);
        }
    }
    let mut block = actions.len() / 2;
    while block >= 1 {
        let mut start = 0;
        while start + block <= actions.len() {
            out.push(without(start, start + block));
            start += block;
        }
        block /= 2;
    }
    out
}

/// Runs `actions` loosely from `path`'s initial state; returns the actions taken up to the
/// first violation of `property` and that path, if it is violated.
fn attempt<M: Model>(
    model: &M,
    property: &str,
    path: &Path<M>,
    actions: &[M::Action],
    options: ShrinkOptions,
) -> Option<(Vec<M::Action>, Path<M>)> {
    let loose = Loose {
        init: path.init,
        remembered: actions.iter(),
        extension: 0,
        max_extension: options.max_extension,
    };
    let mut walk = Walk::single(path.seed, loose);
    let options = Options {
        judged: Judged::Only(property.to_string()),
        ..Options::default()
    };
    let report = explore(model, &mut walk, options);
    let verdict = report.properties.into_iter().find(|p| p.name == property)?;
    match verdict.status {
        Status::Violated(found) => {
            let taken = found.steps.iter().map(|s| s.action.clone()).collect();
            Some((taken, found))
        }
        _ => None,
    }
}

/// Takes each remembered action the model offers and skips the others; once they run out,
/// the first enabled non-fault action, for at most `max_extension` steps.
struct Loose<'a, A> {
    init: usize,
    remembered: std::slice::Iter<'a, A>,
    extension: usize,
    max_extension: usize,
}

impl<M: Model> Chooser<M> for Loose<'_, M::Action> {
    type Error = Infallible;

    fn choose_init(&mut self, _count: usize) -> Result<usize, Infallible> {
        Ok(self.init)
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
        for a in self.remembered.by_ref() {
            if let Some(i) = enabled.iter().position(|e| e == a) {
                return Ok(Some(i));
            }
        }
        self.extension += 1;
        if self.extension > self.max_extension {
            return Ok(None);
        }
        Ok(enabled.iter().position(|e| !model.is_fault(e)))
    }
}
