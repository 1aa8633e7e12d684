//! Canonical representatives of symmetry classes: each group's members sorted by their
//! fingerprint part and what the state says of them, remaining ties tried every way, the
//! state renamed and hashed.
//!
//! The soundness rule is in `symmetry.rs`: every candidate is the state renamed by a product
//! of group permutations, all automorphisms of the world, so whichever candidate is chosen
//! the reduction is sound. The choice: members sorted by their fingerprint part (which does
//! not depend on their ids when their states hold none of the group's ids); members whose
//! parts tie may differ in what the rest of the state says of their ids (a lease naming
//! its holder, messages from them), so tied members are sorted again by that, as far as it
//! can be said without naming a process (`World::refined_key`: other processes' knowledge of
//! them, `Actor::hash_knowledge_of`, and the messages to and from them); a run of three or
//! more still tied whose every swap of consecutive members leaves the state as it is gives
//! one candidate; any other tied run is tried in every order, up to [`MAX_CANDIDATES`]
//! renamings, and the smallest fingerprint wins. Then two states of one class get the same
//! fingerprint whenever the sort keys are invariant and the ties are few; beyond the cap,
//! tied members keep id order (sound, merely incomplete).
//!
//! Messages still waiting for their delay (unrouted) are grouped by link in every candidate,
//! send order kept within a link, as the world keeps messages in flight. A renaming reorders
//! the destinations of one handler's sends (a Redlock client asks its nodes in position
//! order), and grouping makes the renamed state the one the renamed sends give. It is sound
//! because routing messages on different links commutes: each choice puts one message on
//! its own link and changes nothing else, so the states reached once every message is routed
//! are the same in any order, and the states in between only ever offer routing choices (no
//! event, fault or `Advance` is enabled while a message is unrouted, and no time passes).

use super::actor::{Actor, ProcessId};
use super::fault_timing::FaultTimes;
use super::key_memo::KeyMemo;
use super::network::{msg_hash, InFlight, Unrouted};
use super::shared::Shared;
use super::state::{Life, PendingTimer, ProcState, StateOf};
use super::symmetry::{Renaming, SymmetryGroups};
use super::World;
use crate::fingerprint::{lane_a, lanes_in_order, Fingerprint, FpHasher};
use std::hash::Hash;
use std::sync::Arc;

/// The most renamings tried for one state (every order of up to five tied members).
pub const MAX_CANDIDATES: usize = 120;

/// The swaps of two members asked about in one canonicalisation, with the answers
/// ([`World::swap_fixes_asked`]).
pub(super) type SwapsAsked = Vec<((ProcessId, ProcessId), bool)>;

impl<A: Actor> World<A> {
    /// The permutation that sorts each group's members by their fingerprint part (ties in
    /// id order), and the runs of tied places: each a list of the ids the tied members go to.
    fn sorting_renaming(
        &self,
        state: &StateOf<A>,
        sym: &SymmetryGroups,
        asked: &mut SwapsAsked,
    ) -> (Renaming, Vec<Vec<ProcessId>>) {
        let now = state.now_ms;
        let mut to: Vec<ProcessId> = (0..self.processes.len()).collect();
        let mut ties = Vec::new();
        let mut keyed = Vec::new();
        for group in &sym.groups {
            keyed.clear();
            keyed.extend(group.iter().map(|&p| {
                let proc = &state.procs[p];
                let key = proc.cached_hash(now).unwrap_or_else(|| {
                    proc.hash_relative(
                        &self.actors[p],
                        &self.clocks[p],
                        self.resume_order,
                        now,
                        self.wide,
                    )
                });
                (lanes_in_order(key), p)
            }));
            keyed.sort_unstable();
            // Members tied by their own parts whose swaps leave the state as it is (see
            // `fixed_swap.rs`) may go in any order: every order gives the same state.
            let open_tie = |w: &[(u128, ProcessId)]| {
                w[0].0 == w[1].0 && !self.swap_fixes_asked(state, sym, (w[0].1, w[1].1), asked)
            };
            let open = keyed.windows(2).any(open_tie);
            if open {
                for (key, p) in keyed.iter_mut() {
                    *key = lanes_in_order(self.refined_key(state, lanes_in_order(*key), *p));
                }
                keyed.sort_unstable();
            }
            for (&(_, old), &new) in keyed.iter().zip(group) {
                to[old] = new;
            }
            if !open {
                continue;
            }
            let mut start = 0;
            for end in 1..=keyed.len() {
                if end == keyed.len() || keyed[end].0 != keyed[start].0 {
                    if end - start > 1 {
                        ties.push(group[start..end].to_vec());
                    }
                    start = end;
                }
            }
        }
        (Renaming { to }, ties)
    }

    /// Member `p`'s sort key `own` (its fingerprint part) refined by what the rest of the
    /// state says of it, naming no process: every other process's knowledge of it
    /// ([`Actor::hash_knowledge_of`]) and the messages to and from it, each part hashed on
    /// its own and the parts summed, so that the key is invariant under every automorphism
    /// (a renamed state says of `r.of(p)` what the state says of `p`). Members whose own
    /// parts tie are then told apart without trying every order of them.
    fn refined_key(&self, state: &StateOf<A>, own: Fingerprint, p: ProcessId) -> Fingerprint {
        let now = state.now_ms;
        let part = |write: &dyn Fn(&mut FpHasher)| {
            let mut h = FpHasher::of_width(self.wide);
            write(&mut h);
            h.finish_wide()
        };
        let mut sum = own;
        for (q, proc) in state.procs.iter().enumerate() {
            if let (true, Some(s)) = (q != p, proc.actor_state()) {
                let local = self.local_now(state, q);
                sum = sum.wrapping_add(part(&|h| self.actors[q].hash_knowledge_of(s, p, local, h)));
            }
        }
        for m in &state.in_flight {
            let side = match (m.from == p, m.to == p) {
                (true, _) => 1u8,
                (_, true) => 2u8,
                _ => continue,
            };
            let due = m.due_ms.saturating_sub(now);
            sum = sum.wrapping_add(part(&|h| {
                side.hash(h);
                m.hash_body(h);
                due.hash(h);
            }));
        }
        for m in &state.unrouted {
            let side = match (m.from == p, m.to == p) {
                (true, _) => 3u8,
                (_, true) => 4u8,
                _ => continue,
            };
            sum = sum.wrapping_add(part(&|h| (side, msg_hash(&*m.msg, self.wide)).hash(h)));
        }
        sum
    }

    /// The fingerprint of the representative of `state`'s class under `sym`, and whether
    /// the representative differs from `state`.
    pub fn canonical_fingerprint_under(
        &self,
        state: &StateOf<A>,
        sym: &SymmetryGroups,
    ) -> (Fingerprint, bool) {
        self.canonical_fingerprint_by(state, sym, false)
    }

    /// [`World::canonical_fingerprint_under`], each candidate hashed by its fingerprint without
    /// dead values (`world::dead_values`) when `without_dead`: whatever that leaves out, every candidate is still the
    /// state under an automorphism.
    pub fn canonical_fingerprint_by(
        &self,
        state: &StateOf<A>,
        sym: &SymmetryGroups,
        without_dead: bool,
    ) -> (Fingerprint, bool) {
        let own = crate::model::Model::fingerprint(self, state);
        if let Some(key) = state.key_memo.get(own, without_dead) {
            return key;
        }
        let key = self.canonical_fingerprint_computed(state, sym, without_dead, own);
        state.key_memo.remember(own, without_dead, key);
        key
    }

    /// [`World::canonical_fingerprint_by`] computed, `own` being `state`'s plain
    /// fingerprint.
    fn canonical_fingerprint_computed(
        &self,
        state: &StateOf<A>,
        sym: &SymmetryGroups,
        without_dead: bool,
        own: Fingerprint,
    ) -> (Fingerprint, bool) {
        let mut asked = SwapsAsked::new();
        let (sorting, mut ties) = self.sorting_renaming(state, sym, &mut asked);
        ties.retain(|tie| {
            !self.fixed_by_every_order(state, sym, &sorting, tie, (without_dead, own), &mut asked)
        });
        let mut best: Option<(Fingerprint, bool)> = None;
        let grouped = unrouted_grouped(&state.unrouted);
        for_each_reordering(&sorting, &ties, |r| {
            let candidate = if r.is_identity() && grouped {
                (self.own_fingerprint(state, without_dead, own), false)
            } else {
                (self.renamed_fingerprint(state, r, sym, without_dead), true)
            };
            if best.is_none_or(|b| lanes_in_order(candidate.0) < lanes_in_order(b.0)) {
                best = Some(candidate);
            }
        });
        best.expect("at least the sorting renaming is tried")
    }

    /// `state`'s own fingerprint: without dead values when `without_dead`, else the plain one,
    /// `plain`.
    fn own_fingerprint(
        &self,
        state: &StateOf<A>,
        without_dead: bool,
        plain: Fingerprint,
    ) -> Fingerprint {
        if without_dead {
            self.fingerprint_without_dead_values(state)
        } else {
            plain
        }
    }

    /// Whether every order of the members that `sorting` sends to the places `tie` leaves
    /// `state` as it is: each swap of two consecutive members does (the swaps of
    /// consecutive members generate every order of them). Then every order of the tie gives
    /// the same candidate, and one of them is enough. `without_dead` is the kind of key asked for,
    /// `plain` the state's plain fingerprint.
    fn fixed_by_every_order(
        &self,
        state: &StateOf<A>,
        sym: &SymmetryGroups,
        sorting: &Renaming,
        tie: &[ProcessId],
        (without_dead, plain): (bool, Fingerprint),
        asked: &mut SwapsAsked,
    ) -> bool {
        let members: Vec<ProcessId> = (0..sorting.to.len())
            .filter(|&old| tie.contains(&sorting.of(old)))
            .collect();
        if members
            .windows(2)
            .all(|w| self.swap_fixes_asked(state, sym, (w[0], w[1]), asked))
        {
            return true;
        }
        // Two tied members are tried both ways at the cost of this check; more are checked.
        if members.len() < 3 {
            return false;
        }
        let own = self.own_fingerprint(state, without_dead, plain);
        let n = state.procs.len();
        members.windows(2).all(|w| {
            self.renamed_fingerprint(state, &Renaming::swap(n, w[0], w[1]), sym, without_dead)
                == own
        })
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
                match self.rename_proc(&state.procs[old], old, r) {
                    Some(p) => Shared::new(p),
                    None if sym.configured_alike(old, new) => state.procs[old].clone(),
                    None => {
                        let mut moved = state.procs[old].clone();
                        moved.forget_hash();
                        moved
                    }
                }
            })
            .collect();
        let in_flight = self.rename_in_flight(state, r);
        let unrouted = self.renamed_unrouted(state, r);
        let undecided_timers = self.renamed_undecided_timers(state, r);
        StateOf::<A> {
            now_ms: state.now_ms,
            procs,
            in_flight,
            unrouted,
            undecided_timers,
            partitions: state.partitions.clone(),
            faults_used: state.faults_used,
            fault_times: FaultTimes {
                anchored_at_ms: state.fault_times.anchored_at_ms.clone(),
                per_process: (0..state.fault_times.per_process.len())
                    .map(|new| state.fault_times.per_process[from[new]])
                    .collect(),
            },
            key_memo: KeyMemo::default(),
        }
    }

    /// The messages in flight, renamed by `r` and grouped by link again.
    fn rename_in_flight(&self, state: &StateOf<A>, r: &Renaming) -> Vec<InFlight<A::Msg>> {
        let mut in_flight: Vec<_> = state
            .in_flight
            .iter()
            .map(|m| {
                let mut m2 = m.clone();
                (m2.from, m2.to) = (r.of(m.from), r.of(m.to));
                if let Some(msg) = self.actors[m.to].rename_msg(&m.msg, r) {
                    m2.msg_hash = lane_a(msg_hash(&msg, false));
                    m2.msg = Arc::new(msg);
                }
                m2
            })
            .collect();
        // The world keeps messages grouped by link in link order, send order within a link.
        in_flight.sort_by_key(|m| (m.from, m.to));
        in_flight
    }

    /// Process `p`'s state with its ids renamed, or `None` when nothing in it changes.
    pub(super) fn rename_proc(
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
                refusing,
            } => actor.rename_state(s, r).map(|s| Life::Down {
                survived: Some(s),
                restart_at_ms: *restart_at_ms,
                refusing: *refusing,
            }),
            Life::Down { survived: None, .. } => None,
        };
        let timers_move = proc
            .timers
            .iter()
            .any(|t| actor.rename_timer(&t.timer, r).is_some());
        if life.is_none() && !timers_move {
            return None;
        }
        Some(ProcState {
            life: life.unwrap_or_else(|| proc.life.clone()),
            paused_until_ms: proc.paused_until_ms,
            clock_steps_ms: proc.clock_steps_ms,
            timers: proc
                .timers
                .iter()
                .map(|t| PendingTimer {
                    due_ms: t.due_ms,
                    timer: actor
                        .rename_timer(&t.timer, r)
                        .unwrap_or_else(|| t.timer.clone()),
                })
                .collect(),
        })
    }
}

/// Whether the unrouted messages are grouped by link in link order, as a representative's
/// are.
fn unrouted_grouped<M>(unrouted: &[Unrouted<M>]) -> bool {
    unrouted
        .windows(2)
        .all(|w| (w[0].from, w[0].to) <= (w[1].from, w[1].to))
}

/// Calls `visit` with `sorting` followed by every reordering of each run of `ties` (the
/// places tied members go to), or with `sorting` alone when there would be more than
/// [`MAX_CANDIDATES`].
fn for_each_reordering(
    sorting: &Renaming,
    ties: &[Vec<ProcessId>],
    mut visit: impl FnMut(&Renaming),
) {
    let count = ties
        .iter()
        .try_fold(1usize, |n, t| n.checked_mul((1..=t.len()).product()))
        .filter(|&n| n <= MAX_CANDIDATES);
    if count.is_none() || ties.is_empty() {
        visit(sorting);
        return;
    }
    let orders: Vec<Vec<Vec<ProcessId>>> = ties.iter().map(|t| permutations(t)).collect();
    let mut pick = vec![0; ties.len()];
    let mut r = sorting.clone();
    loop {
        for (tie, (orders, &k)) in ties.iter().zip(orders.iter().zip(&pick)) {
            // The member that sorting sent to `tie[i]` goes to `orders[k][i]` instead.
            for (old, &new) in sorting.to.iter().enumerate() {
                if let Some(i) = tie.iter().position(|&t| t == new) {
                    r.to[old] = orders[k][i];
                }
            }
        }
        visit(&r);
        // The next combination, like an odometer.
        let mut digit = 0;
        loop {
            if digit == pick.len() {
                return;
            }
            pick[digit] += 1;
            if pick[digit] < orders[digit].len() {
                break;
            }
            pick[digit] = 0;
            digit += 1;
        }
    }
}

/// Every order of `items` (the first is `items` itself).
fn permutations(items: &[ProcessId]) -> Vec<Vec<ProcessId>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}
