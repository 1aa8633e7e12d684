//! The semantics of a world: which actions are enabled, and what each one does.
//!
//! Rules, in the order `enabled` applies them:
//! 1. A freshly sent message whose link offers a choice (several delays, or a possible loss)
//!    is *unrouted*; while one exists, the only actions are its routing choices. This keeps
//!    handlers deterministic and makes every delay an explicit, labelled choice.
//! 2. Events due now: each running process's earliest due timer (timers fire in order; a
//!    resumed process's overdue timers in any order unless the world says otherwise, see
//!    `resume.rs`), and each due message at the head of its FIFO link (or any due message on
//!    a reordering link) whose receiver is running.
//! 3. Faults allowed by the envelope's remaining budget.
//! 4. `Advance`, only when no event is due now: jump to the earliest future due time, then
//!    heal partitions, resume paused processes and restart crashed ones that are due.
//!
//! A message to a process that is down is lost, unless the process crashed in a way its
//! host still answers for (a process crash, not a power loss: `CrashKind::refuses_connections`):
//! then the actor's `refusal` of it goes back to the sender on the reverse link, with that
//! link's delay (a choice like any other), whether it was sent while the process was down or
//! was on its way when it crashed (its host resets the connection). So a send to a crashed
//! process and the crash commute.

use super::action::WorldAction;
use super::actor::{Actor, Context, ProcessId, TimerEffect};
use super::clock::later;
use super::fault_timing::FaultRule;
use super::network::{msg_hash, InFlight, Unrouted};
use super::state::{Life, PendingTimer, StateOf, UndecidedTimer};
use super::World;
use crate::fingerprint::lane_a;
use std::sync::Arc;

type Action<A> = super::action::ActionOf<A>;

impl<A: Actor> World<A> {
    pub(crate) fn initial_state(&self) -> StateOf<A> {
        let mut state = self.not_started();
        // Every process is up before any start-up message is routed.
        let mut contexts = Vec::with_capacity(self.processes.len());
        for p in 0..self.processes.len() {
            contexts.push(self.start_process(&mut state, p));
        }
        for ctx in contexts {
            self.apply_effects(&mut state, ctx);
        }
        state.refresh_hashes(&self.actors, &self.clocks, self.resume_order, self.wide);
        state
    }

    pub(crate) fn enabled(&self, state: &StateOf<A>, out: &mut Vec<Action<A>>) {
        if let Some(first) = state.undecided_timers.first() {
            out.extend(
                first
                    .after_ms
                    .iter()
                    .map(|&after_ms| WorldAction::TimerDuration { after_ms }),
            );
            return;
        }
        if let Some(first) = state.unrouted.first() {
            let link = self.network.link(first.from, first.to);
            out.extend(
                link.delays_ms
                    .iter()
                    .map(|&delay_ms| WorldAction::Route { delay_ms }),
            );
            if link.lossy && state.faults_used.losses < self.faults.max_losses {
                out.push(WorldAction::Lose);
            }
            return;
        }
        let due_events = self.due_events(state, out);
        self.enabled_faults(state, out);
        if due_events == 0 && self.next_due_ms(state).is_some() {
            out.push(WorldAction::Advance);
        }
    }

    /// Pushes the events due now; returns how many.
    fn due_events(&self, state: &StateOf<A>, out: &mut Vec<Action<A>>) -> usize {
        let before = out.len();
        let now = state.now_ms;
        for (p, proc) in state.procs.iter().enumerate() {
            if !proc.is_running() {
                continue;
            }
            let firable = self.firable_timers(state, p);
            out.extend(proc.timers[..firable].iter().map(|t| WorldAction::Fire {
                process: p,
                timer: t.timer.clone(),
            }));
        }
        debug_assert!(
            state
                .in_flight
                .windows(2)
                .all(|w| (w[0].from, w[0].to) <= (w[1].from, w[1].to)),
            "messages in flight are grouped by link"
        );
        for (i, m) in state.in_flight.iter().enumerate() {
            if m.due_ms > now || !state.procs[m.to].is_running() {
                continue;
            }
            // Messages in flight are grouped by link (see `route`), so the ones sent earlier
            // on `m`'s link are right before it: `m` heads its link if its neighbour is on
            // another. Only a message behind others looks at its link: on a FIFO link it
            // waits; on a reordering one it is offered unless an identical due message
            // before it already is.
            let same_link = |e: &&InFlight<A::Msg>| e.from == m.from && e.to == m.to;
            let heads_link = i == 0 || !same_link(&&state.in_flight[i - 1]);
            if !heads_link {
                let fifo = self.network.link(m.from, m.to).fifo;
                let twin_offered = || {
                    state.in_flight[..i]
                        .iter()
                        .rev()
                        .take_while(same_link)
                        .any(|e| e.msg == m.msg && e.due_ms <= now)
                };
                if fifo || twin_offered() {
                    continue;
                }
            }
            out.push(WorldAction::Deliver {
                from: m.from,
                to: m.to,
                msg: m.msg.clone(),
            });
        }
        out.len() - before
    }

    /// Pushes the faults the envelope allows in `state`: every pause, partition, crash,
    /// clock step and fault of an actor's own whose budget is not spent and whose process or
    /// links are in a state to suffer it. Drivers other than the explorer draw their faults from the same list.
    pub fn enabled_faults(&self, state: &StateOf<A>, out: &mut Vec<Action<A>>) {
        let used = &state.faults_used;
        let f = &self.faults;
        let allows = |rule: FaultRule, p: Option<ProcessId>| self.timing_allows(state, rule, p);
        if used.pauses < f.max_pauses {
            for (i, rule) in f.pauses.iter().enumerate() {
                let p = rule.process;
                if state.procs[p].is_running() && allows(FaultRule::Pause(i), Some(p)) {
                    out.extend(rule.durations_ms.iter().filter(|&&d| d > 0).map(|&d| {
                        WorldAction::Pause {
                            process: rule.process,
                            duration_ms: d,
                        }
                    }));
                }
            }
        }
        if used.partitions < f.max_partitions {
            for (index, rule) in f.partitions.iter().enumerate() {
                let active = state.partitions.iter().any(|(i, _)| *i == index);
                if !active && allows(FaultRule::Partition(index), None) {
                    out.extend(
                        rule.durations_ms
                            .iter()
                            .map(|&duration_ms| WorldAction::Partition { index, duration_ms }),
                    );
                }
            }
        }
        if used.crashes < f.max_crashes {
            for (i, rule) in f.crashes.iter().enumerate() {
                let p = rule.process;
                if state.procs[p].is_up() && allows(FaultRule::Crash(i), Some(p)) {
                    for &kind in &rule.kinds {
                        out.extend(rule.restart_after_ms.iter().map(|&restart_after_ms| {
                            WorldAction::Crash {
                                process: rule.process,
                                kind,
                                restart_after_ms,
                            }
                        }));
                    }
                }
            }
        }
        if used.clock_steps < f.max_clock_steps {
            for (i, rule) in f.clock_steps.iter().enumerate() {
                if !allows(FaultRule::ClockStep(i), Some(rule.process)) {
                    continue;
                }
                out.extend(rule.deltas_ms.iter().filter(|&&d| d != 0).map(|&delta_ms| {
                    WorldAction::ClockStep {
                        process: rule.process,
                        delta_ms,
                    }
                }));
            }
        }
        self.enabled_actor_faults(state, out);
    }

    /// The earliest future time at which something happens, if anything ever will.
    pub fn next_due_ms(&self, state: &StateOf<A>) -> Option<u64> {
        let now = state.now_ms;
        let mut due: Option<u64> = None;
        let mut consider = |t: u64| {
            if t > now {
                due = Some(due.map_or(t, |d| d.min(t)));
            }
        };
        for p in &state.procs {
            if let Some(t) = p.paused_until_ms {
                consider(t);
            }
            if let Life::Down {
                restart_at_ms: Some(t),
                ..
            } = p.life
            {
                consider(t);
            }
            if p.is_running() {
                if let Some(t) = p.timers.first() {
                    consider(t.due_ms);
                }
            }
        }
        for (i, m) in state.in_flight.iter().enumerate() {
            // Grouped by link: `m` is behind another message iff its neighbour is on its link.
            let behind = i > 0 && {
                let e = &state.in_flight[i - 1];
                e.from == m.from && e.to == m.to
            };
            let head = !behind || !self.network.link(m.from, m.to).fifo;
            if head && state.procs[m.to].is_running() {
                consider(m.due_ms);
            }
        }
        for (_, heal) in &state.partitions {
            if let Some(t) = heal {
                consider(*t);
            }
        }
        if let Some(t) = self.next_timing_ms(state) {
            consider(t);
        }
        due
    }

    pub(crate) fn apply(&self, state: &mut StateOf<A>, action: &Action<A>) {
        match action {
            WorldAction::Deliver { from, to, msg } => self.deliver(state, *from, *to, msg),
            WorldAction::Fire { process, timer } => self.fire(state, *process, timer),
            WorldAction::Advance => self.advance(state),
            WorldAction::Route { delay_ms } => {
                let m = state.unrouted.remove(0);
                if let Some(back) = self.route(state, m, *delay_ms) {
                    // Its delay is chosen next, before the other messages still unrouted.
                    self.send_first(state, back);
                }
            }
            WorldAction::TimerDuration { after_ms } => {
                let t = state.undecided_timers.remove(0);
                self.set_timer(state, t.process, t.timer, *after_ms);
            }
            WorldAction::Lose => {
                state.unrouted.remove(0);
                state.faults_used.losses += 1;
            }
            fault => self.apply_fault(state, fault),
        }
    }

    fn deliver(&self, state: &mut StateOf<A>, from: ProcessId, to: ProcessId, msg: &Arc<A::Msg>) {
        let now = state.now_ms;
        let i = state
            .in_flight
            .iter()
            .position(|m| m.from == from && m.to == to && &m.msg == msg && m.due_ms <= now)
            .expect("internal bug: delivering a message that is not due");
        let msg = state.in_flight.remove(i).msg;
        let ctx = self.handle_event(state, WorldAction::Deliver { from, to, msg });
        self.apply_effects(state, ctx);
    }

    fn fire(&self, state: &mut StateOf<A>, p: ProcessId, timer: &A::Timer) {
        let firable = self.firable_timers(state, p);
        let timers = &mut state.procs[p].timers;
        let at = timers[..firable]
            .iter()
            .position(|t| &t.timer == timer)
            .expect("internal bug: firing a timer that may not fire now");
        let timer = timers.remove(at).timer;
        let ctx = self.handle_event(state, WorldAction::Fire { process: p, timer });
        self.apply_effects(state, ctx);
    }

    fn advance(&self, state: &mut StateOf<A>) {
        let to = self
            .next_due_ms(state)
            .expect("internal bug: advance with nothing due");
        self.move_time_to(state, to);
        state
            .partitions
            .retain(|(_, heal)| heal.is_none_or(|t| t > to));
        // Read first, write only what changes: a write copies a shared process state.
        for p in &mut state.procs {
            if p.paused_until_ms.is_some_and(|t| t <= to) {
                p.paused_until_ms = None;
            }
        }
        for p in 0..state.procs.len() {
            let due = matches!(
                state.procs[p].life,
                Life::Down { restart_at_ms: Some(t), .. } if t <= to
            );
            if due {
                let ctx = self.restart_process(state, p);
                self.apply_effects(state, ctx);
            }
        }
    }

    fn apply_effects(&self, state: &mut StateOf<A>, ctx: Context<A::Msg, A::Timer>) {
        let p = ctx.me();
        let (sends, timers) = ctx.into_effects();
        for effect in timers {
            match effect {
                TimerEffect::Set { timer, after_ms } => self.set_timer(state, p, timer, after_ms),
                TimerEffect::SetAmong { timer, after_ms } if after_ms.len() == 1 => {
                    self.set_timer(state, p, timer, after_ms[0])
                }
                TimerEffect::SetAmong { timer, after_ms } => {
                    forget_timer::<A>(state, p, &timer);
                    state.undecided_timers.push(UndecidedTimer {
                        process: p,
                        timer,
                        after_ms,
                    });
                }
                TimerEffect::Cancel(timer) => forget_timer::<A>(state, p, &timer),
            }
        }
        for (to, msg) in sends {
            assert!(
                to < state.procs.len(),
                "process {p} sent to unknown process {to}"
            );
            let m = Unrouted {
                from: p,
                to,
                msg: Arc::new(msg),
            };
            self.send_unrouted(state, m);
        }
    }

    /// Puts `m` on the wire: at once when its link offers no choice, else last among the
    /// messages whose delay (or loss) is still to be chosen.
    pub(super) fn send_unrouted(&self, state: &mut StateOf<A>, m: Unrouted<A::Msg>) {
        let link = self.network.link(m.from, m.to);
        if link.is_choice(self.losses_left(state)) {
            state.unrouted.push(m);
        } else if let Some(back) = self.route(state, m, link.delays_ms[0]) {
            self.send_unrouted(state, back);
        }
    }

    /// As [`World::send_unrouted`], but first among the messages still unrouted.
    fn send_first(&self, state: &mut StateOf<A>, m: Unrouted<A::Msg>) {
        let link = self.network.link(m.from, m.to);
        if link.is_choice(self.losses_left(state)) {
            state.unrouted.insert(0, m);
        } else if let Some(back) = self.route(state, m, link.delays_ms[0]) {
            self.send_unrouted(state, back);
        }
    }

    /// The refusal of `msg` as a message from `to` back to `from`, to send now.
    pub(super) fn refusal_of(
        &self,
        state: &StateOf<A>,
        from: ProcessId,
        to: ProcessId,
        msg: &A::Msg,
    ) -> Option<Unrouted<A::Msg>> {
        let refusal = self.refusal(state, from, to, msg)?;
        Some(Unrouted {
            from: to,
            to: from,
            msg: Arc::new(refusal),
        })
    }

    /// What the host of crashed process `to` answers `from` for `msg` sent now: the actor's
    /// [`Actor::refusal`], when the link is not cut and `to`'s crash refuses connections.
    /// Only a process that is up is answered: a refusal, sent on behalf of a process that is
    /// down, is never refused in turn. (Drivers that route messages themselves ask it too.)
    pub fn refusal(
        &self,
        state: &StateOf<A>,
        from: ProcessId,
        to: ProcessId,
        msg: &A::Msg,
    ) -> Option<A::Msg> {
        let answered = state.procs[to].is_refusing() && state.procs[from].is_up();
        if !answered || self.is_cut(state, from, to) {
            return None;
        }
        self.processes[to].actor.refusal(msg)
    }

    /// Whether an active partition cuts the link `from -> to` in `state`.
    pub fn is_cut(&self, state: &StateOf<A>, from: ProcessId, to: ProcessId) -> bool {
        state
            .partitions
            .iter()
            .any(|(i, _)| self.faults.partitions[*i].blocks(from, to))
    }

    /// Sets (or resets) process `p`'s `timer` to fire after `after_ms` of its monotonic time.
    fn set_timer(&self, state: &mut StateOf<A>, p: ProcessId, timer: A::Timer, after_ms: u64) {
        forget_timer::<A>(state, p, &timer);
        let due_ms = self.processes[p].clock.due_after(state.now_ms, after_ms);
        let timers = &mut state.procs[p].timers;
        let at = timers.partition_point(|t| t.due_ms <= due_ms);
        timers.insert(at, PendingTimer { due_ms, timer });
    }

    /// Puts a message on the wire with `delay_ms`, unless its link is cut or its receiver is
    /// down; for a receiver whose host refuses connections, returns the refusal to send back.
    fn route(
        &self,
        state: &mut StateOf<A>,
        m: Unrouted<A::Msg>,
        delay_ms: u64,
    ) -> Option<Unrouted<A::Msg>> {
        if self.is_cut(state, m.from, m.to) {
            return None;
        }
        if !state.procs[m.to].is_up() {
            return self.refusal_of(state, m.from, m.to, &m.msg);
        }
        // Messages in flight are kept grouped by link, in send order within a link: only the
        // order within a link means anything, so states that differ only in how independent
        // links interleave are one state.
        let link = (m.from, m.to);
        let at = state.in_flight.partition_point(|x| (x.from, x.to) <= link);
        state.in_flight.insert(
            at,
            InFlight {
                from: m.from,
                to: m.to,
                msg_hash: lane_a(msg_hash(&*m.msg, false)),
                msg: m.msg,
                due_ms: later(state.now_ms, delay_ms),
            },
        );
        None
    }

    /// Smaller variants of a fault or delay choice, for the shrinker.
    pub(crate) fn smaller(&self, action: &Action<A>) -> Vec<Action<A>> {
        match action {
            WorldAction::Pause {
                process,
                duration_ms,
            } => self
                .faults
                .pauses
                .iter()
                .filter(|r| r.process == *process)
                .flat_map(|r| r.durations_ms.iter().copied())
                .filter(|d| *d > 0 && d < duration_ms)
                .map(|d| WorldAction::Pause {
                    process: *process,
                    duration_ms: d,
                })
                .collect(),
            WorldAction::Route { delay_ms } => {
                let mut all: Vec<u64> = std::iter::once(&self.network.default_link)
                    .chain(self.network.links.iter().map(|(_, l)| l))
                    .flat_map(|l| l.delays_ms.iter().copied())
                    .filter(|d| d < delay_ms)
                    .collect();
                all.sort_unstable();
                all.dedup();
                all.into_iter()
                    .map(|delay_ms| WorldAction::Route { delay_ms })
                    .collect()
            }
            WorldAction::ClockStep { process, delta_ms } => self
                .faults
                .clock_steps
                .iter()
                .filter(|r| r.process == *process)
                .flat_map(|r| r.deltas_ms.iter().copied())
                .filter(|d| *d != 0 && d.unsigned_abs() < delta_ms.unsigned_abs())
                .map(|delta_ms| WorldAction::ClockStep {
                    process: *process,
                    delta_ms,
                })
                .collect(),
            WorldAction::ActorFault { process, fault } => {
                self.smaller_actor_faults(*process, fault)
            }
            _ => Vec::new(),
        }
    }
}

/// Drops process `p`'s pending or undecided `timer`.
fn forget_timer<A: Actor>(state: &mut StateOf<A>, p: ProcessId, timer: &A::Timer) {
    // Only a process that has the timer is written (a write copies a shared process state).
    if state.procs[p].timers.iter().any(|t| &t.timer == timer) {
        state.procs[p].timers.retain(|t| &t.timer != timer);
    }
    state
        .undecided_timers
        .retain(|t| t.process != p || &t.timer != timer);
}
