//! `reproduce`: a saved counterexample against real redis-server (the work is in
//! [`crate::reproduce`]; this file reads the arguments and prints).

use super::error::ErrorKind;
use super::loaded::{load_run, Loaded};
use super::{CliError, Output, ReproduceArgs, EXIT_LIMIT, EXIT_OK, EXIT_VIOLATION};
use lockcheck::reproduce::verdict::Verdict;
use lockcheck::reproduce::{
    interrupted, library, report, reproduce, ReproduceError, RunOptions, ServerOptions,
};
use lockcheck::InputError;
use lockcheck_sim::Status;

pub(super) fn cmd_reproduce(a: &ReproduceArgs) -> Result<Output, CliError> {
    let Loaded {
        saved,
        world,
        path,
        report: model,
    } = load_run(&a.trace, None)?;
    let property = saved.trace.property.clone().unwrap_or_default();
    // A violation, or the witness a `check --save-witnesses` trace records.
    let recorded = model.property(&property);
    let witness = recorded.is_some_and(|p| matches!(p.status, Status::Witnessed(_)));
    let happened = witness || recorded.is_some_and(|p| p.status.is_violated());
    let options = RunOptions {
        speed: a.speed,
        server: ServerOptions {
            program: a.redis_server.clone(),
            first_port: a.port,
        },
        stall_before: None,
    };
    let failed = |e: ReproduceError| failed(a, e);
    let heading = format!(
        "reproduce {} (scenario {}, {} steps, {} {property})",
        a.trace,
        saved.scenario.name,
        path.steps.len(),
        if witness {
            "a witness of"
        } else {
            "a violation of"
        }
    );
    if a.library {
        let r = library::reproduce(
            &saved.scenario,
            &world,
            &path,
            &property,
            happened,
            a.repeat,
            &options,
        )
        .map_err(failed)?;
        let mut json = library::report::json(&r);
        json["command"] = "reproduce".into();
        json["trace"] = a.trace.clone().into();
        json["scenario"] = saved.scenario.name.clone().into();
        let text = format!("{heading}\n{}", library::report::text(&r));
        return Ok(Output {
            text,
            json,
            code: exit_code(r.verdict()),
        });
    }
    let r = reproduce(&world, &path, &property, happened, a.repeat, &options).map_err(failed)?;
    let code = exit_code(r.verdict());
    let mut json = report::witness(&r, &a.trace, &saved.scenario.name);
    if let Some(file) = &a.witness {
        let text = serde_json::to_string_pretty(&json).expect("JSON values serialise");
        lockcheck::atomic_write::write_whole(file, text).map_err(|e| CliError::write(file, &e))?;
    }
    json["command"] = "reproduce".into();
    json["witness"] = witness.into();
    Ok(Output {
        text: format!("{heading}\n{}", report::text(&r)),
        json,
        code,
    })
}

/// `replay`'s codes: 1 when the violation happened on real Redis, 3 when the timing could
/// not be held, 0 otherwise.
fn exit_code(v: &Verdict) -> u8 {
    match v {
        _ if interrupted() => lockcheck::interrupt::exit_code(),
        Verdict::Reproduced => EXIT_VIOLATION,
        Verdict::Inconclusive { .. } => EXIT_LIMIT,
        Verdict::NotReproduced | Verdict::Diverged { .. } => EXIT_OK,
    }
}

/// A reproduction that could not run: bad input (exit 2) or the machine (exit 3).
fn failed(a: &ReproduceArgs, e: ReproduceError) -> CliError {
    CliError {
        kind: if e.bad_input {
            ErrorKind::BadInput
        } else {
            ErrorKind::Environment
        },
        error: InputError {
            file: Some(a.trace.clone()),
            ..InputError::new(e.message)
        },
    }
}
