//! A trace, turned into what each client library's process does and when: its calls
//! (acquire, extend, release, and the work between them: reading and debiting the account),
//! its faults (a pause, a crash, a wall-clock step), and what the model's client did at each
//! call, to compare. The library's own retries, timers and scripts are not scheduled: the
//! library does them itself, and what it sends is compared afterwards (`compare.rs`).
//!
//! A pause or crash that the model put between a client's command and its answer is gated:
//! it lands once the client has sent as many commands as the model's had (`tap.rs`).

use crate::oracles::{self, RedisWorld};
use crate::scenario::{ProtocolSpec, Scenario};
use lockcheck_model::msg::{Msg, ResourceOp};
use lockcheck_model::redis::Reply;
use lockcheck_sim::world::{ProcessId, WorldAction};
use lockcheck_sim::Path;
use serde_json::{json, Value};

/// A client library the harness runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Library {
    RedisPy,
    NodeRedlock4,
    NodeRedlock5,
}

impl Library {
    pub fn name(self) -> &'static str {
        match self {
            Library::RedisPy => "redis-py",
            Library::NodeRedlock4 => "node-redlock 4",
            Library::NodeRedlock5 => "node-redlock 5",
        }
    }
}

/// A call of the library, or the client's own work, at a model time.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// `acquire`, `read`, `debit`, `extend`, `release`, or `belief` (whether the library
    /// still takes the lock as held: asked when the trace ends).
    pub op: &'static str,
    pub at_ms: u64,
    /// The trace step it comes from (1-based).
    pub step: usize,
    /// What the model's client got: did the call succeed (an acquire that gave the lock, a
    /// belief that holds); `None` when the trace ended before it answered.
    pub model_ok: Option<bool>,
}

/// A fault of a client's process.
#[derive(Clone, Debug, PartialEq)]
pub enum FaultKind {
    Pause { ms: u64 },
    Crash,
    ClockStep { delta_ms: i64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClientFault {
    pub at_ms: u64,
    pub step: usize,
    pub kind: FaultKind,
    /// Land only once the client has sent this many commands, before their answers.
    pub after_commands: Option<usize>,
    /// Land only once the client has had this many answers (a clock step after a call's
    /// answers, as the model put it).
    pub after_answers: usize,
}

/// One client's process: its library, its schedule and its faults.
#[derive(Clone, Debug)]
pub struct ClientRun {
    pub process: ProcessId,
    pub name: String,
    pub library: Library,
    /// The nodes it talks to (node indices of the plan), in the protocol's order.
    pub nodes: Vec<usize>,
    pub ops: Vec<Op>,
    pub faults: Vec<ClientFault>,
    /// The lock's key (the workload's one lock).
    pub key: String,
    /// The library's settings the schedule passes (`ttl_ms`, retry delays).
    pub settings: Value,
}

/// Every client of the trace, or why one cannot run with a real library.
pub fn clients(
    scenario: &Scenario,
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    node_processes: &[ProcessId],
) -> Result<Vec<ClientRun>, String> {
    let mut out = Vec::new();
    for (p, _) in oracles::clients(world) {
        let name = world.process_name(p).to_string();
        let spec = scenario
            .clients
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| format!("client `{name}` is not in the scenario"))?;
        let (library, settings, node_names) = library_of(&name, &spec.protocol)?;
        let key = match spec.workload.locks.as_slice() {
            [one] => one.clone(),
            _ => {
                return Err(format!(
                    "client `{name}`: the harness runs a workload of one lock"
                ))
            }
        };
        let nodes = node_names
            .iter()
            .map(|n| {
                node_processes
                    .iter()
                    .position(|q| world.process_name(*q) == n)
                    .ok_or_else(|| format!("client `{name}`: node `{n}` is not a real server"))
            })
            .collect::<Result<_, _>>()?;
        let mut run = ClientRun {
            process: p,
            name,
            library,
            nodes,
            ops: Vec::new(),
            faults: Vec::new(),
            key,
            settings,
        };
        ops_and_faults(world, path, node_processes, &mut run);
        out.push(run);
    }
    Ok(out)
}

/// The library a client's protocol table names, its settings and its nodes.
fn library_of(
    name: &str,
    protocol: &ProtocolSpec,
) -> Result<(Library, Value, Vec<String>), String> {
    let ProtocolSpec::Library(spec) = protocol else {
        return Err(format!(
            "client `{name}` is not a client-library profile (`library = ...`): only a real library runs in the loop"
        ));
    };
    let major = spec.version().split('.').next().unwrap_or("");
    match (spec.library(), major, spec.resolved()) {
        ("redis-py", _, ProtocolSpec::SingleNode { node, ttl_ms, retry_ms, .. }) => Ok((
            Library::RedisPy,
            json!({ "ttl_ms": ttl_ms, "retry_ms": retry_ms.first().copied().unwrap_or(100) }),
            vec![node.clone()],
        )),
        ("node-redlock", _, ProtocolSpec::Redlock { auto_extension: Some(_), .. }) => Err(format!(
            "client `{name}` uses node-redlock's `using()` (auto_extension): the harness drives `acquire`, `extend` and `release` only"
        )),
        ("node-redlock", "4" | "5", ProtocolSpec::Redlock { nodes, ttl_ms, retry_ms, max_attempts, .. }) => {
            let lo = retry_ms.iter().min().copied().unwrap_or(200);
            let hi = retry_ms.iter().max().copied().unwrap_or(200);
            let library = if major == "4" { Library::NodeRedlock4 } else { Library::NodeRedlock5 };
            Ok((
                library,
                json!({
                    "ttl_ms": ttl_ms,
                    "retry_delay_ms": (lo + hi).div_ceil(2),
                    "retry_jitter_ms": (hi - lo).div_ceil(2),
                    "retry_count": max_attempts.map(|n| n as i64 - 1).unwrap_or(-1),
                }),
                nodes.clone(),
            ))
        }
        (library, _, _) => Err(format!(
            "client `{name}` uses {library} {}: the harness runs redis-py, node-redlock 4 and node-redlock 5",
            spec.version()
        )),
    }
}

/// Reads the client's calls and faults off the path.
fn ops_and_faults(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    node_processes: &[ProcessId],
    run: &mut ClientRun,
) {
    let p = run.process;
    let is_node = |q: &ProcessId| node_processes.contains(q);
    let mut sent = 0usize;
    let mut answers = 0usize;
    let mut worked = false;
    for (i, step) in path.steps.iter().enumerate() {
        let at_ms = path.states[i + 1].now_ms;
        let mut push = |op: &'static str| {
            run.ops.push(Op {
                op,
                at_ms,
                step: i + 1,
                model_ok: Some(true),
            })
        };
        let label = step.label.as_str();
        match &step.action {
            _ if label == format!("timer {}: start round", run.name) => {
                push("acquire");
                worked = false;
            }
            _ if label == format!("timer {}: work done", run.name) => worked = true,
            WorldAction::Deliver { from, to, msg } if *from == p && is_node(to) => {
                if let Msg::Request { command, .. } = &**msg {
                    let argv = command.to_argv();
                    let first_of_group = sent == 0 || !same_group(path, i, p);
                    if worked && first_of_group && super::compare::is_release(&argv) {
                        push("release");
                    }
                }
                sent += 1;
            }
            WorldAction::Deliver { from, to, .. } if *to == p && is_node(from) => answers += 1,
            WorldAction::Deliver { from, msg, .. } if *from == p => match &**msg {
                Msg::Resource(ResourceOp::Read { .. }) => push("read"),
                Msg::Resource(ResourceOp::Debit { .. }) => push("debit"),
                _ => {}
            },
            action => {
                if let Some(kind) = fault_kind(action, p) {
                    fault(run, path, i, kind, (sent, answers), node_processes);
                }
            }
        }
    }
    settle_outcomes(world, path, run);
}

/// The fault `action` does to client `p`'s process, if it is one.
fn fault_kind(
    action: &lockcheck_sim::world::ActionOf<lockcheck_model::process::Process>,
    p: ProcessId,
) -> Option<FaultKind> {
    match action {
        WorldAction::Pause {
            process,
            duration_ms,
        } if *process == p => Some(FaultKind::Pause { ms: *duration_ms }),
        WorldAction::Crash { process, .. } if *process == p => Some(FaultKind::Crash),
        WorldAction::ClockStep { process, delta_ms } if *process == p => {
            Some(FaultKind::ClockStep {
                delta_ms: *delta_ms,
            })
        }
        _ => None,
    }
}

/// Whether the request delivered at step `i` by `p` follows another of `p`'s requests at the
/// same instant (the same call sent to several servers).
fn same_group(path: &Path<RedisWorld>, i: usize, p: ProcessId) -> bool {
    let now = path.states[i + 1].now_ms;
    path.steps[..i]
        .iter()
        .enumerate()
        .rev()
        .take_while(|(j, _)| path.states[j + 1].now_ms == now)
        .any(|(_, s)| {
            matches!(&s.action, WorldAction::Deliver { from, msg, .. }
            if *from == p && matches!(&**msg, Msg::Request { .. }))
        })
}

/// A fault at step `i`, gated when the client awaits an answer from a node then.
fn fault(
    run: &mut ClientRun,
    path: &Path<RedisWorld>,
    i: usize,
    kind: FaultKind,
    (delivered, answers): (usize, usize),
    node_processes: &[ProcessId],
) {
    let state = &path.states[i];
    let p = run.process;
    let on_wire = state
        .in_flight
        .iter()
        .filter(|m| m.from == p && node_processes.contains(&m.to))
        .count()
        + state
            .unrouted
            .iter()
            .filter(|m| m.from == p && node_processes.contains(&m.to))
            .count();
    let awaiting = on_wire > 0
        || state
            .in_flight
            .iter()
            .any(|m| m.to == p && node_processes.contains(&m.from));
    run.faults.push(ClientFault {
        at_ms: state.now_ms.max(path.states[i + 1].now_ms),
        step: i + 1,
        after_commands: (awaiting && !matches!(kind, FaultKind::ClockStep { .. }))
            .then_some(delivered + on_wire),
        after_answers: answers,
        kind,
    });
}

/// Each acquire's outcome in the model (whether the client came to believe it holds the
/// lock before its next call), and a closing `belief` call where the model's client still
/// believes when the trace ends.
fn settle_outcomes(world: &RedisWorld, path: &Path<RedisWorld>, run: &mut ClientRun) {
    let client = oracles::clients(world)
        .find(|(q, _)| *q == run.process)
        .map(|(_, c)| c)
        .expect("a client of the world");
    let believes =
        |s: usize| !oracles::believed_keys(world, &path.states[s], run.process, client).is_empty();
    let acquires: Vec<usize> = (0..run.ops.len())
        .filter(|&k| run.ops[k].op == "acquire")
        .collect();
    for (n, &k) in acquires.iter().enumerate() {
        let from = run.ops[k].step;
        let to = acquires
            .get(n + 1)
            .map_or(path.steps.len(), |&j| run.ops[j].step);
        // The round went on (the lock's validity may be over: node-redlock 5 returns it).
        let went_on = run.ops[k + 1..]
            .iter()
            .any(|o| o.step <= to && o.op != "acquire");
        let ok = went_on || (from..=to).any(believes);
        let answered = ok || run.ops[k + 1..].iter().any(|o| o.step <= to);
        run.ops[k].model_ok = if ok {
            Some(true)
        } else if answered {
            Some(false)
        } else {
            None
        };
    }
    let last = path.steps.len();
    if believes(last) {
        run.ops.push(Op {
            op: "belief",
            at_ms: path.states[last].now_ms,
            step: last,
            model_ok: Some(true),
        });
    }
}

/// The schedule a driver reads (one JSON line): the library, the ports of its servers (the
/// taps), the lock's settings and the calls.
pub fn schedule_json(run: &ClientRun, ports: &[u16]) -> Value {
    let mut s = json!({
        "client": run.name,
        "library": run.library.name(),
        "major": match run.library { Library::NodeRedlock4 => 4, Library::NodeRedlock5 => 5, Library::RedisPy => 0 },
        "servers": ports,
        "key": run.key,
        "ops": run.ops.iter().map(|o| json!({ "op": o.op, "at_ms": o.at_ms, "step": o.step })).collect::<Vec<_>>(),
    });
    if let (Value::Object(s), Value::Object(settings)) = (&mut s, &run.settings) {
        s.extend(settings.clone());
    }
    s
}

/// Whether `reply` means the command did what it asked (set, deleted, extended).
pub fn succeeded(reply: &Reply) -> Option<bool> {
    match reply {
        Reply::Status(_) => Some(true),
        Reply::Integer(n) => Some(*n > 0),
        Reply::Bulk(b) => Some(b.is_some()),
        Reply::Array(a) => Some(a.is_some()),
        Reply::Error(_) => None,
    }
}
