//! Where two runs part: the first step at which their labels differ, and what each does from
//! there. For "why is this safe?", a violating run is followed in a neighbouring
//! configuration (the same choices by label; a fault whose size changed is matched by its
//! label with the numbers blanked; where neither is offered, the model's own order), so the
//! two runs agree until the configurations make them differ.

use crate::oracles::{self, RedisWorld};
use lockcheck_sim::{Model, Path, Step};

/// Steps a followed run may take past the run it follows.
pub const MAX_EXTRA_STEPS: usize = 400;

/// A label with its numbers blanked: a fault and its resized self share it.
pub fn skeleton(label: &str) -> String {
    let blanked: String = label
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    let mut out = String::with_capacity(blanked.len());
    for c in blanked.chars() {
        if !(c == '#' && out.ends_with('#')) {
            out.push(c);
        }
    }
    out
}

/// The run of `world` that takes the steps labelled `labels` where it can (see the module
/// doc), then continues in the model's own order for up to [`MAX_EXTRA_STEPS`] steps or
/// until virtual time passes `until_ms`.
pub fn follow(world: &RedisWorld, labels: &[String], until_ms: u64) -> Path<RedisWorld> {
    let init = world
        .init_states()
        .into_iter()
        .next()
        .expect("one initial state");
    let mut path = Path {
        seed: None,
        init: 0,
        steps: Vec::new(),
        states: vec![init],
    };
    let mut enabled = Vec::new();
    let mut wanted = labels.iter();
    for _ in 0..labels.len() + MAX_EXTRA_STEPS {
        let state = path.last_state();
        enabled.clear();
        world.actions(state, &mut enabled);
        let offered: Vec<String> = enabled.iter().map(|a| world.label(state, a)).collect();
        let pick = match wanted.next() {
            Some(w) => offered
                .iter()
                .position(|l| l == w)
                .or_else(|| offered.iter().position(|l| skeleton(l) == skeleton(w))),
            None if state.now_ms > until_ms => break,
            None => None,
        };
        let Some(i) = pick.or_else(|| enabled.iter().position(|a| !world.is_fault(a))) else {
            break;
        };
        let Some(next) = world.next_state(state, &enabled[i]) else {
            break;
        };
        path.steps.push(Step {
            action: enabled[i].clone(),
            label: offered[i].clone(),
        });
        path.states.push(next);
    }
    path
}

/// The number of steps two runs share before they part: the first step whose label
/// differs other than in its numbers (a resized fault is the same step), or that happens at
/// another time.
pub fn common_steps(a: &Path<RedisWorld>, b: &Path<RedisWorld>) -> usize {
    (0..a.steps.len().min(b.steps.len()))
        .take_while(|&i| {
            skeleton(&a.steps[i].label) == skeleton(&b.steps[i].label)
                && a.states[i + 1].now_ms == b.states[i + 1].now_ms
        })
        .count()
}

/// Up to `count` steps of `path` from step `from`, one line each with its time, and the
/// notes that matter for the lock.
pub fn steps_text(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    from: usize,
    count: usize,
) -> String {
    let entries = super::timeline::entries(world, path);
    let mut s = String::new();
    for e in entries
        .iter()
        .skip(from)
        .filter(|e| !e.label.starts_with("advance"))
        .take(count)
    {
        s.push_str(&format!(
            "    t={:>8} ms  {}{}\n",
            e.at_ms,
            if e.fault { "FAULT " } else { "" },
            e.label
        ));
        for n in &e.notes {
            s.push_str(&format!("                     -> {n}\n"));
        }
    }
    s
}

/// What breaks along the run: (two clients ever hold a lock at once, the account is ever
/// damaged).
pub fn broken(world: &RedisWorld, path: &Path<RedisWorld>) -> (bool, bool) {
    let two = path.states.iter().any(|s| oracles::two_holders(world, s));
    let damaged = path.states.iter().any(oracles::resource_damaged);
    (two, damaged)
}

#[cfg(test)]
mod tests {
    use super::skeleton;

    #[test]
    fn numbers_are_blanked() {
        assert_eq!(
            skeleton("pause client-1 for 9108 ms"),
            "pause client-# for # ms"
        );
        assert_eq!(
            skeleton("pause client-1 for 9107 ms"),
            skeleton("pause client-1 for 9108 ms")
        );
    }
}
