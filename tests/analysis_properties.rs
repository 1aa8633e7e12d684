//! Model verdicts against analysis, over random parameters (proptest).
//!
//! Single node, one pause P of the first holder at the worst moment (just before its work of
//! W ms ends), TTL on the node, message delay d, the rival retrying every R ms. The node
//! grants the key at `d`; Redis keeps a key through its deadline millisecond, so the rival's
//! `SET NX` can succeed from node time `d + TTL + 1` and it believes from `2d + TTL + 1`
//! at the earliest; the holder believes until `2d + W + P`. So mutual exclusion breaks iff
//! `P + W >= TTL + 1`, up to the rival's retry period `2d + R` (it only asks that often).
//! The property checks both sides of that band exhaustively.

use lockcheck::check::{check, Mode};
use lockcheck::scenario::builtin;
use lockcheck::scenario::{
    ClientSpec, ClockSpecDe, ClockStepSpec, ExpectedVerdict, FaultsSpec, NetworkSpec, NodeSpec,
    OracleSpec, PauseSpec, PersistenceDe, ProtocolSpec, Scenario, WorkloadSpec,
};
use proptest::prelude::*;

fn single_node_pause(
    ttl_ms: u64,
    work_ms: u64,
    pause_ms: u64,
    delay_ms: u64,
    retry_ms: u64,
) -> bool {
    let mut s = builtin::seed_000_single_node();
    s.network = NetworkSpec {
        delays_ms: vec![delay_ms],
        ..NetworkSpec::default()
    };
    for c in &mut s.clients {
        c.workload.work_ms = vec![work_ms];
        c.workload.start_after_ms = 0;
        let ProtocolSpec::SingleNode {
            ttl_ms: ttl,
            retry_ms: retry,
            ..
        } = &mut c.protocol
        else {
            unreachable!("the seed scenario is single-node")
        };
        (*ttl, *retry) = (Some(ttl_ms), vec![retry_ms]);
    }
    s.faults = FaultsSpec {
        pauses: vec![PauseSpec {
            process: "service-a".into(),
            durations_ms: vec![pause_ms],
            when: Default::default(),
        }],
        max_pauses: 1,
        ..FaultsSpec::default()
    };
    s.oracles = vec![OracleSpec::MeLock];
    s.expect = ExpectedVerdict::Safe;
    breaks_mutual_exclusion(&s)
}

/// Whether exhaustive search finds an ME-lock violation; a safe answer must come from a
/// search that covered the whole bounded space.
fn breaks_mutual_exclusion(s: &Scenario) -> bool {
    let checked = check(s, Mode::Exhaustive).unwrap();
    assert!(checked.report.is_exhaustive() || checked.violated().is_some());
    checked.violated() == Some("me-lock")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn single_node_breaks_exactly_when_pause_plus_work_outlasts_the_ttl(
        ttl_ms in 5u64..60,
        work_ms in 1u64..30,
        pause_ms in 1u64..80,
        delay_ms in 0u64..3,
        retry_ms in 1u64..4,
    ) {
        prop_assume!(work_ms < ttl_ms);
        let violated = single_node_pause(ttl_ms, work_ms, pause_ms, delay_ms, retry_ms);
        let period = 2 * delay_ms + retry_ms;
        if pause_ms + work_ms <= ttl_ms {
            prop_assert!(!violated, "P + W <= TTL must be safe");
        }
        if pause_ms + work_ms >= ttl_ms + 1 + period {
            prop_assert!(violated, "P + W >= TTL + 1 + retry period must break");
        }
    }
}

#[test]
fn single_node_boundary_is_exact_with_instant_messages_and_millisecond_retries() {
    // d = 0, R = 1: the rival asks every millisecond: safe at P + W = TTL, broken at
    // P + W = TTL + 1 (the key lives through its deadline millisecond, as in Redis).
    assert!(!single_node_pause(20, 5, 15, 0, 1));
    assert!(single_node_pause(20, 5, 16, 0, 1));
}

/// Redisson's watchdog with lease L renews every L/3; with delay d = 1 ms a single pause of
/// the holder of D ms starting at a renewal tick delays the renewal script to `tick + 1 + D`,
/// while the lock lives until `last renewal + L` (through its deadline millisecond). It
/// survives iff `D <= L - L/3 - 2`: about two thirds of the lease.
fn redisson_pause(lease_ms: u64, pause_ms: u64) -> bool {
    use lockcheck_model::lock::redisson::Generation;
    let protocol = ProtocolSpec::Redisson {
        node: "redis".into(),
        lease_ms: None,
        watchdog_timeout_ms: lease_ms,
        wait_ms: None,
        generation: Generation::From3_44,
        request_timeout_ms: 10 * lease_ms,
        servers: Default::default(),
        fair: None,
        retry_attempts: 0,
        retry_interval_ms: 1_500,
    };
    let mut s = one_node_world(vec![
        client_spec("client-1", &protocol, 3 * lease_ms, 0),
        client_spec("client-2", &protocol, 3 * lease_ms, 10),
    ]);
    s.faults = FaultsSpec {
        pauses: vec![PauseSpec {
            process: "client-1".into(),
            durations_ms: vec![pause_ms],
            when: Default::default(),
        }],
        max_pauses: 1,
        ..FaultsSpec::default()
    };
    breaks_mutual_exclusion(&s)
}

/// A client of lock `lock` with one round of `work_ms`.
fn client_spec(
    name: &str,
    protocol: &ProtocolSpec,
    work_ms: u64,
    start_after_ms: u64,
) -> ClientSpec {
    ClientSpec {
        name: name.into(),
        protocol: protocol.clone(),
        workload: WorkloadSpec {
            locks: vec!["lock".into()],
            rounds: 1,
            start_after_ms,
            work_ms: vec![work_ms],
            uses_account: false,
            amount: 10,
            checks_stop_event: false,
            on_fail: Default::default(),
            steps: Vec::new(),
            round_steps: Vec::new(),
        },
        token_service_fencing: false,
        clock: ClockSpecDe::default(),
        owner: None,
        process: None,
        thread: None,
        lock_object: None,
    }
}

/// One Redis node called `redis`, these clients, messages taking 1 ms, no faults, ME-lock.
fn one_node_world(clients: Vec<ClientSpec>) -> Scenario {
    let mut s = builtin::seed_000_single_node();
    s.nodes = vec![NodeSpec {
        name: "redis".into(),
        replica_of: None,
        persistence: PersistenceDe::None,
        clock: ClockSpecDe::default(),
        min_replicas_to_write: 0,
        repl_ack_every_ms: None,
        min_replicas_max_lag_ms: lockcheck::model::node::RedisNode::master()
            .min_replicas_max_lag_ms,
        replica_priority: lockcheck::model::sentinel::DEFAULT_PRIORITY,
    }];
    s.clients = clients;
    s.network = NetworkSpec::default();
    s.faults = FaultsSpec::default();
    s.oracles = vec![OracleSpec::MeLock];
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn redisson_watchdog_survives_a_pause_up_to_two_thirds_of_the_lease_and_no_longer(
        lease_ms in 30u64..400,
        fraction_per_mille in 300u64..1_000,
    ) {
        let pause_ms = lease_ms * fraction_per_mille / 1_000;
        let bound = lease_ms - lease_ms / 3 - 2;
        prop_assert_eq!(redisson_pause(lease_ms, pause_ms), pause_ms > bound,
            "lease {} pause {} bound {}", lease_ms, pause_ms, bound);
    }
}

#[test]
fn redisson_watchdog_boundary_is_exact_at_two_thirds_of_the_lease() {
    for lease_ms in [300, 301, 302] {
        let bound = lease_ms - lease_ms / 3 - 2;
        assert!(!redisson_pause(lease_ms, bound), "lease {lease_ms}");
        assert!(redisson_pause(lease_ms, bound + 1), "lease {lease_ms}");
    }
}

/// Redlock (no watchdog, TTL 30 s, drift factor 1 %) with the holder's clock off by
/// `client_ppm` and every node's by `node_ppm`: the holder believes until `T1 + (TTL -
/// drift)` on its clock, `(TTL - drift) / (1 + client)` of true time; the keys live `TTL /
/// (1 + node)` of true time. With a rival asking every few ms, mutual exclusion holds while
/// `node - client <= drift factor` and breaks once the difference clearly exceeds it (for a
/// slow client alone the model breaks between 1.10 % and 1.15 %: the rival's own acquisition
/// and the holder's elapsed time absorb the rest).
fn redlock_drift(client_ppm: i64, node_ppm: i64) -> bool {
    let mut s = builtin::redlock_bounded_drift_safe();
    s.network = NetworkSpec::default();
    s.clients[0].clock.drift_ppm = client_ppm;
    s.clients[1].workload.start_after_ms = 29_000;
    for c in &mut s.clients {
        let ProtocolSpec::Redlock {
            retry_ms,
            acquire_timeout_ms,
            ..
        } = &mut c.protocol
        else {
            unreachable!("a Redlock scenario")
        };
        *retry_ms = vec![10];
        *acquire_timeout_ms = None;
    }
    for n in &mut s.nodes {
        n.clock.drift_ppm = node_ppm;
    }
    breaks_mutual_exclusion(&s)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn redlock_is_safe_within_the_drift_factor_and_breaks_beyond_it(
        client_ppm in -40_000i64..=0,
        node_ppm in 0i64..=40_000,
    ) {
        let error_ppm = node_ppm - client_ppm;
        let violated = redlock_drift(client_ppm, node_ppm);
        if error_ppm <= 10_000 {
            prop_assert!(!violated, "rate errors {} ppm within the factor must be safe", error_ppm);
        }
        if error_ppm >= 13_000 {
            prop_assert!(violated, "rate errors {} ppm beyond the factor must break", error_ppm);
        }
    }
}

#[test]
fn redlock_drift_boundary_sits_at_the_drift_factor() {
    assert!(!redlock_drift(-5_000, 5_000), "exactly the factor, split");
    assert!(
        !redlock_drift(-10_000, 0),
        "exactly the factor, client only"
    );
    assert!(redlock_drift(-13_000, 0));
    assert!(redlock_drift(0, 13_000));
}

/// Redlock on one node measuring its validity on the wall clock (as node-redlock's
/// `Date.now()` does), messages taking no time, the rival retrying every millisecond, and
/// one backward step of `step_ms` of the holder's wall clock while it works. The holder
/// acquires at T1 with validity `TTL - drift` (`drift = ceil(TTL * factor) + 2`, nothing
/// elapsed) and believes while its clock reads less than `T1 + TTL - drift`: until true time
/// `T1 + TTL - drift + step`. Redis keeps the key through its deadline `T1 + TTL`, so the
/// rival holds from `T1 + TTL + 1`. Mutual exclusion breaks iff `step >= drift + 2`.
fn redlock_clock_step_back(ttl_ms: u64, drift_ppm: u32, step_ms: i64) -> bool {
    use lockcheck_model::lock::redlock::{AttemptRules, Dispatch, DriftRounding, ExtendRules};
    use lockcheck_model::lock::ClockKind;
    let protocol = ProtocolSpec::Redlock {
        nodes: vec!["redis".into()],
        ttl_ms,
        drift_ppm,
        drift_extra_ms: 2,
        drift_rounding: DriftRounding::Up,
        clock: ClockKind::Wall,
        dispatch: Dispatch::Sequential,
        attempt: AttemptRules::SEED,
        node_timeout_ms: Some(10 * ttl_ms),
        retry_ms: vec![1],
        acquire_timeout_ms: None,
        max_attempts: None,
        auto_extension: None,
        belief: Default::default(),
        extend: ExtendRules::REDSYNC,
        watchdog: None,
        on_refused: Default::default(),
    };
    let mut s = one_node_world(vec![
        client_spec("holder", &protocol, 2 * ttl_ms, 0),
        client_spec("rival", &protocol, 1, 1),
    ]);
    s.network.delays_ms = vec![0];
    s.faults = FaultsSpec {
        clock_steps: vec![ClockStepSpec {
            process: "holder".into(),
            deltas_ms: vec![-step_ms],
            when: Default::default(),
        }],
        max_clock_steps: 1,
        ..FaultsSpec::default()
    };
    breaks_mutual_exclusion(&s)
}

/// Redlock's drift allowance in ms: `ceil(TTL * factor) + 2`.
fn drift_ms(ttl_ms: u64, drift_ppm: u32) -> i64 {
    (ttl_ms * u64::from(drift_ppm)).div_ceil(1_000_000) as i64 + 2
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn redlock_survives_a_backward_clock_step_up_to_its_drift_allowance_plus_one(
        ttl_ms in 10u64..120,
        drift_ppm in prop::sample::select(vec![0u32, 10_000, 50_000, 100_000]),
        extra_ms in -3i64..3,
    ) {
        let drift = drift_ms(ttl_ms, drift_ppm);
        let step_ms = (drift + 2 + extra_ms).max(1);
        prop_assert_eq!(
            redlock_clock_step_back(ttl_ms, drift_ppm, step_ms),
            step_ms >= drift + 2,
            "TTL {} drift {} step {}", ttl_ms, drift, step_ms
        );
    }
}

#[test]
fn redlock_clock_step_boundary_is_exact() {
    // TTL 100 ms at 1 %: drift = 1 + 2 = 3 ms; safe at a 4 ms step, broken at 5 ms.
    assert!(!redlock_clock_step_back(100, 10_000, 4));
    assert!(redlock_clock_step_back(100, 10_000, 5));
    // TTL 450 ms at 1 %: drift = 5 + 2 = 7 ms.
    assert!(!redlock_clock_step_back(450, 10_000, 8));
    assert!(redlock_clock_step_back(450, 10_000, 9));
}
