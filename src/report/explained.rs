//! The chart `explain` draws: a counterexample continued to the end of its overlap (so
//! the overlap has a width), with the violation marked where it fired and the causes found.

use super::swimlane::{self, Chart};
use super::{causes, overlap_end};
use crate::oracles::RedisWorld;
use lockcheck_sim::Path;

/// The chart of `path`, and the path it draws: `path` itself, continued past its end while
/// two clients hold the same lock when it violates `violated`.
pub fn chart(
    world: &RedisWorld,
    path: Path<RedisWorld>,
    title: &str,
    subtitle: &str,
    violated: Option<&str>,
) -> (Chart, Path<RedisWorld>) {
    let violation_steps = violated.map(|_| path.steps.len());
    let violation_ms = path.last_state().now_ms;
    let path = match violated {
        Some(_) => overlap_end::continued(world, path),
        None => path,
    };
    let mut chart = swimlane::chart(world, &path, title, subtitle, violated);
    chart.violation = violated.map(|o| (violation_ms, o.to_string()));
    chart.causes = causes::find(world, &path, violation_steps);
    (chart, path)
}
