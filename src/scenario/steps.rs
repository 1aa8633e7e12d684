//! A workload written as steps: `steps = ["acquire inventory", "work 20ms", "release
//! inventory", "acquire payment", "read", "debit", "release payment"]` for every round, or
//! `round_steps = [[...], [...]]`, one list per round. The old form (`locks`, `work_ms`,
//! `uses_account`) is the shorthand for "acquire every lock in order, read, work, debit,
//! release in reverse".
//!
//! A step is one of
//!
//! | step | what the business code does |
//! |---|---|
//! | `acquire L` | takes lock `L` (again, while held: a re-entrant acquire) |
//! | `try-acquire L within T` | takes `L`, waiting at most `T` (`tryLock(T)`, `blocking_timeout`) |
//! | `release L` | gives back `L` (its innermost hold) |
//! | `extend L`, `extend L by D`, `extend L to D` | resets `L`'s TTL, adds `D` to what is left, or sets it to `D` (redis-py's `reacquire()`, `extend(D)`, `extend(D, replace_ttl=True)`) |
//! | `read` | reads the account |
//! | `work D` | works `D`, or one of `D1 \| D2 \| ...` (a choice) |
//! | `debit` | debits the account as the read saw it |

use super::build::{error, ScenarioError};
use super::duration;
use super::WorkloadSpec;
use lockcheck_model::lock::engine::Extension;
use lockcheck_model::lock::steps::{assign_slots, WorkloadStep};
use lockcheck_model::lock::{NamedStep, Protocol, Steps};

/// What a workload runs, read from either form.
pub(super) struct Plan {
    /// The slot table: a lock key per slot.
    pub locks: Vec<Vec<u8>>,
    pub steps: Steps,
    pub rounds: u32,
    /// Whether the rounds read and debit the account.
    pub uses_account: bool,
    /// The field of the first `extend` step, if any (only some protocols extend).
    pub first_extend: Option<String>,
    /// The field of the first `extend L by D` or `extend L to D` step, if any.
    pub first_timed_extend: Option<String>,
    /// The field and text of the first `extend L` of a lock its round does not hold.
    pub first_unheld_extend: Option<(String, String)>,
}

/// The step words, for error messages.
const STEPS: &str = "acquire L, try-acquire L within T, extend L [by D | to D], release L, read, work D (or D1 | D2), debit";

/// Reads the workload of client `i`.
pub(super) fn plan(w: &WorkloadSpec, i: usize) -> Result<Plan, ScenarioError> {
    let field = |f: &str| format!("clients[{i}].workload.{f}");
    let lists: Vec<(String, &[String])> = match (w.steps.is_empty(), w.round_steps.is_empty()) {
        (true, true) => return shorthand(w, &field),
        (false, false) => {
            return Err(error(
                field("round_steps"),
                "give `steps` (every round) or `round_steps` (a list per round), not both",
            ))
        }
        (false, true) => vec![(field("steps"), &w.steps[..])],
        (true, false) => w
            .round_steps
            .iter()
            .enumerate()
            .map(|(r, list)| (field(&format!("round_steps[{r}]")), &list[..]))
            .collect(),
    };
    refuse_shorthand_fields(w, &field)?;
    let rounds = match w.round_steps.len() {
        0 => w.rounds,
        _ if w.rounds != 1 => {
            return Err(error(
                field("rounds"),
                "with `round_steps`, each list is a round: leave `rounds` out",
            ))
        }
        n => n as u32,
    };
    let mut named = Vec::with_capacity(lists.len());
    for (list_field, list) in &lists {
        if list.is_empty() {
            return Err(error(
                list_field.as_str(),
                "a round needs at least one step",
            ));
        }
        named.push(read_round(list, list_field)?);
    }
    let slotted = assign_slots(&named).map_err(|e| {
        let (list_field, list) = &lists[e.round];
        match e.step {
            Some(k) => error(format!("{list_field}[{k}]"), format!("`{}`: {e}", list[k])),
            None => error(list_field.as_str(), e.message),
        }
    })?;
    if slotted.locks.is_empty() {
        return Err(error(
            lists[0].0.as_str(),
            "a client needs at least one lock: add `acquire L`",
        ));
    }
    let uses_account = slotted
        .rounds
        .iter()
        .flatten()
        .any(|s| matches!(s, WorkloadStep::Read | WorkloadStep::Debit));
    Ok(Plan {
        first_unheld_extend: step_at(&lists, slotted.unheld_extend),
        first_extend: first_extend(&lists, &named, false),
        first_timed_extend: first_extend(&lists, &named, true),
        locks: slotted.locks,
        steps: Steps::Listed(slotted.rounds),
        rounds,
        uses_account,
    })
}

/// The field and text of the step at `(round, step)` of `lists`, if given.
fn step_at(lists: &[(String, &[String])], at: Option<(usize, usize)>) -> Option<(String, String)> {
    let (r, k) = at?;
    let (list_field, list) = &lists[r];
    Some((format!("{list_field}[{k}]"), list[k].clone()))
}

/// The shorthand's fields, which steps replace.
fn refuse_shorthand_fields(
    w: &WorkloadSpec,
    field: &dyn Fn(&str) -> String,
) -> Result<(), ScenarioError> {
    for (name, given) in [
        ("locks", !w.locks.is_empty()),
        ("work_ms", !w.work_ms.is_empty()),
        ("uses_account", w.uses_account),
    ] {
        if given {
            return Err(error(
                field(name),
                format!(
                    "`{name}` belongs to the shorthand; with steps, write it as steps ({STEPS})"
                ),
            ));
        }
    }
    Ok(())
}

/// The field of the first `extend` step of the rounds (`lists`, read as `named`), or of
/// the first `by` or `to` a duration when `timed`.
fn first_extend(
    lists: &[(String, &[String])],
    named: &[Vec<NamedStep>],
    timed: bool,
) -> Option<String> {
    lists
        .iter()
        .zip(named)
        .find_map(|((list_field, _), round)| {
            round
            .iter()
            .position(|step| {
                matches!(step, NamedStep::Extend { how, .. } if !timed || *how != Extension::Ttl)
            })
            .map(|k| format!("{list_field}[{k}]"))
        })
}

/// Where `extend` steps can run: every form on the single-node kind (redis-py), `extend L`
/// on Redlock without a watchdog or automatic extension (redsync's `Extend`, node-redlock's
/// `extend`).
pub(super) fn check_extends(plan: &Plan, protocol: &Protocol) -> Result<(), ScenarioError> {
    let Some(at) = &plan.first_extend else {
        return Ok(());
    };
    match protocol {
        Protocol::SingleNode(_) => Ok(()),
        Protocol::Redlock(r) if r.watchdog.is_some() || r.auto_extension.is_some() => Err(error(
            at.as_str(),
            "`extend` on Redlock is the caller's (redsync's `Extend`, node-redlock's `extend`), for a lock without a watchdog or automatic extension: this one renews itself",
        )),
        Protocol::Redlock(_) => match &plan.first_timed_extend {
            Some(timed) => Err(error(
                timed.as_str(),
                "`extend L by D` and `extend L to D` are redis-py's, on the single-node kind; redsync's `Extend` and node-redlock's `extend` reset the TTL: write `extend L`",
            )),
            None => Ok(()),
        },
        Protocol::Redisson(_) => Err(error(
            at.as_str(),
            "`extend` runs on the single-node kind (redis-py's `extend`, `reacquire`) and on Redlock (redsync's `Extend`, node-redlock's `extend`); Redisson renews with its watchdog",
        )),
    }
}

fn shorthand(w: &WorkloadSpec, field: &dyn Fn(&str) -> String) -> Result<Plan, ScenarioError> {
    if w.locks.is_empty() {
        return Err(error(field("locks"), "a client needs at least one lock"));
    }
    if w.work_ms.is_empty() {
        return Err(error(field("work_ms"), "give at least one work duration"));
    }
    Ok(Plan {
        locks: w.locks.iter().map(|l| l.as_bytes().to_vec()).collect(),
        steps: Steps::InOrder,
        rounds: w.rounds,
        uses_account: w.uses_account,
        first_extend: None,
        first_timed_extend: None,
        first_unheld_extend: None,
    })
}

/// Reads one round's steps; a debit must come after a read.
fn read_round(list: &[String], list_field: &str) -> Result<Vec<NamedStep>, ScenarioError> {
    let mut steps = Vec::with_capacity(list.len());
    for (k, text) in list.iter().enumerate() {
        let step = read_step(text).map_err(|message| {
            error(format!("{list_field}[{k}]"), format!("`{text}`: {message}"))
        })?;
        if step == NamedStep::Debit && !steps.contains(&NamedStep::Read) {
            return Err(error(
                format!("{list_field}[{k}]"),
                "`debit` writes what a `read` saw: put a `read` before it in the round",
            ));
        }
        steps.push(step);
    }
    Ok(steps)
}

/// Reads one step.
pub(super) fn read_step(text: &str) -> Result<NamedStep, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let lock = |rest: &[&str]| match rest {
        [lock] => Ok(lock.to_string()),
        [] => Err("name the lock".to_string()),
        _ => Err("a lock name is one word".to_string()),
    };
    match words.as_slice() {
        ["acquire", rest @ ..] => Ok(NamedStep::Acquire {
            lock: lock(rest)?,
            within_ms: None,
        }),
        ["try-acquire", name, "within", wait] => Ok(NamedStep::Acquire {
            lock: lock(&[name])?,
            within_ms: Some(positive(wait)?),
        }),
        ["try-acquire", ..] => {
            Err("write `try-acquire L within T`, e.g. `try-acquire order within 5s`".into())
        }
        ["release", rest @ ..] => Ok(NamedStep::Release { lock: lock(rest)? }),
        ["extend", name] => Ok(NamedStep::Extend {
            lock: name.to_string(),
            how: Extension::Ttl,
        }),
        ["extend", name, "by", d] => Ok(NamedStep::Extend {
            lock: name.to_string(),
            how: Extension::By(positive(d)?),
        }),
        ["extend", name, "to", d] => Ok(NamedStep::Extend {
            lock: name.to_string(),
            how: Extension::To(positive(d)?),
        }),
        ["extend", ..] => Err(
            "write `extend L`, `extend L by D` or `extend L to D`, e.g. `extend report by 5s`"
                .into(),
        ),
        ["read"] | ["read", "account"] => Ok(NamedStep::Read),
        ["debit"] | ["debit", "account"] => Ok(NamedStep::Debit),
        ["read" | "debit", other, ..] => Err(format!(
            "the scenario's account is `account`, not `{other}`"
        )),
        ["work", ..] => {
            let rest = text.trim_start()["work".len()..].trim();
            if rest.is_empty() {
                return Err("give how long, e.g. `work 200ms` or `work 200ms | 2s`".into());
            }
            let ms = rest
                .split('|')
                .map(non_negative)
                .collect::<Result<_, _>>()?;
            Ok(NamedStep::Work { ms })
        }
        [] => Err(format!("an empty step (steps: {STEPS})")),
        [word, ..] => Err(format!("unknown step `{word}` (steps: {STEPS})")),
    }
}

fn non_negative(text: &str) -> Result<u64, String> {
    match duration::parse(text)? {
        Some(ms) if ms >= 0 => Ok(ms as u64),
        Some(_) => Err(format!("`{}`: a duration cannot be negative", text.trim())),
        None => Err(format!("`{}`: a step takes a finite duration", text.trim())),
    }
}

fn positive(text: &str) -> Result<u64, String> {
    match non_negative(text)? {
        0 => Err(format!("`{text}`: the wait must be longer than 0")),
        ms => Ok(ms),
    }
}
