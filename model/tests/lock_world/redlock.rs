//! Redlock helpers for lock-protocol tests: a short-lived Redlock and what a path says
//! about a client's engine and belief.

use crate::world::{RedisWorld, State};
use lockcheck_model::lock::redlock::{
    AttemptRules, Dispatch, DriftRounding, ExtendRules, Phase, Redlock,
};
use lockcheck_model::lock::{ClockKind, Held};
use lockcheck_sim::world::ProcessId;
use lockcheck_sim::Path;

use super::{client_state, NODES};

/// A short-lived Redlock: TTL 100 ms (drift 3 ms), 5 ms node timeout, 10 ms retry delay.
pub fn small(dispatch: Dispatch) -> Redlock {
    Redlock {
        nodes: NODES.to_vec(),
        ttl_ms: 100,
        drift_ppm: 10_000,
        drift_extra_ms: 2,
        drift_rounding: DriftRounding::Up,
        clock: ClockKind::Monotonic,
        dispatch,
        rules: AttemptRules::SEED,
        node_timeout_ms: Some(5),
        retry_ms: vec![10],
        acquire_timeout_ms: Some(500),
        max_attempts: None,
        watchdog: None,
        auto_extension: None,
        extend: ExtendRules::REDSYNC,
        belief: Default::default(),
        on_refused: Default::default(),
    }
}

pub fn engine_phase(state: &State, p: ProcessId) -> &Phase {
    match &client_state(state, p).engines[0] {
        lockcheck_model::lock::EngineState::Redlock(s) => &s.phase,
        other => panic!("not a Redlock engine: {other:?}"),
    }
}

pub fn held(state: &State, p: ProcessId) -> Option<Held> {
    client_state(state, p).held[0]
}

/// Until when client-1 believes its lock valid in `states`, each value once, in order (ms,
/// client clock).
pub fn validities<'a>(states: impl IntoIterator<Item = &'a State>) -> Vec<i64> {
    states
        .into_iter()
        .filter_map(|s| held(s, super::CLIENT_1).and_then(|h| h.valid_until))
        .map(|d| d.at_ms)
        .fold(Vec::new(), |mut seen, at| {
            if seen.last() != Some(&at) {
                seen.push(at);
            }
            seen
        })
}

/// The first state of `path` where `cond` holds, if any.
pub fn first(path: &Path<RedisWorld>, cond: impl Fn(&State) -> bool) -> Option<&State> {
    path.states.iter().find(|s| cond(s))
}

pub fn working(s: &State, p: ProcessId) -> bool {
    client_state(s, p).phase == lockcheck_model::lock::Phase::Working
}

/// The states in which client-1 works, once checked that its job outlives the TTL (100
/// ms), that it believes its lock throughout, and that no two clients ever believe theirs
/// at once.
pub fn kept_alive_work<'a>(world: &RedisWorld, path: &'a Path<RedisWorld>) -> Vec<&'a State> {
    let work: Vec<&State> = path
        .states
        .iter()
        .filter(|s| working(s, super::CLIENT_1))
        .collect();
    assert!(
        work.last().unwrap().now_ms >= 300,
        "the job outlives the TTL"
    );
    assert!(work
        .iter()
        .all(|s| super::believes(world, s, super::CLIENT_1)));
    assert!(path.states.iter().all(|s| !super::both_believe(world, s)));
    work
}

/// How many renewal or extension requests (the compare-and-pexpire script) from `p` are in
/// flight in `s`.
pub fn renewal_requests(s: &State, p: ProcessId) -> usize {
    s.in_flight
        .iter()
        .filter(|m| m.from == p && format!("{:?}", m.msg).contains("Pexpire"))
        .count()
}
