//! Symmetry reduction: interchangeable processes, found and checked, and each state
//! deduplicated as the representative of its class.
//!
//! The idea: when two processes are interchangeable (same actor up to renaming, same clock,
//! same links, same place in the fault envelope, properties that cannot tell them apart),
//! a state and the same state with the two processes' roles swapped have the same futures
//! and the same verdicts, so the search needs only one of them.
//!
//! Soundness rule: a state `s` may be deduplicated as `π(s)` only for a permutation `π` of
//! process ids that is an *automorphism of the model*: for every process `p`, the actor of
//! `π(p)` is the actor of `p` with its ids renamed by `π`, the clocks of `p` and `π(p)` are
//! equal, every link `a -> b` equals `π(a) -> π(b)`, every fault of the envelope renamed by
//! `π` is a fault of the envelope (each partition is left unchanged, since states refer to
//! partitions by position), and every property declared itself [`symmetric`]. Then
//! `s -> t` iff `π(s) -> π(t)` with the renamed action, and a state and its image satisfy
//! the same predicates: `s` and `π(s)` are bisimilar, so one of them stands for both.
//! Transpositions are checked one by one; if `(a b)` and `(b c)` are automorphisms so is
//! `(a c)`, so the processes fall into *groups* within which every permutation is one.
//!
//! The representative: the members of each group are sorted by their fingerprint part (a
//! hash that does not depend on their ids when their states hold none of the group's ids;
//! ties keep id order), and the state renamed by that sorting permutation is hashed. Two
//! states get the same canonical fingerprint only if one is a renaming of the other by a
//! product of group permutations, whatever the sort keys and tie breaks: the reduction is
//! sound by construction and merely incomplete when keys tie or depend on ids (two states
//! of one class may then keep two representatives).
//!
//! The explorer uses the canonical fingerprint for deduplication only: it stores and
//! replays the actual successor states, so counterexamples and witnesses are real paths of
//! the full model, which `replay` and `shrink` accept unchanged.
//!
//! Actors take part through the renaming hooks of [`Actor`] (`renamed`, `same_config`,
//! `rename_state`, `rename_msg`, `rename_timer`); an actor that does not implement them
//! makes every process it runs apart from the others, and the refusal names the reason.

use super::actor::{Actor, ProcessId};
use super::faults::FaultEnvelope;
use super::shared::Shared;
use super::state::{Life, PendingTimer, ProcState, StateOf, UndecidedTimer};
use super::World;
use crate::fingerprint::Fingerprint;

/// A permutation of process ids: process `p` becomes `of(p)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renaming {
    to: Vec<ProcessId>,
}

impl Renaming {
    /// The identity on `n` processes.
    pub fn identity(n: usize) -> Self {
        Renaming {
            to: (0..n).collect(),
        }
    }

    /// The transposition of `a` and `b` on `n` processes.
    pub fn swap(n: usize, a: ProcessId, b: ProcessId) -> Self {
        let mut r = Self::identity(n);
        r.to.swap(a, b);
        r
    }

    /// The renaming that sends `p` to `to[p]`; `None` unless `to` is a permutation.
    pub fn from_images(to: Vec<ProcessId>) -> Option<Self> {
        let mut seen = vec![false; to.len()];
        for &p in &to {
            if p >= to.len() || std::mem::replace(&mut seen[p], true) {
                return None;
            }
        }
        Some(Renaming { to })
    }

    /// The new id of `p` (ids beyond the permutation are left alone).
    #[inline]
    pub fn of(&self, p: ProcessId) -> ProcessId {
        self.to.get(p).copied().unwrap_or(p)
    }

    pub fn is_identity(&self) -> bool {
        self.to.iter().enumerate().all(|(p, &q)| p == q)
    }

    /// Whether it moves some process.
    pub fn moves_any(&self, ids: &[ProcessId]) -> bool {
        ids.iter().any(|&p| self.of(p) != p)
    }
}

/// The interchangeable processes of a world, and why others are not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymmetryGroups {
    /// Groups of at least two processes, each in ascending id order, any permutation of
    /// which is an automorphism of the world.
    pub groups: Vec<Vec<ProcessId>>,
    /// Whether the members of each group have identical configurations (no ids to rename).
    identical: Vec<bool>,
    /// Why processes configured alike were still kept apart.
    pub apart: Vec<String>,
}

/// How a world's symmetry is chosen.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum SymmetryRequest {
    /// Found by checking every pair of processes (the default).
    #[default]
    Inferred,
    /// Groups named by the scenario, each checked; a group that fails is refused.
    Declared(Vec<Vec<ProcessId>>),
}

impl<A: Actor> World<A> {
    /// Why swapping `a` and `b` is not an automorphism of this world, if it is not.
    pub fn swap_refusal(&self, a: ProcessId, b: ProcessId) -> Result<(), String> {
        let n = self.processes.len();
        let r = Renaming::swap(n, a, b);
        let (na, nb) = (self.process_name(a), self.process_name(b));
        let renamed_a = self.actors[a]
            .renamed(&r)
            .map_err(|why| format!("{na}: {why}"))?;
        if !self.actors[b].same_config(&renamed_a) {
            return Err(format!("{na} and {nb} are configured differently"));
        }
        for p in (0..n).filter(|&p| p != a && p != b) {
            let name = self.process_name(p);
            let renamed = self.actors[p]
                .renamed(&r)
                .map_err(|why| format!("{name}: {why}"))?;
            if !self.actors[p].same_config(&renamed) {
                return Err(format!(
                    "the configuration of {name} tells {na} from {nb} (it names them in an order that matters)"
                ));
            }
        }
        if self.clocks[a] != self.clocks[b] {
            return Err(format!("{na} and {nb} have different clocks"));
        }
        for x in 0..n {
            for y in (0..n).filter(|&y| y != x) {
                if self.network.link(x, y) != self.network.link(r.of(x), r.of(y)) {
                    let (nx, ny) = (self.process_name(x), self.process_name(y));
                    return Err(format!(
                        "the link {nx} -> {ny} differs from {} -> {}",
                        self.process_name(r.of(x)),
                        self.process_name(r.of(y))
                    ));
                }
            }
        }
        envelope_refusal(&self.faults, &r)
            .map_err(|what| format!("the fault envelope tells {na} from {nb} ({what})"))?;
        Ok(())
    }

    /// The symmetry groups of this world as requested, or why there are none.
    pub fn symmetry_groups(&self, request: &SymmetryRequest) -> Result<SymmetryGroups, String> {
        if let Some(p) = self.properties.iter().find(|p| !p.symmetric) {
            return Err(format!(
                "property {} does not declare that it cannot tell interchangeable processes apart",
                p.name
            ));
        }
        let mut groups = Vec::new();
        let mut apart = Vec::new();
        match request {
            SymmetryRequest::Inferred => self.infer_groups(&mut groups, &mut apart),
            SymmetryRequest::Declared(declared) => {
                for group in declared {
                    let mut group = group.clone();
                    group.sort_unstable();
                    group.dedup();
                    match group
                        .windows(2)
                        .try_for_each(|w| self.swap_refusal(w[0], w[1]))
                    {
                        Ok(()) if group.len() > 1 => groups.push(group),
                        Ok(()) => {}
                        Err(why) => apart.push(why),
                    }
                }
            }
        }
        if groups.is_empty() {
            return Err(if apart.is_empty() {
                "no two processes are configured alike".into()
            } else {
                apart.join("; ")
            });
        }
        let identical = groups
            .iter()
            .map(|g| {
                g.iter()
                    .all(|&p| self.actors[p].same_config(&self.actors[g[0]]))
            })
            .collect();
        Ok(SymmetryGroups {
            groups,
            identical,
            apart,
        })
    }

    /// Unites the processes whose swap is an automorphism; notes why alike ones are not.
    fn infer_groups(&self, groups: &mut Vec<Vec<ProcessId>>, apart: &mut Vec<String>) {
        let n = self.processes.len();
        let mut class: Vec<ProcessId> = (0..n).collect();
        for a in 0..n {
            for b in (a + 1)..n {
                if class[b] != b || class[a] == class[b] {
                    continue;
                }
                let alike = self.actors[a]
                    .renamed(&Renaming::swap(n, a, b))
                    .is_ok_and(|r| self.actors[b].same_config(&r));
                match self.swap_refusal(a, b) {
                    Ok(()) => class[b] = class[a],
                    Err(why) if alike && !apart.contains(&why) => apart.push(why),
                    Err(_) => {}
                }
            }
        }
        for root in 0..n {
            let members: Vec<ProcessId> = (0..n).filter(|&p| class[p] == root).collect();
            if members.len() > 1 {
                groups.push(members);
            }
        }
    }

    /// The permutation that sorts each group's members by their fingerprint part.
    fn canonical_renaming(&self, state: &StateOf<A>, sym: &SymmetryGroups) -> Renaming {
        let now = state.now_ms;
        let mut to: Vec<ProcessId> = (0..self.processes.len()).collect();
        let mut keyed = Vec::new();
        for group in &sym.groups {
            keyed.clear();
            keyed.extend(group.iter().map(|&p| {
                let proc = &state.procs[p];
                let key = proc
                    .cached_hash(now)
                    .unwrap_or_else(|| proc.hash_relative(&self.actors[p], &self.clocks[p], now));
                (key, p)
            }));
            keyed.sort_unstable();
            for (&(_, old), &new) in keyed.iter().zip(group) {
                to[old] = new;
            }
        }
        Renaming { to }
    }

    /// The fingerprint of the representative of `state`'s class under `sym`, and whether
    /// the representative differs from `state`.
    pub fn canonical_fingerprint_under(
        &self,
        state: &StateOf<A>,
        sym: &SymmetryGroups,
    ) -> (Fingerprint, bool) {
        let r = self.canonical_renaming(state, sym);
        if r.is_identity() {
            return (crate::model::Model::fingerprint(self, state), false);
        }
        let renamed = self.rename(state, &r, sym);
        (crate::model::Model::fingerprint(self, &renamed), true)
    }

    /// `state` with every process renamed by `r` (an automorphism of this world).
    pub fn rename(&self, state: &StateOf<A>, r: &Renaming, sym: &SymmetryGroups) -> StateOf<A> {
        let n = state.procs.len();
        let mut from = vec![0; n];
        for p in 0..n {
            from[r.of(p)] = p;
        }
        let procs = (0..n)
            .map(|new| {
                let old = from[new];
                let identical = new == old
                    || sym
                        .groups
                        .iter()
                        .zip(&sym.identical)
                        .any(|(g, &same)| same && g.contains(&old));
                match self.rename_proc(&state.procs[old], old, r) {
                    Some(p) => Shared::new(p),
                    None if identical => state.procs[old].clone(),
                    None => {
                        let mut moved = state.procs[old].clone();
                        moved.forget_hash();
                        moved
                    }
                }
            })
            .collect();
        let mut in_flight: Vec<_> = state
            .in_flight
            .iter()
            .map(|m| {
                let mut m2 = m.clone();
                (m2.from, m2.to) = (r.of(m.from), r.of(m.to));
                if let Some(msg) = self.actors[m.to].rename_msg(&m.msg, r) {
                    m2.msg = msg;
                }
                m2
            })
            .collect();
        // The world keeps messages grouped by link in link order, send order within a link.
        in_flight.sort_by_key(|m| (m.from, m.to));
        let unrouted = state
            .unrouted
            .iter()
            .map(|m| {
                let mut m2 = m.clone();
                (m2.from, m2.to) = (r.of(m.from), r.of(m.to));
                if let Some(msg) = self.actors[m.to].rename_msg(&m.msg, r) {
                    m2.msg = msg;
                }
                m2
            })
            .collect();
        let undecided_timers = state
            .undecided_timers
            .iter()
            .map(|t| UndecidedTimer {
                process: r.of(t.process),
                timer: self.actors[t.process]
                    .rename_timer(&t.timer, r)
                    .unwrap_or_else(|| t.timer.clone()),
                after_ms: t.after_ms.clone(),
            })
            .collect();
        StateOf::<A> {
            now_ms: state.now_ms,
            procs,
            in_flight,
            unrouted,
            undecided_timers,
            partitions: state.partitions.clone(),
            faults_used: state.faults_used,
        }
    }

    /// Process `p`'s state with its ids renamed, or `None` when nothing in it changes.
    fn rename_proc(
        &self,
        proc: &ProcState<A::State, A::Timer>,
        p: ProcessId,
        r: &Renaming,
    ) -> Option<ProcState<A::State, A::Timer>> {
        let actor = &self.actors[p];
        let life = match &proc.life {
            Life::Up(s) => actor.rename_state(s, r).map(Life::Up),
            Life::Down {
                survived: Some(s),
                restart_at_ms,
            } => actor.rename_state(s, r).map(|s| Life::Down {
                survived: Some(s),
                restart_at_ms: *restart_at_ms,
            }),
            Life::Down { survived: None, .. } => None,
        };
        let timers: Vec<Option<A::Timer>> = proc
            .timers
            .iter()
            .map(|t| actor.rename_timer(&t.timer, r))
            .collect();
        if life.is_none() && timers.iter().all(Option::is_none) {
            return None;
        }
        Some(ProcState {
            life: life.unwrap_or_else(|| proc.life.clone()),
            paused_until_ms: proc.paused_until_ms,
            clock_steps_ms: proc.clock_steps_ms,
            timers: proc
                .timers
                .iter()
                .zip(timers)
                .map(|(t, renamed)| PendingTimer {
                    due_ms: t.due_ms,
                    timer: renamed.unwrap_or_else(|| t.timer.clone()),
                })
                .collect(),
        })
    }
}

/// What of `faults` renaming by `r` changes, if anything.
fn envelope_refusal(faults: &FaultEnvelope, r: &Renaming) -> Result<(), String> {
    for f in &faults.pauses {
        let image = (r.of(f.process), &f.durations_ms);
        if !faults
            .pauses
            .iter()
            .any(|g| (g.process, &g.durations_ms) == image)
        {
            return Err("its pauses".into());
        }
    }
    for f in &faults.crashes {
        let image = (r.of(f.process), &f.kinds, &f.restart_after_ms);
        if !faults
            .crashes
            .iter()
            .any(|g| (g.process, &g.kinds, &g.restart_after_ms) == image)
        {
            return Err("its crashes".into());
        }
    }
    for f in &faults.clock_steps {
        let image = (r.of(f.process), &f.deltas_ms);
        if !faults
            .clock_steps
            .iter()
            .any(|g| (g.process, &g.deltas_ms) == image)
        {
            return Err("its clock steps".into());
        }
    }
    for f in &faults.partitions {
        let mut links: Vec<_> = f.links.iter().map(|&(a, b)| (r.of(a), r.of(b))).collect();
        let mut own = f.links.clone();
        links.sort_unstable();
        own.sort_unstable();
        links.dedup();
        own.dedup();
        if links != own {
            return Err(format!("partition {}", f.name));
        }
    }
    Ok(())
}
