//! Words the commands share: durations for people, counts with their plural, an oracle
//! with its meaning, a trace file's stem.

use lockcheck::oracles::RedisWorld;
use lockcheck::scenario::{duration, Scenario};
use lockcheck_sim::{Model, Path};

/// `: what its violation means`, from the scenario's definition of the oracle `name`
/// (nothing if the scenario has no such oracle).
pub(super) fn meaning_of(scenario: &Scenario, name: &str) -> String {
    scenario
        .oracle(name)
        .map(|o| format!(": {}", o.meaning))
        .unwrap_or_default()
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

/// `x.trace.json` -> `x`: the name derived output files start from.
pub(super) fn stem(file: &str) -> String {
    let f = file.strip_suffix(".json").unwrap_or(file);
    f.strip_suffix(".trace").unwrap_or(f).to_string()
}

/// The most bytes of a file name made of a user's name (before its suffix).
pub(super) const MAX_FILE_STEM: usize = 96;

/// `text` safe as a file name: letters, digits and `-_=.` kept, anything else `_` (a run of
/// them one `_`); a name cut to [`MAX_FILE_STEM`] bytes, or mostly replaced, ends in a
/// hash of the whole text, so that two such names stay apart.
pub(super) fn file_safe(text: &str) -> String {
    let (mut out, mut replaced) = (String::new(), 0);
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || "-_=.".contains(c) {
            out.push(c);
        } else {
            replaced += 1;
            if !out.ends_with('_') {
                out.push('_');
            }
        }
    }
    let mostly_replaced = replaced * 2 > text.chars().count();
    if out.len() <= MAX_FILE_STEM && !mostly_replaced {
        return out;
    }
    // FNV-1a: stable across versions and platforms.
    let hash = (text.bytes()).fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    out.truncate(MAX_FILE_STEM - 17);
    format!("{out}-{hash:016x}")
}
