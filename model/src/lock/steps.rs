//! A workload's rounds as steps: what the business code does, one call at a time.
//!
//! The idea: a round is a list of [`WorkloadStep`]s (acquire a lock, extend it, release it, read
//! the account, work, debit it), and each lock a round takes is a *slot* with an engine of
//! its own. A slot is a lock at a nesting depth: the first `acquire L` of a round takes slot (L, 0),
//! an `acquire L` while L is held takes (L, 1), which is what a re-entrant acquire is on the
//! wire (a second hold by the same owner: Redisson counts it, `SET NX` refuses it), and
//! `release L` gives back the deepest. Slots are numbered by their first appearance, so a
//! workload's `locks` is its slot table and a plan names slots by index.
//!
//! The shorthand ([`Steps::InOrder`]: acquire every lock in order, read, work, debit,
//! release in reverse) is the plan the old workload form always ran; it is computed rather
//! than stored.

use super::engine::Extension;
use std::fmt;

/// One call the business code makes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WorkloadStep {
    /// Acquire slot `slot`; `within_ms` bounds the wait (`tryLock(T)`, `blocking_timeout`),
    /// overriding the protocol's own acquire timeout.
    Acquire { slot: u8, within_ms: Option<u64> },
    /// Release slot `slot`.
    Release { slot: u8 },
    /// Extend slot `slot`'s hold (`how`).
    Extend { slot: u8, how: Extension },
    /// Read the account (the business operation of this round).
    Read,
    /// Work for one of these durations (a choice).
    Work { ms: Vec<u64> },
    /// Debit the account as the last read saw it (skipped when there is no read, the
    /// operation is done, or a checked stop event fired).
    Debit,
}

/// A step as the client runs it: the current one, or the end of the round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At<'a> {
    Acquire { slot: u8, within_ms: Option<u64> },
    Release { slot: u8 },
    Extend { slot: u8, how: Extension },
    Read,
    Work { ms: &'a [u64] },
    Debit,
    End,
}

/// The steps of a workload's rounds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Steps {
    /// The shorthand: acquire every lock in order, read if there is an account, work
    /// (`work_ms`), debit if there is an account, release in reverse order.
    InOrder,
    /// Round `r` runs list `r mod n`.
    Listed(Vec<Vec<WorkloadStep>>),
}

impl WorkloadStep {
    fn at(&self) -> At<'_> {
        match *self {
            WorkloadStep::Acquire { slot, within_ms } => At::Acquire { slot, within_ms },
            WorkloadStep::Release { slot } => At::Release { slot },
            WorkloadStep::Extend { slot, how } => At::Extend { slot, how },
            WorkloadStep::Read => At::Read,
            WorkloadStep::Work { ref ms } => At::Work { ms },
            WorkloadStep::Debit => At::Debit,
        }
    }
}

/// Step `k` of the shorthand over `locks` locks, with a read and a debit when `reads`.
pub(crate) fn in_order(locks: usize, reads: bool, work_ms: &[u64], k: usize) -> At<'_> {
    let body = if reads { 3 } else { 1 };
    if k < locks {
        return At::Acquire {
            slot: k as u8,
            within_ms: None,
        };
    }
    if k < locks + body {
        return match (reads, k - locks) {
            (true, 0) => At::Read,
            (true, 2) => At::Debit,
            _ => At::Work { ms: work_ms },
        };
    }
    if k < 2 * locks + body {
        return At::Release {
            slot: (2 * locks + body - 1 - k) as u8,
        };
    }
    At::End
}

/// Step `k` of a listed round.
pub fn listed(round: &[WorkloadStep], k: usize) -> At<'_> {
    round.get(k).map_or(At::End, WorkloadStep::at)
}

/// A step a lock name is written in, before slots are assigned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NamedStep {
    Acquire {
        lock: String,
        within_ms: Option<u64>,
    },
    Release {
        lock: String,
    },
    Extend {
        lock: String,
        how: Extension,
    },
    Read,
    Work {
        ms: Vec<u64>,
    },
    Debit,
}

/// Why a plan cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError {
    /// The round (index into the lists) and the step in it, or `None` for the round's end.
    pub round: usize,
    pub step: Option<usize>,
    pub message: String,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The most slots a workload may have (request ids carry a slot in a byte, and one value
/// is the lock service's own).
pub(crate) const MAX_SLOTS: usize = 64;

/// Rounds of steps over slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slotted {
    /// The slot table: a lock key per slot.
    pub locks: Vec<Vec<u8>>,
    pub rounds: Vec<Vec<WorkloadStep>>,
    /// The first `(round, step)` that extends a lock its round does not hold (a renewer
    /// thread's, through a lock object another thread acquired with), if any.
    pub unheld_extend: Option<(usize, usize)>,
}

/// Slots by (lock, depth), numbered by first appearance.
#[derive(Default)]
struct SlotTable(Vec<(String, usize)>);

impl SlotTable {
    fn slot_of(&mut self, lock: &str, depth: usize) -> Result<u8, String> {
        let key = (lock.to_string(), depth);
        if let Some(i) = self.0.iter().position(|t| *t == key) {
            return Ok(i as u8);
        }
        if self.0.len() == MAX_SLOTS {
            return Err(format!(
                "a workload holds at most {MAX_SLOTS} locks and nestings"
            ));
        }
        self.0.push(key);
        Ok((self.0.len() - 1) as u8)
    }
}

/// Assigns slots to the lock names of `rounds`: the slot table and the rounds over it. Each
/// round must release every lock it acquires, and release only what it holds.
pub fn assign_slots(rounds: &[Vec<NamedStep>]) -> Result<Slotted, PlanError> {
    let mut table = SlotTable::default();
    let mut unheld_extend = None;
    let mut out = Vec::with_capacity(rounds.len());
    for (r, round) in rounds.iter().enumerate() {
        let error = |step: Option<usize>, message: String| PlanError {
            round: r,
            step,
            message,
        };
        // The locks this round holds, innermost last, with their depth.
        let mut held: Vec<(String, usize)> = Vec::new();
        let mut steps = Vec::with_capacity(round.len());
        for (k, named) in round.iter().enumerate() {
            let mut unheld = false;
            let step = slot_step(named, &mut held, &mut table, &mut unheld);
            steps.push(step.map_err(|message| error(Some(k), message))?);
            if unheld && unheld_extend.is_none() {
                unheld_extend = Some((r, k));
            }
        }
        if let Some((lock, _)) = held.last() {
            return Err(error(
                None,
                format!("the round ends holding `{lock}`: add `release {lock}`"),
            ));
        }
        if steps.len() > u8::MAX as usize {
            return Err(error(
                None,
                format!("a round has at most {} steps", u8::MAX),
            ));
        }
        out.push(steps);
    }
    Ok(Slotted {
        locks: table.0.into_iter().map(|(l, _)| l.into_bytes()).collect(),
        rounds: out,
        unheld_extend,
    })
}

/// `named` over slots, given the locks the round `held` before it (updated); `unheld` is
/// set for an extension of a lock the round does not hold (its outermost slot).
fn slot_step(
    named: &NamedStep,
    held: &mut Vec<(String, usize)>,
    table: &mut SlotTable,
    unheld: &mut bool,
) -> Result<WorkloadStep, String> {
    Ok(match named {
        NamedStep::Acquire { lock, within_ms } => {
            let depth = held.iter().filter(|(l, _)| l == lock).count();
            let slot = table.slot_of(lock, depth)?;
            held.push((lock.clone(), depth));
            WorkloadStep::Acquire {
                slot,
                within_ms: *within_ms,
            }
        }
        NamedStep::Release { lock } => {
            let Some(at) = held.iter().rposition(|(l, _)| l == lock) else {
                return Err(format!(
                    "`release {lock}`: the round does not hold `{lock}` here"
                ));
            };
            let (_, depth) = held.remove(at);
            WorkloadStep::Release {
                slot: table.slot_of(lock, depth)?,
            }
        }
        NamedStep::Extend { lock, how } => {
            let depth = match held.iter().rev().find(|(l, _)| l == lock) {
                Some(&(_, depth)) => depth,
                None => {
                    *unheld = true;
                    0
                }
            };
            WorkloadStep::Extend {
                slot: table.slot_of(lock, depth)?,
                how: *how,
            }
        }
        NamedStep::Read => WorkloadStep::Read,
        NamedStep::Work { ms } => WorkloadStep::Work { ms: ms.clone() },
        NamedStep::Debit => WorkloadStep::Debit,
    })
}
