//! Scripted runs: one deterministic run with faults at chosen times, read like an incident.
//!
//! A scenario test often wants one particular story, not a search: "the network splits at
//! 20 ms, the master is promoted away, the client writes again". `run_script` takes the
//! model's ordinary steps in its own order (the first enabled action that is not a fault) and
//! injects each scripted fault, by label, at the first step whose virtual time has reached
//! the fault's time. The run ends when nothing is enabled but faults, when virtual time passes
//! `until_ms` (a world with periodic timers never goes quiet), or after `max_steps`. The run
//! is one run of the explorer (a `Walk` with the `Script` chooser) that judges no property.

use crate::chooser::{Chooser, Recording};
use crate::explorer::try_explore;
use crate::frontier::Walk;
use crate::model::Model;
use crate::options::Judged;
use crate::options::{Options, Stop};
use crate::report::Path;
use std::fmt;

/// A fault to inject: its label (as `Model::label` writes it) and the earliest virtual time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptedFault {
    pub at_ms: u64,
    pub label: String,
}

impl ScriptedFault {
    pub fn new(at_ms: u64, label: impl Into<String>) -> Self {
        ScriptedFault {
            at_ms,
            label: label.into(),
        }
    }
}

/// A scripted fault the model did not offer when its time came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    pub fault: ScriptedFault,
    pub at_ms: u64,
    pub enabled: Vec<String>,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "scripted fault `{}` (due at {} ms) is not enabled at {} ms; enabled: [{}]",
            self.fault.label,
            self.fault.at_ms,
            self.at_ms,
            self.enabled.join("; ")
        )
    }
}

impl std::error::Error for ScriptError {}

/// Runs `model` from its first initial state with `faults` (sorted by time) injected, until
/// `until_ms` of virtual time.
pub fn run_script<M: Model>(
    model: &M,
    faults: &[ScriptedFault],
    until_ms: u64,
    max_steps: usize,
) -> Result<Path<M>, ScriptError> {
    let script = Script {
        pending: faults.iter().peekable(),
        until_ms,
        steps_left: max_steps,
    };
    let mut walk = Walk::single(None, Recording::new(script, None));
    let options = Options {
        stop: Stop::Never,
        judged: Judged::Nothing,
        ..Options::default()
    };
    try_explore(model, &mut walk, options)?;
    let recording = walk.into_chooser().expect("the walk had its one run");
    if let Some(&fault) = recording.inner().pending.clone().peek() {
        return Err(ScriptError {
            fault: fault.clone(),
            at_ms: recording
                .last_state()
                .map_or(0, |s| model.virtual_time_ms(s)),
            enabled: Vec::new(),
        });
    }
    Ok(recording.into_path())
}

/// The model's own order, with each scripted fault taken at its time.
struct Script<'a> {
    pending: std::iter::Peekable<std::slice::Iter<'a, ScriptedFault>>,
    until_ms: u64,
    steps_left: usize,
}

impl<M: Model> Chooser<M> for Script<'_> {
    type Error = ScriptError;

    fn choose_init(&mut self, _count: usize) -> Result<usize, ScriptError> {
        Ok(0)
    }

    fn choose(
        &mut self,
        model: &M,
        state: &M::State,
        enabled: &[M::Action],
    ) -> Result<Option<usize>, ScriptError> {
        let now = model.virtual_time_ms(state);
        if self.steps_left == 0 || now > self.until_ms {
            return Ok(None);
        }
        let choice = match self.pending.next_if(|f| f.at_ms <= now) {
            Some(fault) => {
                let labels: Vec<String> = enabled.iter().map(|a| model.label(state, a)).collect();
                let Some(i) = labels.iter().position(|l| *l == fault.label) else {
                    return Err(ScriptError {
                        fault: fault.clone(),
                        at_ms: now,
                        enabled: labels,
                    });
                };
                Some(i)
            }
            None => enabled.iter().position(|a| !model.is_fault(a)),
        };
        self.steps_left -= choice.is_some() as usize;
        Ok(choice)
    }
}
