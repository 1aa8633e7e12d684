//! What a paused process runs first when it resumes: its overdue timers may fire in any
//! order (`ResumeOrder::Any`, the default) or in due order (`ResumeOrder::Due`); a timer set
//! after the resume waits for every overdue one; the choice is labelled, counted in the
//! branching statistics, and partial-order reduction keeps every order that matters.

use lockcheck_sim::world::{
    Actor, Context, FaultEnvelope, ProcessId, ProcessSpec, ResumeOrder, StateOf, World, WorldAction,
};
use lockcheck_sim::{
    explore, follow_labels, BreadthFirst, ChoiceKind, Model, Options, Property, Reductions, Status,
    Stop,
};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// Sets its timers at start and logs each one as it fires; `b` also tells `a`, which logs
/// what it hears. A timer named in `chain` sets the other one named there to fire at once.
#[derive(Clone, Debug)]
struct Sleeper {
    timers: Vec<(&'static str, u64)>,
    chain: Option<(&'static str, &'static str)>,
}

impl Actor for Sleeper {
    type Msg = &'static str;
    type Timer = &'static str;
    type State = Vec<&'static str>;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, ctx: &mut Ctx) -> Vec<&'static str> {
        for &(t, after_ms) in &self.timers {
            ctx.set_timer(t, after_ms);
        }
        Vec::new()
    }

    fn on_message(&self, log: &mut Self::State, _: ProcessId, msg: &'static str, _: &mut Ctx) {
        log.push(msg);
    }

    fn on_timer(&self, log: &mut Self::State, timer: &'static str, ctx: &mut Ctx) {
        log.push(timer);
        if ctx.me() == B {
            ctx.send(A, timer);
        }
        if let Some((_, then)) = self.chain.filter(|(after, _)| *after == timer) {
            ctx.set_timer(then, 0);
        }
    }

    fn describe_timer(&self, timer: &&'static str) -> String {
        timer.to_string()
    }
}

type Ctx = Context<&'static str, &'static str>;

const A: ProcessId = 0;
const B: ProcessId = 1;

/// Process `a` with one timer at `a_ms`, process `b` with `timers`; `b` may pause once for
/// `pause_ms`.
fn world(
    a_ms: u64,
    timers: Vec<(&'static str, u64)>,
    chain: Option<(&'static str, &'static str)>,
    pause_ms: u64,
    order: ResumeOrder,
) -> World<Sleeper> {
    let spec = |name: &str, timers, chain| ProcessSpec {
        name: name.into(),
        actor: Sleeper { timers, chain },
        clock: Default::default(),
    };
    World::new(
        "sleepers",
        vec![
            spec("a", vec![("tick", a_ms)], None),
            spec("b", timers, chain),
        ],
    )
    .with_faults(FaultEnvelope::none().pause(B, &[pause_ms], 1))
    .with_resume_order(order)
}

/// `a` heard of `b`'s timers out of due order. The property sees `a` alone, so that the
/// reduction may explore `b`'s actions on their own.
fn out_of_due_order(timers: &[(&'static str, u64)]) -> Property<World<Sleeper>> {
    let due: Vec<(&'static str, u64)> = timers.to_vec();
    let due_of = move |t: &&str| due.iter().find(|(n, _)| n == t).map(|(_, d)| *d);
    Property::sometimes("b-out-of-due-order", move |_, s: &StateOf<Sleeper>| {
        let log = s.actor(A).cloned().unwrap_or_default();
        let heard: Vec<u64> = log.iter().filter_map(&due_of).collect();
        heard.windows(2).any(|w| w[0] > w[1])
    })
    .observing_digest(
        |w: &World<Sleeper>, a: &WorldAction<&'static str, &'static str>| {
            w.action_process(a) == Some(A)
        },
        |_, s| s.actor(A).map_or(0, |l| l.len() as u64),
    )
}

fn labels(w: &World<Sleeper>, s: &StateOf<Sleeper>) -> Vec<String> {
    let mut enabled = Vec::new();
    w.actions(s, &mut enabled);
    enabled.iter().map(|a| w.label(s, a)).collect()
}

fn after(w: &World<Sleeper>, steps: &[&str]) -> StateOf<Sleeper> {
    let labels = steps.iter().map(|s| s.to_string()).collect();
    let path = follow_labels(w, None, 0, labels).unwrap_or_else(|e| panic!("{e}"));
    path.last_state().clone()
}

#[test]
fn every_overdue_timer_may_fire_first_and_its_label_names_the_timer_it_overtakes() {
    let timers = vec![("early", 10), ("late", 20)];
    let any = world(50, timers.clone(), None, 30, ResumeOrder::Any);
    let s = after(&any, &["pause b for 30 ms", "advance to 30 ms"]);
    assert_eq!(
        labels(&any, &s),
        vec![
            "timer b: early",
            "timer b: late (overdue, ahead of early due at 10 ms)",
        ]
    );
    let mut enabled = Vec::new();
    any.actions(&s, &mut enabled);
    let kinds: Vec<ChoiceKind> = enabled.iter().map(|a| any.choice_kind(&s, a)).collect();
    assert_eq!(kinds, vec![ChoiceKind::Event, ChoiceKind::ResumeOrder]);
    let s = after(
        &any,
        &[
            "pause b for 30 ms",
            "advance to 30 ms",
            "timer b: late (overdue, ahead of early due at 10 ms)",
            "timer b: early",
        ],
    );
    assert_eq!(s.actor(B).unwrap(), &vec!["late", "early"]);

    let due = world(50, timers, None, 30, ResumeOrder::Due);
    let s = after(&due, &["pause b for 30 ms", "advance to 30 ms"]);
    assert_eq!(labels(&due, &s), vec!["timer b: early"]);
    assert_ne!(any.model_hash(), due.model_hash());
}

#[test]
fn a_timer_set_after_the_resume_waits_for_every_overdue_one() {
    let w = world(
        50,
        vec![("early", 10), ("late", 20)],
        Some(("early", "again")),
        30,
        ResumeOrder::Any,
    );
    // `early` sets `again` due now: `late`, overdue, still comes first.
    let s = after(
        &w,
        &["pause b for 30 ms", "advance to 30 ms", "timer b: early"],
    );
    assert_eq!(labels(&w, &s), vec!["timer b: late"]);
    let s = after(
        &w,
        &[
            "pause b for 30 ms",
            "advance to 30 ms",
            "timer b: early",
            "timer b: late",
        ],
    );
    assert_eq!(labels(&w, &s), vec!["timer b: again"]);
}

#[test]
fn a_timer_due_exactly_at_the_resume_is_not_overdue() {
    let w = world(
        50,
        vec![("early", 10), ("at-resume", 30)],
        None,
        30,
        ResumeOrder::Any,
    );
    let s = after(&w, &["pause b for 30 ms", "advance to 30 ms"]);
    assert_eq!(labels(&w, &s), vec!["timer b: early"]);
}

fn search(w: &World<Sleeper>, reductions: Reductions) -> lockcheck_sim::Report<World<Sleeper>> {
    let options = Options {
        stop: Stop::Never,
        reductions,
        ..Options::default()
    };
    explore(w, &mut BreadthFirst::default(), options)
}

#[test]
fn the_resume_order_is_searched_counted_and_kept_by_partial_order_reduction() {
    let timers = vec![("early", 10), ("late", 20)];
    for order in [ResumeOrder::Any, ResumeOrder::Due] {
        // `a`'s tick at the resume instant gives the reduction another process to postpone.
        let w = world(30, timers.clone(), None, 30, order).with_property(out_of_due_order(&timers));
        let full = search(&w, Reductions::none());
        let reduced = search(&w, Reductions::all());
        assert!(reduced.plan.partial_order.is_on());
        assert!(
            reduced.stats.reduced_states > 0,
            "{order:?}: nothing reduced"
        );
        let witnessed = |r: &lockcheck_sim::Report<World<Sleeper>>| {
            matches!(
                r.property("b-out-of-due-order").unwrap().status,
                Status::Witnessed(_)
            )
        };
        assert_eq!(witnessed(&full), order == ResumeOrder::Any, "{order:?}");
        assert_eq!(witnessed(&reduced), witnessed(&full), "{order:?}");
        let resume = full.stats.branching.get(ChoiceKind::ResumeOrder);
        if order == ResumeOrder::Any {
            assert!(resume.choice_points > 0 && resume.offered >= resume.choice_points);
            assert_eq!(resume.offered, resume.expanded);
        } else {
            assert_eq!(resume.offered, 0);
        }
    }
}

/// A timer due exactly at the resume may not overtake, an overdue one may: the fingerprint
/// tells them apart (it counts the timers a process may choose among). Were both only "0 ms
/// left", the state where `b` resumes at 32 with `t0` due then would stand for the one where
/// it resumes at 33 with `t0` overdue, and the order `t0` before `t1` would be lost.
#[test]
fn a_timer_due_at_the_resume_and_an_overdue_one_are_different_states() {
    let timers = vec![("t0", 32), ("t1", 1)];
    let w = world(1, timers.clone(), None, 32, ResumeOrder::Any)
        .with_property(out_of_due_order(&timers));
    let report = search(&w, Reductions::none());
    let status = &report.property("b-out-of-due-order").unwrap().status;
    assert!(matches!(status, Status::Witnessed(_)));
}

/// Every order `b`'s timers can fire in after a pause at 0 for `pause_ms`, found by walking
/// every path (no other fault is left to take).
fn fire_orders(w: &World<Sleeper>, pause_ms: u64) -> BTreeSet<Vec<&'static str>> {
    let start = after(w, &[&format!("pause b for {pause_ms} ms")]);
    let mut orders = BTreeSet::new();
    let mut stack = vec![start];
    while let Some(s) = stack.pop() {
        let mut enabled = Vec::new();
        w.actions(&s, &mut enabled);
        if enabled.is_empty() {
            orders.insert(s.actor(B).unwrap().clone());
        }
        stack.extend(enabled.iter().filter_map(|a| w.next_state(&s, a)));
    }
    orders
}

/// Every permutation of `items`.
fn permutations(items: &[&'static str]) -> Vec<Vec<&'static str>> {
    if items.is_empty() {
        return vec![vec![]];
    }
    let mut all = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            all.push(p);
        }
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// After a pause, the overdue timers (due strictly before the resume) fire first, in
    /// every order under `Any` and in due order under `Due`; the rest follow in due order.
    #[test]
    fn overdue_timers_fire_first_in_every_order_or_in_due_order(
        dues in prop::collection::vec(1u64..=40, 1..=4),
        pause_ms in 1u64..=50,
    ) {
        let names = ["t0", "t1", "t2", "t3"];
        let timers: Vec<(&'static str, u64)> = names.iter().copied().zip(dues).collect();
        let mut by_due = timers.clone();
        by_due.sort_by_key(|&(_, d)| d);
        let (overdue, rest): (Vec<_>, Vec<_>) = by_due.iter().partition(|&&(_, d)| d < pause_ms);
        let overdue: Vec<&'static str> = overdue.iter().map(|(n, _)| *n).collect();
        let rest: Vec<&'static str> = rest.iter().map(|(n, _)| *n).collect();
        let expected = |orders: Vec<Vec<&'static str>>| -> BTreeSet<Vec<&'static str>> {
            orders.into_iter().map(|mut o| { o.extend(&rest); o }).collect()
        };
        let any = world(1_000, timers.clone(), None, pause_ms, ResumeOrder::Any);
        prop_assert_eq!(fire_orders(&any, pause_ms), expected(permutations(&overdue)));
        let due = world(1_000, timers.clone(), None, pause_ms, ResumeOrder::Due);
        prop_assert_eq!(fire_orders(&due, pause_ms), expected(vec![overdue.clone()]));
    }

    /// With `a`'s tick somewhere among `b`'s timers, the reduced and the full search agree
    /// on whether `b` can fire out of due order, and it can exactly when two of its timers
    /// can be overdue together.
    #[test]
    fn reduction_keeps_every_resume_order(
        dues in prop::collection::vec(1u64..=40, 1..=3),
        a_ms in 1u64..=50,
        pause_ms in 1u64..=50,
    ) {
        let names = ["t0", "t1", "t2"];
        let timers: Vec<(&'static str, u64)> = names.iter().copied().zip(dues).collect();
        let w = world(a_ms, timers.clone(), None, pause_ms, ResumeOrder::Any)
            .with_property(out_of_due_order(&timers));
        let witnessed = |r: Reductions| {
            matches!(
                search(&w, r).property("b-out-of-due-order").unwrap().status,
                Status::Witnessed(_)
            )
        };
        let full = witnessed(Reductions::none());
        prop_assert_eq!(witnessed(Reductions::all()), full);
        // A pause of `pause_ms` from any instant overdues two timers with distinct due times
        // when they are less than `pause_ms` apart.
        let mut d: Vec<u64> = timers.iter().map(|t| t.1).collect();
        d.sort_unstable();
        let possible = d.windows(2).any(|w| w[0] < w[1] && w[1] - w[0] < pause_ms);
        prop_assert_eq!(full, possible);
    }
}
