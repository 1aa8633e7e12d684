//! The run's record: the world state the oracles read, the oracles' verdicts, and what the
//! driver books about the run.
//!
//! Actor states live here rather than inside the madsim tasks, so that the lock oracles,
//! which are properties of a whole world state, can read every process at once. Only a
//! process's own task changes its actor state; the fault injector changes the rest (pauses,
//! crashes, partitions, clock steps), as the kernel's fault actions do. The state is a kernel
//! [`StateOf`], so the oracles are the kernel's own properties, evaluated by the kernel's
//! [`Checker`] after every event: an `always` property that fails, or a `leads_to_within`
//! deadline that passes, ends the run with a violation; a `sometimes` property that holds is
//! marked witnessed.

use crate::report::{Ended, Violation};
use crate::transit::Transit;
use lockcheck_sim::world::{advance_label, ActionOf, Actor, Life, ProcessId, StateOf, World};
use lockcheck_sim::{Checker, Hit};
use lockcheck_sim::{Model, TraceStep};
use madsim::net::Endpoint;

/// One entry of a run's timeline.
pub(crate) enum Recorded<A: Actor> {
    /// An event or fault, labelled as the kernel labels it: by `label` when the label
    /// depends on what the driver keeps itself (a timer fired ahead of an earlier one).
    Action {
        at_ms: u64,
        action: ActionOf<A>,
        label: Option<String>,
    },
    /// A choice the kernel makes as a step of its own: a message's delay or loss, a timer's
    /// duration. `label` is the kernel's label for it.
    Choice {
        at_ms: u64,
        process: ProcessId,
        kind: ChoiceKind,
        label: String,
    },
    /// Something the driver did on its own account. A resume, restart or heal happens when
    /// time moves on (the kernel does it in `Advance`); a message cut on its way does not.
    Note {
        at_ms: u64,
        text: String,
        moves_time: bool,
    },
}

/// The kinds of choices, in the order the kernel resolves them after a handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ChoiceKind {
    TimerDuration,
    Route,
    Lose,
}

pub(crate) struct Record<A: Actor> {
    pub state: StateOf<A>,
    checker: Checker<World<A>>,
    obligations: Option<Box<[u64]>>,
    /// Per property: violated or witnessed already (a `sometimes` property is decided only
    /// by being witnessed).
    decided: Vec<bool>,
    pub violation: Option<Violation>,
    pub ended: Option<Ended>,
    /// Handlers run so far.
    pub steps: u32,
    /// Time of the latest event (or fault chance taken as time moved on).
    pub last_event_ms: Option<u64>,
    /// Per process: pending timers and held messages, as its task last published them.
    pub work: Vec<usize>,
    /// Resumes, restarts, heals and timing wake-ups scheduled and not yet done.
    pub controls: usize,
    /// The instants of the timing wake-ups scheduled (see `timing.rs`).
    pub timing_wakes_ms: Vec<u64>,
    /// Per process: bumped by every pause and crash, so that a scheduled resume or restart
    /// acts only on the pause or crash that scheduled it.
    pub epochs: Vec<u64>,
    /// Every partition begun so far: rule index and start time.
    pub partitions_begun: Vec<(usize, u64)>,
    /// Per process: the next send's position in its send order.
    pub next_seq: Vec<u64>,
    /// The messages on their way (`transit.rs`).
    pub transit: Transit<A::Msg>,
    /// Each process's endpoint once bound (a crash's refusals go out through the
    /// receiver's own).
    pub endpoints: Vec<Option<Endpoint>>,
    /// Per process: whether it has started once (restarts skip the start gate).
    pub started: Vec<bool>,
    /// Per process: whether its endpoint is bound for its first start.
    pub bound: Vec<bool>,
    pub timeline: Vec<Recorded<A>>,
}

impl<A: Actor> Record<A> {
    pub fn new(world: &World<A>) -> Self {
        let n = world.processes.len();
        let checker = Checker::new(world.properties());
        let props = checker.props.len();
        Record {
            state: world.not_started(),
            obligations: checker.initial_obligations(0),
            checker,
            decided: vec![false; props],
            violation: None,
            ended: None,
            steps: 0,
            last_event_ms: None,
            work: vec![0; n],
            controls: 0,
            timing_wakes_ms: Vec::new(),
            epochs: vec![0; n],
            partitions_begun: Vec::new(),
            next_seq: vec![0; n],
            transit: Transit::default(),
            endpoints: vec![None; n],
            started: vec![false; n],
            bound: vec![false; n],
            timeline: Vec::new(),
        }
    }

    /// Judges the state at `now_ms` by every property.
    pub fn evaluate(&mut self, world: &World<A>, now_ms: u64) {
        world.move_time_to(&mut self.state, now_ms);
        let mut hits = Vec::new();
        self.checker.evaluate(world, &self.state, &mut hits);
        self.checker.obligations.update(
            world,
            &self.state,
            now_ms,
            &mut self.obligations,
            &mut hits,
        );
        self.record(hits, now_ms);
    }

    /// The run ends here with nothing left to happen: open obligations are violated.
    pub fn at_terminal(&mut self, now_ms: u64) {
        let mut hits = Vec::new();
        self.checker.at_terminal(&self.obligations, &mut hits);
        self.record(hits, now_ms);
    }

    fn record(&mut self, hits: Vec<(usize, Hit)>, now_ms: u64) {
        for (i, hit) in hits {
            if std::mem::replace(&mut self.decided[i], true) {
                continue;
            }
            if hit == Hit::Violated && self.violation.is_none() {
                self.violation = Some(Violation {
                    property: self.checker.props[i].name.clone(),
                    at_ms: now_ms,
                    step: self.steps,
                });
                self.end(Ended::Violation);
            }
        }
    }

    pub fn end(&mut self, why: Ended) {
        if self.ended.is_none() {
            self.ended = Some(why);
        }
    }

    /// Whether every process has started and nothing is scheduled: no timer, no held
    /// message, no resume, restart or heal. (A message still on madsim's network is not
    /// counted; see `Run::wait_for_end`.)
    pub fn looks_quiet(&self) -> bool {
        self.started.iter().all(|&s| s) && self.controls == 0 && self.work.iter().all(|&w| w == 0)
    }

    /// When crashed process `p` is due to restart.
    pub fn restart_at_ms(&self, p: ProcessId) -> Option<u64> {
        match self.state.procs[p].life {
            Life::Down { restart_at_ms, .. } => restart_at_ms,
            Life::Up(_) => None,
        }
    }

    pub fn is_running(&self, p: ProcessId) -> bool {
        self.state.procs[p].is_running()
    }

    pub fn log(&mut self, at_ms: u64, action: ActionOf<A>, label: Option<String>) {
        self.timeline.push(Recorded::Action {
            at_ms,
            action,
            label,
        });
    }

    pub fn choice(&mut self, at_ms: u64, process: ProcessId, kind: ChoiceKind, label: String) {
        self.timeline.push(Recorded::Choice {
            at_ms,
            process,
            kind,
            label,
        });
    }

    /// A driver action that happens as time moves on (a resume, a restart, a heal).
    pub fn note(&mut self, at_ms: u64, text: String) {
        self.timeline.push(Recorded::Note {
            at_ms,
            text,
            moves_time: true,
        });
    }

    /// A driver action within the current time (a message cut on its way).
    pub fn aside(&mut self, at_ms: u64, text: String) {
        self.timeline.push(Recorded::Note {
            at_ms,
            text,
            moves_time: false,
        });
    }

    /// Names of the `sometimes` properties, witnessed or not.
    pub fn witnesses(&self) -> (Vec<String>, Vec<String>) {
        let mut yes = Vec::new();
        let mut no = Vec::new();
        for (i, p) in self.checker.props.iter().enumerate() {
            if p.kind() == lockcheck_sim::PropertyKind::Sometimes {
                if self.decided[i] { &mut yes } else { &mut no }.push(p.name.clone());
            }
        }
        (yes, no)
    }

    /// The timeline as text, labelled as the kernel labels its steps (delays and timer
    /// durations left out, losses shown as faults).
    pub fn timeline_lines(&self, world: &World<A>) -> Vec<String> {
        self.timeline
            .iter()
            .filter_map(|e| match e {
                Recorded::Action {
                    at_ms,
                    action,
                    label,
                } => {
                    let fault = if world.is_fault(action) { "FAULT " } else { "" };
                    let label = label.clone();
                    Some(format!(
                        "t={at_ms:>8} ms  {fault}{}",
                        label.unwrap_or_else(|| world.label(&self.state, action))
                    ))
                }
                Recorded::Choice {
                    at_ms,
                    kind: ChoiceKind::Lose,
                    label,
                    ..
                } => Some(format!("t={at_ms:>8} ms  FAULT {label}")),
                Recorded::Choice { .. } => None,
                Recorded::Note { at_ms, text, .. } => Some(format!("t={at_ms:>8} ms  {text}")),
            })
            .collect()
    }

    /// The run as the kernel's steps: every event, fault and choice under the kernel's label,
    /// with an `Advance` wherever time moves on. The start-up choices come in the kernel's
    /// order (timer durations, then delays, each by process), since madsim starts the
    /// processes in an order of its own.
    pub fn kernel_steps(&self, world: &World<A>) -> Vec<TraceStep> {
        let startup = self
            .timeline
            .iter()
            .take_while(|e| matches!(e, Recorded::Choice { at_ms: 0, .. }))
            .count();
        let mut first: Vec<&Recorded<A>> = self.timeline[..startup].iter().collect();
        first.sort_by_key(|e| match e {
            Recorded::Choice { kind, process, .. } => (*kind, *process),
            _ => unreachable!("the start-up block holds only choices"),
        });
        let mut steps = Vec::with_capacity(self.timeline.len());
        let mut now = 0;
        for e in first.into_iter().chain(&self.timeline[startup..]) {
            let (at_ms, moves_time) = match e {
                Recorded::Action { at_ms, .. } => (*at_ms, true),
                Recorded::Choice { at_ms, .. } => (*at_ms, false),
                Recorded::Note {
                    at_ms, moves_time, ..
                } => (*at_ms, *moves_time),
            };
            if moves_time && at_ms > now {
                now = at_ms;
                steps.push(TraceStep {
                    label: advance_label(now),
                    at_ms: now,
                });
            }
            let label = match e {
                Recorded::Action { action, label, .. } => label
                    .clone()
                    .unwrap_or_else(|| world.label(&self.state, action)),
                Recorded::Choice { label, .. } => label.clone(),
                Recorded::Note { .. } => continue,
            };
            steps.push(TraceStep { label, at_ms });
        }
        // A deadline found passed as time moved on, before any event at the new time.
        if let Some(v) = self.violation.as_ref().filter(|v| v.at_ms > now) {
            steps.push(TraceStep {
                label: advance_label(v.at_ms),
                at_ms: v.at_ms,
            });
        }
        steps
    }
}
