//! The shrinker: a smaller run that still violates the same property.
//!
//! A candidate is the current run with one change: a fault removed, a fault or delay made
//! smaller (`Model::shrink_action`), or a block of ordinary steps dropped. It is executed
//! loosely: each remembered action is taken if the model offers it and skipped otherwise,
//! and when the candidate runs out the run continues with the first enabled non-fault
//! action, so that the system can still reach the violation by itself. A candidate is kept
//! when it violates the property and scores lower on (faults, fault sizes, steps). The score
//! strictly decreases, so shrinking ends.

use crate::checker::{Checker, Hit};
use crate::model::Model;
use crate::path_log::rebuild_path;
use crate::report::Path;

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
    let checker = Checker::new(model.properties());
    let target = checker.props.iter().position(|p| p.name == property)?;
    let run = |actions: &[M::Action]| attempt(model, &checker, target, path.init, actions, options);
    let original: Vec<M::Action> = path.steps.iter().map(|s| s.action.clone()).collect();
    let (mut best_choices, mut best) = run(&original)?;
    let mut best_score = score(model, &best);
    let mut attempts = 0;
    'improve: loop {
        for candidate in candidates(model, &best) {
            attempts += 1;
            if attempts > options.max_attempts {
                break 'improve;
            }
            if let Some((choices, actions)) = run(&candidate) {
                let s = score(model, &actions);
                if s < best_score {
                    (best_choices, best, best_score) = (choices, actions, s);
                    continue 'improve;
                }
            }
        }
        break;
    }
    Some(rebuild_path(model, path.init, &best_choices, path.seed))
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

/// Runs `actions` loosely from initial state `init`; returns the choices and actions
/// actually taken up to the first violation of property `target`, if it is violated.
fn attempt<M: Model>(
    model: &M,
    checker: &Checker<M>,
    target: usize,
    init: usize,
    actions: &[M::Action],
    options: ShrinkOptions,
) -> Option<(Vec<usize>, Vec<M::Action>)> {
    let mut state = model.init_states().into_iter().nth(init)?;
    let mut obligations = checker.initial_obligations(model.virtual_time_ms(&state));
    let mut hits = Vec::new();
    let violated = |hits: &mut Vec<(usize, Hit)>| {
        let v = hits.iter().any(|&(i, h)| i == target && h == Hit::Violated);
        hits.clear();
        v
    };
    let check = |state: &M::State, obligations: &mut _, hits: &mut _| {
        let vt = model.virtual_time_ms(state);
        checker.update_obligations(model, state, vt, obligations, hits);
        checker.evaluate(model, state, hits);
    };
    check(&state, &mut obligations, &mut hits);
    if violated(&mut hits) {
        return Some((Vec::new(), Vec::new()));
    }
    let (mut choices, mut taken) = (Vec::new(), Vec::new());
    let mut remembered = actions.iter();
    let mut extension = 0;
    let mut enabled = Vec::new();
    loop {
        enabled.clear();
        model.actions(&state, &mut enabled);
        if enabled.is_empty() {
            checker.at_terminal(&obligations, &mut hits);
            return violated(&mut hits).then_some((choices, taken));
        }
        let choice = loop {
            match remembered.next() {
                Some(a) => {
                    if let Some(i) = enabled.iter().position(|e| e == a) {
                        break Some(i);
                    }
                }
                None => {
                    extension += 1;
                    break enabled.iter().position(|e| !model.is_fault(e));
                }
            }
        };
        let i = choice?;
        if extension > options.max_extension {
            return None;
        }
        state = model.next_state(&state, &enabled[i])?;
        choices.push(i);
        taken.push(enabled[i].clone());
        check(&state, &mut obligations, &mut hits);
        if violated(&mut hits) {
            return Some((choices, taken));
        }
    }
}
