//! Moments in a lock client's life that a fault window can count from ("p1 acquires"):
//! each is a predicate on the client's state that becomes true at that moment. The kernel
//! records the first instant it holds (`lockcheck_sim::world::Anchor`), so "acquires" is
//! the client's first grant, "releases" the start of its first release.
//!
//! Each reads only the client's phase, its grants and its give-ups, which its fingerprint
//! always keeps (a finished client declares only what it read, its token and its Redlock
//! bookkeeping dead).

use super::client::{ClientState, Phase};

/// A moment of a client's rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClientEvent {
    /// It begins its first round.
    Starts,
    /// It is granted a lock (believes it holds one).
    Acquires,
    /// It begins the work inside its critical section.
    Works,
    /// It begins releasing.
    Releases,
    /// It has finished every round.
    IsDone,
    /// It gives up acquiring (its acquire timeout or attempt limit).
    GivesUp,
}

impl ClientEvent {
    /// Every event, with the words a scenario names it by.
    pub const ALL: [(ClientEvent, &'static str); 6] = [
        (ClientEvent::Starts, "starts"),
        (ClientEvent::Acquires, "acquires"),
        (ClientEvent::Works, "works"),
        (ClientEvent::Releases, "releases"),
        (ClientEvent::IsDone, "is done"),
        (ClientEvent::GivesUp, "gives up"),
    ];

    /// The event these words name.
    pub fn named(words: &str) -> Option<ClientEvent> {
        let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
        Self::ALL.iter().find(|(_, w)| *w == words).map(|(e, _)| *e)
    }

    /// The words a scenario names it by.
    pub fn words(self) -> &'static str {
        let (_, words) = Self::ALL
            .iter()
            .find(|(e, _)| *e == self)
            .expect("every event is listed");
        words
    }

    /// Whether the event has come about in `state` (true from its moment on, at least
    /// until the next round).
    pub fn holds(self, state: &ClientState) -> bool {
        match self {
            ClientEvent::Starts => state.phase != Phase::Idle || state.round > 0,
            ClientEvent::Acquires => state.held.iter().any(Option::is_some),
            ClientEvent::Works => state.phase == Phase::Working,
            ClientEvent::Releases => matches!(state.phase, Phase::Releasing(_)),
            ClientEvent::IsDone => state.phase == Phase::Done,
            ClientEvent::GivesUp => state.gave_up > 0,
        }
    }
}
