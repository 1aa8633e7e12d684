//! A run with the real libraries for people (each client's commands beside the model's,
//! each call's result beside the model's, the verdict) and for programs (one JSON object).

use super::judge::LibraryReproduction;
use crate::reproduce::report::{clip, columns};
use crate::reproduce::verdict::Verdict;
use serde_json::{json, Value};

/// The comparison tables and verdicts.
pub fn text(r: &LibraryReproduction) -> String {
    let libs: Vec<String> = r.clients.iter().map(|(c, l)| format!("{c}: {l}")).collect();
    let mut out = format!(
        "real Redis {} at x{}, real client libraries ({}), oracle {}\n",
        r.redis_version,
        r.speed,
        libs.join(", "),
        r.property
    );
    for (i, run) in r.runs.iter().enumerate() {
        if r.runs.len() > 1 {
            out.push_str(&format!("\nrun {} of {}\n", i + 1, r.runs.len()));
        }
        out.push_str(&commands_text(run));
        let mut rows = vec![[
            "step",
            "client",
            "call",
            "model ms",
            "library ms",
            "model",
            "library",
        ]
        .map(String::from)
        .to_vec()];
        for c in &run.calls {
            rows.push(vec![
                c.step.to_string(),
                c.client.clone(),
                c.op.clone(),
                c.model_ms.to_string(),
                c.library_ms.map_or("-".into(), |t| format!("{t:.1}")),
                c.model.clone(),
                clip(&c.library, 40),
            ]);
        }
        out.push_str(&columns(&rows));
        out.push_str(&match &run.verdict {
            Verdict::Diverged {
                label,
                expected,
                actual,
                ..
            } => format!(
                "verdict: {} (`{label}`): the model's client {expected}, the library {actual}\n",
                run.verdict.headline()
            ),
            Verdict::Inconclusive { why } => format!("verdict: INCONCLUSIVE: {why}\n"),
            v => format!("verdict: {}\n", v.headline()),
        });
    }
    if r.runs.len() > 1 {
        out.push_str(&format!(
            "\nverdict: {} ({}/{} runs reproduced)\n",
            r.verdict().headline(),
            r.reproduced(),
            r.runs.len()
        ));
    }
    out
}

/// Each client's commands to each server beside the model's.
fn commands_text(run: &super::LibraryRun) -> String {
    let mut out = String::new();
    out.push_str("commands (token abstracted; a retry loop folded as xN):\n");
    for c in &run.commands {
        out.push_str(&format!(
            "  {} -> {}: {}\n",
            c.client,
            c.node,
            match &c.difference {
                None if c.model == c.library => format!("same: {}", c.model),
                None => format!(
                    "same commands, a retry loop ran a different number of times\n    model:   {}\n    library: {}",
                    c.model, c.library
                ),
                Some(d) => format!("DIFFERENT: {d}\n    model:   {}\n    library: {}", c.model, c.library),
            }
        ));
    }
    out
}

/// One JSON object: the verdict, whether the commands were the model's, and every run.
pub fn json(r: &LibraryReproduction) -> Value {
    json!({
        "redis_version": r.redis_version,
        "speed": r.speed,
        "property": r.property,
        "clients": r.clients.iter().map(|(c, l)| json!({"client": c, "library": l})).collect::<Vec<_>>(),
        "verdict": r.verdict(),
        "reproduced": r.reproduced(),
        "same_commands": r.same_commands(),
        "runs": r.runs,
    })
}
