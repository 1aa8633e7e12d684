//! What made a run go wrong, found in its states for the swimlane chart to draw: clock
//! steps, partitions, crashes and restarts; each lock key's lifetime by true time on a node
//! whose clock stepped; which deliveries changed nothing that matters for the lock (drawn
//! thin); and the events the violation depends on, as the `why` block lists them
//! (`why.rs`).

use super::seconds;
use crate::oracles::{self, RedisAction, RedisState, RedisWorld};
use lockcheck_model::process::ProcessState;
use lockcheck_model::redis::keyspace::KeyEntry;
use lockcheck_sim::world::Life;
use lockcheck_sim::Path;

/// A moment on one lane: a clock step, a crash, a restart or an event the violation
/// depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub lane: usize,
    pub at_ms: u64,
    /// `clock-step`, `crash`, `restart` or `cause`.
    pub kind: &'static str,
    pub text: String,
}

/// The links of a partition cut over `[from_ms, to_ms)`, and the lanes they touch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    pub lanes: Vec<usize>,
    pub from_ms: u64,
    pub to_ms: u64,
    pub text: String,
}

/// A lock key on a node whose clock stepped: where its TTL runs out by true time (the
/// bar drawn from the node's clock ends elsewhere).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrueTimeKey {
    pub lane: usize,
    /// The key bar's text (`order_lock = p1`).
    pub key_text: String,
    pub from_ms: u64,
    /// End of the TTL had the clock not stepped.
    pub to_ms: u64,
    /// Where the node's stepped clock ends it.
    pub by_clock_ms: u64,
}

/// Everything the chart draws about causes.
#[derive(Clone, Debug, Default)]
pub struct Causes {
    pub marks: Vec<Mark>,
    pub cuts: Vec<Cut>,
    pub true_time_keys: Vec<TrueTimeKey>,
    /// Per step: whether it changed a lock key, a belief or an account.
    pub changes: Vec<bool>,
    /// Indices of the steps the violation depends on.
    pub cause_steps: Vec<usize>,
    /// Those steps' times and labels.
    pub cause_labels: Vec<(u64, String)>,
    /// The same steps as the `why` block lists them, with the mechanism.
    pub why: super::why::Why,
}

impl Causes {
    /// How many marks of `kind` there are.
    pub fn count(&self, kind: &str) -> usize {
        self.marks.iter().filter(|m| m.kind == kind).count()
    }
}

/// What the lock's story consists of in a state: every lock key on every node (with its
/// owner and deadline), every client's beliefs, every account.
#[derive(PartialEq)]
struct LockView<'s> {
    keys: Vec<(usize, &'s [u8], &'s KeyEntry)>,
    beliefs: Vec<(usize, Vec<&'s [u8]>)>,
    accounts: Vec<&'s lockcheck_model::resource::AccountState>,
}

fn lock_view<'s>(world: &'s RedisWorld, state: &'s RedisState) -> LockView<'s> {
    let mut keys = Vec::new();
    let mut accounts = Vec::new();
    for (p, proc) in state.procs.iter().enumerate() {
        match proc.actor_state() {
            Some(ProcessState::Redis(node)) => {
                let wall = world.local_now(state, p).wall_ms;
                keys.extend(
                    node.keyspace
                        .entries()
                        .filter(|(_, e)| !e.is_expired(wall))
                        .map(|(k, e)| (p, k, e)),
                );
            }
            Some(s) => accounts.extend(s.as_account()),
            None => {}
        }
    }
    let beliefs = oracles::clients(world)
        .map(|(p, c)| (p, oracles::believed_keys(world, state, p, c)))
        .collect();
    LockView {
        keys,
        beliefs,
        accounts,
    }
}

/// The causes in `path`, whose violation (if any) happens after `violation_steps` steps.
pub fn find(world: &RedisWorld, path: &Path<RedisWorld>, violation_steps: Option<usize>) -> Causes {
    let states = &path.states;
    let end_ms = path.last_state().now_ms;
    let mut causes = Causes::default();
    for (j, step) in path.steps.iter().enumerate() {
        let at_ms = states[j + 1].now_ms;
        causes.marks.extend(fault_mark(world, &step.action, at_ms));
        let changed = lock_view(world, &states[j]) != lock_view(world, &states[j + 1]);
        causes.changes.push(changed);
    }
    causes.marks.extend(restarts(world, states));
    causes.cuts = cuts(world, states, end_ms);
    causes.true_time_keys = true_time_keys(world, states);
    if let Some(upto) = violation_steps {
        causes.why = super::why::why(world, path, upto);
    }
    causes.cause_steps = causes.why.events.iter().map(|e| e.step).collect();
    for e in &causes.why.events {
        causes.cause_labels.push((e.at_ms, e.label.clone()));
        if let Some(lane) = world.action_process(&path.steps[e.step].action) {
            causes.marks.push(Mark {
                lane,
                at_ms: e.at_ms,
                kind: "cause",
                text: format!("the violation depends on: {}", e.label),
            });
        }
    }
    causes
}

fn fault_mark(world: &RedisWorld, action: &RedisAction, at_ms: u64) -> Option<Mark> {
    match action {
        RedisAction::ClockStep { process, delta_ms } => Some(Mark {
            lane: *process,
            at_ms,
            kind: "clock-step",
            text: format!(
                "clock of {} steps {}{} s",
                world.process_name(*process),
                if *delta_ms >= 0 { "+" } else { "-" },
                seconds(delta_ms.unsigned_abs()).trim_end_matches(" s")
            ),
        }),
        RedisAction::Crash { process, .. } => Some(Mark {
            lane: *process,
            at_ms,
            kind: "crash",
            text: format!("{} crashes", world.process_name(*process)),
        }),
        _ => None,
    }
}

/// A restart wherever a process is down in one state and up in the next.
fn restarts(world: &RedisWorld, states: &[RedisState]) -> Vec<Mark> {
    let mut marks = Vec::new();
    for pair in states.windows(2) {
        for p in 0..pair[1].procs.len() {
            let was_down = matches!(pair[0].procs[p].life, Life::Down { .. });
            if was_down && pair[1].procs[p].is_up() && pair[0].now_ms > 0 {
                marks.push(Mark {
                    lane: p,
                    at_ms: pair[1].now_ms,
                    kind: "restart",
                    text: format!("{} restarts", world.process_name(p)),
                });
            }
        }
    }
    marks
}

/// Each partition's cut links, from the state it starts in to its heal time (or the end).
fn cuts(world: &RedisWorld, states: &[RedisState], end_ms: u64) -> Vec<Cut> {
    let mut out: Vec<(usize, Cut)> = Vec::new();
    for (i, state) in states.iter().enumerate() {
        for &(index, heal_ms) in &state.partitions {
            let begun = i > 0 && states[i - 1].partitions.iter().any(|&(x, _)| x == index);
            if begun {
                continue;
            }
            let rule = &world.faults.partitions[index];
            let mut lanes: Vec<usize> = rule.links.iter().flat_map(|&(a, b)| [a, b]).collect();
            lanes.sort_unstable();
            lanes.dedup();
            let to_ms = heal_ms.unwrap_or(end_ms).max(state.now_ms + 1);
            out.push((
                index,
                Cut {
                    lanes,
                    from_ms: state.now_ms,
                    to_ms,
                    text: format!(
                        "partition {} ({} links cut) from {} to {}",
                        rule.name,
                        rule.links.len(),
                        seconds(state.now_ms),
                        heal_ms.map_or("the end".to_string(), seconds)
                    ),
                },
            ));
        }
    }
    out.into_iter().map(|(_, c)| c).collect()
}

/// For each lock key that a stepped clock expired early: its TTL's end by true time.
fn true_time_keys(world: &RedisWorld, states: &[RedisState]) -> Vec<TrueTimeKey> {
    let mut out: Vec<TrueTimeKey> = Vec::new();
    for state in states {
        for (p, proc) in state.procs.iter().enumerate() {
            let Some(ProcessState::Redis(node)) = proc.actor_state() else {
                continue;
            };
            let steps_ms = proc.clock_steps_ms;
            let wall = world.local_now(state, p).wall_ms;
            for (key, entry) in node.keyspace.entries() {
                let Some(deadline) = entry.deadline_ms else {
                    continue;
                };
                let now = state.now_ms as i64;
                let to_ms = (now + deadline - (wall - steps_ms) + 1).max(0) as u64;
                let key_text = format!(
                    "{} = {}",
                    String::from_utf8_lossy(key),
                    super::swimlane::owner_text(&entry.value)
                );
                let expired = entry.is_expired(wall);
                let known = out
                    .iter_mut()
                    .find(|k| k.lane == p && k.key_text == key_text && k.to_ms == to_ms);
                match known {
                    Some(k) if expired && k.by_clock_ms == u64::MAX && steps_ms != 0 => {
                        k.by_clock_ms = state.now_ms
                    }
                    Some(_) => {}
                    None if !expired => out.push(TrueTimeKey {
                        lane: p,
                        key_text,
                        from_ms: state.now_ms,
                        to_ms,
                        by_clock_ms: u64::MAX,
                    }),
                    None => {}
                }
            }
        }
    }
    // Only the keys a stepped clock expired before their TTL ran out by true time.
    out.retain(|k| k.by_clock_ms < k.to_ms);
    out
}
