//! `explain WITNESS`: a reproduction's witness file drawn as two swimlane charts, the model's
//! run and the same run on real Redis (moved to the instants the replayer acted, each reply
//! that differed marked), with the step table under them.

use super::loaded::load_run;
use lockcheck::report::explained;
use lockcheck::report::real_run::real_chart;
use lockcheck::report::swimlane::Chart;
use lockcheck::reproduce::report::verdict_line;
use lockcheck::reproduce::witness_file::{WitnessFile, WitnessRun};
use lockcheck::InputError;
use serde_json::{json, Value};
use std::fmt::Write;
use std::path::PathBuf;

/// What `explain` makes of a witness file: the document to write where, and what to print.
pub(super) struct Drawn {
    pub out: PathBuf,
    pub doc: String,
    pub text: String,
    pub json: Value,
}

/// The page of witness file `file` (or, `svg`, the real run's chart), to be written to
/// `output` (default: beside the witness file).
pub(super) fn explain_witness(
    file: &str,
    output: Option<PathBuf>,
    svg: bool,
    w: &WitnessFile,
) -> Result<Drawn, InputError> {
    let trace = w.trace_path(file);
    let loaded = load_run(&trace, None)?;
    let violated = loaded.saved.trace.property.as_deref();
    let (model, _) = explained::chart(
        &loaded.world,
        loaded.path.clone(),
        &loaded.saved.scenario.name,
        &loaded.saved.scenario.description,
        violated,
    );
    let (i, run) = w.telling_run();
    let run_name = format!("run {} of {}", i + 1, w.runs.len());
    let real = real_chart(
        &model,
        &run.steps,
        format!(
            "{} on real Redis {} at x{}",
            w.scenario, w.redis_version, w.speed
        ),
        format!("{run_name}: {}", verdict_line(&run.verdict).trim_end()),
    );
    let out = output.unwrap_or_else(|| {
        PathBuf::from(format!(
            "{}.{}",
            file.trim_end_matches(".json"),
            if svg { "svg" } else { "html" }
        ))
    });
    let doc = if svg {
        real.svg()
    } else {
        page(w, &model, &real, run, &run_name)
    };
    let differing = differing_steps(run);
    let text = format!(
        "wrote {} (the model's run and real Redis {} at x{}, {run_name}: {}; {} of {} replies differ)\n",
        out.display(),
        w.redis_version,
        w.speed,
        run.verdict.headline(),
        differing.len(),
        run.steps.iter().filter(|s| s.agrees.is_some()).count(),
    );
    let j = json!({
        "command": "explain",
        "witness_file": file,
        "trace_file": trace,
        "output": out.display().to_string(),
        "format": if svg { "svg" } else { "html" },
        "redis_version": w.redis_version,
        "speed": w.speed,
        "run": i + 1,
        "runs": w.runs.len(),
        "verdict": run.verdict.headline(),
        "differing_steps": differing,
    });
    Ok(Drawn {
        out,
        doc,
        text,
        json: j,
    })
}

/// The steps whose real reply differed from the model's.
fn differing_steps(run: &WitnessRun) -> Vec<usize> {
    run.steps
        .iter()
        .filter(|s| s.agrees == Some(false))
        .map(|s| s.step)
        .collect()
}

/// Both charts and the step table on one self-contained page.
fn page(w: &WitnessFile, model: &Chart, real: &Chart, run: &WitnessRun, run_name: &str) -> String {
    let esc = lockcheck::report::escape;
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{} on real Redis</title>\n<style>body{{font-family:sans-serif;margin:20px;color:#222}}.legend span{{display:inline-block;margin-right:18px}}.sw{{display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:middle}}table{{border-collapse:collapse;font-size:12px}}td,th{{border:1px solid #ccc;padding:2px 6px;text-align:left}}tr.differs{{background:#fde0e0}}ul.causes li{{font-family:monospace;white-space:pre-wrap}}</style>\n</head>\n<body>\n",
        esc(&w.scenario)
    );
    let _ = writeln!(
        s,
        "<h1>{}: the model's run and the same run on real Redis {} at x{}</h1>\n<p>{} for oracle {}: {} of {} runs reproduced.</p>",
        esc(&w.scenario),
        esc(&w.redis_version),
        w.speed,
        esc(&w.verdict.headline()),
        esc(&w.oracle),
        w.reproduced_runs,
        w.runs.len(),
    );
    let _ = writeln!(s, "<h2>The model: {}</h2>", esc(&model.title));
    s.push_str(&model.svg());
    let _ = writeln!(
        s,
        "<h2>Real Redis, {run_name}: {}</h2>",
        esc(verdict_line(&run.verdict).trim_end())
    );
    s.push_str(&real.svg());
    s.push_str(&real.legend());
    s.push_str("<h2>Steps</h2>\n<table class=\"steps\">\n<tr><th>step</th><th>label</th><th>model ms</th><th>real ms</th><th>expected</th><th>actual</th><th>match</th></tr>\n");
    for st in &run.steps {
        let _ = writeln!(
            s,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if st.agrees == Some(false) { " class=\"differs\"" } else { "" },
            st.step,
            esc(&st.label),
            st.model_ms,
            st.real_ms.map(|v| format!("{v:.1}")).unwrap_or_else(|| "-".into()),
            esc(st.expected.as_deref().unwrap_or("")),
            esc(st.actual.as_deref().unwrap_or("")),
            match st.agrees {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "",
            }
        );
    }
    s.push_str("</table>\n</body>\n</html>\n");
    s
}
