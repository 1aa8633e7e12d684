//! A lock object shared by threads of one process without thread-local storage (redis-py's
//! `Lock(..., thread_local=False)`).
//!
//! The idea: the object keeps one token per lock, the last one any of its threads stored.
//! An acquire stores the acquiring thread's token; a release clears it (redis-py sets
//! `local.token = None` before it sends the delete); a release or an extension presents
//! whatever the object holds, and raises `LockError` before sending anything when it holds
//! none. So a thread whose key expired and was taken by another thread of the object
//! releases *that* thread's lock. Each thread is a client of its own (its own connection);
//! the object's writes reach the other threads as in-process messages with no delay
//! ([`Msg::LockObject`]), so a thread that reads the token at the instant another writes it
//! may see either, as in the real race. A thread may extend through the object without
//! having acquired (a renewer thread): it presents what the object holds. Without sharing (`lock_object_peers` empty, the
//! default and redis-py's `thread_local=True`) the object holds the client's own token.

use super::{ClientState, LockClient};
use crate::msg::Msg;
use crate::node::RedisContext;

/// What a thread's lock object holds for one lock.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ObjectToken {
    /// This thread's own token.
    Own,
    /// Another thread's, stored by its acquire.
    Other(Vec<u8>),
    /// None: a release cleared it.
    Cleared,
}

impl LockClient {
    /// Whether other threads share this client's lock object.
    pub(super) fn shares_lock_object(&self) -> bool {
        !self.workload.lock_object_peers.is_empty()
    }

    /// The initial object tokens: none kept when nothing is shared; a shared object holds
    /// no token until a thread acquires.
    pub(super) fn initial_object_tokens(&self) -> Vec<ObjectToken> {
        if self.shares_lock_object() {
            vec![ObjectToken::Cleared; self.workload.locks.len()]
        } else {
            Vec::new()
        }
    }

    /// The token slot `slot`'s lock object presents on a release or an extension.
    pub(super) fn object_token<'a>(
        &'a self,
        tokens: &'a [ObjectToken],
        slot: u8,
    ) -> Option<&'a [u8]> {
        match tokens.get(slot as usize) {
            None | Some(ObjectToken::Own) => Some(&self.owner),
            Some(ObjectToken::Other(token)) => Some(token),
            Some(ObjectToken::Cleared) => None,
        }
    }

    /// Slot `slot`'s acquire succeeded: the object now holds this thread's token.
    pub(super) fn store_object_token(
        &self,
        state: &mut ClientState,
        slot: u8,
        ctx: &mut RedisContext,
    ) {
        self.write_object_token(state, slot, ObjectToken::Own, Some(self.owner.clone()), ctx);
    }

    /// Slot `slot`'s release presented a token: the object holds none now.
    pub(super) fn clear_object_token(
        &self,
        state: &mut ClientState,
        slot: u8,
        ctx: &mut RedisContext,
    ) {
        self.write_object_token(state, slot, ObjectToken::Cleared, None, ctx);
    }

    fn write_object_token(
        &self,
        state: &mut ClientState,
        slot: u8,
        mine: ObjectToken,
        told: Option<Vec<u8>>,
        ctx: &mut RedisContext,
    ) {
        if !self.shares_lock_object() {
            return;
        }
        state.object_tokens[slot as usize] = mine;
        let key = &self.workload.locks[slot as usize];
        for &peer in &self.workload.lock_object_peers {
            ctx.send(
                peer,
                Msg::LockObject {
                    key: key.clone(),
                    token: told.clone(),
                },
            );
        }
    }

    /// Another thread of the object stored `token` for `key` (or cleared it: `None`).
    pub(super) fn on_lock_object(
        &self,
        state: &mut ClientState,
        key: &[u8],
        token: Option<Vec<u8>>,
    ) {
        if !self.shares_lock_object() {
            return;
        }
        for (slot, lock) in self.workload.locks.iter().enumerate() {
            if lock.as_slice() == key {
                state.object_tokens[slot] = match &token {
                    Some(t) if *t == self.owner => ObjectToken::Own,
                    Some(t) => ObjectToken::Other(t.clone()),
                    None => ObjectToken::Cleared,
                };
            }
        }
    }
}
