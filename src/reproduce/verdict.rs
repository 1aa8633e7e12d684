//! The verdict of one real run, from what each step did and what the oracle said of the
//! observed history: REPRODUCED, NOT REPRODUCED, DIVERGED at step k, or INCONCLUSIVE when the
//! run could not hold the timing a step needed (see `slack.rs`) or could not finish. How far
//! off its time a run was counts both the replayer's lateness and how far a real time to
//! live read off the model's (the server's own delay in setting a deadline).

use super::matcher::Match;
use super::slack::held;
use lockcheck_model::redis::Reply;
use serde::{Deserialize, Serialize};

/// What one planned step did.
#[derive(Clone, Debug, Serialize)]
pub struct StepRecord {
    /// The trace step (1-based).
    pub step: usize,
    pub label: String,
    /// The model's time of the step.
    pub model_ms: u64,
    /// Virtual time at which the replayer acted, if it did.
    pub real_ms: Option<f64>,
    /// How late it acted (virtual ms).
    pub late_ms: f64,
    pub slack_ms: Option<u64>,
    /// The model's reply, for a reply step.
    pub expected: Option<String>,
    /// The real reply (or why there was none).
    pub actual: Option<String>,
    #[serde(skip)]
    pub matched: Option<Match>,
}

/// What the oracle said of the observed history.
#[derive(Clone, Debug, PartialEq)]
pub enum Observed {
    /// What the trace records happened: its property is violated or, for a witness of a
    /// `sometimes` property, witnessed.
    Happened,
    Holds,
    /// Given the real replies, the model's clients do something else at this step.
    OtherPath {
        step: usize,
    },
}

/// The verdict of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Reproduced,
    NotReproduced,
    Diverged {
        step: usize,
        label: String,
        expected: String,
        actual: String,
    },
    Inconclusive {
        why: String,
    },
}

impl Verdict {
    /// In capitals, as the step table ends.
    pub fn headline(&self) -> String {
        match self {
            Verdict::Reproduced => "REPRODUCED".into(),
            Verdict::NotReproduced => "NOT REPRODUCED".into(),
            Verdict::Diverged { step, .. } => format!("DIVERGED at step {step}"),
            Verdict::Inconclusive { .. } => "INCONCLUSIVE".into(),
        }
    }
}

/// The verdict of a run whose steps did `records`; `stopped` says why it ended early, if it
/// did.
pub fn decide(records: &[StepRecord], stopped: Option<&str>, observed: &Observed) -> Verdict {
    if let Some(why) = stopped {
        return Verdict::Inconclusive {
            why: why.to_string(),
        };
    }
    let mut worst_late_ms = 0.0f64;
    let mut missed: Option<&StepRecord> = None;
    for r in records {
        if r.real_ms.is_some() {
            worst_late_ms = worst_late_ms.max(r.late_ms);
        }
        // A time to live read off the model's shows a deadline the server set that far off
        // (a server slow to run a command, at x10 a tenth of a ms is a ms): as good as late.
        if let Some(Match::Within { diff_ms }) = r.matched {
            worst_late_ms = worst_late_ms.max(diff_ms.unsigned_abs() as f64);
        }
        if r.real_ms.is_some() && !held(r.slack_ms, worst_late_ms) && missed.is_none() {
            missed = Some(r);
        }
        if let Some(Match::TtlOff { diff_ms }) = r.matched {
            return Verdict::Inconclusive {
                why: format!(
                    "timing not held: at step {} (`{}`) a time to live read {diff_ms:+} ms off the model's (a server ran a command late)",
                    r.step, r.label
                ),
            };
        }
        if r.matched == Some(Match::Differs) {
            return match missed {
                Some(m) => inconclusive_timing(m, worst_late_ms),
                None => Verdict::Diverged {
                    step: r.step,
                    label: r.label.clone(),
                    expected: r.expected.clone().unwrap_or_default(),
                    actual: r.actual.clone().unwrap_or_default(),
                },
            };
        }
    }
    if let Some(why) = stopped {
        return Verdict::Inconclusive {
            why: why.to_string(),
        };
    }
    match (observed, missed) {
        (Observed::Happened, _) => Verdict::Reproduced,
        (_, Some(m)) => inconclusive_timing(m, worst_late_ms),
        (Observed::Holds, None) => Verdict::NotReproduced,
        (Observed::OtherPath { step }, None) => Verdict::Inconclusive {
            why: format!(
                "every reply agreed within its tolerance, but on the real replies the model's clients take another path at step {step}"
            ),
        },
    }
}

fn inconclusive_timing(m: &StepRecord, worst_late_ms: f64) -> Verdict {
    Verdict::Inconclusive {
        why: format!(
            "timing not held: by step {} (`{}`) the run was {worst_late_ms:.1} ms late, its slack is {} ms",
            m.step,
            m.label,
            m.slack_ms.unwrap_or(0)
        ),
    }
}

/// A reply as the step table prints it.
pub fn reply_text(reply: &Reply) -> String {
    lockcheck_model::describe::reply(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(step: usize, late_ms: f64, slack_ms: Option<u64>, matched: Option<Match>) -> StepRecord {
        StepRecord {
            step,
            label: format!("step {step}"),
            model_ms: 0,
            real_ms: Some(0.0),
            late_ms,
            slack_ms,
            expected: Some("(integer) 1".into()),
            actual: Some("(integer) 0".into()),
            matched,
        }
    }

    #[test]
    fn agreeing_replies_and_a_violated_oracle_reproduce() {
        let r = [
            rec(1, 0.3, Some(50), None),
            rec(2, 0.1, None, Some(Match::Exact)),
        ];
        assert_eq!(decide(&r, None, &Observed::Happened), Verdict::Reproduced);
        assert_eq!(decide(&r, None, &Observed::Holds), Verdict::NotReproduced);
    }

    #[test]
    fn the_first_differing_reply_diverges_when_timing_held() {
        let r = [
            rec(1, 0.3, Some(50), None),
            rec(2, 0.1, None, Some(Match::Differs)),
            rec(3, 0.1, None, Some(Match::Differs)),
        ];
        match decide(&r, None, &Observed::Holds) {
            Verdict::Diverged {
                step,
                expected,
                actual,
                ..
            } => {
                assert_eq!(
                    (step, expected.as_str(), actual.as_str()),
                    (2, "(integer) 1", "(integer) 0")
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_late_run_is_inconclusive_rather_than_diverged_or_not_reproduced() {
        let late = [
            rec(1, 80.0, Some(50), None),
            rec(2, 0.1, None, Some(Match::Differs)),
        ];
        assert!(matches!(
            decide(&late, None, &Observed::Holds),
            Verdict::Inconclusive { .. }
        ));
        let quiet = [
            rec(1, 80.0, Some(50), None),
            rec(2, 0.1, None, Some(Match::Exact)),
        ];
        let v = decide(&quiet, None, &Observed::Holds);
        let Verdict::Inconclusive { why } = v else {
            panic!("{v:?}")
        };
        assert!(
            why.contains("80.0 ms late") && why.contains("slack is 50 ms"),
            "{why}"
        );
        assert_eq!(
            decide(&quiet, None, &Observed::Happened),
            Verdict::Reproduced
        );
    }

    #[test]
    fn a_time_to_live_read_off_the_model_s_counts_as_lateness() {
        let r = [
            rec(1, 0.1, None, Some(Match::Within { diff_ms: 2 })),
            rec(2, 0.1, Some(2), None),
            rec(3, 0.1, None, Some(Match::Differs)),
        ];
        assert!(matches!(
            decide(&r, None, &Observed::Holds),
            Verdict::Inconclusive { .. }
        ));
        let r = [
            rec(1, 0.1, None, Some(Match::Within { diff_ms: 1 })),
            rec(2, 0.1, Some(2), None),
            rec(3, 0.1, None, Some(Match::Differs)),
        ];
        assert!(matches!(
            decide(&r, None, &Observed::Holds),
            Verdict::Diverged { step: 3, .. }
        ));
    }

    #[test]
    fn a_time_to_live_a_little_off_is_a_timing_fault_not_a_divergence() {
        let r = [rec(1, 0.1, None, Some(Match::TtlOff { diff_ms: 31 }))];
        let v = decide(&r, None, &Observed::Holds);
        let Verdict::Inconclusive { why } = v else {
            panic!("{v:?}")
        };
        assert!(why.contains("+31 ms off"), "{why}");
    }

    #[test]
    fn a_run_that_stopped_early_is_inconclusive() {
        let r = [rec(1, 0.0, None, Some(Match::Exact))];
        let v = decide(&r, Some("interrupted by SIGINT"), &Observed::Happened);
        assert_eq!(
            v,
            Verdict::Inconclusive {
                why: "interrupted by SIGINT".into()
            }
        );
    }
}
