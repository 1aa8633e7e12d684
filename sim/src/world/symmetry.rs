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
use super::World;

/// A permutation of process ids: process `p` becomes `of(p)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renaming {
    pub(super) to: Vec<ProcessId>,
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
    pub(super) identical: Vec<bool>,
    /// Why processes configured alike were still kept apart.
    pub apart: Vec<String>,
}

impl SymmetryGroups {
    /// Whether process `old`'s configuration is `new`'s (the same process, or two members
    /// of a group configured identically): a part cached for one is the other's.
    pub(super) fn configured_alike(&self, old: ProcessId, new: ProcessId) -> bool {
        new == old
            || self
                .groups
                .iter()
                .zip(&self.identical)
                .any(|(g, &same)| same && g.contains(&old))
    }
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
            .and_then(|()| self.actor_fault_refusal(&r))
            .and_then(|()| self.timing_refusal(&r))
            .map_err(|what| format!("the fault envelope tells {na} from {nb} ({what})"))?;
        Ok(())
    }

    /// The symmetry groups of this world as requested, or why there are none.
    pub fn symmetry_groups(&self, request: &SymmetryRequest) -> Result<SymmetryGroups, String> {
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
                summary(&apart)
            });
        }
        if let Some(p) = self.properties.iter().find(|p| !p.symmetric) {
            return Err(format!(
                "property {} does not declare that it cannot tell interchangeable processes apart",
                p.name
            ));
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
            // One reason per process is enough to say why it stands apart.
            let mut said = false;
            for b in (a + 1)..n {
                if class[b] != b || class[a] == class[b] {
                    continue;
                }
                let alike = self.actors[a]
                    .renamed(&Renaming::swap(n, a, b))
                    .is_ok_and(|r| self.actors[b].same_config(&r));
                match self.swap_refusal(a, b) {
                    Ok(()) => class[b] = class[a],
                    Err(why) if alike && !said && !apart.contains(&why) => {
                        apart.push(why);
                        said = true;
                    }
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
}

/// The first reasons in `apart`, and how many more there are.
pub fn summary(apart: &[String]) -> String {
    const SHOWN: usize = 2;
    let mut text = apart[..apart.len().min(SHOWN)].join("; ");
    if apart.len() > SHOWN {
        text.push_str(&format!("; and {} more", apart.len() - SHOWN));
    }
    text
}

/// What of `faults` renaming by `r` changes, if anything.
fn envelope_refusal<F>(faults: &FaultEnvelope<F>, r: &Renaming) -> Result<(), String> {
    for group in &faults.shared_fate {
        let mut image: Vec<ProcessId> = group.iter().map(|&p| r.of(p)).collect();
        image.sort_unstable();
        if !faults.shared_fate.contains(&image) {
            return Err("the processes that share one fate".into());
        }
    }
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
