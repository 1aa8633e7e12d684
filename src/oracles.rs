//! The lock oracles, as properties of a Redis world.
//!
//! - **ME-lock**: two clients *believe* they hold the same lock at the same true time (a
//!   client's belief ends when it starts releasing, or when its validity deadline passes on
//!   its own clock).
//! - **ME-resource**: the protected account accepted a stale holder's write: a lost update
//!   or a duplicate debit.
//! - **Liveness**: after a client crashed or was cut off from its nodes while its lock was on
//!   them, the lock becomes acquirable (gone from a quorum of the protocol's nodes) or held
//!   by another client within a bound.
//! - **Witnesses** (`sometimes`): the fault a scenario is about really happened where it
//!   matters: a pause overlapped a holding period, a renewal failed, a holder crashed; or,
//!   in a world without faults, that the clients did get their locks: every client finished
//!   its rounds without giving up.

use lockcheck_model::lock::client::Phase;
use lockcheck_model::lock::{LockClient, Phase as ClientPhase};
use lockcheck_model::process::{Process, ProcessState};
use lockcheck_sim::world::{ActionOf, ProcessId, StateOf, World};
use lockcheck_sim::{FpHasher, Property};
use std::hash::{Hash, Hasher};

/// A world of Redis nodes, lock clients and friends.
pub type RedisWorld = World<Process>;
/// Its state.
pub type RedisState = StateOf<Process>;
/// Its actions.
pub type RedisAction = ActionOf<Process>;

/// The lock clients of a world (alone or inside a lock service): process id and
/// configuration.
pub fn clients(world: &RedisWorld) -> impl Iterator<Item = (ProcessId, &LockClient)> {
    world
        .processes
        .iter()
        .enumerate()
        .filter_map(|(p, spec)| spec.actor.lock_client().map(|c| (p, c)))
}

/// The keys client `p` believes it holds in `state`.
pub fn believed_keys<'w>(
    world: &'w RedisWorld,
    state: &RedisState,
    p: ProcessId,
    client: &'w LockClient,
) -> Vec<&'w [u8]> {
    believed(world, state, p, client).collect()
}

/// The keys client `p` believes it holds in `state`, without collecting them.
fn believed<'s, 'w: 's>(
    world: &'w RedisWorld,
    state: &'s RedisState,
    p: ProcessId,
    client: &'w LockClient,
) -> impl Iterator<Item = &'w [u8]> + 's {
    let now = world.local_now(state, p);
    let s = state.actor(p).and_then(ProcessState::as_client);
    s.into_iter().flat_map(move |s| {
        (0..s.held.len())
            .filter(move |&i| client.believes(s, i, now))
            .map(move |i| client.workload.locks[i].as_slice())
    })
}

/// Whether two clients believe they hold the same lock (one client holding a lock twice, a
/// re-entrant hold, is one holder). (A world has a few clients and locks: comparing pairs
/// costs less than collecting and sorting, and this runs on every new state.)
pub fn two_holders(world: &RedisWorld, state: &RedisState) -> bool {
    let held =
        || clients(world).flat_map(|(p, c)| believed(world, state, p, c).map(move |key| (p, key)));
    held().enumerate().any(|(i, (p, key))| {
        held()
            .skip(i + 1)
            .any(|(other_p, other)| other_p != p && other == key)
    })
}

/// Whether the account was damaged by a stale holder.
pub(crate) fn resource_damaged(state: &RedisState) -> bool {
    state
        .procs
        .iter()
        .filter_map(|p| p.actor_state().and_then(ProcessState::as_account))
        .any(|a| a.damaged())
}

/// Whether some client is paused while believing it holds a lock.
pub(crate) fn paused_while_holding(world: &RedisWorld, state: &RedisState) -> bool {
    clients(world).any(|(p, c)| state.is_paused(p) && believed(world, state, p, c).next().is_some())
}

/// Whether every client finished all its rounds and never gave up acquiring (so each held
/// its locks in every round).
pub fn all_clients_done(world: &RedisWorld, state: &RedisState) -> bool {
    clients(world).all(|(p, _)| client_done(state, p))
}

fn client_done(state: &RedisState, p: ProcessId) -> bool {
    state
        .actor(p)
        .and_then(ProcessState::as_client)
        .is_some_and(|s| s.phase == ClientPhase::Done && s.gave_up == 0)
}

/// A digest of one part per client, `part(p, client)`: the wrapping sum of the parts'
/// hashes. It changes whenever exactly one part changes (an action on one client changes
/// that client's part alone), and it does not depend on which client has which part, so
/// renaming interchangeable clients leaves it as it is (a symmetric property's digest).
fn per_client_digest<'w, T: Hash>(
    world: &'w RedisWorld,
    part: impl Fn(ProcessId, &'w LockClient) -> T,
) -> u64 {
    clients(world).fold(0u64, |sum, (p, c)| {
        let mut h = FpHasher::new();
        part(p, c).hash(&mut h);
        sum.wrapping_add(h.finish())
    })
}

/// A digest of which clients are done (what [`all_clients_done`] reads).
fn done_clients_digest(world: &RedisWorld, state: &RedisState) -> u64 {
    per_client_digest(world, |p, _| client_done(state, p))
}

/// Whether some client gave up acquiring a lock (its acquire timeout or attempt limit).
pub fn some_client_gave_up(world: &RedisWorld, state: &RedisState) -> bool {
    clients(world).any(|(p, _)| gave_up(state, p))
}

fn gave_up(state: &RedisState, p: ProcessId) -> bool {
    state
        .actor(p)
        .and_then(ProcessState::as_client)
        .is_some_and(|s| s.gave_up > 0)
}

/// A digest of what [`some_client_gave_up`] reads: how many clients gave up, which no
/// renaming of interchangeable clients changes.
fn gave_up_digest(world: &RedisWorld, state: &RedisState) -> u64 {
    clients(world).filter(|&(p, _)| gave_up(state, p)).count() as u64
}

/// No client gives up acquiring: every contender's retries (its delays, attempt limit and
/// acquire timeout) outlast whatever keeps it from the lock. A clients' state.
pub(crate) fn no_give_up(name: &str) -> Property<RedisWorld> {
    Property::always(name, |w, s| !some_client_gave_up(w, s))
        .observing_digest(on_a_client, gave_up_digest)
        .symmetric()
}

/// Whether process `p` is a client asking for a lock: up, not paused, acquiring.
fn asking(state: &RedisState, p: ProcessId) -> bool {
    !state.is_paused(p)
        && state
            .actor(p)
            .and_then(ProcessState::as_client)
            .is_some_and(|s| matches!(s.phase, ClientPhase::Acquiring(_)))
}

/// A digest of which clients are asking (what [`no_starvation`] reads).
fn asking_digest(world: &RedisWorld, state: &RedisState) -> u64 {
    let mut h = FpHasher::new();
    for (p, _) in clients(world) {
        asking(state, p).hash(&mut h);
    }
    h.finish()
}

/// No starvation: every client that keeps asking for a lock gets it within `bound_ms` (each
/// client with a deadline of its own; one that gives up, crashes or pauses stops asking).
/// It reads the clients' phases and pauses.
pub fn no_starvation(name: &str, bound_ms: u64) -> Property<RedisWorld> {
    Property::each_leads_to_within(
        name,
        bound_ms,
        |_, s, p| asking(s, p),
        |_, s, p| !asking(s, p),
    )
    .observing_digest(on_a_client, asking_digest)
}

/// Whether process `p` is a client waiting for a lock: up and acquiring (paused or not: a
/// paused waiter keeps its place as far as it knows).
fn waiting(state: &RedisState, p: ProcessId) -> bool {
    state
        .actor(p)
        .and_then(ProcessState::as_client)
        .is_some_and(|s| matches!(s.phase, ClientPhase::Acquiring(_)))
}

/// Whether process `p` is a client holding a lock.
fn holding(state: &RedisState, p: ProcessId) -> bool {
    state
        .actor(p)
        .and_then(ProcessState::as_client)
        .is_some_and(|s| s.held.iter().any(Option::is_some))
}

/// A digest of which clients wait and which hold (what [`first_come_first_served`] reads).
fn waiting_digest(world: &RedisWorld, state: &RedisState) -> u64 {
    let mut h = FpHasher::new();
    for (p, _) in clients(world) {
        (waiting(state, p), holding(state, p)).hash(&mut h);
    }
    h.finish()
}

/// First come, first served: no client that began waiting for a lock after another gets it
/// while the other still waits (one that gives up or crashes stops waiting). For worlds of
/// one lock, as a fair lock promises its waiters.
pub fn first_come_first_served(name: &str) -> Property<RedisWorld> {
    Property::in_order(name, |_, s, p| waiting(s, p), |_, s, p| holding(s, p))
        .observing_digest(on_a_client, waiting_digest)
}

/// Whether some client's watchdog failed a renewal.
pub(crate) fn renewal_failed(world: &RedisWorld, state: &RedisState) -> bool {
    clients(world).any(|(p, c)| {
        state
            .actor(p)
            .and_then(ProcessState::as_client)
            .is_some_and(|s| c.failed_renewals(s) > 0)
    })
}

/// Whether client `p` is gone for its lock: down, or cut off by an active partition from a
/// quorum of its protocol's nodes.
fn gone(world: &RedisWorld, state: &RedisState, p: ProcessId, client: &LockClient) -> bool {
    if !state.is_up(p) {
        return true;
    }
    let nodes = client.protocol.nodes();
    let cut = nodes
        .iter()
        .filter(|&&n| {
            state
                .partitions
                .iter()
                .any(|(rule, _)| world.faults.partitions[*rule].blocks(p, n))
        })
        .count();
    cut > nodes.len() / 2
}

/// Whether a client is gone (down or cut off) while some Redis node still stores a lock key
/// of its workload.
pub(crate) fn crashed_holder_blocks(world: &RedisWorld, state: &RedisState) -> bool {
    clients(world).any(|(p, c)| {
        gone(world, state, p, c)
            && c.workload
                .locks
                .iter()
                .any(|key| stored_on(world, state, &c.protocol.nodes(), key) > 0)
    })
}

/// Whether every lock of every gone client has become acquirable (stored on fewer than a
/// quorum of its nodes) or is believed held by another client that is not gone.
pub(crate) fn locks_acquirable(world: &RedisWorld, state: &RedisState) -> bool {
    clients(world)
        .filter(|(p, c)| gone(world, state, *p, c))
        .all(|(_, c)| {
            let nodes = c.protocol.nodes();
            let quorum = nodes.len() / 2 + 1;
            c.workload.locks.iter().all(|key| {
                stored_on(world, state, &nodes, key) < quorum
                    || clients(world).any(|(q, d)| {
                        !gone(world, state, q, d)
                            && believed(world, state, q, d).any(|k| k == key.as_slice())
                    })
            })
        })
}

/// On how many of `nodes` the key is stored and live by the node's own wall clock.
fn stored_on(world: &RedisWorld, state: &RedisState, nodes: &[ProcessId], key: &[u8]) -> usize {
    nodes
        .iter()
        .filter(|&&n| match state.actor(n) {
            Some(ProcessState::Redis(node)) => {
                let wall_ms = world.local_now(state, n).wall_ms;
                node.keyspace.peek(key, wall_ms).is_some()
            }
            _ => false,
        })
        .count()
}

/// Whether `action` happens on a lock client (alone or inside a lock service): what beliefs
/// are made of (the client's state, its clock, whether it is up or paused).
pub fn on_a_client(world: &RedisWorld, action: &RedisAction) -> bool {
    world
        .action_process(action)
        .is_some_and(|p| world.processes[p].actor.lock_client().is_some())
}

/// Whether `action` happens on the protected account.
pub(crate) fn on_the_account(world: &RedisWorld, action: &RedisAction) -> bool {
    world
        .action_process(action)
        .is_some_and(|p| matches!(world.processes[p].actor, Process::Account(_)))
}

/// A digest of every client's beliefs (what ME-lock and lock overlap read): one part per
/// client, each from that client's own state and clock.
pub fn beliefs_digest(world: &RedisWorld, state: &RedisState) -> u64 {
    per_client_digest(world, |p, c| believed_keys(world, state, p, c))
}

/// A digest of whether each client is paused while believing it holds a lock.
fn paused_holders_digest(world: &RedisWorld, state: &RedisState) -> u64 {
    per_client_digest(world, |p, c| {
        state.is_paused(p) && believed(world, state, p, c).next().is_some()
    })
}

/// A digest of whether each client's watchdog failed a renewal.
fn failed_renewals_digest(world: &RedisWorld, state: &RedisState) -> u64 {
    per_client_digest(world, |p, c| {
        state
            .actor(p)
            .and_then(ProcessState::as_client)
            .is_some_and(|s| c.failed_renewals(s) > 0)
    })
}

/// ME-lock as an `always` property. It reads the clients' beliefs only.
pub fn me_lock(name: &str) -> Property<RedisWorld> {
    Property::always(name, |w, s| !two_holders(w, s))
        .observing_digest(on_a_client, beliefs_digest)
        .symmetric()
}

/// ME-resource as an `always` property. It reads the account only (whether any account
/// was damaged, whichever it is).
pub fn me_resource(name: &str) -> Property<RedisWorld> {
    Property::always(name, |_, s| !resource_damaged(s))
        .observing_digest(on_the_account, |_, s| resource_damaged(s) as u64)
        .symmetric()
}

/// Liveness: a crashed holder's lock becomes acquirable within `bound_ms`.
pub fn liveness(name: &str, bound_ms: u64) -> Property<RedisWorld> {
    Property::leads_to_within(name, bound_ms, crashed_holder_blocks, locks_acquirable)
}

/// Whether some running client is acquiring a lock that no node stores (live, by the node's
/// clock) and no client believes it holds: a free lock someone asks for.
pub(crate) fn free_lock_asked_for(world: &RedisWorld, state: &RedisState) -> bool {
    clients(world).any(|(p, c)| {
        let Some(s) = state.actor(p).and_then(ProcessState::as_client) else {
            return false;
        };
        let Phase::Acquiring(i) = s.phase else {
            return false;
        };
        let key = c.workload.locks[i as usize].as_slice();
        state.is_up(p)
            && stored_on(world, state, &c.protocol.nodes(), key) == 0
            && !clients(world).any(|(q, d)| believed(world, state, q, d).any(|k| k == key))
    })
}

/// Whether some client believes it holds a lock.
pub(crate) fn some_holder(world: &RedisWorld, state: &RedisState) -> bool {
    clients(world).any(|(p, c)| believed(world, state, p, c).next().is_some())
}

/// Progress: whenever a free lock is asked for, some client holds a lock within `bound_ms`
/// (no split-vote livelock, no contenders that all give up). It reads clients, nodes and
/// time (keys expire), and no process by name.
pub fn progress(name: &str, bound_ms: u64) -> Property<RedisWorld> {
    Property::leads_to_within(name, bound_ms, free_lock_asked_for, some_holder)
        .observing(|w, a| {
            w.action_process(a).is_none_or(|p| {
                !matches!(
                    w.processes[p].actor,
                    Process::Account(_) | Process::Tokens(_)
                )
            })
        })
        .symmetric()
}

/// Witness: a pause overlapped a holding period (a client's pause and beliefs).
pub(crate) fn pause_while_holding(name: &str) -> Property<RedisWorld> {
    Property::sometimes(name, paused_while_holding)
        .observing_digest(on_a_client, paused_holders_digest)
        .symmetric()
}

/// Witness: a renewal failed (a client's state).
pub(crate) fn renewal_failure(name: &str) -> Property<RedisWorld> {
    Property::sometimes(name, renewal_failed)
        .observing_digest(on_a_client, failed_renewals_digest)
        .symmetric()
}

/// Witness: a client crashed or was cut off while its lock was stored.
pub(crate) fn holder_crashed(name: &str) -> Property<RedisWorld> {
    Property::sometimes(name, crashed_holder_blocks)
}

/// Witness: two clients believed they held the same lock at once (the lock was broken, which
/// a fenced resource must survive).
pub(crate) fn lock_overlap(name: &str) -> Property<RedisWorld> {
    Property::sometimes(name, two_holders)
        .observing_digest(on_a_client, beliefs_digest)
        .symmetric()
}

/// Witness: every client finished its rounds without giving up (a clients' state).
pub(crate) fn every_client_done(name: &str) -> Property<RedisWorld> {
    Property::sometimes(name, all_clients_done)
        .observing_digest(on_a_client, done_clients_digest)
        .symmetric()
}
