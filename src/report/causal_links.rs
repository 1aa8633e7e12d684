//! The happens-before links of a run, read off its states: which step sent the message a
//! delivery delivers (and which step chose a long delay for it), which step set the timer a
//! firing fires, and, per process, what each step changed of the state the lock's story
//! reads there (each lock key and the role of a Redis node, the master a Sentinel names,
//! an account, a token counter, the token a client's shared lock object holds).

use crate::oracles::{RedisAction, RedisState, RedisWorld};
use lockcheck_model::lock::client::ObjectToken;
use lockcheck_model::msg::Msg;
use lockcheck_model::node::Role;
use lockcheck_model::process::ProcessState;
use lockcheck_model::redis::keyspace::KeyEntry;
use lockcheck_model::resource::AccountState;
use lockcheck_sim::world::WorldAction;
use lockcheck_sim::Path;

/// A part of a process's state that a step may read or change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Key(Vec<u8>),
    Role,
    Master,
    Account,
    Tokens,
    /// The token a thread's shared lock object holds for the lock in this slot.
    LockObject(usize),
}

/// The value of a [`Part`] in one state.
#[derive(Debug, PartialEq)]
enum Value<'s> {
    Key(&'s KeyEntry),
    /// `None`: a master; else the master it replicates.
    Role(Option<usize>),
    Master(usize, u64),
    Account(&'s AccountState),
    Tokens(u64),
    LockObject(&'s ObjectToken),
}

/// The parts of process `p` in `state` that the lock's story reads: lock keys not expired by
/// the node's clock, a node's role, a Sentinel's master, an account, a token counter.
fn view<'s>(world: &RedisWorld, state: &'s RedisState, p: usize) -> Vec<(Part, Value<'s>)> {
    let mut out = Vec::new();
    match state.procs[p].actor_state() {
        Some(ProcessState::Redis(node)) => {
            let wall = world.local_now(state, p).wall_ms;
            for (k, e) in node.keyspace.entries() {
                if !e.is_expired(wall) && !k.ends_with(b":token") {
                    out.push((Part::Key(k.to_vec()), Value::Key(e)));
                }
            }
            let role = match node.role {
                Role::Master { .. } => None,
                Role::Replica { master } => Some(master),
            };
            out.push((Part::Role, Value::Role(role)));
        }
        Some(ProcessState::Sentinel(s)) => {
            out.push((Part::Master, Value::Master(s.master, s.epoch)))
        }
        Some(ProcessState::Account(a)) => out.push((Part::Account, Value::Account(a))),
        Some(ProcessState::Tokens(t)) => out.push((Part::Tokens, Value::Tokens(*t))),
        Some(ProcessState::Client(c)) => out.extend(
            c.object_tokens
                .iter()
                .enumerate()
                .map(|(slot, t)| (Part::LockObject(slot), Value::LockObject(t))),
        ),
        _ => {}
    }
    out
}

/// Whether node `n` holds `key` (not expired by its clock) in `state`.
pub(crate) fn holds_key(world: &RedisWorld, state: &RedisState, n: usize, key: &[u8]) -> bool {
    view(world, state, n)
        .iter()
        .any(|(part, _)| *part == Part::Key(key.to_vec()))
}

/// The lock keys node `n` holds in `state` (none if `n` is not a node).
pub(crate) fn key_parts(world: &RedisWorld, state: &RedisState, n: usize) -> Vec<Part> {
    view(world, state, n)
        .into_iter()
        .map(|(part, _)| part)
        .filter(|part| matches!(part, Part::Key(_)))
        .collect()
}

/// What one step did to the process it acted on.
#[derive(Clone, Debug, Default)]
pub(crate) struct StepLinks {
    /// The process the step acted on.
    pub process: Option<usize>,
    /// For a delivery: the step that sent the message (none for a start-up message).
    pub sent_by: Option<usize>,
    /// For a delivery: the step that gave the message a delay more than [`LONG_DELAY_MS`]
    /// longer than its link's shortest.
    pub delayed_by: Option<usize>,
    /// The parts of its process this step read or changed (of a node: its role and the keys
    /// its command names).
    pub reads: Vec<Part>,
    /// The parts of its process this step changed.
    pub changed: Vec<Part>,
}

/// The links of every step of `path`.
pub(crate) fn links(world: &RedisWorld, path: &Path<RedisWorld>) -> Vec<StepLinks> {
    let mut out: Vec<StepLinks> = path
        .steps
        .iter()
        .enumerate()
        .map(|(j, step)| parts_of(world, path, j, &step.action))
        .collect();
    for (j, (sent_by, delayed_by)) in message_links(world, path).into_iter().enumerate() {
        out[j].sent_by = sent_by;
        out[j].delayed_by = delayed_by;
    }
    out
}

fn parts_of(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    j: usize,
    action: &RedisAction,
) -> StepLinks {
    let process = world.action_process(action);
    let Some(p) = process else {
        return StepLinks::default();
    };
    let before = view(world, &path.states[j], p);
    let after = view(world, &path.states[j + 1], p);
    let mut changed: Vec<Part> = Vec::new();
    for (part, _) in before.iter().chain(&after) {
        if value_of(&before, part) != value_of(&after, part) && !changed.contains(part) {
            changed.push(part.clone());
        }
    }
    // A node's step reads its role and the keys its command names; any other process's
    // step reads all it has, but for its lock object's token, which only a release reads
    // (it presents the token and clears it; a message of another thread only writes it).
    let label = &path.steps[j].label;
    let named = |key: &[u8]| label.split_whitespace().any(|w| w.as_bytes() == key);
    let told = matches!(action, WorldAction::Deliver { msg, .. } if matches!(**msg, Msg::LockObject { .. }));
    let presents = |part: &Part| {
        !told
            && matches!(
                value_of(&after, part),
                Some(Value::LockObject(ObjectToken::Cleared))
            )
    };
    let mut reads: Vec<Part> = before
        .iter()
        .map(|(part, _)| part.clone())
        .filter(|part| match part {
            Part::Key(key) => named(key),
            Part::LockObject(_) => false,
            _ => true,
        })
        .collect();
    for part in &changed {
        let read = !matches!(part, Part::LockObject(_)) || presents(part);
        if read && !reads.contains(part) {
            reads.push(part.clone());
        }
    }
    StepLinks {
        process,
        reads,
        changed,
        ..StepLinks::default()
    }
}

fn value_of<'v, 's>(view: &'v [(Part, Value<'s>)], part: &Part) -> Option<&'v Value<'s>> {
    view.iter().find(|(q, _)| q == part).map(|(_, v)| v)
}

/// A delay this much longer than its link's shortest is an event of its own (a late
/// unlock), not the network's jitter.
pub(crate) const LONG_DELAY_MS: u64 = 100;

/// A message followed through the run.
struct Tracked<'a, M> {
    from: usize,
    to: usize,
    msg: &'a M,
    sent_by: Option<usize>,
    routed: bool,
    delayed_by: Option<usize>,
}

/// For each step that delivers a message: the step that sent it and the step that gave it
/// a long delay. Messages are followed by identity of content, oldest first, through their
/// routing; a message the network dropped (a cut link, a loss) stops being followed.
fn message_links(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
) -> Vec<(Option<usize>, Option<usize>)> {
    let mut out = vec![(None, None); path.steps.len()];
    let mut live: Vec<Tracked<_>> = Vec::new();
    reconcile(&mut live, &path.states[0], None);
    for (j, step) in path.steps.iter().enumerate() {
        let state = &path.states[j];
        match &step.action {
            WorldAction::Deliver { from, to, msg } => {
                let found = live
                    .iter()
                    .position(|t| t.routed && t.from == *from && t.to == *to && *t.msg == **msg);
                if let Some(i) = found {
                    let t = live.remove(i);
                    out[j] = (t.sent_by, t.delayed_by);
                }
            }
            WorldAction::Route { delay_ms } => {
                let m = &state.unrouted[0];
                let shortest = world.network.link(m.from, m.to).delays_ms[0];
                let found = live
                    .iter_mut()
                    .find(|t| !t.routed && t.from == m.from && t.to == m.to && *t.msg == *m.msg);
                if let Some(t) = found {
                    t.routed = true;
                    t.delayed_by = (*delay_ms > shortest + LONG_DELAY_MS).then_some(j);
                }
            }
            _ => {}
        }
        reconcile(&mut live, &path.states[j + 1], Some(j));
    }
    out
}

/// Matches the followed messages with those in `state`: a followed message not there was
/// dropped; a message there not followed was sent by step `step`.
fn reconcile<'a, M: PartialEq>(
    live: &mut Vec<Tracked<'a, M>>,
    state: &'a lockcheck_sim::world::WorldState<impl Sized, M, impl Sized>,
    step: Option<usize>,
) {
    let mut present: Vec<(usize, usize, &'a M, bool)> = state
        .unrouted
        .iter()
        .map(|m| (m.from, m.to, &*m.msg, false))
        .chain(
            state
                .in_flight
                .iter()
                .map(|m| (m.from, m.to, &*m.msg, true)),
        )
        .collect();
    live.retain(|t| {
        let found = present.iter().position(|&(f, to, m, routed)| {
            f == t.from && to == t.to && routed == t.routed && *m == *t.msg
        });
        found.map(|i| present.remove(i)).is_some()
    });
    for (from, to, msg, routed) in present {
        live.push(Tracked {
            from,
            to,
            msg,
            sent_by: step,
            routed,
            delayed_by: None,
        });
    }
}

/// The step that last set the timer that step `k` fires (through the choice of its
/// duration), or for a timer set by a restart, the crash before it.
pub(crate) fn timer_setter(path: &Path<RedisWorld>, k: usize) -> Option<usize> {
    let WorldAction::Fire { process, timer } = &path.steps[k].action else {
        return None;
    };
    let due = |s: &RedisState| {
        let pending = s.procs[*process].timers.iter().find(|t| &t.timer == timer);
        let undecided = s
            .undecided_timers
            .iter()
            .any(|t| t.process == *process && &t.timer == timer);
        pending.map(|t| t.due_ms).or(undecided.then_some(u64::MAX))
    };
    let mut j = k;
    while j > 0 {
        j -= 1;
        let after = due(&path.states[j + 1]);
        if after.is_none() || after == due(&path.states[j]) {
            continue;
        }
        match path.steps[j].action {
            WorldAction::TimerDuration { .. } => continue,
            WorldAction::Advance => return last_crash(path, *process, j),
            _ => return Some(j),
        }
    }
    None
}

/// The last crash of process `p` before step `before`.
fn last_crash(path: &Path<RedisWorld>, p: usize, before: usize) -> Option<usize> {
    (0..before).rev().find(
        |&j| matches!(path.steps[j].action, WorldAction::Crash { process, .. } if process == p),
    )
}
