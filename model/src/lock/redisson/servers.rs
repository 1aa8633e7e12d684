//! How a Redisson client is deployed: one server, a master with replicas, or a master found
//! through Sentinel; and, with replicas, the `WAIT` that follows every lock script.
//!
//! The idea: Redisson's lock scripts (acquire, renew, release) are written with
//! `evalWriteAsync` (3.17.7, `RedissonBaseLock`) or `syncedEval` (3.44, `CommandAsyncService`).
//! Unless the client uses one server, the script goes out in a batch followed by `WAIT
//! availableSlaves slavesSyncTimeout` on the same connection, and the batch answers only once
//! both have. When the `WAIT` counted no replica while Redisson knew of some (and
//! `checkLockSyncedSlaves`, on by default, is set), the call fails with
//! `IllegalStateException("None of slaves were synced")`, whatever the script did: an acquire
//! that took the lock, a renewal that extended it, a release that deleted it. One replica of
//! several is enough: a `WAIT` short of the count is accepted.
//!
//! What an acquire does then depends on the version ([`NoneSynced`]): up to 3.19 the
//! exception leaves `lock()` and the lock stays on the master (no watchdog started); 3.20 to
//! 3.24 and from 3.47 (`handleNoSync`) run the unlock script first; 3.25 to 3.46 mean to, but
//! compare the message with `equals("None of slaves were synced")` after it had grown a hint
//! ("... Try to increase slavesSyncTimeout setting ..."), so they leave the lock as 3.17 does.
//!
//! A batch's response timeout is the request timeout plus the sync timeout
//! (`RedisCommonBatchExecutor`). Under Sentinel, `SentinelConnectionManager.scheduleChangeCheck`
//! asks a Sentinel for the master every `scanInterval` (1 s) and moves its connections when
//! the answer changes; requests already sent are answered (or time out) where they went.
//! `availableSlaves` then follows the replicas that Sentinel does not consider down, and the
//! unlock channel is subscribed again on the new master (at the next refusal here). Not
//! modelled: 3.44's `INFO replication` refresh of the count after a short `WAIT`, and one
//! connection manager shared by several locks of a client (each lock's engine scans).

use super::{Redisson, RedissonPhase, RedissonState, CONNECT};
use crate::lock::engine::LockIo;
use crate::msg::{LockTimer, Msg};
use crate::redis::{Command, Reply};
use lockcheck_sim::world::ProcessId;

/// Redisson's server configuration (`Config.useSingleServer()`, `useMasterSlaveServers()`,
/// `useSentinelServers()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Servers {
    /// One server: every script alone, no `WAIT`.
    Single,
    /// A fixed master (`node`) with replicas: every lock script batched with `WAIT`.
    MasterSlave { sync: ReplicaSync },
    /// The master as `sentinel` last named it, asked every `scan_interval_ms`; every lock
    /// script batched with `WAIT` for the replicas Sentinel sees up.
    Sentinel {
        sentinel: ProcessId,
        scan_interval_ms: u64,
        sync: ReplicaSync,
    },
}

/// The `WAIT` after each lock script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReplicaSync {
    /// `availableSlaves` before Sentinel says otherwise: the replicas of the master.
    pub replicas: u8,
    /// `slavesSyncTimeout` (1 s; fixed at 1 s up to 3.19).
    pub timeout_ms: u64,
    /// `checkLockSyncedSlaves`: a `WAIT` that counted none fails the call.
    pub check_synced: bool,
    /// What an acquire does when none was synced.
    pub none_synced: NoneSynced,
}

/// What a failed acquire does when no replica was synced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoneSynced {
    /// The exception leaves `lock()`; the lock stays on the master (up to 3.19, 3.25 to 3.46).
    Fail,
    /// The unlock script runs, then the exception leaves `lock()` (3.20 to 3.24, from 3.47).
    UnlockAndFail,
}

/// The message of Redisson's exception when no replica acknowledged.
pub const NONE_SYNCED: &str = "None of slaves were synced";

/// Marks the `WAIT` request that follows the script request with the same tag.
pub(super) const SYNC_BIT: u16 = 0x8000;

impl ReplicaSync {
    /// Redisson's defaults: 1 s, checked, the exception alone.
    pub fn new(replicas: u8) -> Self {
        ReplicaSync {
            replicas,
            timeout_ms: 1_000,
            check_synced: true,
            none_synced: NoneSynced::Fail,
        }
    }
}

impl Servers {
    /// The replica sync, unless one server.
    pub fn sync(&self) -> Option<&ReplicaSync> {
        match self {
            Servers::Single => None,
            Servers::MasterSlave { sync } | Servers::Sentinel { sync, .. } => Some(sync),
        }
    }
}

/// The answer Redisson's code sees for a synced script: the script's reply, or the
/// exception when the `WAIT` counted none of the replicas it asked for (a `WAIT` is sent
/// only when some are known).
pub(super) fn synced_answer(sync: &ReplicaSync, script: Reply, wait: &Reply) -> Reply {
    if matches!(wait, Reply::Integer(0)) && sync.check_synced {
        Reply::Error(NONE_SYNCED.into())
    } else {
        script
    }
}

impl Redisson {
    /// Sends a lock script (and, with replicas known, its `WAIT`) to the current master;
    /// returns the response timeout of the whole batch.
    pub(super) fn send_script(
        &self,
        state: &mut RedissonState,
        tag: u16,
        command: Command,
        io: &mut LockIo,
    ) -> u64 {
        io.request(state.master, tag, command);
        let Some(sync) = self.servers.sync().filter(|_| state.replicas > 0) else {
            return self.request_timeout_ms;
        };
        let wait = Command::Wait {
            replicas: state.replicas as i64,
            timeout_ms: sync.timeout_ms as i64,
        };
        io.request(state.master, tag | SYNC_BIT, wait);
        state.batch = Some((tag, None));
        self.request_timeout_ms + sync.timeout_ms
    }

    /// A reply to a script or to its `WAIT`: the answer for the code once the batch is
    /// complete, `None` while the `WAIT` is still out (the script's reply is held meanwhile).
    pub(super) fn batch_answer(
        &self,
        state: &mut RedissonState,
        tag: u16,
        reply: Reply,
    ) -> Option<(u16, Reply)> {
        let script_tag = tag & !SYNC_BIT;
        let pending = state.batch.as_mut().filter(|(t, _)| *t == script_tag);
        let (Some(sync), Some((_, held))) = (self.servers.sync(), pending) else {
            return (tag & SYNC_BIT == 0).then_some((tag, reply));
        };
        if tag & SYNC_BIT == 0 {
            *held = Some(reply);
            return None;
        }
        let script = held.take()?;
        state.batch = None;
        Some((script_tag, synced_answer(sync, script, &reply)))
    }

    /// Forgets a batch whose response timeout fired.
    pub(super) fn forget_batch(&self, state: &mut RedissonState, tag: u16) {
        if state.batch.as_ref().is_some_and(|(t, _)| *t == tag) {
            state.batch = None;
        }
    }

    /// Under Sentinel, the client connects at its first acquire (`Redisson.create`): it asks
    /// Sentinel for the master and the acquire waits for the answer ([`RedissonPhase::Connecting`]);
    /// returns whether it waits.
    pub(super) fn connect(&self, state: &mut RedissonState, io: &mut LockIo) -> bool {
        let Servers::Sentinel { sentinel, .. } = self.servers else {
            return false;
        };
        if state.scanning {
            return false;
        }
        let tag = Self::next_tag(state, CONNECT);
        io.send(sentinel, Msg::AskMaster);
        io.set_timer(LockTimer::RequestTimeout(tag), self.request_timeout_ms);
        state.phase = RedissonPhase::Connecting { tag };
        true
    }

    /// The scan's tick: ask Sentinel for the master, and tick again.
    pub(super) fn scan(&self, io: &mut LockIo) {
        if let Servers::Sentinel {
            sentinel,
            scan_interval_ms,
            ..
        } = self.servers
        {
            io.send(sentinel, Msg::AskMaster);
            io.set_timer(LockTimer::SentinelScan, scan_interval_ms);
        }
    }

    /// Sentinel's answer: the master to send to from now on, and the replicas to `WAIT` for;
    /// the first one connects the client, starts the scan and the acquire's first attempt.
    pub(super) fn on_master_is(&self, state: &mut RedissonState, msg: &Msg, io: &mut LockIo) {
        let (
            Servers::Sentinel {
                scan_interval_ms, ..
            },
            Msg::MasterIs {
                master, replicas, ..
            },
        ) = (self.servers, msg)
        else {
            return;
        };
        if state.master != *master {
            // Redisson resubscribes its channels on the new master: the next refusal
            // subscribes there.
            state.subscribed = false;
        }
        state.master = *master;
        state.replicas = *replicas;
        if let RedissonPhase::Connecting { tag } = state.phase {
            io.cancel_timer(LockTimer::RequestTimeout(tag));
            state.scanning = true;
            io.set_timer(LockTimer::SentinelScan, scan_interval_ms);
            self.attempt(state, false, io);
        }
    }
}
