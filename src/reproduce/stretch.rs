//! Stretching: the model reaches an instant as early as it can, so a command often runs 1 or
//! 2 ms after the key deadline it races (a retry the instant a lock expires). No real run
//! holds that, least of all at x10; but sending it later changes nothing in the model's
//! story as long as no other deadline comes within reach. So such a command, and every step
//! after it, is moved later until it is `target` past the deadline, if no deadline set
//! before it would then be reached by a later command; otherwise it stays fragile (and a run
//! that misses it is INCONCLUSIVE). Deadlines set after the move move with it.

use super::slack::Gap;
use std::collections::BTreeMap;

/// How far past a deadline a command should run: 20 ms, or 10 ms of real time at `speed`.
pub fn target_ms(speed: f64) -> i64 {
    ((10.0 * speed).round() as i64).max(20)
}

/// The stretched schedule.
#[derive(Debug, PartialEq)]
pub struct Stretched {
    /// How much later each planned step runs than the model's instant.
    pub by_step_ms: Vec<u64>,
    /// Each step's slack on the stretched schedule.
    pub slack_ms: Vec<Option<u64>>,
}

/// Stretches a plan whose steps see the deadline `gaps` (see the module doc).
pub fn stretch(gaps: &[Vec<Gap>], target_ms: i64) -> Stretched {
    let mut shift = 0i64;
    // The shift in force where each deadline was first seen (it was set then).
    let mut set_at: BTreeMap<(usize, i64), i64> = BTreeMap::new();
    let mut by_step_ms = Vec::with_capacity(gaps.len());
    for (i, step) in gaps.iter().enumerate() {
        for (id, _) in step {
            set_at.entry(*id).or_insert(shift);
        }
        let effective = |gap: &Gap, shift: i64| gap.1 - (shift - set_at[&gap.0]);
        let passed = step
            .iter()
            .map(|g| effective(g, shift))
            .filter(|&g| g <= 0)
            .max();
        let ahead = step
            .iter()
            .map(|g| effective(g, shift))
            .filter(|&g| g > 0)
            .min();
        if let Some(g) = passed {
            let by = target_ms + g;
            let room = ahead.is_none_or(|a| a - by >= target_ms);
            if by > 0 && room && later_room(&gaps[i + 1..], &set_at, shift, by, target_ms) {
                shift += by;
            }
        }
        by_step_ms.push(shift as u64);
    }
    let slack_ms = gaps
        .iter()
        .zip(&by_step_ms)
        .map(|(step, &s)| {
            step.iter()
                .map(|g| (g.1 - (s as i64 - set_at[&g.0])).unsigned_abs())
                .min()
        })
        .collect();
    Stretched {
        by_step_ms,
        slack_ms,
    }
}

/// Whether moving every later step `by` ms keeps each deadline already set at least
/// `target` ahead of the later commands that see it ahead.
fn later_room(
    later: &[Vec<Gap>],
    set_at: &BTreeMap<(usize, i64), i64>,
    shift: i64,
    by: i64,
    target_ms: i64,
) -> bool {
    later
        .iter()
        .flatten()
        .all(|(id, gap)| match set_at.get(id) {
            Some(&set) => {
                let now = gap - (shift - set);
                now <= 0 || now - by >= target_ms
            }
            None => true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_just_past_a_deadline_moves_with_the_rest_of_the_plan() {
        // Step 0 sets a deadline 10 s ahead; step 1 runs 2 ms past it; step 2 later.
        let gaps = vec![vec![((0, 10_000), 10_000)], vec![((0, 10_000), -2)], vec![]];
        let s = stretch(&gaps, 20);
        assert_eq!(s.by_step_ms, vec![0, 18, 18]);
        assert_eq!(s.slack_ms, vec![Some(10_000), Some(20), None]);
    }

    #[test]
    fn a_move_that_would_bring_an_old_deadline_within_reach_is_not_made() {
        // Step 2 sees the second deadline 25 ms ahead: moving by 18 leaves 7 < 20.
        let gaps = vec![
            vec![((0, 10_000), 10_000), ((0, 10_027), 10_027)],
            vec![((0, 10_000), -2), ((0, 10_027), 25)],
            vec![((0, 10_027), 25)],
        ];
        let s = stretch(&gaps, 20);
        assert_eq!(s.by_step_ms, vec![0, 0, 0]);
        assert_eq!(s.slack_ms[1], Some(2), "still fragile");
    }

    #[test]
    fn deadlines_set_after_a_move_move_with_it() {
        let gaps = vec![
            vec![((0, 100), -1)],
            vec![((0, 100), -1), ((0, 5_000), 30)],
            vec![((0, 5_000), 30)],
        ];
        let s = stretch(&gaps, 20);
        assert_eq!(s.by_step_ms, vec![19, 19, 19]);
        assert_eq!(s.slack_ms, vec![Some(20), Some(20), Some(30)]);
        assert_eq!(target_ms(1.0), 20);
        assert_eq!(target_ms(10.0), 100);
    }
}
