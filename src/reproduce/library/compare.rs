//! What the library sent, set beside what the model's client sent: every command reduced to
//! what matters to the lock (its purpose, key, TTL and numeric arguments; the token
//! abstracted, a script named by what it does), per client and server, runs of the same
//! command (retries) folded with their count. Setting a connection up, loading a script, and
//! an `EVALSHA` the server did not know (`NOSCRIPT`), closing the connection (`QUIT`) and
//! the driver's warm-up of the script cache (key `lockcheck:warmup`) run nothing on the lock
//! and are left out.

use super::sha1::sha1_hex;
use super::tap::{values, Chunk};
use lockcheck_model::redis::Reply;
use std::collections::BTreeMap;

/// One command, as the comparison sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    /// `acquire order_lock ttl=10000`, `release order_lock`, `extend order_lock 5000 0`...
    pub shape: String,
    /// Virtual ms it reached the tap (the model's time, for the model's).
    pub at_ms: f64,
    pub reply: Option<Reply>,
    /// The trace step that delivered the reply (model's only, 1-based).
    pub reply_step: Option<usize>,
    /// The trace step that delivered the command (model's only, 1-based).
    pub step: Option<usize>,
}

/// Whether `argv` is a compare-and-delete release.
pub fn is_release(argv: &[Vec<u8>]) -> bool {
    shape(argv, &BTreeMap::new()).starts_with("release ")
}

/// `argv` reduced to what matters; `scripts` maps a SHA-1 to the script body.
pub fn shape(argv: &[Vec<u8>], scripts: &BTreeMap<String, Vec<u8>>) -> String {
    let text = |b: &Vec<u8>| String::from_utf8_lossy(b).into_owned();
    let Some(name) = argv.first().map(|n| text(n).to_ascii_uppercase()) else {
        return "(empty)".into();
    };
    match name.as_str() {
        "SET" if argv.len() >= 3 => {
            let upper: Vec<String> = argv[3..]
                .iter()
                .map(|a| text(a).to_ascii_uppercase())
                .collect();
            let ttl = upper
                .iter()
                .position(|a| a == "PX")
                .and_then(|i| argv.get(4 + i))
                .map_or("none".to_string(), text);
            let nx = if upper.iter().any(|a| a == "NX") {
                "acquire"
            } else {
                "SET"
            };
            format!("{nx} {} ttl={ttl}", text(&argv[1]))
        }
        "EVAL" | "EVALSHA" if argv.len() >= 3 => {
            let body = if name == "EVAL" {
                Some(argv[1].clone())
            } else {
                scripts.get(&text(&argv[1]).to_ascii_lowercase()).cloned()
            };
            let keys: usize = text(&argv[2]).parse().unwrap_or(0);
            let rest = &argv[(3 + keys).min(argv.len())..];
            let key_list: Vec<String> = argv[3..(3 + keys).min(argv.len())]
                .iter()
                .map(text)
                .collect();
            // ARGV[1] is the token in every lock script here; the rest are numbers.
            let args: Vec<String> = rest.iter().skip(1).map(text).collect();
            let purpose = body.map_or("script(unknown)", |b| purpose(&b));
            match purpose {
                "acquire" => format!("acquire {} ttl={}", key_list.join(","), args.join(",")),
                "release" => format!("release {}", key_list.join(",")),
                p => format!("{p} {} {}", key_list.join(","), args.join(","))
                    .trim_end()
                    .to_string(),
            }
        }
        _ => name,
    }
}

/// What a lock script does, read from its body.
fn purpose(body: &[u8]) -> &'static str {
    let b = String::from_utf8_lossy(body).to_ascii_lowercase();
    if b.contains("pexpire") {
        "extend"
    } else if b.contains("'set'") || b.contains("\"set\"") {
        "acquire"
    } else if b.contains("'del'") || b.contains("\"del\"") {
        "release"
    } else {
        "script"
    }
}

/// The commands on one tap's connections from `from_ns` on, each with its reply, in the
/// order they reached the server; the scripts' bodies come from every `EVAL` and
/// `SCRIPT LOAD` the tap saw (`scripts` collects them across taps first).
pub fn real_commands(
    chunks: &[Chunk],
    from_ns: i64,
    scripts: &BTreeMap<String, Vec<u8>>,
    ms_of: impl Fn(i64) -> f64,
) -> Vec<Sent> {
    let mut out = Vec::new();
    let conns: std::collections::BTreeSet<usize> = chunks.iter().map(|c| c.conn).collect();
    for conn in conns {
        let side = |up: bool| {
            let cs: Vec<&Chunk> = chunks
                .iter()
                .filter(|c| c.conn == conn && c.up == up)
                .collect();
            values(&cs)
        };
        let (commands, replies) = (side(true), side(false));
        for (k, (t_ns, cmd)) in commands.iter().enumerate() {
            let argv = argv_of(cmd);
            let reply = replies.get(k).map(|(_, r)| r.clone());
            let noscript = matches!(&reply, Some(Reply::Error(e)) if e.starts_with("NOSCRIPT"));
            let loading = argv.first().is_some_and(|n| {
                n.eq_ignore_ascii_case(b"SCRIPT") || n.eq_ignore_ascii_case(b"QUIT")
            });
            let warmup = argv.iter().any(|a| a == b"lockcheck:warmup");
            if *t_ns < from_ns || noscript || loading || warmup {
                continue;
            }
            out.push(Sent {
                shape: shape(&argv, scripts),
                at_ms: ms_of(*t_ns),
                reply,
                reply_step: None,
                step: None,
            });
        }
    }
    out.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
    out
}

/// Adds the body of every script `chunks` sent (`EVAL`, `SCRIPT LOAD`) under its SHA-1.
pub fn collect_scripts(chunks: &[Chunk], scripts: &mut BTreeMap<String, Vec<u8>>) {
    let conns: std::collections::BTreeSet<usize> = chunks.iter().map(|c| c.conn).collect();
    for conn in conns {
        let cs: Vec<&Chunk> = chunks.iter().filter(|c| c.conn == conn && c.up).collect();
        for (_, cmd) in values(&cs) {
            let argv = argv_of(&cmd);
            let body = match argv.as_slice() {
                [eval, body, ..] if eval.eq_ignore_ascii_case(b"EVAL") => body,
                [script, load, body]
                    if script.eq_ignore_ascii_case(b"SCRIPT")
                        && load.eq_ignore_ascii_case(b"LOAD") =>
                {
                    body
                }
                _ => continue,
            };
            scripts.insert(sha1_hex(body), body.clone());
        }
    }
}

fn argv_of(cmd: &Reply) -> Vec<Vec<u8>> {
    match cmd {
        Reply::Array(Some(items)) => items
            .iter()
            .map(|i| match i {
                Reply::Bulk(Some(b)) => b.clone(),
                other => format!("{other:?}").into_bytes(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `sent` with runs of the same shape folded: (shape, how many).
pub fn folded(sent: &[Sent]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for s in sent {
        match out.last_mut() {
            Some((shape, n)) if *shape == s.shape => *n += 1,
            _ => out.push((s.shape.clone(), 1)),
        }
    }
    out
}

/// How the library's commands to one server differ from the model's: `None` when the same
/// commands came in the same order (a retry loop may run a different number of times: the
/// counts are shown, not compared).
pub fn difference(model: &[Sent], real: &[Sent]) -> Option<String> {
    let (m, r) = (folded(model), folded(real));
    let names = |f: &[(String, usize)]| f.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>();
    if names(&m) == names(&r) {
        return None;
    }
    let at = names(&m)
        .iter()
        .zip(names(&r))
        .take_while(|(a, b)| *a == b)
        .count();
    let show = |f: &[(String, usize)]| {
        f.get(at).map_or("nothing more".to_string(), |(s, n)| {
            if *n > 1 {
                format!("`{s}` x{n}")
            } else {
                format!("`{s}`")
            }
        })
    };
    Some(format!(
        "the model sends {}, the library {}",
        show(&m),
        show(&r)
    ))
}

/// A folded list for a report line: `acquire order_lock ttl=10000 x3, release order_lock`.
pub fn summary(sent: &[Sent]) -> String {
    let f = folded(sent);
    if f.is_empty() {
        return "nothing".into();
    }
    f.iter()
        .map(|(s, n)| {
            if *n > 1 {
                format!("{s} x{n}")
            } else {
                s.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    #[test]
    fn a_set_nx_and_an_acquire_script_have_one_shape_and_the_token_is_abstracted() {
        let none = BTreeMap::new();
        let set = shape(
            &argv(&["SET", "order_lock", "p1", "NX", "PX", "10000"]),
            &none,
        );
        assert_eq!(set, "acquire order_lock ttl=10000");
        let script = "if redis.call(\"exists\", KEYS[1]) == 1 then return 0 end redis.call(\"set\", KEYS[1], ARGV[1], \"PX\", ARGV[2]) return 1";
        let mut scripts = BTreeMap::new();
        scripts.insert(sha1_hex(script.as_bytes()), script.as_bytes().to_vec());
        let sha = sha1_hex(script.as_bytes());
        let real = shape(
            &argv(&["EVALSHA", &sha, "1", "order_lock", "a1b2c3", "10000"]),
            &scripts,
        );
        assert_eq!(real, set);
        assert_eq!(
            shape(&argv(&["set", "k", "t", "nx"]), &none),
            "acquire k ttl=none"
        );
        assert_eq!(
            shape(&argv(&["EVALSHA", "ffff", "1", "k", "t"]), &none),
            "script(unknown) k"
        );
    }

    #[test]
    fn retries_fold_and_only_a_different_command_is_a_difference() {
        let sent = |shapes: &[&str]| -> Vec<Sent> {
            shapes
                .iter()
                .map(|s| Sent {
                    shape: s.to_string(),
                    at_ms: 0.0,
                    reply: None,
                    reply_step: None,
                    step: None,
                })
                .collect()
        };
        let model = sent(&[
            "acquire k ttl=none",
            "acquire k ttl=none",
            "acquire k ttl=none",
        ]);
        let real = sent(&["acquire k ttl=none", "acquire k ttl=none"]);
        assert_eq!(difference(&model, &real), None);
        assert_eq!(summary(&model), "acquire k ttl=none x3");
        let other = sent(&["acquire k ttl=none", "release k"]);
        assert_eq!(
            difference(&model, &other).unwrap(),
            "the model sends nothing more, the library `release k`"
        );
    }
}
