//! Proptest properties: over random small lease worlds, exhaustive search agrees with the
//! analytic boundary, and random search never reports a violation that is not there.

mod common;

use common::Lease;
use lockcheck_sim::{explore, BreadthFirst, Options, Outcome, Walk};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With one pause of client-1 and instant messages, mutual exclusion breaks iff
    /// pause + work >= ttl; with a fixed delay d on every link, iff pause + work >= ttl + 2d.
    #[test]
    fn exhaustive_verdict_equals_the_analytic_boundary(
        ttl_ms in 2u64..40,
        work_ms in 1u64..20,
        pause_ms in 1u64..40,
        delay_ms in 0u64..4,
    ) {
        prop_assume!(work_ms < ttl_ms);
        let mut lease = Lease::new(ttl_ms, work_ms, pause_ms);
        lease.delays_ms = vec![delay_ms];
        let report = explore(&lease.world(), &mut BreadthFirst::default(), Options::default());
        let violated = report.property("mutual-exclusion").unwrap().status.is_violated();
        prop_assert_eq!(violated, pause_ms + work_ms >= ttl_ms + 2 * delay_ms);
        if !violated {
            prop_assert_eq!(report.outcome, Outcome::Complete);
        }
    }

    /// Random walks are sound: whatever they report violated is violated exhaustively too,
    /// and every violation they report ends in a state with two holders.
    #[test]
    fn random_walks_report_only_real_violations(
        ttl_ms in 5u64..30,
        work_ms in 1u64..10,
        pause_ms in 1u64..30,
        first_seed in 0u64..1_000,
    ) {
        prop_assume!(work_ms < ttl_ms);
        let world = Lease::new(ttl_ms, work_ms, pause_ms).world();
        let random = explore(&world, &mut Walk::random(first_seed..first_seed + 20), Options::default());
        if let Some((_, path)) = random.first_violation() {
            prop_assert_eq!(common::holders(path.last_state()), 2);
            prop_assert!(pause_ms + work_ms >= ttl_ms);
        }
    }
}
