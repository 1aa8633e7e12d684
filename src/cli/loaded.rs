//! A saved trace as `replay`, `shrink` and `explain` all accept it, loaded once for the three.

use lockcheck::oracles::RedisWorld;
use lockcheck::saved::{load_trace, SavedTrace};
use lockcheck::scenario::file::load_scenario;
use lockcheck::InputError;
use lockcheck_sim::{replay, replay_checked, Path, Report, TraceError};

/// A saved trace that `replay`, `shrink` and `explain` all accept: its scenario builds, it
/// belongs to that configuration, every step replays at its recorded time, and the recorded
/// oracle is violated (see [`lockcheck_sim::replay_checked`]).
pub(super) struct Loaded {
    pub saved: SavedTrace,
    pub world: RedisWorld,
    pub path: Path<RedisWorld>,
    pub report: Report<RedisWorld>,
}

pub(super) fn load_run(file: &str, scenario: Option<&str>) -> Result<Loaded, InputError> {
    load(file, scenario, true)
}

/// Like [`load_run`], but the run need not violate anything (`diff` compares a violating
/// run with a safe one); every step must still replay.
pub(super) fn load_any_run(file: &str) -> Result<Loaded, InputError> {
    load(file, None, false)
}

fn load(file: &str, scenario: Option<&str>, violating: bool) -> Result<Loaded, InputError> {
    let mut saved = load_trace(file)?;
    if let Some(s) = scenario {
        saved.scenario = load_scenario(s)?;
    }
    let world = saved.scenario.build().map_err(|e| InputError {
        file: Some(file.to_string()),
        field: Some(format!("scenario.{}", e.field)),
        ..InputError::new(e.message.clone())
    })?;
    let with_file = |e: InputError| InputError {
        file: Some(file.to_string()),
        ..e
    };
    let replayed = if violating {
        replay_checked(&world, &saved.trace)
    } else {
        replay(&world, &saved.trace)
    };
    let replayed = replayed.map_err(|e| {
        with_file(InputError::new(match e {
            TraceError::OtherModel { .. } => format!(
                "{e} (the trace belongs to another scenario or another configuration of it)"
            ),
            TraceError::Mismatch(_) => format!("the trace does not replay: {e}"),
            _ => e.to_string(),
        }))
    })?;
    Ok(Loaded {
        saved,
        world,
        path: replayed.path,
        report: replayed.report,
    })
}
