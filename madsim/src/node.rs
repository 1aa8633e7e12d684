//! A process on its madsim node: its endpoint, its timers on its own clock, and its messages
//! held until due.
//!
//! The node's task binds the process's endpoint, starts the actor, then loops: run one due
//! event (the earliest due timer, or any deliverable message, chosen at random as the
//! kernel's random walks choose), apply the handler's effects, offer the fault injector its
//! chance (also before the first event at a new time), and yield, so that a pause or crash
//! takes effect and other tasks due at the same time interleave. When nothing is due it
//! sleeps until the next due time or the next arrival. Timers and held messages are the
//! task's own memory: a madsim kill drops them, as a crash does in the kernel. A madsim
//! pause stops the task; on resume, everything that fell due meanwhile runs, in an order
//! chosen like any other (overdue timers in due order only when the world says so).

use crate::record::ChoiceKind;
use crate::run::{Effects, HostedActor, Run};
use crate::wire::{self, Envelope, Held};
use lockcheck_sim::world::{ActionOf, ProcessId, TimerEffect, WorldAction};
use madsim::net::Endpoint;
use madsim::rand::{thread_rng, Rng};
use madsim::time::sleep_until;
use std::sync::Arc;
use tokio::sync::mpsc;

/// A pending timer: true due time, in firing order.
struct Timer<T> {
    due_ms: u64,
    timer: T,
}

/// What a process's task keeps in its own memory.
struct Local<A: HostedActor> {
    timers: Vec<Timer<A::Timer>>,
    held: Held<A::Msg>,
}

impl<A: HostedActor> Local<A> {
    fn work(&self) -> usize {
        self.timers.len() + self.held.len()
    }

    /// The events of process `p` due at `now`: how many of its first timers may fire (the
    /// earliest when due; after a pause, every overdue one unless the world fires them in due
    /// order), and which held messages may be delivered.
    fn due(&self, run: &Run<A>, p: ProcessId, now: u64) -> (usize, Vec<usize>) {
        let fifo = |from: ProcessId| run.world.network.link(from, p).fifo;
        let dues_ms = self.timers.iter().map(|t| t.due_ms);
        (
            run.world.resume_order().firable(dues_ms, now),
            self.held.deliverable(now, fifo),
        )
    }

    /// Whether some event of process `p` is due at `now`.
    fn has_due(&self, run: &Run<A>, p: ProcessId, now: u64) -> bool {
        let (timers, messages) = self.due(run, p, now);
        timers > 0 || !messages.is_empty()
    }
}

/// The task of process `p`'s node (also its restart task).
pub(crate) async fn process<A: HostedActor>(run: Arc<Run<A>>, p: ProcessId) {
    let endpoint = run.bind(p).await;
    let (arrivals_tx, mut arrivals) = mpsc::unbounded_channel();
    let receiver = endpoint.clone();
    // The network takes messages in while the process is paused, as the kernel's buffer
    // does: so arrivals are taken from the endpoint on the carrier node, which never pauses,
    // in the order they arrive. (Left to pile up in madsim's mailbox, they would come out
    // in another order: it takes a message out by swapping the last one into its place.)
    run.carrier.spawn(async move {
        while let Ok((payload, _)) = receiver.recv_from_raw(wire::TAG).await {
            let envelope = payload
                .downcast::<Envelope<A::Msg>>()
                .expect("only envelopes travel with the driver's tag");
            if arrivals_tx.send(*envelope).is_err() {
                break;
            }
        }
    });
    let first_start = !run.lock().started[p];
    let restart_at_ms = run.lock().restart_at_ms(p);
    if first_start {
        run.join_start(p).await;
    } else if let Some(at_ms) = restart_at_ms {
        sleep_until(run.instant(at_ms)).await;
    }
    let mut local = Local::<A> {
        timers: Vec::new(),
        held: Held::default(),
    };
    let Some(effects) = run.start_actor(p) else {
        return std::future::pending().await;
    };
    apply(&run, p, &endpoint, &mut local, effects);
    if first_start {
        // As in the kernel's first state, every process starts before anything happens.
        run.publish_work(p, local.work());
        run.wait_all_started().await;
    } else {
        after_event(&run, p, &local).await;
    }
    loop {
        while let Ok(envelope) = arrivals.try_recv() {
            local.held.push(envelope);
        }
        let now = run.now_ms();
        drop_cut(&run, p, now, &mut local);
        if local.has_due(&run, p, now) && run.first_event_at(now) {
            // Time moved on: as the kernel may take a fault when it advances, before any
            // event due at the new time, so may this run.
            run.maybe_fault();
            madsim::task::yield_now().await;
            continue;
        }
        if let Some((event, label)) = next_event(&run, p, now, &mut local) {
            let Some(effects) = run.handle(p, event, label) else {
                return std::future::pending().await;
            };
            apply(&run, p, &endpoint, &mut local, effects);
            after_event(&run, p, &local).await;
            continue;
        }
        run.publish_work(p, local.work());
        let fifo = |from: ProcessId| run.world.network.link(from, p).fifo;
        let next_due = local
            .timers
            .first()
            .map(|t| t.due_ms)
            .into_iter()
            .chain(local.held.next_due_ms(fifo))
            .min();
        tokio::select! {
            biased;
            Some(envelope) = arrivals.recv() => local.held.push(envelope),
            _ = sleep_until(run.instant(next_due.unwrap_or(0))), if next_due.is_some() => {}
        }
    }
}

/// After each event: publish the work left, give the fault injector its chance, and yield, so
/// that a pause or crash it chose (of this process too) takes effect before the next event.
async fn after_event<A: HostedActor>(run: &Arc<Run<A>>, p: ProcessId, local: &Local<A>) {
    run.publish_work(p, local.work());
    run.maybe_fault();
    madsim::task::yield_now().await;
}

/// Drops the held messages that a partition cut while they were on their way (the kernel
/// drops them when the partition begins).
fn drop_cut<A: HostedActor>(run: &Run<A>, p: ProcessId, now: u64, local: &mut Local<A>) {
    for envelope in local
        .held
        .remove_lost(|e| run.cut_since(e.from, p, e.sent_ms))
    {
        run.lock().transit.taken(envelope.from, p, envelope.seq);
        let label = run.world.processes[p].actor.describe_msg(&envelope.msg);
        let from = run.world.process_name(envelope.from);
        let to = run.world.process_name(p);
        run.lock().aside(
            now,
            format!("cut {from} -> {to}: {label} (a partition began on its way)"),
        );
    }
}

/// Takes one event due at `now`: a timer that may fire, or a deliverable message, chosen
/// uniformly; with the kernel's label of a timer fired ahead of an earlier one.
fn next_event<A: HostedActor>(
    run: &Run<A>,
    p: ProcessId,
    now: u64,
    local: &mut Local<A>,
) -> Option<(ActionOf<A>, Option<String>)> {
    let (timers, messages) = local.due(run, p, now);
    let choices = timers + messages.len();
    if choices == 0 {
        return None;
    }
    let k = thread_rng().gen_range(0..choices);
    if k < timers {
        let t = local.timers.remove(k);
        let label = (k > 0).then(|| {
            let first = &local.timers[0];
            run.world
                .fire_label(p, &t.timer, Some((&first.timer, first.due_ms)))
        });
        let fire = WorldAction::Fire {
            process: p,
            timer: t.timer,
        };
        return Some((fire, label));
    }
    let envelope = local.held.take(messages[k - timers]);
    run.lock().transit.taken(envelope.from, p, envelope.seq);
    let deliver = WorldAction::Deliver {
        from: envelope.from,
        to: p,
        msg: Arc::new(envelope.msg),
    };
    Some((deliver, None))
}

/// Applies a handler's effects: timers on the process's own clock, then its sends.
fn apply<A: HostedActor>(
    run: &Run<A>,
    p: ProcessId,
    endpoint: &Endpoint,
    local: &mut Local<A>,
    (sends, timers): Effects<A>,
) {
    let now = run.now_ms();
    let clock = run.world.processes[p].clock;
    for effect in timers {
        let (timer, after_ms) = match effect {
            TimerEffect::Set { timer, after_ms } => (timer, after_ms),
            TimerEffect::SetAmong { timer, after_ms } => {
                let pick = after_ms[thread_rng().gen_range(0..after_ms.len())];
                if after_ms.len() > 1 {
                    let label = run.world.timer_duration_label(p, &timer, pick);
                    run.lock().choice(now, p, ChoiceKind::TimerDuration, label);
                }
                (timer, pick)
            }
            TimerEffect::Cancel(timer) => {
                local.timers.retain(|t| t.timer != timer);
                continue;
            }
        };
        local.timers.retain(|t| t.timer != timer);
        let due_ms = clock.due_after(now, after_ms);
        let at = local.timers.partition_point(|t| t.due_ms <= due_ms);
        local.timers.insert(at, Timer { due_ms, timer });
    }
    for (to, msg) in sends {
        run.send(endpoint, p, to, msg);
    }
}
