//! The path log: how the explorer remembers the way to every state, in about one byte a
//! state.
//!
//! Each node records its parent node and the index of the action (among the parent's enabled
//! actions) that led to it; roots record the index of their initial state. A counterexample
//! is rebuilt by walking parents back to the root and re-executing those action indices,
//! which is why `Model::actions` must enumerate in a deterministic order.
//!
//! The log is stored compactly because an exhaustive search keeps one node per unique state.
//! A node is encoded by its parent's distance from the previous node's parent and its choice.
//! Breadth-first search numbers states in the order it expands their parents, so that
//! distance is almost always 0 to 7 and the choice 0 to 15: one byte holds both. Anything
//! else (a root, a depth-first search backing up, a state with many actions) takes an escape
//! byte and two variable-length integers. Every `BLOCK` nodes the log notes the byte offset
//! and the previous parent, so a node is found by decoding at most `BLOCK` nodes; walking a
//! path back costs that per step, which only counterexamples and witnesses pay.
//!
//! Assertions marked "internal bug" state the log's invariants: a parent is recorded before
//! its children, only the node just recorded is ever forgotten, a node asked about exists.

use crate::model::Model;
use crate::report::{Path, Step};

const ROOT: u32 = u32::MAX;

/// Nodes between two offsets noted: decoding cost per step walked back, against 12 bytes
/// of index per block.
const BLOCK: usize = 128;

/// The largest parent distance and choice of a one-byte node.
const SHORT_DISTANCE_MAX: i64 = 7;
const SHORT_CHOICE_MAX: usize = 15;
/// The first byte of a node that does not fit in one (a one-byte node is below 0x80).
const ESCAPE: u8 = 0x80;

/// Parent links and choice indices, one per recorded node, encoded.
#[derive(Clone, Debug, Default)]
pub struct PathLog {
    bytes: Vec<u8>,
    /// Per block of `BLOCK` nodes: the byte offset of its first node.
    block_offsets: Vec<u64>,
    /// Per block: the parent of the node before its first (0 for the first block).
    block_prev_parents: Vec<u32>,
    len: u32,
    /// The parent of the last node recorded (0 before any).
    prev_parent: u32,
    /// How to forget the last node: its byte offset and the previous parent before it.
    undo: Option<(usize, u32)>,
}

impl PathLog {
    /// Records a root: initial state number `init`.
    pub fn push_root(&mut self, init: usize) -> u32 {
        self.push(ROOT, init)
    }

    /// Records the successor of `parent` under its `choice`-th enabled action.
    pub fn push(&mut self, parent: u32, choice: usize) -> u32 {
        let node = self.len;
        assert!(
            node < ROOT,
            "path log full: more than 4 billion recorded states (raise the state limit's granularity)"
        );
        assert!(
            choice <= u16::MAX as usize,
            "a state has more than 65,535 enabled actions; the path log stores choices as u16"
        );
        assert!(
            parent == ROOT || parent < node,
            "internal bug: path-log node {node} names parent {parent}, which is not recorded"
        );
        if (node as usize).is_multiple_of(BLOCK) {
            self.block_offsets.push(self.bytes.len() as u64);
            self.block_prev_parents.push(self.prev_parent);
        }
        self.undo = Some((self.bytes.len(), self.prev_parent));
        encode(&mut self.bytes, distance(self.prev_parent, parent), choice);
        self.prev_parent = parent;
        self.len += 1;
        node
    }

    /// Records, in order, nodes whose parents and choices are given (the parallel search
    /// admits a batch's new states on several threads, then logs them here).
    pub(crate) fn extend(&mut self, parents: &[u32], choices: &[u16]) {
        assert_eq!(
            parents.len(),
            choices.len(),
            "internal bug: one choice per parent"
        );
        for (&parent, &choice) in parents.iter().zip(choices) {
            self.push(parent, choice as usize);
        }
    }

    /// Forgets `node`, the last one recorded, again (its state was a duplicate).
    pub fn pop_unused(&mut self, node: u32) {
        let undo = self.undo.take().filter(|_| node + 1 == self.len);
        let Some((offset, prev_parent)) = undo else {
            panic!("internal bug: only the path-log node just recorded can be forgotten");
        };
        self.bytes.truncate(offset);
        self.prev_parent = prev_parent;
        self.len -= 1;
        if (node as usize).is_multiple_of(BLOCK) {
            self.block_offsets.pop();
            self.block_prev_parents.pop();
        }
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.block_offsets.clear();
        self.block_prev_parents.clear();
        self.len = 0;
        self.prev_parent = 0;
        self.undo = None;
    }

    /// Nodes recorded.
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    pub fn bytes(&self) -> usize {
        self.bytes.capacity()
            + self.block_offsets.capacity() * std::mem::size_of::<u64>()
            + self.block_prev_parents.capacity() * std::mem::size_of::<u32>()
    }

    /// The parent and choice of `node`: decodes its block up to it.
    fn entry(&self, node: u32) -> (u32, usize) {
        assert!(
            node < self.len,
            "internal bug: path-log node {node} was never recorded ({} are)",
            self.len
        );
        let block = node as usize / BLOCK;
        let mut at = self.block_offsets[block] as usize;
        let mut parent = self.block_prev_parents[block];
        let mut choice = 0;
        for _ in block * BLOCK..=node as usize {
            let (d, c) = decode(&self.bytes, &mut at);
            parent = parent.wrapping_add(d as u32);
            choice = c;
        }
        (parent, choice)
    }

    /// The initial-state index and the action choices from the root to `node`.
    pub fn choices_to(&self, node: u32) -> (usize, Vec<usize>) {
        let mut choices = Vec::new();
        let mut n = node;
        loop {
            let (parent, choice) = self.entry(n);
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

/// How far `parent` is from `prev` (wrapping, so that `ROOT` is one step below 0).
fn distance(prev: u32, parent: u32) -> i64 {
    parent.wrapping_sub(prev) as i32 as i64
}

fn encode(bytes: &mut Vec<u8>, distance: i64, choice: usize) {
    if (0..=SHORT_DISTANCE_MAX).contains(&distance) && choice <= SHORT_CHOICE_MAX {
        bytes.push(((distance as u8) << 4) | choice as u8);
        return;
    }
    bytes.push(ESCAPE);
    let zigzag = ((distance << 1) ^ (distance >> 63)) as u64;
    push_varint(bytes, zigzag);
    push_varint(bytes, choice as u64);
}

/// The node at `*at`: its parent's distance from the previous parent, and its choice.
fn decode(bytes: &[u8], at: &mut usize) -> (i64, usize) {
    let first = bytes[*at];
    *at += 1;
    if first < ESCAPE {
        return ((first >> 4) as i64, (first & 0x0F) as usize);
    }
    let zigzag = read_varint(bytes, at);
    let distance = (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64);
    (distance, read_varint(bytes, at) as usize)
}

fn push_varint(bytes: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        bytes.push((value as u8) | 0x80);
        value >>= 7;
    }
    bytes.push(value as u8);
}

fn read_varint(bytes: &[u8], at: &mut usize) -> u64 {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = bytes[*at];
        *at += 1;
        value |= ((byte & 0x7F) as u64) << shift;
        if byte < 0x80 {
            return value;
        }
        shift += 7;
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

    /// A log against plain vectors: random parents (near and far, roots) and choices (small
    /// and large), across block boundaries, with nodes forgotten at random.
    #[test]
    fn every_node_decodes_to_what_was_recorded() {
        let mut rng = crate::prng::Prng::from_seed(7);
        let mut log = PathLog::default();
        let mut plain: Vec<(u32, usize)> = Vec::new();
        for _ in 0..5_000 {
            let n = plain.len() as u32;
            let parent = match (n, rng.below(10)) {
                (0, _) | (_, 0) => ROOT,
                (_, 1..=6) => n - 1 - rng.below(n.min(8) as u64) as u32,
                _ => rng.below(n as u64) as u32,
            };
            let choice = match rng.below(4) {
                0 => rng.below(65_536) as usize,
                _ => rng.below(16) as usize,
            };
            let node = log.push(parent, choice);
            assert_eq!(node, n);
            if rng.below(5) == 0 {
                log.pop_unused(node);
            } else {
                plain.push((parent, choice));
            }
        }
        assert_eq!(log.len(), plain.len());
        for (node, &want) in plain.iter().enumerate() {
            assert_eq!(log.entry(node as u32), want, "node {node}");
        }
    }

    /// Breadth-first numbering (each parent's children next, parents in order) takes one
    /// byte a node, plus the block index.
    #[test]
    fn a_breadth_first_log_takes_about_one_byte_a_state() {
        let mut log = PathLog::default();
        log.push_root(0);
        let mut parent = 0;
        while log.len() < 100_000 {
            for choice in 0..[1, 2, 0, 1][parent as usize % 4] {
                log.push(parent, choice);
            }
            parent += 1;
        }
        let per_node = log.bytes.len() as f64 / log.len() as f64;
        assert!((1.0..1.01).contains(&per_node), "{per_node} bytes a node");
        assert_eq!(log.entry(99_999).0, parent - 1);
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
