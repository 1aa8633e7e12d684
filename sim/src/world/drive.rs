//! What a driver that runs the actors on its own scheduler needs from the kernel: move a
//! state's time on, start or restart a process, run a process's handler for a delivery or
//! a timer, and get the handler's effects back instead of having them applied.
//!
//! The madsim driver keeps a kernel state as its record of the world (the oracles read it)
//! and does the routing and timing of effects itself. It changes that state only through
//! these functions and [`World::apply_fault`], so a process's life cycle and the clock are
//! defined once, here and in the explorer's `step`, which uses the same functions.

use super::action::{ActionOf, WorldAction};
use super::actor::{Actor, Context, ProcessId};
use super::state::{Life, StateOf};
use super::World;

/// What a handler asked for: messages to send and timers to set or cancel.
pub type EffectsOf<A> = Context<<A as Actor>::Msg, <A as Actor>::Timer>;

impl<A: Actor> World<A> {
    /// Moves `state`'s time on to `now_ms`. Time never moves back.
    pub fn move_time_to(&self, state: &mut StateOf<A>, now_ms: u64) {
        assert!(
            now_ms >= state.now_ms,
            "internal bug: time moved back from {} to {now_ms} ms",
            state.now_ms
        );
        state.now_ms = now_ms;
    }

    /// Starts process `p` for the first time (`Actor::on_start`); it must not be up.
    pub fn start_process(&self, state: &mut StateOf<A>, p: ProcessId) -> EffectsOf<A> {
        assert!(
            !state.procs[p].is_up(),
            "internal bug: starting process {p}, which is up"
        );
        let mut ctx = Context::new(p, self.local_now(state, p));
        let s = self.processes[p].actor.on_start(&mut ctx);
        state.procs[p].life = Life::Up(s);
        self.note_anchors(state, p);
        ctx
    }

    /// Restarts crashed process `p` from what survived its crash (`Actor::on_restart`).
    pub fn restart_process(&self, state: &mut StateOf<A>, p: ProcessId) -> EffectsOf<A> {
        let Life::Down { survived, .. } = &mut state.procs[p].life else {
            panic!("internal bug: restarting process {p}, which is up")
        };
        let survived = survived.take();
        let mut ctx = Context::new(p, self.local_now(state, p));
        let s = self.processes[p].actor.on_restart(survived, &mut ctx);
        state.procs[p].life = Life::Up(s);
        self.note_anchors(state, p);
        ctx
    }

    /// Runs the handler of `event`, a delivery or a timer's firing, on its process, which
    /// must be up. The event is not taken from the state's queues: the explorer's step
    /// takes it out first, a driver that keeps them itself hands it over.
    pub fn handle_event(&self, state: &mut StateOf<A>, event: ActionOf<A>) -> EffectsOf<A> {
        match event {
            WorldAction::Deliver { from, to, msg } => match std::sync::Arc::try_unwrap(msg) {
                Ok(msg) => self.run_on(state, to, |actor, s, ctx| {
                    actor.on_message(s, from, msg, ctx)
                }),
                Err(lent) => self.run_on(state, to, |actor, s, ctx| {
                    actor.on_message_lent(s, from, &lent, ctx)
                }),
            },
            WorldAction::Fire { process, timer } => self.run_on(state, process, |actor, s, ctx| {
                actor.on_timer(s, timer, ctx)
            }),
            other => panic!("internal bug: {other:?} is not handled by a process"),
        }
    }

    /// Runs one handler of process `p`, which must be up, and returns its effects.
    fn run_on(
        &self,
        state: &mut StateOf<A>,
        p: ProcessId,
        handler: impl FnOnce(&A, &mut A::State, &mut Context<A::Msg, A::Timer>),
    ) -> EffectsOf<A> {
        let mut ctx = Context::new(p, self.local_now(state, p));
        let Life::Up(s) = &mut state.procs[p].life else {
            panic!("internal bug: handler of a process that is down")
        };
        handler(&self.processes[p].actor, s, &mut ctx);
        if !self.anchors.is_empty() {
            self.note_anchors(state, p);
        }
        ctx
    }
}
