//! The path log: how the explorer remembers the way to every state at 6 bytes a state.
//!
//! Each node records its parent node and the index of the action (among the parent's enabled
//! actions) that led to it; roots record the index of their initial state. A counterexample
//! is rebuilt by walking parents back to the root and re-executing those action indices,
//! which is why `Model::actions` must enumerate in a deterministic order.
//!
//! Assertions marked "internal bug" state the log's invariants: a parent is recorded before
//! its children, only the node just recorded is ever forgotten, a node asked about exists.

use crate::model::Model;
use crate::report::{Path, Step};

const ROOT: u32 = u32::MAX;

/// Parent links and choice indices, one per recorded node.
#[derive(Clone, Debug, Default)]
pub struct PathLog {
    parents: Vec<u32>,
    choices: Vec<u16>,
}

impl PathLog {
    /// Records a root: initial state number `init`.
    pub fn push_root(&mut self, init: usize) -> u32 {
        self.push(ROOT, init)
    }

    /// Records the successor of `parent` under its `choice`-th enabled action.
    pub fn push(&mut self, parent: u32, choice: usize) -> u32 {
        let node = self.parents.len();
        assert!(
            node < ROOT as usize,
            "path log full: more than 4 billion recorded states (raise the state limit's granularity)"
        );
        assert!(
            choice <= u16::MAX as usize,
            "a state has more than 65,535 enabled actions; the path log stores choices as u16"
        );
        assert!(
            parent == ROOT || (parent as usize) < node,
            "internal bug: path-log node {node} names parent {parent}, which is not recorded"
        );
        self.parents.push(parent);
        self.choices.push(choice as u16);
        node as u32
    }

    /// Records `n` nodes at once, to be filled in by the caller (several threads, each its
    /// own part): the first node's number, and the parent and choice slots. A parent must
    /// be a node recorded before the first, a choice at most `u16::MAX`.
    pub(crate) fn append(&mut self, n: usize) -> (u32, &mut [u32], &mut [u16]) {
        let first = self.parents.len();
        assert!(
            first + n < ROOT as usize,
            "path log full: more than 4 billion recorded states (raise the state limit's granularity)"
        );
        self.parents.resize(first + n, ROOT);
        self.choices.resize(first + n, 0);
        (
            first as u32,
            &mut self.parents[first..],
            &mut self.choices[first..],
        )
    }

    /// Forgets `node`, the last one recorded, again (its state was a duplicate).
    pub fn pop_unused(&mut self, node: u32) {
        assert_eq!(
            node as usize + 1,
            self.parents.len(),
            "internal bug: only the path-log node just recorded can be forgotten"
        );
        self.parents.pop();
        self.choices.pop();
    }

    pub fn clear(&mut self) {
        self.parents.clear();
        self.choices.clear();
    }

    pub fn bytes(&self) -> usize {
        self.parents.capacity() * 4 + self.choices.capacity() * 2
    }

    /// The initial-state index and the action choices from the root to `node`.
    pub fn choices_to(&self, node: u32) -> (usize, Vec<usize>) {
        assert!(
            (node as usize) < self.parents.len(),
            "internal bug: path-log node {node} was never recorded ({} are)",
            self.parents.len()
        );
        let mut choices = Vec::new();
        let mut n = node;
        loop {
            let parent = self.parents[n as usize];
            let choice = self.choices[n as usize] as usize;
            if parent == ROOT {
                choices.reverse();
                return (choice, choices);
            }
            choices.push(choice);
            n = parent;
        }
    }

    /// Rebuilds the full path to `node` by re-executing its choices.
    pub fn path_to<M: Model>(&self, model: &M, node: u32, seed: Option<u64>) -> Path<M> {
        let (init, choices) = self.choices_to(node);
        rebuild_path(model, init, &choices, seed)
    }
}

/// Re-executes `choices` (indices into each state's enabled actions) from initial state `init`.
pub fn rebuild_path<M: Model>(
    model: &M,
    init: usize,
    choices: &[usize],
    seed: Option<u64>,
) -> Path<M> {
    let mut state = model.init_states().swap_remove(init);
    let mut states = vec![state.clone()];
    let mut steps = Vec::with_capacity(choices.len());
    let mut enabled = Vec::new();
    for &choice in choices {
        enabled.clear();
        model.actions(&state, &mut enabled);
        assert!(
            choice < enabled.len(),
            "internal bug: recorded choice {choice} of {} enabled actions (Model::actions must enumerate deterministically)",
            enabled.len()
        );
        let action = enabled[choice].clone();
        let label = model.label(&state, &action);
        state = model
            .next_state(&state, &action)
            .expect("internal bug: a recorded transition is not deterministic");
        steps.push(Step { action, label });
        states.push(state.clone());
    }
    Path {
        seed,
        init,
        steps,
        states,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_walked_back_to_the_root() {
        let mut log = PathLog::default();
        let root = log.push_root(2);
        let a = log.push(root, 5);
        let b = log.push(a, 0);
        assert_eq!(log.choices_to(b), (2, vec![5, 0]));
        let dup = log.push(a, 1);
        log.pop_unused(dup);
        assert_eq!(
            log.push(a, 1),
            dup,
            "the forgotten node is the next one recorded"
        );
    }

    #[test]
    #[should_panic(expected = "internal bug: only the path-log node just recorded")]
    fn forgetting_a_node_that_is_not_the_last_is_a_bug() {
        let mut log = PathLog::default();
        let root = log.push_root(0);
        log.push(root, 0);
        log.pop_unused(root);
    }

    #[test]
    #[should_panic(expected = "internal bug: path-log node 1 names parent 7")]
    fn a_parent_must_be_recorded_first() {
        let mut log = PathLog::default();
        log.push_root(0);
        log.push(7, 0);
    }
}
