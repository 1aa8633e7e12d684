//! A run on real Redis drawn beside the model's: the model's chart with every time moved to
//! the instant the replayer acted (virtual ms, as the witness file records it), each reply
//! arrow labelled with what real Redis answered where it differs, and a red mark there.
//! Key bars and beliefs keep the model's story, moved to real time: real Redis is observed
//! only through its replies.

use super::causes::Mark;
use super::swimlane::Chart;
use crate::reproduce::witness_file::WitnessStep;

/// Model time to real time. Each step the replayer acted on pins its model time to the
/// real one; between pins time runs as in the model, never past the next pin, so the map
/// keeps the order of events.
#[derive(Clone, Debug, PartialEq)]
pub struct RealTimes {
    /// `(model_ms, real_ms)`, in step order, real times never decreasing.
    pins: Vec<(u64, u64)>,
}

impl RealTimes {
    pub fn new(steps: &[WitnessStep]) -> Self {
        let mut pins: Vec<(u64, u64)> = Vec::new();
        for s in steps {
            let Some(real) = s.real_ms else { continue };
            let real = real.max(0.0).round() as u64;
            let floor = pins.last().map_or(0, |p| p.1);
            pins.push((s.model_ms, real.max(floor)));
        }
        RealTimes { pins }
    }

    /// When model time `t_ms` happened in the real run.
    pub fn at(&self, t_ms: u64) -> u64 {
        let after = self.pins.partition_point(|p| p.0 <= t_ms);
        let next = self.pins.get(after).map(|p| p.1);
        let moved = match after.checked_sub(1).map(|i| self.pins[i]) {
            Some((model, real)) => real + (t_ms - model),
            None => t_ms,
        };
        next.map_or(moved, |n| moved.min(n))
    }
}

/// The model's `chart` moved to the real run's times, with `steps`' real replies.
pub fn real_chart(model: &Chart, steps: &[WitnessStep], title: String, subtitle: String) -> Chart {
    let times = RealTimes::new(steps);
    let at = |t: u64| times.at(t);
    let mut c = model.clone();
    c.title = title;
    c.subtitle = subtitle;
    c.end_ms = at(model.end_ms);
    for span in c
        .pauses
        .iter_mut()
        .chain(c.downs.iter_mut())
        .chain(c.keys.iter_mut())
        .chain(c.beliefs.iter_mut())
    {
        span.from_ms = at(span.from_ms);
        span.to_ms = at(span.to_ms);
    }
    for o in &mut c.overlaps {
        *o = (at(o.0), at(o.1));
    }
    if let Some(v) = &mut c.violation {
        v.0 = at(v.0);
    }
    for m in &mut c.causes.marks {
        m.at_ms = at(m.at_ms);
    }
    for cut in &mut c.causes.cuts {
        cut.from_ms = at(cut.from_ms);
        cut.to_ms = at(cut.to_ms);
    }
    for k in &mut c.causes.true_time_keys {
        k.from_ms = at(k.from_ms);
        k.to_ms = at(k.to_ms);
    }
    for l in &mut c.causes.cause_labels {
        l.0 = at(l.0);
    }
    for a in &mut c.arrows {
        a.sent_ms = at(a.sent_ms);
        a.delivered_ms = at(a.delivered_ms);
        let Some(s) = steps.iter().find(|s| s.step == a.step + 1) else {
            continue;
        };
        if s.agrees == Some(false) {
            let actual = s.actual.as_deref().unwrap_or("nothing");
            a.text = format!("{} | real Redis: {actual}", a.text);
            c.causes.marks.push(Mark {
                lane: a.to_lane,
                at_ms: a.delivered_ms,
                kind: "diverged",
                text: format!("step {}: real Redis answered {actual}", s.step),
            });
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(step: usize, model_ms: u64, real_ms: Option<f64>) -> WitnessStep {
        WitnessStep {
            step,
            label: format!("step {step}"),
            model_ms,
            real_ms,
            expected: None,
            actual: None,
            agrees: None,
        }
    }

    #[test]
    fn pinned_steps_move_to_their_real_times_and_time_between_runs_as_in_the_model() {
        let t = RealTimes::new(&[
            step(1, 0, Some(0.4)),
            step(2, 100, Some(103.0)),
            step(3, 100, Some(104.2)),
            step(4, 300, Some(301.0)),
        ]);
        assert_eq!(t.at(0), 0);
        assert_eq!(t.at(100), 104, "the last step at an instant pins it");
        assert_eq!(t.at(150), 154);
        assert_eq!(t.at(299), 301, "never past the next pin");
        assert_eq!(t.at(300), 301);
        assert_eq!(t.at(1_000), 1_001);
    }

    #[test]
    fn the_map_keeps_the_order_of_events() {
        let t = RealTimes::new(&[
            step(1, 10, Some(30.0)),
            step(2, 20, None),
            step(3, 40, Some(25.0)),
        ]);
        let mut last = 0;
        for ms in 0..60 {
            assert!(t.at(ms) >= last, "at({ms}) went back");
            last = t.at(ms);
        }
        assert_eq!(t.at(5), 5, "before the first pin, time is the model's");
        assert_eq!(
            t.at(40),
            30,
            "a pin earlier than its predecessor is held at it"
        );
    }
}
