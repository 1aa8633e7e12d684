//! What `shrink` changed, said honestly: the faults it removed, the faults it made smaller
//! (`pause client-1 for 8000 ms -> for 5000 ms`), the steps before and after, and the score it
//! minimises, (faults, fault sizes, steps), before and after. A run with fewer or smaller
//! faults may take more steps (the system reaches the violation by itself); it is then
//! called simpler, not shorter, and a run no simpler than the original is not called shrunk.

use lockcheck::oracles::RedisWorld;
use lockcheck::report::parting::skeleton;
use lockcheck_sim::{shrink_score, Model, Path};
use serde_json::{json, Value};

/// The changes from `before` to `after`.
pub(super) struct Changes {
    pub removed: Vec<String>,
    pub reduced: Vec<(String, String)>,
    pub score_before: (usize, usize, usize),
    pub score_after: (usize, usize, usize),
    pub steps: (usize, usize),
}

fn fault_labels(world: &RedisWorld, path: &Path<RedisWorld>) -> Vec<String> {
    path.steps
        .iter()
        .filter(|s| world.is_fault(&s.action))
        .map(|s| s.label.clone())
        .collect()
}

pub(super) fn changes(
    world: &RedisWorld,
    before: &Path<RedisWorld>,
    after: &Path<RedisWorld>,
) -> Changes {
    let mut gone = fault_labels(world, before);
    let mut new = Vec::new();
    for label in fault_labels(world, after) {
        match gone.iter().position(|l| *l == label) {
            Some(i) => {
                gone.remove(i);
            }
            None => new.push(label),
        }
    }
    let mut reduced = Vec::new();
    for label in new {
        if let Some(i) = gone.iter().position(|l| skeleton(l) == skeleton(&label)) {
            reduced.push((gone.remove(i), label));
        }
    }
    let actions =
        |p: &Path<RedisWorld>| p.steps.iter().map(|s| s.action.clone()).collect::<Vec<_>>();
    Changes {
        removed: gone,
        reduced,
        score_before: shrink_score(world, &actions(before)),
        score_after: shrink_score(world, &actions(after)),
        steps: (before.steps.len(), after.steps.len()),
    }
}

impl Changes {
    /// The first line: shrunk, simplified or unchanged, and why.
    pub fn headline(&self, file: &str) -> String {
        let (b, a) = (self.score_before, self.score_after);
        let score = format!("score (faults, fault sizes, steps) {:?} -> {:?}", b, a);
        if a >= b {
            format!(
                "found no simpler run than {file} ({} steps, {score})",
                self.steps.0
            )
        } else if self.steps.1 < self.steps.0 {
            format!(
                "shrunk {file} from {} to {} steps ({score})",
                self.steps.0, self.steps.1
            )
        } else if self.steps.1 == self.steps.0 {
            format!(
                "simplified {file}: fewer or smaller faults in the same {} steps ({score})",
                self.steps.0
            )
        } else {
            format!(
                "simplified {file}: fewer or smaller faults, though {} steps instead of {} (the system reaches the violation by itself; {score})",
                self.steps.1, self.steps.0
            )
        }
    }

    /// One line per removed or reduced fault.
    pub fn lines(&self) -> String {
        let mut s = String::new();
        for r in &self.removed {
            s.push_str(&format!("  removed: {r}\n"));
        }
        for (from, to) in &self.reduced {
            s.push_str(&format!("  reduced: {from} -> {to}\n"));
        }
        s
    }

    pub fn json(&self) -> Value {
        json!({
            "removed_faults": self.removed,
            "reduced_faults": self.reduced.iter().map(|(f, t)| json!({"from": f, "to": t})).collect::<Vec<_>>(),
            "score_before": [self.score_before.0, self.score_before.1, self.score_before.2],
            "score_after": [self.score_after.0, self.score_after.1, self.score_after.2],
        })
    }
}
