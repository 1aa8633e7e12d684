//! Sharded search: shard K of N is a breadth-first search that, at the first level holding
//! at least `roots_per_shard * N` states (by default [`ROOTS_PER_SHARD`]), keeps only its own contiguous block of that level
//! and goes on from there alone.
//!
//! Every shard runs the same prefix (the levels before the split), so the split and each
//! shard's roots depend on the model and (N, K) alone: any shard can be rerun by itself. A
//! shard records the deduplication key of every state it stores; without partial-order
//! reduction the union of those sets is exactly the unsharded search's visited set (every
//! state the unsharded search reaches lies in the prefix or below some root, and each
//! shard's search below its roots is the unsharded search restricted to them), so the
//! merged unique count is the size of the union, and the sum of the shards' counts over it
//! is the work duplicated across shards.
//!
//! The counterexample: breadth-first search admits states in the order of their shortest
//! paths compared by length, then by choice indices (initial state first). The smallest
//! violating path P of the whole search passes through one root at the split level, and P's
//! prefix to it is that root's recorded path (a smaller one would make a smaller violating
//! path); the shard owning that root admits P first among its own paths. So the smallest of
//! the shards' first violations, in that order ([`choice_path`]), is the unsharded one; the
//! same holds for each `sometimes` witness.
//!
//! Partial-order reduction works in a shard, with one rule of its own: the other shards'
//! roots, which this shard stores but leaves to them, count as *expanded* for the cycle
//! proviso (`Frontier::take_handed_off`). Why: a shard's proviso sees only its own
//! expansions, so a reduced cycle that runs through another shard's root would fire no
//! shard's proviso, and an action postponed around it would be explored by none (a model
//! of exactly that is `sim/tests/shard_proviso.rs`). With the rule, a reduced expansion
//! that reaches another shard's root is a full one, so the violating path's next action is
//! taken before the search hands the rest of it to that shard, and each hand-over shortens
//! what is left of the path: every violation (and witness) reachable in the full model is
//! found by some shard. What changes is the exact sets: each shard's reduced graph differs
//! from the unsharded one's (its proviso fires where its own expansions say), so the union
//! of the shards' keys is not the unsharded reduced search's visited set, and the smallest
//! of the shards' hits is the shortest the shards found, a real path but not necessarily
//! the unsharded search's. Symmetry reduction works unchanged: the canonical key of a state
//! does not depend on the search order.

use super::key::KeyMode;
use super::run;
use crate::fingerprint::Fingerprint;
use crate::frontier::{reallocation_bytes, Frontier, Pending, RunStart};
use crate::model::Model;
use crate::options::Options;
use crate::plan::{Plan, Strategy};
use crate::report::{Path, Report};
use std::collections::VecDeque;

/// By default, the split happens at the first level with at least this many states per shard.
pub const ROOTS_PER_SHARD: u32 = 64;

/// Which part of the search to run: shard `shard` (from 0) of `shards`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardPlan {
    pub shards: u32,
    pub shard: u32,
    /// The split happens at the first level with at least this many states per shard.
    pub roots_per_shard: u32,
}

impl ShardPlan {
    /// A plan, refused when there are no shards or `shard` is not below `shards`.
    pub fn new(shards: u32, shard: u32) -> Result<Self, String> {
        if shards == 0 {
            return Err("--shards must be at least 1".into());
        }
        if shard >= shards {
            return Err(format!(
                "--shard {shard} is out of range: shards are numbered 0 to {}",
                shards - 1
            ));
        }
        Ok(ShardPlan {
            shards,
            shard,
            roots_per_shard: ROOTS_PER_SHARD,
        })
    }

    /// The same plan, splitting at the first level with `roots` states per shard (at least 1).
    pub fn with_roots_per_shard(self, roots: u32) -> Self {
        ShardPlan {
            roots_per_shard: roots.max(1),
            ..self
        }
    }
}

/// Where the search split and which part of that level this shard took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// The depth of the level that was split.
    pub depth: u32,
    /// How many states that level held.
    pub level_states: u64,
    /// The first of this shard's roots, by position in that level.
    pub first_root: u64,
    /// How many roots this shard took.
    pub roots: u64,
}

/// What a shard found.
pub struct ShardReport<M: Model> {
    pub report: Report<M>,
    /// The deduplication keys of the states this shard stored, sorted.
    pub keys: Vec<Fingerprint>,
    /// Where the search split; `None` when it ended before a level was large enough (every
    /// shard then ran the whole search).
    pub split: Option<Split>,
}

/// Runs shard `plan.shard` of `plan.shards` of a breadth-first search of `model`.
pub fn explore_shard<M: Model>(model: &M, plan: ShardPlan, options: Options) -> ShardReport<M> {
    let search = Plan::decide(model, &options, Strategy::Frontier { prunes: true });
    options.hooks.begin();
    let mut frontier = Sharded {
        model,
        keys: KeyMode::of(&search, &options),
        plan,
        queue: VecDeque::new(),
        started: false,
        last_depth: None,
        split: None,
        stored: Vec::with_capacity(options.storage.expected_states),
        hand_off: search.partial_order.is_on(),
        handed_off: Vec::new(),
    };
    let ran = run(model, search, &mut frontier, options, None);
    let report = ran.unwrap_or_else(|never| match never {}).0;
    let mut keys = frontier.stored;
    keys.sort_unstable();
    keys.dedup();
    ShardReport {
        report,
        keys,
        split: frontier.split,
    }
}

/// A path as the order of breadth-first admission sees it: the initial state's index, then
/// each step's index among the actions enabled where it was taken (found by its label).
/// Paths compare by length first, then by these indices.
pub fn choice_path<M: Model>(model: &M, path: &Path<M>) -> Vec<u32> {
    let mut out = Vec::with_capacity(path.steps.len() + 1);
    out.push(path.init as u32);
    let mut enabled = Vec::new();
    for (state, step) in path.states.iter().zip(&path.steps) {
        enabled.clear();
        model.actions(state, &mut enabled);
        let index = enabled
            .iter()
            .position(|a| model.label(state, a) == step.label)
            .expect("a path's step is one of the actions enabled where it was taken");
        out.push(index as u32);
    }
    out
}

/// The order in which breadth-first search admits the ends of two paths (see [`choice_path`]).
pub fn bfs_order(a: &[u32], b: &[u32]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// How many distinct keys the sorted, deduplicated `sets` hold together.
pub fn union_len<I: Iterator<Item = Fingerprint>>(sets: Vec<I>) -> u64 {
    let mut heads: Vec<std::iter::Peekable<I>> = sets.into_iter().map(|s| s.peekable()).collect();
    let mut count = 0;
    loop {
        let Some(smallest) = heads.iter_mut().filter_map(|h| h.peek().copied()).min() else {
            return count;
        };
        count += 1;
        for head in &mut heads {
            if head.peek() == Some(&smallest) {
                head.next();
            }
        }
    }
}

/// A breadth-first queue that splits at the first level large enough and keeps the shard's
/// block of it, recording the key of every state pushed (every state the search stores).
struct Sharded<'m, M: Model> {
    model: &'m M,
    /// How the search makes its deduplication keys.
    keys: KeyMode,
    plan: ShardPlan,
    queue: VecDeque<Pending<M::State>>,
    started: bool,
    last_depth: Option<u32>,
    split: Option<Split>,
    /// The key of every state pushed.
    stored: Vec<Fingerprint>,
    /// Whether to keep the other shards' roots for the search to take (under partial-order
    /// reduction, which counts them as expanded; the search drops them otherwise).
    hand_off: bool,
    handed_off: Vec<Pending<M::State>>,
}

impl<M: Model> Sharded<'_, M> {
    /// At the start of a level (the queue holds exactly that level), keeps this shard's
    /// block of it if it is large enough.
    fn maybe_split(&mut self) {
        let shards = self.plan.shards as usize;
        let Some(front) = self.queue.front() else {
            return;
        };
        let new_level = self.last_depth.is_none_or(|d| front.depth > d);
        let wanted = self.plan.roots_per_shard as usize * shards;
        if shards == 1 || !new_level || self.queue.len() < wanted {
            return;
        }
        let level = self.queue.len();
        let k = self.plan.shard as usize;
        let (lo, hi) = (k * level / shards, (k + 1) * level / shards);
        self.split = Some(Split {
            depth: front.depth,
            level_states: level as u64,
            first_root: lo as u64,
            roots: (hi - lo) as u64,
        });
        let mut level: Vec<_> = std::mem::take(&mut self.queue).into();
        let after = level.split_off(hi);
        self.queue = level.split_off(lo).into();
        if self.hand_off {
            self.handed_off = level;
            self.handed_off.extend(after);
        }
    }
}

impl<M: Model> Frontier<M> for Sharded<'_, M> {
    type Error = std::convert::Infallible;

    fn next_run(&mut self) -> Option<RunStart> {
        (!std::mem::replace(&mut self.started, true)).then_some(RunStart { seed: None })
    }
    fn push(&mut self, entry: Pending<M::State>) {
        let vt = self.model.virtual_time_ms(&entry.state);
        let key = (self.keys).key(self.model, &entry.state, &entry.obligations, vt);
        self.stored.push(key);
        self.queue.push_back(entry);
    }
    fn pop(&mut self) -> Option<Pending<M::State>> {
        if self.split.is_none() {
            self.maybe_split();
        }
        let entry = self.queue.pop_front()?;
        self.last_depth = Some(entry.depth);
        Some(entry)
    }
    fn peek_next(&self) -> Option<&Pending<M::State>> {
        self.queue.front()
    }
    fn take_handed_off(&mut self) -> Vec<Pending<M::State>> {
        std::mem::take(&mut self.handed_off)
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn growth_bytes(&self, extra: usize) -> usize {
        reallocation_bytes::<Pending<M::State>>(self.queue.len(), self.queue.capacity(), extra)
    }
}
