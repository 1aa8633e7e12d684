//! The mechanism of a violation in the protocol's own words, where the model knows it: read
//! off the causal slice (`causal.rs`). A watchdog that stops for good after a failed renewal
//! (Redisson up to 3.43), a key that expired early on a node whose clock jumped, a validity
//! computed from a client clock that stepped, a plain `DEL` of another owner's key, a lease
//! that ran out during a pause, a failover that lost a write no replica had, a crash that
//! lost a key, an owner-checked delete that presented another thread's token.

use super::causal::{renewal_failed_at, sender, Slice};
use super::causal_links::{holds_key, Part};
use super::seconds;
use crate::oracles::{self, RedisWorld};
use lockcheck_model::lock::redisson::Generation;
use lockcheck_model::lock::Protocol;
use lockcheck_sim::world::WorldAction;
use lockcheck_sim::Path;

/// A key of one node that one process wrote and another then changed.
struct Takeover {
    /// The step that changed it.
    step: usize,
    node: usize,
    key: Vec<u8>,
    /// The step that wrote it before, and the process whose message did.
    written: usize,
    writer: usize,
    /// The process whose message changed it.
    by: usize,
}

/// Every key of the slice that changed hands: written by one process, changed by another.
fn takeovers(path: &Path<RedisWorld>, slice: &Slice) -> Vec<Takeover> {
    let mut out = Vec::new();
    for &k in &slice.steps {
        let (Some(node), Some(by)) = (slice.links[k].process, sender(path, k)) else {
            continue;
        };
        for part in &slice.links[k].changed {
            let Part::Key(key) = part else { continue };
            // The last write by a message (a clock step or a crash may have changed it
            // since).
            let written = (0..k).rev().find_map(|j| {
                let wrote =
                    slice.links[j].process == Some(node) && slice.links[j].changed.contains(part);
                wrote.then(|| Some((j, sender(path, j)?))).flatten()
            });
            let Some((written, writer)) = written else {
                continue;
            };
            if writer != by {
                out.push(Takeover {
                    step: k,
                    node,
                    key: key.clone(),
                    written,
                    writer,
                    by,
                });
            }
        }
    }
    out
}

/// The mechanism of the violation whose slice is `slice`, one sentence each.
pub(crate) fn mechanisms(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    slice: &Slice,
) -> Vec<String> {
    let taken = takeovers(path, slice);
    let mut out = Vec::new();
    out.extend(watchdog_stopped(world, path, slice, &taken));
    out.extend(plain_del(world, path, &taken));
    out.extend(foreign_token_delete(world, path, &taken));
    out.extend(lease_during_pause(world, path, slice, &taken));
    out.extend(clock_steps(world, path, slice, &taken));
    out.extend(failover(world, path, slice));
    out.extend(crash_lost_key(world, path, slice, &taken));
    let mut seen = Vec::new();
    out.retain(|m| {
        let new = !seen.contains(m);
        seen.push(m.clone());
        new
    });
    out
}

fn name(world: &RedisWorld, p: usize) -> &str {
    world.process_name(p)
}

fn key_text(key: &[u8]) -> String {
    String::from_utf8_lossy(key).into_owned()
}

fn at(path: &Path<RedisWorld>, k: usize) -> String {
    seconds(path.states[k + 1].now_ms)
}

/// A renewal that failed on a Redisson client whose watchdog then stops for good.
fn watchdog_stopped(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    slice: &Slice,
    taken: &[Takeover],
) -> Vec<String> {
    let mut out = Vec::new();
    for &k in &slice.steps {
        let Some(c) = slice.links[k]
            .process
            .filter(|_| renewal_failed_at(world, path, k))
        else {
            continue;
        };
        let stops = oracles::clients(world).any(|(q, client)| {
            q == c
                && matches!(&client.protocol, Protocol::Redisson(r) if r.generation == Generation::UpTo3_43)
        });
        let then = taken
            .iter()
            .find(|t| t.writer == c && t.step > k)
            .map(|t| {
                format!(
                    ", and {} took {} at t={}",
                    name(world, t.by),
                    key_text(&t.key),
                    at(path, t.step)
                )
            })
            .unwrap_or_default();
        if !stops && then.is_empty() {
            continue;
        }
        out.push(if stops {
            format!(
                "{c_name}'s renewal failed at t={} ({}); Redisson up to 3.43 (3.17 among them) stops the watchdog for good after a failed renewal, so the lease ran out while {c_name} still believed it held the lock{then}",
                at(path, k),
                path.steps[k].label,
                c_name = name(world, c)
            )
        } else {
            format!("{}'s renewal failed at t={} ({}){then}", name(world, c), at(path, k), path.steps[k].label)
        });
    }
    out
}

/// A `DEL` (no owner check) that deleted a key another client wrote.
fn plain_del(world: &RedisWorld, path: &Path<RedisWorld>, taken: &[Takeover]) -> Vec<String> {
    taken
        .iter()
        .filter(|t| {
            path.steps[t.step].label.contains(": DEL ")
                && !holds_key(world, &path.states[t.step + 1], t.node, &t.key)
        })
        .map(|t| {
            format!(
                "{by}'s plain DEL {key} at t={} deleted {writer}'s key on {node}: a DEL does not check who owns the lock",
                at(path, t.step),
                by = name(world, t.by),
                key = key_text(&t.key),
                writer = name(world, t.writer),
                node = name(world, t.node)
            )
        })
        .collect()
}

/// An owner-checked delete that removed another client's key: it presented that client's
/// token, which only a lock object shared by threads (redis-py's `thread_local=False`) hands
/// over.
fn foreign_token_delete(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    taken: &[Takeover],
) -> Vec<String> {
    taken
        .iter()
        .filter(|t| {
            path.steps[t.step].label.contains("compare-and-delete")
                && !holds_key(world, &path.states[t.step + 1], t.node, &t.key)
        })
        .map(|t| {
            let (by, writer) = (name(world, t.by), name(world, t.writer));
            let shared = oracles::clients(world)
                .any(|(q, c)| q == t.by && c.workload.lock_object_peers.contains(&t.writer));
            let how = if shared {
                format!(": {by} and {writer} share one lock object without thread-local storage, and {writer}'s acquire stored its token there")
            } else {
                String::new()
            };
            format!(
                "{by}'s release at t={} presented {writer}'s token and deleted {writer}'s key {} on {}{how}",
                at(path, t.step),
                key_text(&t.key),
                name(world, t.node)
            )
        })
        .collect()
}

/// A holder's key that expired while the holder was paused, and was then taken.
fn lease_during_pause(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    slice: &Slice,
    taken: &[Takeover],
) -> Vec<String> {
    let mut out = Vec::new();
    for &f in &slice.steps {
        let WorldAction::Pause {
            process,
            duration_ms,
        } = path.steps[f].action
        else {
            continue;
        };
        let (from_ms, to_ms) = (
            path.states[f + 1].now_ms,
            path.states[f + 1].now_ms + duration_ms,
        );
        // The pause stops every thread of `process`'s program; a renewer among them counts.
        let stopped: Vec<usize> = std::iter::once(process)
            .chain(world.faults.companions(process))
            .collect();
        for t in taken
            .iter()
            .filter(|t| stopped.contains(&t.writer) && t.written < f)
        {
            let gone = (f + 1..=t.step).find(|&i| {
                path.states[i].now_ms <= to_ms && !holds_key(world, &path.states[i], t.node, &t.key)
            });
            let Some(i) = gone else { continue };
            out.push(format!(
                "{p}'s lease on {key} ran out at t={} during its pause ({} to {}){renewer}; {by} took the lock at t={}, and {p} went on as holder when it woke",
                seconds(path.states[i].now_ms),
                seconds(from_ms),
                seconds(to_ms),
                at(path, t.step),
                renewer = match t.writer == process {
                    true => String::new(),
                    false => format!(", which stopped {} from renewing it too", name(world, t.writer)),
                },
                p = name(world, process),
                key = key_text(&t.key),
                by = name(world, t.by)
            ));
            break;
        }
    }
    out
}

/// A clock step on a node (its keys expire early by true time) or on a client (its
/// validity is computed from a stepped clock).
fn clock_steps(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    slice: &Slice,
    taken: &[Takeover],
) -> Vec<String> {
    let mut out = Vec::new();
    for &f in &slice.steps {
        let WorldAction::ClockStep { process, delta_ms } = path.steps[f].action else {
            continue;
        };
        let size = format!(
            "{}{}",
            if delta_ms >= 0 { "+" } else { "-" },
            seconds(delta_ms.unsigned_abs())
        );
        let client = oracles::clients(world).any(|(q, _)| q == process);
        if client {
            out.push(format!(
                "{p}'s clock stepped {size} at t={}: the validity {p} computes from that clock no longer matches the keys' TTLs on the nodes",
                at(path, f),
                p = name(world, process)
            ));
            continue;
        }
        if let Some(t) = taken.iter().find(|t| t.node == process && t.step > f) {
            out.push(format!(
                "the clock of {node} jumped {size} at t={}: {w}'s key {key} there expired early by true time, and {by} took it at t={} while {w}'s validity, computed on its own clock, still ran",
                at(path, f),
                at(path, t.step),
                node = name(world, process),
                w = name(world, t.writer),
                key = key_text(&t.key),
                by = name(world, t.by)
            ));
        }
    }
    out
}

/// A replica promoted to master without a key a client had been granted on the old one.
fn failover(world: &RedisWorld, path: &Path<RedisWorld>, slice: &Slice) -> Vec<String> {
    let mut out = Vec::new();
    for &k in &slice.steps {
        let Some(n) = slice.links[k].process else {
            continue;
        };
        let promoted = slice.links[k].changed.contains(&Part::Role)
            && path.states[k + 1]
                .actor(n)
                .and_then(|s| s.as_redis())
                .is_some_and(|s| s.is_master());
        if !promoted {
            continue;
        }
        let lost = slice
            .steps
            .iter()
            .copied()
            .filter(|&j| j < k)
            .find_map(|j| {
                let m = slice.links[j].process.filter(|&m| m != n)?;
                let writer = sender(path, j)?;
                let key = slice.links[j].changed.iter().find_map(|p| match p {
                    Part::Key(key) if holds_key(world, &path.states[j + 1], m, key) => {
                        Some(key.clone())
                    }
                    _ => None,
                })?;
                (!holds_key(world, &path.states[k + 1], n, &key)).then_some((j, m, writer, key))
            });
        out.push(match lost {
            Some((j, m, writer, key)) => format!(
                "{node} was promoted to master at t={} without {w}'s {key}, which {m} granted at t={} and never replicated: the failover lost the lock",
                at(path, k),
                at(path, j),
                node = name(world, n),
                w = name(world, writer),
                key = key_text(&key),
                m = name(world, m)
            ),
            None => format!("{} was promoted to master at t={}", name(world, n), at(path, k)),
        });
    }
    out
}

/// A node that crashed holding a client's key and came back without it.
fn crash_lost_key(
    world: &RedisWorld,
    path: &Path<RedisWorld>,
    slice: &Slice,
    taken: &[Takeover],
) -> Vec<String> {
    let mut out = Vec::new();
    for &f in &slice.steps {
        let WorldAction::Crash { process, .. } = path.steps[f].action else {
            continue;
        };
        if let Some(t) = taken
            .iter()
            .find(|t| t.node == process && t.written < f && f < t.step)
        {
            out.push(format!(
                "{node} crashed at t={} holding {w}'s {key} and came back without it; {by} took the lock at t={} while {w} still believed it held it",
                at(path, f),
                at(path, t.step),
                node = name(world, process),
                w = name(world, t.writer),
                key = key_text(&t.key),
                by = name(world, t.by)
            ));
        }
    }
    out
}
