//! The faults a run used, in plain words: which fault fired when, for how long, and from
//! which rule of the envelope. Faults of one kind on one process, one after another, fold
//! into one phrase ("two pauses of instance-a, 1.499 s each, back to back"), so that a rule
//! the shared budget (`max_pauses`) let fire twice shows as twice. `boundary` and `sweep`
//! print them beside the value they found: a number is never read without the run behind it.

use crate::oracles::RedisWorld;
use crate::report::seconds;
use crate::scenario::Scenario;
use lockcheck_sim::world::WorldAction;
use lockcheck_sim::Path;
use serde::Serialize;

/// One fault that fired in a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FiredFault {
    /// Virtual time it fired at.
    pub at_ms: u64,
    /// `pause`, `crash`, `partition`, `clock step`, `message loss`, or `fault` for a
    /// process's own kind of fault (its `label` says which).
    pub kind: String,
    /// The process it struck, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    /// How long it lasted (a pause, a partition that heals), if it ends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The envelope's rule it came from, as a field path (`faults.pauses[1]`), when one
    /// rule of its kind names that process and value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The step as the timeline prints it.
    pub label: String,
}

/// The faults that fired along `path`, in order.
pub fn fired(scenario: &Scenario, world: &RedisWorld, path: &Path<RedisWorld>) -> Vec<FiredFault> {
    let mut out = Vec::new();
    for (i, step) in path.steps.iter().enumerate() {
        if !step.action.is_fault() {
            continue;
        }
        let name = |p: usize| world.process_name(p).to_string();
        let (kind, process, duration_ms) = match &step.action {
            WorldAction::Pause {
                process,
                duration_ms,
            } => ("pause", Some(name(*process)), Some(*duration_ms)),
            WorldAction::Crash { process, .. } => ("crash", Some(name(*process)), None),
            WorldAction::Partition { duration_ms, .. } => ("partition", None, *duration_ms),
            WorldAction::ClockStep { process, .. } => ("clock step", Some(name(*process)), None),
            WorldAction::Lose => ("message loss", None, None),
            WorldAction::ActorFault { process, .. } => ("fault", Some(name(*process)), None),
            _ => continue,
        };
        let rule = match (kind, &process, duration_ms) {
            ("pause", Some(p), Some(ms)) => pause_rule(scenario, p, ms),
            _ => None,
        };
        out.push(FiredFault {
            at_ms: path.states[i].now_ms,
            kind: kind.to_string(),
            process,
            duration_ms,
            rule,
            label: step.label.trim_start_matches("FAULT ").to_string(),
        });
    }
    out
}

/// The first pause rule of `process` that offers `ms`.
fn pause_rule(scenario: &Scenario, process: &str, ms: u64) -> Option<String> {
    (scenario.faults.pauses.iter())
        .position(|r| r.process == process && r.durations_ms.contains(&ms))
        .map(|i| format!("faults.pauses[{i}]"))
}

/// The faults in plain words, one phrase per run of alike faults, `; ` between them; `no
/// faults` when none fired.
pub fn in_words(faults: &[FiredFault]) -> String {
    if faults.is_empty() {
        return "no faults".to_string();
    }
    let mut phrases = Vec::new();
    let mut i = 0;
    while i < faults.len() {
        let first = &faults[i];
        let alike = faults[i..]
            .iter()
            .take_while(|f| {
                (f.kind.as_str(), &f.process, f.duration_ms, &f.rule)
                    == (
                        first.kind.as_str(),
                        &first.process,
                        first.duration_ms,
                        &first.rule,
                    )
            })
            .count();
        phrases.push(phrase(&faults[i..i + alike]));
        i += alike;
    }
    phrases.join("; ")
}

/// One run of alike faults: `a pause of instance-a for 1.499 s at 10.004 s`, `two pauses
/// of instance-a, 1.499 s each, back to back from 10.004 s`; another kind of fault as its
/// step says.
fn phrase(run: &[FiredFault]) -> String {
    let first = &run[0];
    let rule = first
        .rule
        .as_ref()
        .map_or(String::new(), |r| format!(" ({r})"));
    let at = |f: &FiredFault| seconds(f.at_ms);
    if first.kind != "pause" {
        let each: Vec<String> = run
            .iter()
            .map(|f| format!("{} at {}", f.label, at(f)))
            .collect();
        return each.join(", ") + &rule;
    }
    let of = first
        .process
        .as_ref()
        .map_or(String::new(), |p| format!(" of {p}"));
    let dur = first.duration_ms.map_or("for good".to_string(), seconds);
    if run.len() == 1 {
        return format!("a pause{of} for {dur} at {}{rule}", at(first));
    }
    let back_to_back = run.windows(2).all(|w| {
        w[0].duration_ms
            .is_some_and(|d| w[0].at_ms + d == w[1].at_ms)
    });
    let when = if back_to_back {
        format!("back to back from {}", at(first))
    } else {
        let times: Vec<String> = run.iter().map(at).collect();
        format!("at {}", times.join(", "))
    };
    format!(
        "{} pauses{of}, {dur} each, {when}{rule}",
        count_word(run.len())
    )
}

fn count_word(n: usize) -> String {
    match n {
        2 => "two".into(),
        3 => "three".into(),
        4 => "four".into(),
        5 => "five".into(),
        n => n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pause(at_ms: u64, process: &str, ms: u64, rule: Option<&str>) -> FiredFault {
        FiredFault {
            at_ms,
            kind: "pause".into(),
            process: Some(process.into()),
            duration_ms: Some(ms),
            rule: rule.map(str::to_string),
            label: format!("pause {process} for {ms} ms"),
        }
    }

    #[test]
    fn alike_pauses_fold_and_say_whether_they_touch() {
        let rule = Some("faults.pauses[1]");
        let twice = [
            pause(10_004, "instance-a", 1_499, rule),
            pause(11_503, "instance-a", 1_499, rule),
        ];
        assert_eq!(
            in_words(&twice),
            "two pauses of instance-a, 1.499 s each, back to back from 10.004 s (faults.pauses[1])"
        );
        let apart = [
            pause(1_000, "instance-a", 100, None),
            pause(5_000, "instance-a", 100, None),
        ];
        assert_eq!(
            in_words(&apart),
            "two pauses of instance-a, 0.100 s each, at 1.000 s, 5.000 s"
        );
        let two_rules = [
            pause(0, "redis", 200, Some("faults.pauses[0]")),
            pause(300, "instance-a", 200, rule),
        ];
        assert_eq!(
            in_words(&two_rules),
            "a pause of redis for 0.200 s at 0.000 s (faults.pauses[0]); a pause of instance-a for 0.200 s at 0.300 s (faults.pauses[1])"
        );
        assert_eq!(in_words(&[]), "no faults");
    }
}
