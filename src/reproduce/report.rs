//! A reproduction for people (the step table of each run and its verdict), for programs (one
//! JSON object), and as a witness file: the same object with the trace it played and its
//! format, kept beside the trace as evidence of what real Redis did.

use super::verdict::Verdict;
use super::Reproduction;
use serde_json::{json, Value};

/// The step tables and verdicts.
pub fn text(r: &Reproduction) -> String {
    let mut out = format!(
        "real Redis {} at x{}, oracle {}\n",
        r.redis_version, r.speed, r.property
    );
    for (i, run) in r.runs.iter().enumerate() {
        if r.runs.len() > 1 {
            out.push_str(&format!("\nrun {} of {}\n", i + 1, r.runs.len()));
        }
        let mut rows = vec![HEADER.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
        for s in &run.records {
            rows.push(vec![
                s.step.to_string(),
                clip(&s.label, 60),
                s.model_ms.to_string(),
                s.real_ms
                    .map(|v| format!("{v:.1}"))
                    .unwrap_or_else(|| "-".into()),
                s.expected
                    .as_deref()
                    .map(|e| clip(e, 28))
                    .unwrap_or_default(),
                s.actual.as_deref().map(|e| clip(e, 28)).unwrap_or_default(),
                match s.matched {
                    Some(m) if m.agrees() => "yes".into(),
                    Some(_) => "NO".into(),
                    None => String::new(),
                },
            ]);
        }
        out.push_str(&columns(&rows));
        out.push_str(&format!(
            "worst lateness {:.1} ms (virtual)\n",
            run.worst_late_ms
        ));
        out.push_str(&verdict_line(&run.verdict));
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

const HEADER: [&str; 7] = [
    "step", "label", "model ms", "real ms", "expected", "actual", "match",
];

/// `rows` in columns, each as wide as its widest cell.
pub(crate) fn columns(rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..HEADER.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// The verdict of one run in a sentence, as the step table ends.
pub fn verdict_line(v: &Verdict) -> String {
    match v {
        Verdict::Diverged {
            label,
            expected,
            actual,
            ..
        } => format!(
            "verdict: {} (`{label}`): the model replies {expected}, real Redis {actual}\n",
            v.headline()
        ),
        Verdict::Inconclusive { why } => format!("verdict: INCONCLUSIVE: {why}\n"),
        _ => format!("verdict: {}\n", v.headline()),
    }
}

pub(crate) fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

/// The reproduction as JSON.
pub fn json(r: &Reproduction) -> Value {
    json!({
        "redis_version": r.redis_version,
        "speed": r.speed,
        "oracle": r.property,
        "verdict": r.verdict(),
        "reproduced_runs": r.reproduced(),
        "runs": r.runs.iter().map(|run| json!({
            "verdict": run.verdict,
            "worst_late_ms": run.worst_late_ms,
            "server_pids": run.pids,
            "steps": run.records.iter().map(|s| json!({
                "step": s.step,
                "label": s.label,
                "model_ms": s.model_ms,
                "real_ms": s.real_ms,
                "late_ms": s.late_ms,
                "slack_ms": s.slack_ms,
                "expected": s.expected,
                "actual": s.actual,
                "match": s.matched.map(|m| m.agrees()),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// The witness file's format version.
pub const WITNESS_FORMAT: u32 = 1;

/// The witness of a reproduction of `trace_file` (scenario `scenario`): every observation of
/// every run, the Redis version and the speed.
pub fn witness(r: &Reproduction, trace_file: &str, scenario: &str) -> Value {
    let mut w = json(r);
    w["format"] = "lockcheck-witness".into();
    w["format_version"] = WITNESS_FORMAT.into();
    w["trace_file"] = trace_file.into();
    w["scenario"] = scenario.into();
    w
}
