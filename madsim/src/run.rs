//! One run of a world on madsim: a madsim node per process, a carrier node for the driver's
//! own tasks, and the main task waiting for the run to end.
//!
//! Every process's handlers run under the run's lock, which also guards the [`Record`]; no
//! lock is ever held across an `.await`. madsim decides the order in which ready tasks run,
//! from its seed, so events due at the same time interleave differently from seed to seed.

use crate::node;
use crate::record::{ChoiceKind, Record};
use crate::report::{Ended, RunReport};
use crate::transit::Sent;
use crate::wire::{self, Envelope};
use lockcheck_sim::world::{ActionOf, Actor, ProcessId, World};
use lockcheck_sim::Trace;
use lockcheck_sim::FAULT_RATES_PER_MILLE;
use madsim::net::{Endpoint, NetSim};
use madsim::rand::{thread_rng, Rng};
use madsim::runtime::{Handle, NodeHandle};
use madsim::task::NodeId;
use madsim::time::{sleep, sleep_until, Duration, Instant};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

/// madsim time per millisecond of world time. madsim makes every sleep last at least 1 ms
/// and adds such a sleep to each send and each receive (its model of syscall latency); a
/// world's delays are a few ms, so at one-to-one those costs would lengthen every message.
/// The driver runs a world's milliseconds as madsim seconds, where they shrink to a few
/// millionths of a world millisecond, below the world's resolution.
pub const MADSIM_PER_WORLD_MS: Duration = Duration::from_secs(1);

/// World time a run lasts at most, whatever its options say (49.7 days: the madsim instants
/// of later times are not represented).
pub const MAX_WORLD_MS: u64 = u32::MAX as u64;

/// How long the network may still carry a message after the last event (madsim's send and
/// receive costs, with the latency the driver sets to zero), in madsim time.
const SETTLE: Duration = Duration::from_millis(10);

/// How a run is bounded and how often faults strike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Handlers a run runs at most (worlds with periodic timers never go quiet).
    pub max_steps: u32,
    /// World time a run lasts at most, in ms (never more than [`MAX_WORLD_MS`]).
    pub max_virtual_time_ms: Option<u64>,
    /// The chance of a fault after each event, per thousand; `None` draws it from the seed
    /// among the kernel's random-walk rates, so some runs are calm and others stormy.
    pub fault_per_mille: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            max_steps: 1_000,
            max_virtual_time_ms: None,
            fault_per_mille: None,
        }
    }
}

/// An actor the driver can host: its values cross madsim's network and tasks (states and
/// timers `Sync` too, since world states share process states between copies; its own
/// faults sit in the world's envelope).
pub trait HostedActor:
    Actor<
        Msg: Send + Sync + 'static,
        Timer: Send + Sync + 'static,
        State: Send + Sync + 'static,
        Fault: Send + Sync + 'static,
    > + Send
    + Sync
    + 'static
{
}

impl<A> HostedActor for A where
    A: Actor<
            Msg: Send + Sync + 'static,
            Timer: Send + Sync + 'static,
            State: Send + Sync + 'static,
            Fault: Send + Sync + 'static,
        > + Send
        + Sync
        + 'static
{
}

/// What a run shares between its tasks.
pub(crate) struct Run<A: Actor> {
    pub world: Arc<World<A>>,
    /// Which run of its runtime this is (runs of one runtime use separate addresses).
    pub index: u32,
    pub options: RunOptions,
    pub fault_per_mille: u64,
    record: Mutex<Record<A>>,
    /// The driver's own node: it carries sends and runs scheduled resumes, restarts and
    /// heals, and never suffers a fault.
    pub carrier: NodeHandle,
    /// madsim node of each process.
    nodes: Mutex<Vec<NodeId>>,
    start: Instant,
    /// Opened whenever a process binds its endpoint or starts, for the processes waiting for
    /// all the others at start-up. (Not tokio's `Barrier`: its wake-up order comes from
    /// tokio's own process-wide random state, which would make a run depend on earlier runs.)
    gate: Notify,
    /// Wakes the main task: the run ended, or may have gone quiet.
    wake_main: Notify,
}

impl<A: HostedActor> Run<A> {
    pub fn lock(&self) -> MutexGuard<'_, Record<A>> {
        self.record
            .lock()
            .expect("no task panics while holding the record")
    }

    /// True (world) time since the run began, in whole ms.
    pub fn now_ms(&self) -> u64 {
        ((Instant::now() - self.start).as_nanos() / MADSIM_PER_WORLD_MS.as_nanos()) as u64
    }

    /// The madsim instant at world time `ms` (at most [`MAX_WORLD_MS`]).
    pub fn instant(&self, ms: u64) -> Instant {
        self.start + MADSIM_PER_WORLD_MS * u32::try_from(ms).unwrap_or(u32::MAX)
    }

    /// The world time at which the run ends at the latest.
    fn time_bound_ms(&self) -> u64 {
        self.options
            .max_virtual_time_ms
            .unwrap_or(MAX_WORLD_MS)
            .min(MAX_WORLD_MS)
    }

    pub fn node(&self, p: ProcessId) -> NodeId {
        self.nodes.lock().expect("never poisoned")[p]
    }

    /// Binds process `p`'s endpoint (and keeps it for the refusals its crashed peers send
    /// it, see `refuse_in_transit`).
    pub async fn bind(&self, p: ProcessId) -> Endpoint {
        let endpoint = Endpoint::bind(wire::address(self.index, p))
            .await
            .expect("the process's address is free on its own node");
        self.lock().endpoints[p] = Some(endpoint.clone());
        endpoint
    }

    /// Crashed process `q`'s host answers the messages that were on their way to it, as the
    /// kernel's crash does: each refusal goes back to its sender (through the sender's own
    /// endpoint).
    pub fn refuse_in_transit(&self, r: &mut Record<A>, q: ProcessId) {
        for sent in r.transit.take_to(q) {
            let Some(back) = self.world.refusal(&r.state, sent.from, q, &sent.msg) else {
                continue;
            };
            if let Some(endpoint) = r.endpoints[sent.from].clone() {
                self.send_locked(r, &endpoint, q, sent.from, back);
            }
        }
    }

    /// Process `p` has bound its endpoint: waits until every process has, so that no
    /// start-up message goes to an address not yet bound.
    pub async fn join_start(&self, p: ProcessId) {
        self.lock().bound[p] = true;
        self.gate.notify_waiters();
        self.wait_until(|r| r.bound.iter().all(|&b| b)).await;
    }

    /// Waits until every process has started (the caller has).
    pub async fn wait_all_started(&self) {
        self.gate.notify_waiters();
        self.wait_until(|r| r.started.iter().all(|&s| s)).await;
    }

    /// Waits until `ready` holds of the record; it is checked again whenever the gate is
    /// opened.
    async fn wait_until(&self, ready: impl Fn(&Record<A>) -> bool) {
        loop {
            let opened = self.gate.notified();
            tokio::pin!(opened);
            opened.as_mut().enable();
            if ready(&self.lock()) {
                return;
            }
            opened.await;
        }
    }

    /// Starts (or restarts) process `p`'s actor; returns its start-up effects.
    pub fn start_actor(&self, p: ProcessId) -> Option<Effects<A>> {
        let now = self.now_ms();
        let mut r = self.lock();
        if r.ended.is_some() {
            return None;
        }
        self.world.move_time_to(&mut r.state, now);
        let ctx = if r.started[p] {
            r.controls -= 1;
            r.note(now, format!("restart {}", self.world.process_name(p)));
            self.world.restart_process(&mut r.state, p)
        } else {
            self.world.start_process(&mut r.state, p)
        };
        r.started[p] = true;
        // The kernel's first state has every process started; judge nothing before that.
        if r.started.iter().all(|&s| s) {
            r.evaluate(&self.world, now);
        }
        self.wake_if_done(&r);
        Some(ctx.into_effects())
    }

    /// Before anything happens at `now`: if time moved on since the state was last judged,
    /// judges it as it stands now (the kernel judges the state its `Advance` reaches).
    /// Returns whether the run goes on.
    pub fn catch_up(&self, r: &mut Record<A>, now: u64) -> bool {
        if r.ended.is_none() && r.state.now_ms != now {
            r.evaluate(&self.world, now);
            self.wake_if_done(r);
        }
        r.ended.is_none()
    }

    /// Runs process `p`'s handler for `event` (recorded under `label` when the kernel's
    /// label needs what the node keeps itself); returns its effects, or `None` once the run
    /// has ended.
    pub fn handle(
        &self,
        p: ProcessId,
        event: ActionOf<A>,
        label: Option<String>,
    ) -> Option<Effects<A>> {
        let now = self.now_ms();
        let mut r = self.lock();
        if !self.catch_up(&mut r, now) {
            return None;
        }
        assert!(
            r.is_running(p),
            "internal bug: a handler of a stopped process"
        );
        debug_assert_eq!(self.world.action_process(&event), Some(p));
        let ctx = self.world.handle_event(&mut r.state, event.clone());
        r.log(now, event, label);
        r.steps += 1;
        r.evaluate(&self.world, now);
        if r.steps >= self.options.max_steps {
            r.end(Ended::StepBound);
        }
        if now >= self.time_bound_ms() {
            r.end(Ended::TimeBound);
        }
        self.wake_if_done(&r);
        Some(ctx.into_effects())
    }

    /// Puts `msg` from `from` to `to` on madsim's network, with a delay drawn from its link's
    /// set, unless a lossy link loses it.
    pub fn send(&self, endpoint: &Endpoint, from: ProcessId, to: ProcessId, msg: A::Msg) {
        let mut r = self.lock();
        self.send_locked(&mut r, endpoint, from, to, msg);
    }

    /// [`Run::send`] with the record locked. A message to a process that is down goes no
    /// further: its host's refusal, if any, comes back to `from` (through `from`'s own
    /// `endpoint`), as the kernel routes it; one to a process that is up is booked in
    /// transit until its receiver takes it.
    pub fn send_locked(
        &self,
        r: &mut Record<A>,
        endpoint: &Endpoint,
        from: ProcessId,
        to: ProcessId,
        msg: A::Msg,
    ) {
        let now = self.now_ms();
        let link = self.world.network.link(from, to);
        let mut rng = thread_rng();
        let losses_left = self.world.losses_left(&r.state);
        if link.lossy && losses_left && rng.gen_range(0..1000) < self.fault_per_mille {
            self.world.count_loss(&mut r.state);
            let label = self.world.lose_label(from, to, &msg);
            r.choice(now, from, ChoiceKind::Lose, label);
            return;
        }
        let delay_ms = link.delays_ms[rng.gen_range(0..link.delays_ms.len())];
        if link.is_choice(losses_left) {
            let label = self.world.route_label(from, to, &msg, delay_ms);
            r.choice(now, from, ChoiceKind::Route, label);
        }
        if self.world.is_cut(&r.state, from, to) {
            return;
        }
        // (A process not started yet is not down: at start-up every process is up before
        // any message is routed, as in the kernel.)
        if r.started[to] && !r.state.is_up(to) {
            if let Some(back) = self.world.refusal(&r.state, from, to, &msg) {
                self.send_locked(r, endpoint, to, from, back);
            }
            return;
        }
        let seq = r.next_seq[from];
        r.next_seq[from] += 1;
        r.transit.push(Sent {
            from,
            to,
            seq,
            msg: msg.clone(),
        });
        let envelope = Envelope {
            from,
            msg,
            seq,
            sent_ms: now,
            due_ms: now + delay_ms,
        };
        let endpoint = endpoint.clone();
        let index = self.index;
        // Sent from the carrier node, through the sender's own endpoint (so madsim checks the
        // sender's links): a pause or crash of the sender right after its handler cannot
        // hold back or lose what the handler sent.
        self.carrier.spawn(async move {
            let _ = endpoint
                .send_to_raw(wire::address(index, to), wire::TAG, Box::new(envelope))
                .await;
        });
    }

    /// Whether a partition that blocks `from -> to` began while a message sent at `sent_ms`
    /// was on its way (it is then lost, as in the kernel).
    pub fn cut_since(&self, from: ProcessId, to: ProcessId, sent_ms: u64) -> bool {
        let r = self.lock();
        r.partitions_begun
            .iter()
            .any(|&(rule, at)| at >= sent_ms && self.world.faults.partitions[rule].blocks(from, to))
    }

    /// Whether `now` is later than every event so far (the first event at a new time asks).
    pub fn first_event_at(&self, now: u64) -> bool {
        let mut r = self.lock();
        let first = r.last_event_ms.is_none_or(|t| t < now);
        r.last_event_ms = Some(now);
        first
    }

    /// Publishes how much work process `p` has pending.
    pub fn publish_work(&self, p: ProcessId, work: usize) {
        let mut r = self.lock();
        r.work[p] = work;
        self.wake_if_done(&r);
    }

    /// Wakes the main task if the run ended or may have gone quiet.
    pub fn wake_if_done(&self, r: &Record<A>) {
        if r.ended.is_some() || r.looks_quiet() {
            self.wake_main.notify_one();
        }
    }

    /// Waits until the run ends: a violation, a bound, or quiescence (nothing scheduled and
    /// no event for [`SETTLE`], so that nothing is left on the network either).
    async fn wait_for_end(&self) {
        loop {
            let steps = {
                let mut r = self.lock();
                if self.now_ms() >= self.time_bound_ms() {
                    r.end(Ended::TimeBound);
                }
                if r.ended.is_some() {
                    return;
                }
                r.looks_quiet().then_some(r.steps)
            };
            match steps {
                Some(steps) => {
                    sleep(SETTLE).await;
                    let mut r = self.lock();
                    if r.ended.is_none() && r.looks_quiet() && r.steps == steps {
                        let now = self.now_ms();
                        r.evaluate(&self.world, now);
                        r.at_terminal(now);
                        r.end(Ended::Quiescent);
                        return;
                    }
                }
                None => {
                    // Woken by the processes; the timer is only a backstop.
                    let wake_at = self.time_bound_ms().min(self.now_ms() + 3_600_000);
                    tokio::select! {
                        biased;
                        _ = self.wake_main.notified() => {}
                        _ = sleep_until(self.instant(wake_at)) => {}
                    }
                }
            }
        }
    }
}

/// A handler's effects: messages to send and timer requests.
pub(crate) type Effects<A> = (
    Vec<(ProcessId, <A as Actor>::Msg)>,
    Vec<lockcheck_sim::world::TimerEffect<<A as Actor>::Timer>>,
);

/// Runs `world` once on the current madsim runtime, with faults from its envelope, and judges
/// it by its properties. Call it inside `#[madsim::test]` (or a madsim `Runtime`); the
/// runtime's seed decides everything, so the same seed gives the same run. For several runs
/// in one runtime, use [`run_batch`](crate::run_batch).
pub async fn run<A: HostedActor>(world: Arc<World<A>>, options: RunOptions) -> RunReport {
    run_in_runtime(world, options, 0).await
}

/// Run number `index` of the current runtime, on nodes of its own; they are killed when the
/// run ends, so nothing of it lingers into the next.
pub(crate) async fn run_in_runtime<A: HostedActor>(
    world: Arc<World<A>>,
    options: RunOptions,
    index: u32,
) -> RunReport {
    let handle = Handle::current();
    NetSim::current().update_config(|c| {
        c.packet_loss_rate = 0.0;
        c.send_latency = Duration::ZERO..Duration::from_nanos(1);
    });
    let fault_per_mille = options.fault_per_mille.unwrap_or_else(|| {
        FAULT_RATES_PER_MILLE[thread_rng().gen_range(0..FAULT_RATES_PER_MILLE.len())]
    });
    let carrier = handle
        .create_node()
        .name(format!("lockcheck-carrier-{index}"))
        .ip(wire::carrier_ip(index))
        .build();
    let processes = world.processes.len();
    let run = Arc::new(Run {
        record: Mutex::new(Record::new(&world)),
        world,
        index,
        options,
        fault_per_mille,
        carrier,
        nodes: Mutex::new(Vec::new()),
        start: Instant::now(),
        gate: Notify::new(),
        wake_main: Notify::new(),
    });
    let nodes: Vec<NodeId> = (0..processes)
        .map(|p| {
            // madsim keeps a node's init function as long as the runtime lives; holding the
            // run only weakly lets a finished run's record go.
            let weak = Arc::downgrade(&run);
            handle
                .create_node()
                .name(run.world.process_name(p).to_string())
                .ip(wire::address(index, p).ip())
                .init(move || {
                    let run = weak.upgrade();
                    async move {
                        if let Some(run) = run {
                            node::process(run, p).await;
                        }
                    }
                })
                .build()
                .id()
        })
        .collect();
    *run.nodes.lock().expect("never poisoned") = nodes.clone();
    run.wait_for_end().await;
    for node in nodes {
        handle.kill(node);
    }
    handle.kill(run.carrier.id());
    let end_ms = run.now_ms();
    let r = run.lock();
    let (witnessed, not_witnessed) = r.witnesses();
    RunReport {
        seed: handle.seed(),
        run: index,
        world: run.world.name.clone(),
        fault_per_mille,
        violation: r.violation.clone(),
        witnessed,
        not_witnessed,
        ended: r.ended.expect("the run ended"),
        steps: r.steps,
        end_ms,
        faults: r.state.faults_used,
        timeline: r.timeline_lines(&run.world),
        trace: Trace::new(
            &*run.world,
            None,
            r.violation.as_ref().map(|v| v.property.as_str()),
            0,
            r.kernel_steps(&run.world),
        ),
    }
}
