//! A state's representative fingerprint, remembered in the state once it is computed.
//!
//! The idea: a search computes a state's key when the state is generated and again when it
//! is expanded (partial-order reduction records the expanded states by key, for its cycle
//! proviso). Under symmetry reduction that key is the fingerprint of the state's class
//! representative, the dearest thing the search computes about a state. So the state keeps
//! the answer beside itself, in a cell written once.
//!
//! Why it cannot give a wrong answer: the memo is taken only for the kind of key it holds
//! (plain or without dead values) and only while the state's own fingerprint is the one it was written
//! for, so a state changed after its memo was written is computed afresh. A copy of a state
//! starts with an empty memo (successors are made by copying their parent and changing the
//! copy), and the memo takes no part in comparing or hashing states. Any thread may write
//! it: every thread computes the same answer for the same state.

use crate::fingerprint::{lane_a, Fingerprint, Lanes};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

/// The representative's fingerprint of the state that holds it, once computed.
#[derive(Default)]
pub struct KeyMemo(OnceLock<Remembered>);

/// What a memo holds.
#[derive(Clone, Copy)]
struct Remembered {
    /// Lane A of the state's own (plain) fingerprint when the memo was written.
    own: u64,
    /// Whether `key` is the representative's fingerprint without dead values
    /// (`world::dead_values`).
    without_dead: bool,
    /// The representative's fingerprint, and whether the representative differs from the
    /// state.
    key: (Lanes, bool),
}

impl KeyMemo {
    /// The remembered key of kind `without_dead` of a state whose own fingerprint is `own`, if
    /// that is what the memo holds.
    pub fn get(&self, own: Fingerprint, without_dead: bool) -> Option<(Fingerprint, bool)> {
        let r = self.0.get()?;
        (r.own == lane_a(own) && r.without_dead == without_dead).then(|| (r.key.0.into(), r.key.1))
    }

    /// Remembers `key` of kind `without_dead` for a state whose own fingerprint is `own`, unless
    /// the memo holds something already.
    pub fn remember(&self, own: Fingerprint, without_dead: bool, key: (Fingerprint, bool)) {
        let _ = self.0.set(Remembered {
            own: lane_a(own),
            without_dead,
            key: (key.0.into(), key.1),
        });
    }
}

/// A copy starts empty: the copy is about to be changed into another state.
impl Clone for KeyMemo {
    fn clone(&self) -> Self {
        KeyMemo::default()
    }
}

/// Memos take no part in comparing states.
impl PartialEq for KeyMemo {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for KeyMemo {}

/// Memos take no part in hashing states.
impl Hash for KeyMemo {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl fmt::Debug for KeyMemo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "KeyMemo(set)"
        } else {
            "KeyMemo(empty)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memo_answers_only_its_own_state_and_kind_and_is_not_copied() {
        let memo = KeyMemo::default();
        assert_eq!(memo.get(7, false), None);
        memo.remember(7, false, (99, true));
        assert_eq!(memo.get(7, false), Some((99, true)));
        assert_eq!(memo.get(7, true), None, "another kind of key");
        assert_eq!(memo.get(8, false), None, "the state changed");
        memo.remember(7, false, (5, false));
        assert_eq!(memo.get(7, false), Some((99, true)), "written once");
        assert_eq!(memo.clone().get(7, false), None, "a copy starts empty");
    }
}
