//! Traces: a failing run as versioned JSON, and its replay.
//!
//! A trace records what is needed to run the same steps again and to know whether that is
//! still meaningful: the format version, the tool version, the model's name and
//! configuration hash, the seed of the random run (if any), the property that failed, the
//! initial state and the *labelled* choices. Replay is one run of the explorer whose chooser
//! follows the labels one by one (refusing, naming the step, when the model offers no action
//! with the recorded label) and keeps the path it takes: the trace is executed once.

use crate::chooser::{Recording, ReplayChooser, ReplayMismatch};
use crate::explorer::try_explore;
use crate::frontier::Walk;
use crate::model::{Model, PropertyKind};
use crate::options::{Options, Stop};
use crate::report::{Path, Report, Status};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The trace format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// The version of the kernel that wrote a trace.
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One labelled choice, with the virtual time after it (for people; replay checks labels).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceStep {
    pub label: String,
    pub at_ms: u64,
}

/// A replayable record of a run. A field it does not have is refused: a trace is evidence,
/// and one with more in it than a run writes was not written by a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    pub format_version: u32,
    pub tool_version: String,
    pub model: String,
    /// `Model::model_hash` as 16 hex digits.
    pub model_hash: String,
    pub seed: Option<u64>,
    /// The property this run violates (or witnesses), if any.
    pub property: Option<String>,
    /// Index of the initial state.
    pub init: usize,
    pub steps: Vec<TraceStep>,
}

/// Why a trace cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceError {
    /// Not valid trace JSON.
    Malformed(String),
    /// Written in another trace format.
    Version { found: u32, supported: u32 },
    /// Recorded against another model or configuration.
    OtherModel {
        trace_model: String,
        trace_hash: String,
        model: String,
        hash: String,
    },
    /// The model does not offer a recorded choice.
    Mismatch(ReplayMismatch),
    /// The choices replay, but the trace says something else happened: a recorded time or
    /// the recorded property does not match the run (see [`replay_checked`]).
    Damaged(String),
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Malformed(e) => write!(f, "not a lockcheck trace: {e}"),
            TraceError::Version { found, supported } => write!(
                f,
                "trace format version {found} is not supported by this lockcheck (it reads version {supported})"
            ),
            TraceError::OtherModel {
                trace_model,
                trace_hash,
                model,
                hash,
            } => write!(
                f,
                "the trace was recorded for model `{trace_model}` (configuration {trace_hash}), \
                 not for `{model}` (configuration {hash}); replaying it here would mean something else"
            ),
            TraceError::Mismatch(m) => m.fmt(f),
            TraceError::Damaged(reason) => write!(f, "the trace is damaged: {reason}"),
        }
    }
}

impl std::error::Error for TraceError {}

impl From<ReplayMismatch> for TraceError {
    fn from(m: ReplayMismatch) -> Self {
        TraceError::Mismatch(m)
    }
}

fn hash_hex(hash: u64) -> String {
    format!("{hash:016x}")
}

impl Trace {
    /// A trace of `steps` through `model` from initial state `init`, recorded by any driver.
    pub fn new<M: Model>(
        model: &M,
        seed: Option<u64>,
        property: Option<&str>,
        init: usize,
        steps: Vec<TraceStep>,
    ) -> Self {
        Trace {
            format_version: FORMAT_VERSION,
            tool_version: TOOL_VERSION.to_string(),
            model: model.name(),
            model_hash: hash_hex(model.model_hash()),
            seed,
            property: property.map(str::to_string),
            init,
            steps,
        }
    }

    /// The trace of `path` through `model`.
    pub fn from_path<M: Model>(model: &M, path: &Path<M>, property: Option<&str>) -> Self {
        let steps = path
            .steps
            .iter()
            .zip(&path.states[1..])
            .map(|(step, state)| TraceStep {
                label: step.label.clone(),
                at_ms: model.virtual_time_ms(state),
            })
            .collect();
        Trace::new(model, path.seed, property, path.init, steps)
    }

    pub fn labels(&self) -> Vec<String> {
        self.steps.iter().map(|s| s.label.clone()).collect()
    }

    /// Pretty JSON, identical for identical traces.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a trace always serialises") + "\n"
    }

    /// Parses JSON and checks the format version.
    pub fn from_json(text: &str) -> Result<Trace, TraceError> {
        #[derive(Deserialize)]
        struct VersionOnly {
            format_version: u32,
        }
        let version: VersionOnly =
            serde_json::from_str(text).map_err(|e| TraceError::Malformed(e.to_string()))?;
        if version.format_version != FORMAT_VERSION {
            return Err(TraceError::Version {
                found: version.format_version,
                supported: FORMAT_VERSION,
            });
        }
        serde_json::from_str(text).map_err(|e| TraceError::Malformed(e.to_string()))
    }

    /// Refuses a trace recorded against another model or configuration.
    pub fn check_model<M: Model>(&self, model: &M) -> Result<(), TraceError> {
        let hash = hash_hex(model.model_hash());
        if self.model_hash != hash || self.model != model.name() {
            return Err(TraceError::OtherModel {
                trace_model: self.model.clone(),
                trace_hash: self.model_hash.clone(),
                model: model.name(),
                hash,
            });
        }
        Ok(())
    }
}

/// The result of a replay: the run itself and the property verdicts along it.
pub struct Replay<M: Model> {
    pub path: Path<M>,
    pub report: Report<M>,
}

/// Replays `trace` on `model`: checks version and model, follows every label, and
/// evaluates the properties along the run exactly as the search did.
pub fn replay<M: Model>(model: &M, trace: &Trace) -> Result<Replay<M>, TraceError> {
    if trace.format_version != FORMAT_VERSION {
        return Err(TraceError::Version {
            found: trace.format_version,
            supported: FORMAT_VERSION,
        });
    }
    trace.check_model(model)?;
    let options = Options {
        stop: Stop::Never,
        ..Options::default()
    };
    let (path, report) = follow(model, trace.seed, trace.init, trace.labels(), options)?;
    Ok(Replay { path, report })
}

/// [`replay`], then the checks that make a trace trustworthy: every step's recorded `at_ms`
/// is the virtual time the model reaches there, and the recorded property is one of the
/// model's and is violated by the replayed run. A truncated, emptied or edited
/// trace is refused with the reason instead of being replayed as something else. [`replay`]
/// alone compares verdicts without judging them (another simulator's runs are replayed so).
pub fn replay_checked<M: Model>(model: &M, trace: &Trace) -> Result<Replay<M>, TraceError> {
    let replayed = replay(model, trace)?;
    check_times(model, trace, &replayed.path)?;
    check_property(trace, &replayed.report)?;
    Ok(replayed)
}

/// Every recorded `at_ms` against the virtual time of the state the step reaches.
fn check_times<M: Model>(model: &M, trace: &Trace, path: &Path<M>) -> Result<(), TraceError> {
    for (i, (step, state)) in trace.steps.iter().zip(&path.states[1..]).enumerate() {
        let reached_ms = model.virtual_time_ms(state);
        if step.at_ms != reached_ms {
            return Err(TraceError::Damaged(format!(
                "step {} (`{}`) is recorded at {} ms, but the run reaches it at {reached_ms} ms",
                i + 1,
                step.label,
                step.at_ms
            )));
        }
    }
    Ok(())
}

/// The recorded property exists and the replayed run violates it (or, for a `sometimes`
/// property, witnesses it).
fn check_property<M: Model>(trace: &Trace, report: &Report<M>) -> Result<(), TraceError> {
    let Some(name) = trace.property.as_deref() else {
        return Err(TraceError::Damaged(
            "it records no property (`property` is null), so there is nothing to reproduce".into(),
        ));
    };
    let Some(verdict) = report.property(name) else {
        let known: Vec<&str> = report.properties.iter().map(|p| p.name.as_str()).collect();
        return Err(TraceError::Damaged(format!(
            "it records property `{name}`, which the model does not have (it has {})",
            known.join(", ")
        )));
    };
    // A trace of a `sometimes` property is a witness: its run must reach the event.
    if verdict.kind == PropertyKind::Sometimes {
        if !matches!(verdict.status, Status::Witnessed(_)) {
            return Err(TraceError::Damaged(format!(
                "it records a witness of {name}, but its {} steps do not reach it (steps are missing or the property was changed)",
                trace.steps.len()
            )));
        }
    } else if !verdict.status.is_violated() {
        return Err(TraceError::Damaged(format!(
            "it records a violation of {name}, but its {} steps do not violate it (steps are missing or the property was changed)",
            trace.steps.len()
        )));
    }
    Ok(())
}

/// The path that follows `labels` from initial state `init` (no property is evaluated).
pub fn follow_labels<M: Model>(
    model: &M,
    seed: Option<u64>,
    init: usize,
    labels: Vec<String>,
) -> Result<Path<M>, ReplayMismatch> {
    let options = Options {
        stop: Stop::Never,
        judged: crate::options::Judged::Nothing,
        ..Options::default()
    };
    Ok(follow(model, seed, init, labels, options)?.0)
}

/// One run of the explorer along `labels`, with the path it took and its report.
fn follow<M: Model>(
    model: &M,
    seed: Option<u64>,
    init: usize,
    labels: Vec<String>,
    options: Options,
) -> Result<(Path<M>, Report<M>), ReplayMismatch> {
    let chooser = Recording::new(ReplayChooser::new(init, labels), seed);
    let mut walk = Walk::single(seed, chooser);
    let report = try_explore(model, &mut walk, options)?;
    let recording = walk.into_chooser().expect("the walk had its one run");
    Ok((recording.into_path(), report))
}
