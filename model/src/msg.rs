//! The messages and timers of a Redis world: one vocabulary shared by every actor.
//!
//! A world has one message type, so clients, Redis nodes and Sentinel speak one `Msg`:
//! requests and responses on a client's connection, pushed pub/sub messages, the
//! replication stream, and Sentinel's monitoring and reconfiguration.

use crate::redis::{Command, Keyspace, Reply};
use lockcheck_sim::world::ProcessId;

/// A message between processes of a Redis world.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    /// A client's command; `id` comes back in the response.
    Request { id: u32, command: Command },
    /// A node's reply to request `id`.
    Response { id: u32, reply: Reply },
    /// The host of a crashed node refused request `id`'s connection (sent by the world on
    /// the node's behalf, see [`crate::lock::refused`]).
    Refused { id: u32 },
    /// A message published on a channel this client subscribed to.
    Published { channel: Vec<u8>, message: Vec<u8> },
    /// Master to replica: the writes after `prev_offset`, up to `offset`, of stream `repl_id`.
    Replicate {
        repl_id: u32,
        prev_offset: u64,
        offset: u64,
        commands: Vec<Command>,
    },
    /// Master to replica: the whole dataset (a full resynchronisation).
    FullSync {
        repl_id: u32,
        offset: u64,
        keyspace: Keyspace,
    },
    /// Replica to master: everything up to `offset` of stream `repl_id` is applied.
    ReplAck { repl_id: u32, offset: u64 },
    /// Replica to master: my copy has a gap; send everything.
    SyncRequest,
    /// Sentinel to node: are you alive, what are you?
    Ping,
    /// Node to Sentinel.
    Pong {
        is_master: bool,
        offset: u64,
        epoch: u64,
    },
    /// Sentinel to node: `REPLICAOF NO ONE` (`master: None`) or `REPLICAOF master`, in
    /// configuration `epoch`.
    ReplicaOf {
        master: Option<ProcessId>,
        epoch: u64,
    },
    /// Client to Sentinel: which node is the master?
    AskMaster,
    /// Sentinel to client.
    MasterIs {
        master: ProcessId,
        epoch: u64,
        /// Replicas of it that Sentinel does not consider down.
        replicas: u8,
    },
    /// Client to the protected resource.
    Resource(ResourceOp),
    /// The resource's answer.
    ResourceReply(ResourceReply),
    /// Client to a linearizable token service: the next fencing token, please.
    NextToken,
    /// The token service's answer.
    Token(u64),
    /// A deadlock detector to its victim: stop believing, release your locks, end the round.
    AbortRound,
    /// Thread to thread of one process sharing a lock object (redis-py's
    /// `thread_local=False`): the object now holds `token` for `key` (`None`: cleared).
    LockObject {
        key: Vec<u8>,
        token: Option<Vec<u8>>,
    },
    /// Sentinel to Sentinel (`SENTINEL is-master-down-by-addr`): is `master` down? With
    /// `candidate`, the sender also asks for a vote in `epoch`.
    IsMasterDown {
        master: ProcessId,
        epoch: u64,
        candidate: bool,
    },
    /// The answer: the replier's view of the master, and its vote in `epoch`.
    MasterDownReply {
        down: bool,
        vote: Option<ProcessId>,
        epoch: u64,
    },
}

/// An operation on the protected resource (an account).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ResourceOp {
    /// Read the balance, its version, and whether business operation `biz_id` is done; a
    /// fencing token, if the client has one, raises the highest token the account has seen.
    Read { biz_id: u32, token: Option<u64> },
    /// Debit `amount` for business operation `biz_id`, computed from what was read.
    Debit {
        biz_id: u32,
        amount: i64,
        read_balance: i64,
        read_version: u32,
        /// The fencing token the client holds, if any.
        token: Option<u64>,
    },
}

/// The resource's answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ResourceReply {
    Value {
        balance: i64,
        version: u32,
        done: bool,
    },
    /// Whether the debit was applied.
    Debited(bool),
}

/// Timers of the actors of a Redis world.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Timer {
    /// A node's AOF `everysec` fsync.
    Fsync,
    /// A replica's periodic acknowledgement (`REPLCONF ACK`).
    ReplAckTick,
    /// A blocked `WAIT` of `client`'s request `id` times out.
    WaitTimeout { client: ProcessId, id: u32 },
    /// Sentinel's monitoring round.
    SentinelTick,
    /// A scripted client's `step`-th command is due.
    ScriptStep(usize),
    /// A lock client's business timer.
    Client(ClientTimer),
    /// A shared deadlock detector's timer.
    Detector(DetectorTimer),
    /// A timer of seed 000's lock service around a client (its detector's report).
    Service(ServiceTimer),
    /// Several Sentinels: this one's election starts (after a desynchronising delay).
    SentinelElection,
}

/// Timers of a shared deadlock detector.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DetectorTimer {
    /// Start a detection round.
    Tick,
    /// A read got no answer in time: abandon the round.
    ReadTimeout,
    /// The report made at this instant is over.
    ReportDone,
}

/// Timers of seed 000's lock service around a client.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ServiceTimer {
    /// The in-process detector's report made at this instant is over.
    ReportDone,
}

/// Timers of a lock client.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientTimer {
    /// Begin the next round.
    Start,
    /// The work inside the critical section is done.
    Work,
    /// A timer of the protocol engine of the client's `lock`-th lock.
    Lock { lock: u8, timer: LockTimer },
}

/// Timers of a lock protocol engine.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LockTimer {
    /// Request `tag` got no answer in time.
    RequestTimeout(u16),
    /// The earliest deadline of the requests a Redlock sweep waits for has passed.
    SweepTimeout,
    /// Try to acquire again.
    Retry,
    /// Stop trying to acquire.
    AcquireDeadline,
    /// Renew the lock (a watchdog's tick).
    Renew,
    /// Stop waiting for an unlock message (Redisson: the lock's remaining TTL).
    WaitTtl,
    /// Redisson asks Sentinel for the master (`scanInterval`).
    SentinelScan,
    /// Redisson sends request `tag` again (`retryInterval` after its timeout or refusal).
    Resend(u16),
}
