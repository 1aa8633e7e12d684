//! Scripted runs: one deterministic run with faults at chosen times, read like an incident.
//!
//! A scenario test often wants one particular story, not a search: "the network splits at
//! 20 ms, the master is promoted away, the client writes again". `run_script` takes the
//! model's ordinary steps in its own order (the first enabled action that is not a fault) and
//! injects each scripted fault, by label, at the first step whose virtual time has reached
//! the fault's time. The run ends when nothing is enabled but faults, when virtual time passes
//! `until_ms` (a world with periodic timers never goes quiet), or after `max_steps`.

use crate::model::Model;
use crate::path_log::rebuild_path;
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
    let mut state = model.init_states().swap_remove(0);
    let mut pending = faults.iter().peekable();
    let mut choices = Vec::new();
    let mut enabled = Vec::new();
    while choices.len() < max_steps {
        enabled.clear();
        model.actions(&state, &mut enabled);
        let now = model.virtual_time_ms(&state);
        if now > until_ms {
            break;
        }
        let due = pending.peek().filter(|f| f.at_ms <= now);
        let choice = match due {
            Some(fault) => {
                let labels: Vec<String> = enabled.iter().map(|a| model.label(&state, a)).collect();
                let Some(i) = labels.iter().position(|l| *l == fault.label) else {
                    return Err(ScriptError {
                        fault: (*fault).clone(),
                        at_ms: now,
                        enabled: labels,
                    });
                };
                pending.next();
                i
            }
            None => match enabled.iter().position(|a| !model.is_fault(a)) {
                Some(i) => i,
                None => break,
            },
        };
        state = model
            .next_state(&state, &enabled[choice])
            .expect("a scripted step is not a no-op");
        choices.push(choice);
    }
    if let Some(fault) = pending.next() {
        return Err(ScriptError {
            fault: fault.clone(),
            at_ms: model.virtual_time_ms(&state),
            enabled: Vec::new(),
        });
    }
    Ok(rebuild_path(model, 0, &choices, None))
}
