//! `boundary`: one parameter (one field, named in the output) bisected to the value where
//! the verdict flips, printed with the faults of the breaking run. Each value is
//! checked exhaustively; when a limit comes before a verdict the bisection falls back to
//! seeded random walks from that value on (`--random` asks for them from the start), and
//! says which search it used: a safe verdict from random walks only means none of them
//! found a violation. An interrupt stops the bisection, which says between which values the
//! flip may still lie.

use super::boundary_explain::explain_flip;
use super::grid::{point_checked, Found};
use super::search::Limits;
use super::set::apply_sets;
use super::{human, vary, BoundaryArgs, CliError, Output};
use super::{EXIT_LIMIT, EXIT_OK, EXIT_VIOLATION};
use lockcheck::check::Mode;
use lockcheck::interrupt;
use lockcheck::report::fired::{fired, in_words, FiredFault};
use lockcheck::report::heatmap::Verdict;
use lockcheck::scenario::file::load_scenario;
use lockcheck::scenario::{duration, Scenario};
use lockcheck::InputError;
use serde_json::json;
use std::collections::BTreeMap;

/// Why a bisection stopped before its answer.
enum Stopped {
    /// A limit came before a verdict at this value.
    Limit(u64),
    Interrupted,
}

/// The bisection's state: the flip lies in `(lo, hi]`; checks made so far.
struct Bisection<'a> {
    base: &'a Scenario,
    name: &'a str,
    /// The one field `name` varies.
    target: vary::Target,
    limits: &'a Limits,
    checks: usize,
    /// Random walks per value, once they are in use.
    random_seeds: Option<u64>,
    /// Walks to fall back to when an exhaustive check reaches a limit.
    fallback_seeds: u64,
    /// The value where an exhaustive check reached a limit and the walks took over.
    fell_back_at: Option<u64>,
    /// The faults of the first counterexample at each value that broke.
    broke_with: BTreeMap<u64, Vec<FiredFault>>,
}

impl Bisection<'_> {
    fn verdict_at(
        &mut self,
        x: u64,
    ) -> Result<Result<(Verdict, Option<String>), Stopped>, InputError> {
        self.checks += 1;
        let s = vary::apply(self.base, self.name, x)?;
        let mode = match self.random_seeds {
            Some(count) => Mode::Random { first: 0, count },
            None => Mode::Exhaustive,
        };
        let (found, checked) = point_checked(&s, mode, self.limits)?;
        if let Some((_, path)) = checked.report.first_violation() {
            (self.broke_with).insert(x, fired(&s, &checked.world, path));
        }
        Ok(match found {
            Found::Interrupted => Err(Stopped::Interrupted),
            Found::Verdict(Verdict::Unknown, _, _) if self.random_seeds.is_none() => {
                self.random_seeds = Some(self.fallback_seeds);
                self.fell_back_at = Some(x);
                self.checks -= 1;
                return self.verdict_at(x);
            }
            Found::Verdict(Verdict::Unknown, _, _) => Err(Stopped::Limit(x)),
            Found::Verdict(v, o, _) => Ok((v, o)),
        })
    }

    /// Which search gave the verdicts, for people and for JSON.
    fn search(&self) -> (String, serde_json::Value) {
        match (self.random_seeds, self.fell_back_at) {
            (None, _) => (
                "exhaustive search at every value".into(),
                json!({"kind": "exhaustive"}),
            ),
            (Some(n), None) => (
                format!("random walks, {n} seeds per value (a safe verdict means none found a violation)"),
                json!({"kind": "random", "seeds": n}),
            ),
            (Some(n), Some(x)) => (
                format!(
                    "exhaustive search until a limit at {} = {}, then random walks, {n} seeds per value (a safe verdict there means none found a violation)",
                    self.name,
                    human(x)
                ),
                json!({"kind": "exhaustive_then_random", "seeds": n, "fell_back_at_ms": x}),
            ),
        }
    }

    /// The output of a bisection that stopped with the flip somewhere in `lo..=hi`.
    fn stopped(&self, why: Stopped, lo: u64, hi: u64) -> Output {
        let name = self.name;
        let out = match why {
            Stopped::Limit(x) => {
                let message = format!(
                    "a limit was reached at {name} = {} before a verdict",
                    duration::format(x as i64)
                );
                Output {
                    text: format!("no verdict: {message}\n"),
                    json: json!({"command": "boundary", "verdict": "limit_reached", "message": message}),
                    code: EXIT_LIMIT,
                }
            }
            Stopped::Interrupted => {
                let message = format!(
                    "interrupted by {} in check {}: the verdict flips between {name} = {} and {}, if at all",
                    interrupt::signal_name(),
                    self.checks,
                    human(lo),
                    human(hi)
                );
                Output {
                    text: format!("no verdict: {message}\n"),
                    json: json!({"command": "boundary", "verdict": "interrupted", "outcome": "interrupted",
                        "signal": interrupt::signal_name(), "message": message,
                        "between_ms": [lo, hi], "checks": self.checks}),
                    code: interrupt::exit_code(),
                }
            }
        };
        with_field(out, self, None)
    }
}

/// The range to bisect: the lowest and highest of `--vary`'s values, which must differ.
fn range(a: &BoundaryArgs) -> Result<(u64, u64), InputError> {
    match (a.vary.values.iter().min(), a.vary.values.iter().max()) {
        (Some(&lo), Some(&hi)) if lo < hi => Ok((lo, hi)),
        _ => Err(InputError {
            field: Some(a.vary.name.clone()),
            ..InputError::new("bisecting needs a range of two different values, e.g. pause=0s..60s")
        }),
    }
}

pub(super) fn cmd_boundary(a: &BoundaryArgs) -> Result<Output, CliError> {
    let base = apply_sets(load_scenario(&a.scenario)?, &a.sets)?;
    let name = &a.vary.name;
    let target = vary::target(&base, name)?;
    let (mut lo, mut hi) = range(a)?;
    let mut b = Bisection {
        base: &base,
        name,
        target,
        limits: &a.limits,
        checks: 0,
        random_seeds: a
            .random
            .then(|| a.seeds.unwrap_or(base.explore.random_seeds)),
        fallback_seeds: a.seeds.unwrap_or(base.explore.random_seeds),
        fell_back_at: None,
        broke_with: BTreeMap::new(),
    };
    let at_lo = match b.verdict_at(lo)? {
        Ok(v) => v,
        Err(why) => return Ok(b.stopped(why, lo, hi)),
    };
    let at_hi = match b.verdict_at(hi)? {
        Ok(v) => v,
        Err(why) => return Ok(b.stopped(why, lo, hi)),
    };
    if at_lo.0 == at_hi.0 {
        return Ok(with_search(no_flip(&b, (lo, hi), at_lo.0, at_hi.0), &b));
    }
    let res = a.resolution.max(1);
    let lo_verdict = at_lo.0;
    while hi - lo > res {
        let mid = lo + (hi - lo) / 2;
        let v = match b.verdict_at(mid)? {
            Ok(v) => v,
            Err(why) => return Ok(b.stopped(why, lo, hi)),
        };
        if v.0 == lo_verdict {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let oracle = if lo_verdict == Verdict::Violated {
        at_lo.1
    } else {
        at_hi.1
    };
    let mut found = flip(&b, (lo, hi), lo_verdict, oracle, res);
    if a.explain {
        let (text, j) = explain_flip(
            &base,
            name,
            safe_and_broken(lo, hi, lo_verdict),
            &a.limits,
            &a.trace_dir,
        )?;
        found.text.push_str(&text);
        found.json["explanation"] = j;
    }
    Ok(with_search(found, &b))
}

/// The flip's safe and breaking values, `lo` and `hi` in some order.
fn safe_and_broken(lo: u64, hi: u64, lo_verdict: Verdict) -> (u64, u64) {
    if lo_verdict == Verdict::Safe {
        (lo, hi)
    } else {
        (hi, lo)
    }
}

/// `out` with the search the bisection used: a line of text and `search` in JSON.
fn with_search(mut out: Output, b: &Bisection) -> Output {
    let (text, json) = b.search();
    out.text.push_str(&format!("search: {text}\n"));
    out.json["search"] = json;
    out
}

/// `out` opened by the field varied (and every other left as set), with the faults of the
/// breaking run at `broken_ms` beside the number, when a value broke.
fn with_field(mut out: Output, b: &Bisection, broken_ms: Option<u64>) -> Output {
    let t = &b.target;
    let mut head = format!(
        "varied: {} ({}); every other rule and field as set\n",
        t.path, t.what
    );
    out.json["parameter_path"] = json!(t.path);
    out.json["parameter_meaning"] = json!(t.what);
    if let Some((ms, faults)) = broken_ms.and_then(|ms| Some((ms, b.broke_with.get(&ms)?))) {
        let words = in_words(faults);
        out.text.push_str(&format!(
            "faults of the breaking run at {} = {}: {words}\n",
            b.name,
            human(ms)
        ));
        out.json["breaking_run"] = json!({"at_ms": ms, "faults": faults, "in_words": words});
    }
    head.push_str(&out.text);
    out.text = head;
    out
}

fn no_flip(b: &Bisection, (lo, hi): (u64, u64), at_lo: Verdict, at_hi: Verdict) -> Output {
    let name = b.name;
    let text = format!(
        "the verdict does not flip between {name} = {} and {}: {} at both ends\n",
        human(lo),
        human(hi),
        at_lo.word()
    );
    let code = if at_lo == Verdict::Violated {
        EXIT_VIOLATION
    } else {
        EXIT_OK
    };
    let j = json!({"command": "boundary", "scenario": b.base.name, "parameter": name, "flip": null,
        "verdict_at_from": at_lo, "verdict_at_to": at_hi, "checks": b.checks});
    let out = Output {
        text,
        json: j,
        code,
    };
    with_field(out, b, (at_lo == Verdict::Violated).then_some(lo))
}

fn flip(
    b: &Bisection,
    (lo, hi): (u64, u64),
    lo_verdict: Verdict,
    oracle: Option<String>,
    res: u64,
) -> Output {
    let (f, name, checks) = (human, b.name, b.checks);
    let sentence = if lo_verdict == Verdict::Safe {
        format!(
            "the smallest {name} that breaks this configuration is {} ({} violated); at {} it is safe",
            f(hi),
            oracle.as_deref().unwrap_or("?"),
            f(lo)
        )
    } else {
        format!(
            "the smallest {name} that makes this configuration safe is {}; at {} it breaks ({} violated)",
            f(hi),
            f(lo),
            oracle.as_deref().unwrap_or("?")
        )
    };
    let text = format!("{}: {sentence} ({checks} checks)\n", b.base.name);
    let j = json!({
        "command": "boundary",
        "scenario": b.base.name,
        "parameter": name,
        "flip": {"below_ms": lo, "at_ms": hi, "below": lo_verdict, "at": if lo_verdict == Verdict::Safe { Verdict::Violated } else { Verdict::Safe }},
        "oracle": oracle,
        "resolution_ms": res,
        "checks": checks,
        "sentence": sentence,
    });
    let out = Output {
        text,
        json: j,
        code: EXIT_VIOLATION,
    };
    let broken_ms = safe_and_broken(lo, hi, lo_verdict).1;
    with_field(out, b, Some(broken_ms))
}
