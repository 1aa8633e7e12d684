//! The verdict of a run with the real libraries. The commands each server received from a
//! client are set beside the model's (a finding where they part, not a verdict: `compare.rs`);
//! each call's result beside the model client's (an acquire that gave the lock, a belief
//! that still holds); each answer's meaning (did it set, delete, extend) beside the model's.
//! The first call or answer that parts is DIVERGED at its step; otherwise the real answers
//! are fed to the scenario's oracle as `reproduce` does (`observed.rs`).

use super::compare::{self, Sent};
use super::schedule::{succeeded, ClientRun};
use super::Observed;
use crate::oracles::RedisWorld;
use crate::reproduce::observed;
use crate::reproduce::verdict::{Observed as Judged, Verdict};
use lockcheck_model::msg::Msg;
use lockcheck_model::redis::Reply;
use lockcheck_sim::world::{ProcessId, WorldAction};
use lockcheck_sim::Path;
use serde::Serialize;
use std::collections::BTreeMap;

/// The commands one client sent one server, the model's and the library's.
#[derive(Clone, Debug, Serialize)]
pub struct Commands {
    pub client: String,
    pub node: String,
    pub model: String,
    pub library: String,
    /// How they part, if they do.
    pub difference: Option<String>,
}

/// One call of a client: the model's result and the library's.
#[derive(Clone, Debug, Serialize)]
pub struct Call {
    pub client: String,
    pub step: usize,
    pub op: String,
    pub model_ms: u64,
    /// Virtual ms the library's call returned, if it did.
    pub library_ms: Option<f64>,
    pub model: String,
    pub library: String,
}

/// One run.
#[derive(Clone, Debug, Serialize)]
pub struct LibraryRun {
    pub commands: Vec<Commands>,
    pub calls: Vec<Call>,
    pub verdict: Verdict,
    pub pids: Vec<u32>,
}

/// Every run.
pub struct LibraryReproduction {
    pub redis_version: String,
    pub speed: f64,
    pub property: String,
    /// (client, library) of every client.
    pub clients: Vec<(String, String)>,
    pub runs: Vec<LibraryRun>,
}

impl LibraryReproduction {
    pub fn verdict(&self) -> &Verdict {
        crate::reproduce::overall(self.runs.iter().map(|r| &r.verdict).collect())
    }

    pub fn reproduced(&self) -> usize {
        self.runs
            .iter()
            .filter(|r| r.verdict == Verdict::Reproduced)
            .count()
    }

    /// Whether every client sent every server the model's commands, in every run.
    pub fn same_commands(&self) -> bool {
        self.runs
            .iter()
            .all(|r| r.commands.iter().all(|c| c.difference.is_none()))
    }
}

/// The first step where the library or a server parted from the model: (step, label, the
/// model's, the library's).
type Parted = Option<(usize, String, String, String)>;

fn part(first: &mut Parted, step: usize, label: String, expected: String, actual: String) {
    if first.as_ref().is_none_or(|(s, ..)| step < *s) {
        *first = Some((step, label, expected, actual));
    }
}

/// Judges one run.
pub fn judge(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    clients: &[ClientRun],
    node_processes: &[ProcessId],
    seen: Observed,
    property: &str,
    model_happened: bool,
) -> LibraryRun {
    let mut first: Parted = None;
    let mut real_replies = BTreeMap::new();
    let commands = compare_commands(
        world,
        path,
        clients,
        node_processes,
        &seen,
        &mut real_replies,
        &mut first,
    );
    let calls = compare_calls(path, clients, &seen, &mut first);
    let label = |step: usize| path.steps[step - 1].label.clone();
    let verdict = match (&seen.stopped, first) {
        (Some(why), _) => Verdict::Inconclusive { why: why.clone() },
        (None, Some((step, label, expected, actual))) => Verdict::Diverged {
            step,
            label,
            expected,
            actual,
        },
        (None, None) => match observed::judge(world, path, &real_replies, property, model_happened)
        {
            Judged::Happened => Verdict::Reproduced,
            Judged::Holds => Verdict::NotReproduced,
            Judged::OtherPath { step } => Verdict::Diverged {
                step,
                label: label(step),
                expected: "the model's step".into(),
                actual: "the real answers lead elsewhere".into(),
            },
        },
    };
    LibraryRun {
        commands,
        calls,
        verdict,
        pids: seen.pids,
    }
}

/// Each client's commands to each server beside the model's; an answer whose meaning
/// differs parts; an answer of the model's kind goes into `real_replies` for the oracle.
fn compare_commands(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    clients: &[ClientRun],
    node_processes: &[ProcessId],
    seen: &Observed,
    real_replies: &mut BTreeMap<usize, Reply>,
    first: &mut Parted,
) -> Vec<Commands> {
    let mut scripts = BTreeMap::new();
    for chunks in seen.chunks.iter().flatten() {
        compare::collect_scripts(chunks, &mut scripts);
    }
    let mut commands = Vec::new();
    for (ci, c) in clients.iter().enumerate() {
        for (k, &node) in c.nodes.iter().enumerate() {
            let real = compare::real_commands(&seen.chunks[ci][k], seen.from_ns, &scripts, |t| {
                seen.vclock.ms_at(t)
            });
            let model = model_commands(path, c.process, node_processes[node], &scripts);
            for (m, r) in model.iter().zip(&real) {
                let (Some(step), Some(mr), Some(rr)) = (m.reply_step, &m.reply, &r.reply) else {
                    continue;
                };
                if succeeded(mr) != succeeded(rr) {
                    part(
                        first,
                        step,
                        path.steps[step - 1].label.clone(),
                        reply_text(mr),
                        reply_text(rr),
                    );
                } else if std::mem::discriminant(mr) == std::mem::discriminant(rr) {
                    real_replies.insert(step - 1, rr.clone());
                }
            }
            commands.push(Commands {
                client: c.name.clone(),
                node: world.process_name(node_processes[node]).to_string(),
                model: compare::summary(&model),
                library: compare::summary(&real),
                difference: compare::difference(&model, &real),
            });
        }
    }
    commands
}

/// Each call's result beside the model client's; the first that differs parts.
fn compare_calls(
    path: &Path<RedisWorld>,
    clients: &[ClientRun],
    seen: &Observed,
    first: &mut Parted,
) -> Vec<Call> {
    let end_ms = path.states.last().map_or(0, |s| s.now_ms) as f64;
    let mut calls = Vec::new();
    for (ci, c) in clients.iter().enumerate() {
        for op in &c.ops {
            let event = seen.events[ci]
                .iter()
                .find(|e| e["step"].as_u64() == Some(op.step as u64) && e["op"] == op.op);
            let library_ms = event.and_then(|e| e["t_ms"].as_f64());
            let answered = library_ms.is_some_and(|t| t <= end_ms + super::GRACE_MS as f64);
            let real_ok = event
                .filter(|_| answered)
                .map(|e| e["ok"].as_bool().or(e["holds"].as_bool()).unwrap_or(true));
            // A release is compared by its commands only: when it returns is the library's
            // business (node-redlock 5 retries one that finds the lock gone).
            let real_ok = if op.op == "release" {
                op.model_ok
            } else {
                real_ok
            };
            let mut library = outcome(op.op, real_ok);
            if let Some(err) = event.and_then(|e| e["error"].as_str()) {
                library = format!("{library} ({err})");
            }
            if real_ok != op.model_ok {
                let expected = format!("{} {}", op.op, outcome(op.op, op.model_ok));
                part(
                    first,
                    op.step,
                    path.steps[op.step - 1].label.clone(),
                    expected,
                    format!("{} {library}", op.op),
                );
            }
            calls.push(Call {
                client: c.name.clone(),
                step: op.step,
                op: op.op.to_string(),
                model_ms: op.at_ms,
                library_ms,
                model: outcome(op.op, op.model_ok),
                library,
            });
        }
    }
    calls
}

/// A call's result in words.
fn outcome(op: &str, ok: Option<bool>) -> String {
    match (op, ok) {
        (_, None) => "no answer",
        ("belief", Some(true)) => "holds",
        ("belief", Some(false)) => "does not hold",
        (_, Some(true)) => "done",
        (_, Some(false)) => "failed",
    }
    .to_string()
}

/// The model's commands from `client` to `node`, each with its reply and the step that
/// delivered it.
fn model_commands(
    path: &Path<RedisWorld>,
    client: ProcessId,
    node: ProcessId,
    scripts: &BTreeMap<String, Vec<u8>>,
) -> Vec<Sent> {
    let mut out: Vec<(u32, Sent)> = Vec::new();
    for (i, step) in path.steps.iter().enumerate() {
        let WorldAction::Deliver { from, to, msg } = &step.action else {
            continue;
        };
        match &**msg {
            Msg::Request { id, command } if *from == client && *to == node => out.push((
                *id,
                Sent {
                    shape: compare::shape(&command.to_argv(), scripts),
                    at_ms: path.states[i + 1].now_ms as f64,
                    reply: None,
                    reply_step: None,
                    step: Some(i + 1),
                },
            )),
            Msg::Response { id, reply } if *from == node && *to == client => {
                if let Some((_, s)) = out
                    .iter_mut()
                    .find(|(rid, s)| rid == id && s.reply.is_none())
                {
                    s.reply = Some(reply.clone());
                    s.reply_step = Some(i + 1);
                }
            }
            _ => {}
        }
    }
    // Sent, not yet delivered when the trace ends.
    if let Some(last) = path.states.last() {
        for m in last
            .in_flight
            .iter()
            .filter(|m| m.from == client && m.to == node)
        {
            if let Msg::Request { id, command } = &*m.msg {
                out.push((
                    *id,
                    Sent {
                        shape: compare::shape(&command.to_argv(), scripts),
                        at_ms: last.now_ms as f64,
                        reply: None,
                        reply_step: None,
                        step: None,
                    },
                ));
            }
        }
    }
    out.into_iter().map(|(_, s)| s).collect()
}

fn reply_text(r: &Reply) -> String {
    crate::reproduce::verdict::reply_text(r)
}
