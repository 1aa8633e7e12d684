//! The registry of built-in scenarios, by stable name: the seed incidents and the classic
//! counterexamples, each with the verdict it is expected to get. Each `builtin_*` module
//! builds its scenarios from the world-building helpers of [`super::kit`]; this one only
//! lists them.

pub use super::builtin_classic::*;
pub use super::builtin_disk::*;
pub use super::builtin_redisson::*;
pub use super::builtin_redlock::*;
pub use super::builtin_redlock_baseline::*;
pub use super::builtin_schedules::{
    seed_003_dense_gc, seed_003_dense_gc_back_to_back, seed_003_dense_gc_spaced,
};
use super::Scenario;

/// Every built-in scenario.
pub fn all() -> Vec<Scenario> {
    vec![
        seed_000_single_node(),
        kleppmann_pause_past_lease(),
        fencing_prevents_damage(),
        single_node_holder_crash(),
        single_node_holder_partitioned(),
        plain_del_late_unlock(),
        owner_checked_late_unlock(),
        restart_without_persistence(),
        delayed_restart(),
        failover_loses_lock(),
        failover_rolls_back_fencing_counter(),
        failover_fencing_from_token_service(),
        seed_003_incident(),
        seed_003_defended(),
        seed_003_without_stall(),
        seed_000_redlock_process_pause(),
        seed_000_redlock_partition(),
        seed_000_redlock_majority_failure(),
        seed_000_redlock_clock_drift(),
        kleppmann_clock_jump(),
        redlock_bounded_drift_safe(),
        redlock_drift_beyond_factor(),
        redlock_slow_acquisition(),
        redlock_split_vote(),
        seed_000_redlock_long_job(),
        seed_000_redlock_partition_checked(),
        redlock_watchdog_counts_extensions(),
        redlock_baseline_safe(),
        redlock_pause_and_clock_step(),
        seed_003_on_3_44(),
        redisson_gc_past_lease_defended(),
        redisson_late_unlock(),
        aof_stall_power_loss(),
        aof_power_loss_noticed(),
    ]
    .into_iter()
    .chain(super::builtin_detector::all())
    .chain(super::builtin_workloads::all())
    .chain(super::builtin_progress::all())
    .chain(super::builtin_retries::all())
    .chain(super::builtin_schedules::all())
    .chain(super::builtin_seed_003_questions::all())
    .chain(super::builtin_replicas::all())
    .chain(super::builtin_redisson_replicas::all())
    .chain(super::builtin_sentinels::all())
    .chain(super::builtin_profiles::all())
    .chain(super::builtin_node_redlock_5::all())
    .chain(super::builtin_node_redlock_extend::all())
    .chain(super::builtin_redisson_fair::all())
    .chain(super::builtin_steps::all())
    .chain(super::builtin_redis_py_timeout::all())
    .chain(super::builtin_threads::all())
    .chain(super::builtin_redsync_set_nx::all())
    .chain(super::builtin_refused::all())
    .chain(super::builtin_redisson_resend::all())
    .chain(super::builtin_resume_order::all())
    .collect()
}

/// The built-in scenario called `name`.
pub fn by_name(name: &str) -> Option<Scenario> {
    all().into_iter().find(|s| s.name == name)
}
