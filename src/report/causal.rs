//! The steps a violation depends on, by happens-before: from the step where it fires and
//! the steps that began each belief still held there, back through the message each
//! delivery delivers, the timer each firing fires, the last change of every lock key,
//! role, master or account a step on a node, Sentinel or account read, the replies a client
//! gathered while acquiring, and a holder's failed renewal before another client took its
//! expired key; when the violation is time running out, from the last change of every lock
//! key still held. A fault is a cause when what it did reaches those steps: a pause that ends
//! where a cause runs, a crash, clock step or fault of a process's own before a cause on that
//! process, a partition cutting a process while a cause runs there, a pause, crash or
//! partition that still holds at the violation a process it stopped after a cause, and a
//! clock step of a holder after its belief began. Earlier faults and routine steps that
//! lead nowhere near the violation drop out.

use super::causal_links::{holds_key, key_parts, links, timer_setter, Part, StepLinks};
use crate::oracles::{self, RedisState, RedisWorld};
use lockcheck_model::process::ProcessState;
use lockcheck_sim::world::WorldAction;
use lockcheck_sim::Path;

/// The steps of a run the violation after `upto` steps depends on, and why each is there.
pub(crate) struct Slice {
    /// In the order of the run.
    pub steps: Vec<usize>,
    /// The steps where the violation fires and each belief held there began.
    pub roots: Vec<usize>,
    pub links: Vec<StepLinks>,
}

/// The keys client `p` believes it holds in `state`.
fn beliefs<'w>(world: &'w RedisWorld, state: &RedisState, p: usize) -> Vec<&'w [u8]> {
    oracles::clients(world)
        .find(|&(q, _)| q == p)
        .map(|(_, c)| oracles::believed_keys(world, state, p, c))
        .unwrap_or_default()
}

/// Whether step `k` made its process believe it holds a lock it did not.
pub(crate) fn began_belief(world: &RedisWorld, path: &Path<RedisWorld>, k: usize) -> bool {
    let Some(p) = world.action_process(&path.steps[k].action) else {
        return false;
    };
    let before = beliefs(world, &path.states[k], p);
    beliefs(world, &path.states[k + 1], p)
        .iter()
        .any(|key| !before.contains(key))
}

/// Whether step `k` ended a belief of its process (a holder's work done, an unlock).
pub(crate) fn ended_belief(world: &RedisWorld, path: &Path<RedisWorld>, k: usize) -> bool {
    let Some(p) = world.action_process(&path.steps[k].action) else {
        return false;
    };
    let after = beliefs(world, &path.states[k + 1], p);
    beliefs(world, &path.states[k], p)
        .iter()
        .any(|key| !after.contains(key))
}

/// How many renewals client `p` has seen fail in `state`.
fn failed_renewals(world: &RedisWorld, state: &RedisState, p: usize) -> u32 {
    let config = oracles::clients(world).find(|&(q, _)| q == p);
    let own = state.actor(p).and_then(ProcessState::as_client);
    match (config, own) {
        (Some((_, c)), Some(s)) => c.failed_renewals(s),
        _ => 0,
    }
}

/// Whether at step `k` a renewal of its process failed.
pub(crate) fn renewal_failed_at(world: &RedisWorld, path: &Path<RedisWorld>, k: usize) -> bool {
    world
        .action_process(&path.steps[k].action)
        .is_some_and(|p| {
            failed_renewals(world, &path.states[k + 1], p)
                > failed_renewals(world, &path.states[k], p)
        })
}

/// The causal slice of the violation after `upto` steps of `path`.
pub(crate) fn slice(world: &RedisWorld, path: &Path<RedisWorld>, upto: usize) -> Slice {
    let links = links(world, path);
    let mut roots = roots(world, path, upto);
    if let Some(last) = upto.checked_sub(1).filter(|&k| links[k].process.is_none()) {
        // Time ran out (a bound passed): the violation depends on every lock key held
        // until then, through its last change.
        let state = &path.states[last];
        for n in 0..state.procs.len() {
            for part in key_parts(world, state, n) {
                roots.extend(last_change(&links, n, &part, last));
            }
        }
        roots.sort_unstable();
        roots.dedup();
    }
    let mut in_slice = vec![false; upto];
    let mut work = roots.clone();
    while let Some(k) = work.pop() {
        if k >= upto || in_slice[k] {
            continue;
        }
        in_slice[k] = true;
        work.extend(direct_causes(world, path, &links, k));
    }
    while add_faults(world, path, &links, &mut in_slice) {}
    Slice {
        steps: (0..upto).filter(|&k| in_slice[k]).collect(),
        roots,
        links,
    }
}

/// The step before `upto` (where the violation fires) and the step that began each belief
/// held after it.
fn roots(world: &RedisWorld, path: &Path<RedisWorld>, upto: usize) -> Vec<usize> {
    let Some(last) = upto.checked_sub(1) else {
        return Vec::new();
    };
    let mut out = vec![last];
    for (p, _) in oracles::clients(world) {
        for key in beliefs(world, &path.states[upto], p) {
            let began = (0..upto)
                .rev()
                .find(|&j| !beliefs(world, &path.states[j], p).contains(&key));
            out.extend(began);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The last step before `k` that changed `part` of process `q`.
fn last_change(links: &[StepLinks], q: usize, part: &Part, k: usize) -> Option<usize> {
    (0..k)
        .rev()
        .find(|&j| links[j].process == Some(q) && links[j].changed.contains(part))
}

/// The process whose message step `j` delivered.
pub(crate) fn sender(path: &Path<RedisWorld>, j: usize) -> Option<usize> {
    match path.steps[j].action {
        WorldAction::Deliver { from, .. } => Some(from),
        _ => None,
    }
}

/// The steps step `k` depends on directly.
fn direct_causes(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    links: &[StepLinks],
    k: usize,
) -> Vec<usize> {
    let link = &links[k];
    let mut out: Vec<usize> = [link.sent_by, link.delayed_by, timer_setter(path, k)]
        .into_iter()
        .flatten()
        .collect();
    let Some(q) = link.process else {
        return out;
    };
    for part in &link.reads {
        let Some(j) = last_change(links, q, part, k) else {
            continue;
        };
        out.push(j);
        // Another client took a key whose last writer stopped renewing it: the failed
        // renewal is why the key was free.
        let taken = link.changed.contains(part);
        if let Some(w) = sender(path, j).filter(|&w| taken && Some(w) != sender(path, k)) {
            out.extend(
                (j + 1..k)
                    .filter(|&i| links[i].process == Some(w) && renewal_failed_at(world, path, i)),
            );
        }
    }
    if began_belief(world, path, k) {
        out.extend(acquiring_steps(path, links, q, k));
    }
    out
}

/// The client's steps since its phase last changed before step `k`: the replies it
/// gathered and the timers it ran while acquiring the lock step `k` made it believe it holds.
fn acquiring_steps(path: &Path<RedisWorld>, links: &[StepLinks], c: usize, k: usize) -> Vec<usize> {
    let phase = |s: &RedisState| {
        s.actor(c)
            .and_then(ProcessState::as_client)
            .map(|s| s.phase)
    };
    let start = (0..k)
        .rev()
        .find(|&j| {
            links[j].process == Some(c) && phase(&path.states[j]) != phase(&path.states[j + 1])
        })
        .unwrap_or(0);
    (start..k)
        .filter(|&j| links[j].process == Some(c))
        .collect()
}

/// Whether a lock key one of `writers` wrote in a step of the slice before the pause at
/// step `f` stopped being held while they were paused (until `end`): the pause kept them
/// from renewing it.
fn lapsed_during(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    links: &[StepLinks],
    in_slice: &[bool],
    f: usize,
    end: u64,
    writers: &[usize],
) -> bool {
    (0..f).any(|k| {
        let (Some(node), Some(from)) = (links[k].process, sender(path, k)) else {
            return false;
        };
        in_slice[k]
            && writers.contains(&from)
            && links[k].changed.iter().any(|part| {
                let Part::Key(key) = part else { return false };
                (f + 1..in_slice.len()).any(|i| {
                    path.states[i].now_ms <= end && !holds_key(world, &path.states[i], node, key)
                })
            })
    })
}

/// Adds the faults whose effects reach a step of the slice; whether any was added.
fn add_faults(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    links: &[StepLinks],
    in_slice: &mut [bool],
) -> bool {
    let upto = in_slice.len();
    let at = |k: usize| path.states[k + 1].now_ms;
    let on = |p: usize, k: usize| links[k].process == Some(p);
    let mut added = false;
    for f in 0..upto {
        if in_slice[f] {
            continue;
        }
        let later = |keep: &dyn Fn(usize) -> bool| (f + 1..upto).any(|k| in_slice[k] && keep(k));
        let cause = match path.steps[f].action {
            WorldAction::Pause {
                process,
                duration_ms,
            } => {
                // The pause stops `process` and every thread of its program.
                let end = at(f) + duration_ms;
                let members: Vec<usize> = std::iter::once(process)
                    .chain(world.faults.companions(process))
                    .collect();
                members.iter().any(|&q| {
                    let still =
                        path.states[upto].is_paused(q) && (0..f).any(|k| in_slice[k] && on(q, k));
                    still || later(&|k| on(q, k) && at(k) == end)
                }) || lapsed_during(world, path, links, in_slice, f, end, &members)
            }
            WorldAction::Crash { process, .. } => {
                let still = !path.states[upto].is_up(process)
                    && (0..f).any(|k| in_slice[k] && on(process, k));
                still || later(&|k| on(process, k))
            }
            WorldAction::ClockStep { process, .. } => {
                // A holder's clock that stepped after its belief began moves its validity.
                let holds = !beliefs(world, &path.states[upto], process).is_empty()
                    && (0..f).any(|k| in_slice[k] && on(process, k));
                holds || later(&|k| on(process, k))
            }
            WorldAction::ActorFault { process, .. } => later(&|k| on(process, k)),
            WorldAction::Partition { index, .. } => {
                let rule = &world.faults.partitions[index];
                let heal = path.states[f + 1]
                    .partitions
                    .iter()
                    .find(|&&(i, _)| i == index)
                    .and_then(|&(_, heal)| heal);
                let lane = |k: usize| {
                    links[k]
                        .process
                        .is_some_and(|p| rule.links.iter().any(|&(a, b)| a == p || b == p))
                };
                let still = path.states[upto]
                    .partitions
                    .iter()
                    .any(|&(i, _)| i == index);
                let before = still && (0..f).any(|k| in_slice[k] && lane(k));
                before || later(&|k| lane(k) && heal.is_none_or(|h| at(k) < h))
            }
            _ => false,
        };
        if cause {
            in_slice[f] = true;
            added = true;
        }
    }
    added
}
