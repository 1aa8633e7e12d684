//! The Redis world's faults of its own, beyond the kernel's five: the `Fault` type of
//! [`crate::process::Process`], declared per process in the envelope like a pause.

/// A fault inside one process of a Redis world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RedisFault {
    /// The disk under a node's append-only file stops completing fsyncs for `duration_ms`
    /// of the node's monotonic time (a busy or failing disk, a noisy neighbour). With
    /// `appendfsync everysec` Redis fsyncs in a background thread and keeps acknowledging
    /// writes while that fsync is slow (it logs "Asynchronous AOF fsync is taking too long",
    /// and writes the AOF buffer without waiting after 2 s), so what the stall withholds from
    /// the disk is lost in a power loss, although every client was told it succeeded.
    DiskStall { duration_ms: u64 },
}

impl RedisFault {
    /// How bad it is, for the shrinker.
    pub fn size(&self) -> u64 {
        match self {
            RedisFault::DiskStall { duration_ms } => *duration_ms,
        }
    }

    /// Its label in traces: `disk stall for 3000 ms`.
    pub fn describe(&self) -> String {
        match self {
            RedisFault::DiskStall { duration_ms } => format!("disk stall for {duration_ms} ms"),
        }
    }
}
