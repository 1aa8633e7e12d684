//! Words the commands share: durations for people, counts with their plural, a path quoted
//! for the shell, an oracle's meaning, a trace file's stem.

use crate::oracles::RedisWorld;
use crate::scenario::duration;
use lockcheck_sim::{Model, Path};

/// A short explanation of an oracle.
pub fn oracle_meaning(name: &str) -> &'static str {
    match name {
        "me-lock" => "two clients believed they held the same lock at the same time",
        "me-resource" => "the protected account accepted a stale holder's write (lost update or duplicate debit)",
        "liveness" => "a lock stayed unavailable longer than the bound after its holder crashed or was cut off",
        "detector-false-positive" => "a detector reported a deadlock cycle that did not exist in the true wait-for graph at report time",
        "detector-false-negative" => "a real deadlock cycle persisted longer than the bound without being reported",
        "deadlock-liveness" => "a real deadlock was not resolved within the bound",
        _ => "the oracle's condition failed",
    }
}

/// `20001` -> `20.001 s`, `200` -> `200 ms`.
pub fn human(ms: u64) -> String {
    let d = duration::format(ms as i64);
    match d.strip_suffix("ms") {
        Some(n) => format!("{n} ms"),
        None => match d.strip_suffix('s') {
            Some(n) => format!("{n} s"),
            None => d,
        },
    }
}

pub(super) fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

pub(super) fn faults_in(world: &RedisWorld, path: &Path<RedisWorld>) -> usize {
    path.steps
        .iter()
        .filter(|s| world.is_fault(&s.action))
        .count()
}

pub(super) fn quote(path: &std::path::Path) -> String {
    let s = path.display().to_string();
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `x.trace.json` -> `x`: the name derived output files start from.
pub(super) fn stem(file: &str) -> String {
    let f = file.strip_suffix(".json").unwrap_or(file);
    f.strip_suffix(".trace").unwrap_or(f).to_string()
}

/// `text` safe as a file name: letters, digits and `-_=.` kept, anything else `_`.
pub(super) fn file_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_=.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}
