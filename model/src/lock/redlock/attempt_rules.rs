//! How an attempt is decided, undone and judged. Seed 000, the Redis documentation,
//! node-redlock 4 and redsync agree ([`AttemptRules::SEED`]): an attempt is decided once
//! every node answered or timed out, its keys are deleted on every node after each failed
//! attempt, the validity counts from that attempt's start, and a quorum without validity
//! left is a failure. node-redlock 5 ([`AttemptRules::NODE_REDLOCK_5`]) differs in all four:
//! its `_attemptOperation` resolves as soon as a quorum voted either way (so with an even
//! number of nodes a tie, every node answered, never resolves), `acquire` deletes the keys
//! once, after the last attempt failed, reads `start = Date.now()` once before the first
//! attempt, and returns the lock without comparing its expiration with the clock.

use super::sweep::NodeSweep;
use super::{Dispatch, Redlock, RedlockState};

/// The rules of an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AttemptRules {
    pub decide: Decide,
    pub undo: Undo,
    pub validity_from: ValidityFrom,
    /// A quorum with no validity left is a failure (`false`: a lock all the same, its
    /// validity already over when it is reported).
    pub checks_validity: bool,
}

/// When an attempt (or the deletion after a failed one) is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decide {
    /// Once every node answered or timed out (or, local first, the local nodes are done
    /// and a quorum said OK).
    AllAnswers,
    /// As soon as a quorum said OK or a quorum failed; later answers are ignored, and a
    /// tie with every node answered is never decided (node-redlock 5).
    EarlyQuorum,
}

/// When a failed attempt's keys are deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Undo {
    /// After every failed attempt, before the retry delay.
    EachFailure,
    /// Once, after the last attempt failed (node-redlock 5); the keys a failed attempt set
    /// stay until then or until they expire.
    AfterLast,
}

/// Where the validity is counted from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValidityFrom {
    /// The start of the attempt that got the quorum.
    EachAttempt,
    /// The start of the first attempt of the acquire (node-redlock 5): retries eat into it.
    FirstAttempt,
}

impl AttemptRules {
    pub const SEED: AttemptRules = AttemptRules {
        decide: Decide::AllAnswers,
        undo: Undo::EachFailure,
        validity_from: ValidityFrom::EachAttempt,
        checks_validity: true,
    };

    /// node-redlock 5.0.0-beta.2's `acquire` and `_execute`.
    pub const NODE_REDLOCK_5: AttemptRules = AttemptRules {
        decide: Decide::EarlyQuorum,
        undo: Undo::AfterLast,
        validity_from: ValidityFrom::FirstAttempt,
        checks_validity: false,
    };

    pub fn is_seed(&self) -> bool {
        *self == AttemptRules::SEED
    }
}

impl Default for AttemptRules {
    fn default() -> Self {
        AttemptRules::SEED
    }
}

impl Default for Decide {
    fn default() -> Self {
        AttemptRules::SEED.decide
    }
}

impl Default for Undo {
    fn default() -> Self {
        AttemptRules::SEED.undo
    }
}

impl Default for ValidityFrom {
    fn default() -> Self {
        AttemptRules::SEED.validity_from
    }
}

impl Redlock {
    /// Whether a quorum of `sweep`'s nodes failed (refused, an error, no answer in time).
    fn quorum_failed(&self, sweep: &NodeSweep) -> bool {
        sweep.failed_count() >= self.quorum()
    }

    /// Whether an early-quorum sweep is over: a quorum said OK or a quorum failed.
    pub(super) fn early_decided(&self, sweep: &NodeSweep) -> bool {
        sweep.ok_count() >= self.quorum() || self.quorum_failed(sweep)
    }

    /// Whether a sweep other than an attempt (the deletion after a failed one, the
    /// release, a renewal or an extension) is over.
    pub(super) fn sweep_over(&self, sweep: &NodeSweep) -> bool {
        match self.rules.decide {
            Decide::AllAnswers => sweep.finished(),
            Decide::EarlyQuorum => self.early_decided(sweep),
        }
    }

    /// Until when the lock is held after `sweep`, an attempt of an acquire or an extension
    /// that ended at `now_ms` (engine clock): a quorum said OK and, if the rules check it,
    /// validity is left; the validity counts from the attempt's start or the first one's.
    pub(super) fn holds_until(
        &self,
        state: &RedlockState,
        sweep: &NodeSweep,
        now_ms: i64,
    ) -> Option<i64> {
        let started_ms = match self.rules.validity_from {
            ValidityFrom::EachAttempt => sweep.started_ms,
            ValidityFrom::FirstAttempt => state.first_started_ms,
        };
        let validity_ms = self.validity_ms(now_ms - started_ms);
        let valid_enough = validity_ms > 0 || !self.rules.checks_validity;
        (sweep.ok_count() >= self.quorum() && valid_enough).then_some(now_ms + validity_ms)
    }
}

impl Redlock {
    /// Whether an attempt can be decided: every node is done, or (local first) the local
    /// nodes are done and a quorum is reached; or, deciding early, a quorum either way.
    pub(super) fn decided(&self, sweep: &NodeSweep) -> bool {
        match self.rules.decide {
            Decide::AllAnswers => {
                sweep.finished()
                    || matches!(self.dispatch, Dispatch::LocalFirst { .. })
                        && sweep.resolved(self.sequential())
                        && sweep.ok_count() >= self.quorum()
            }
            Decide::EarlyQuorum => self.early_decided(sweep),
        }
    }
}
