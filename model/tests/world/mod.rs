//! Building and running small Redis worlds in tests.

#![allow(dead_code)]

use lockcheck_model::lock::redisson::Redisson;
use lockcheck_model::lock::{Fencing, LockClient, Protocol, Steps, Workload};
use lockcheck_model::msg::Msg;
use lockcheck_model::process::{Process, ProcessState};
use lockcheck_model::redis::{Command, Reply};
use lockcheck_model::scripted::{ScriptedClient, ScriptedStep};
use lockcheck_sim::world::{ClockSpec, ProcessId, ProcessSpec, StateOf, World};
use lockcheck_sim::{run_script, Path, ScriptedFault};

pub type RedisWorld = World<Process>;
pub type State = StateOf<Process>;

/// A command from its words, as a client would send it.
pub fn cmd(words: &[&str]) -> Command {
    let argv: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
    Command::parse(&argv).unwrap_or_else(|e| panic!("{words:?}: {e:?}"))
}

/// A scripted step `after_ms` after the previous one.
pub fn step(after_ms: u64, target: ProcessId, words: &[&str]) -> ScriptedStep {
    ScriptedStep::command(after_ms, target, cmd(words))
}

/// An operator's `REPLICAOF NO ONE` (`None`) or `REPLICAOF master` sent to `target`.
pub fn replicaof(after_ms: u64, target: ProcessId, master: Option<ProcessId>) -> ScriptedStep {
    ScriptedStep {
        after_ms,
        target,
        action: lockcheck_model::scripted::StepAction::ReplicaOf { master },
    }
}

pub fn scripted(steps: Vec<ScriptedStep>) -> Process {
    Process::Scripted(ScriptedClient { steps })
}

/// A Redisson client of lock `key` as `owner`: one round from `start_after_ms`, working
/// `work_ms`.
pub fn redisson_client(
    engine: Redisson,
    key: &[u8],
    owner: &str,
    start_after_ms: u64,
    work_ms: u64,
) -> Process {
    Process::Client(LockClient {
        protocol: Protocol::Redisson(engine),
        workload: Workload {
            locks: vec![key.to_vec()],
            rounds: 1,
            start_after_ms,
            work_ms: vec![work_ms],
            steps: Steps::InOrder,
            resource: None,
            amount: 0,
            checks_stop_event: false,
            on_fail: Default::default(),
            lock_object_peers: Vec::new(),
        },
        fencing: Fencing::Protocol,
        owner: owner.as_bytes().to_vec(),
    })
}

/// A world of named processes with perfect clocks and 1 ms links.
pub fn world(processes: Vec<(&str, Process)>) -> RedisWorld {
    world_with_clocks(
        processes
            .into_iter()
            .map(|(n, p)| (n, p, ClockSpec::default()))
            .collect(),
    )
}

pub fn world_with_clocks(processes: Vec<(&str, Process, ClockSpec)>) -> RedisWorld {
    World::new(
        "redis-world",
        processes
            .into_iter()
            .map(|(name, actor, clock)| ProcessSpec {
                name: name.to_string(),
                actor,
                clock,
            })
            .collect(),
    )
}

/// Runs the world in its own order with `faults`, until only faults are left or `until_ms`.
pub fn run(world: &RedisWorld, faults: &[(u64, &str)], until_ms: u64) -> Path<RedisWorld> {
    let faults: Vec<ScriptedFault> = faults
        .iter()
        .map(|(t, l)| ScriptedFault::new(*t, *l))
        .collect();
    run_script(world, &faults, until_ms, 100_000).unwrap_or_else(|e| panic!("{e}"))
}

/// The state of the first point in `path` at or after `at_ms` (or the last state).
pub fn state_at(path: &Path<RedisWorld>, at_ms: u64) -> &State {
    path.states
        .iter()
        .find(|s| s.now_ms >= at_ms)
        .unwrap_or_else(|| path.last_state())
}

/// The reply scripted client `client` got to its step `i`.
pub fn reply(state: &State, client: ProcessId, i: usize) -> Option<Reply> {
    state
        .actor(client)
        .and_then(ProcessState::as_scripted)
        .and_then(|s| s.reply(i).cloned())
}

pub fn bulk(s: &str) -> Reply {
    Reply::bulk(s)
}

pub fn node(state: &State, p: ProcessId) -> &lockcheck_model::node::NodeState {
    state
        .actor(p)
        .and_then(ProcessState::as_redis)
        .expect("a running Redis node")
}

/// Messages of a kind still in flight (to check that nothing is left over).
pub fn in_flight(state: &State, pred: impl Fn(&Msg) -> bool) -> usize {
    state.in_flight.iter().filter(|m| pred(&m.msg)).count()
}
