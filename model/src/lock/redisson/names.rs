//! The names Redisson gives a holder and a lock's channel.

use super::{Redisson, THREAD_ID};

impl Redisson {
    /// The hash field of the client `owner`: `<uuid>:<threadId>`; an owner that holds a
    /// colon is the whole field already (a thread of a named process: `process:thread`).
    pub fn field(owner: &[u8]) -> Vec<u8> {
        if owner.contains(&b':') {
            return owner.to_vec();
        }
        [owner, b":", THREAD_ID].concat()
    }

    /// The unlock channel of lock `key`: `redisson_lock__channel:{<key>}`.
    pub fn channel(key: &[u8]) -> Vec<u8> {
        [b"redisson_lock__channel:{", key, b"}"].concat()
    }
}
