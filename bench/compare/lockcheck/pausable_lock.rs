//! The benchmark model "pausable-lock", written over the kernel's generic `Model` trait (the
//! same system in Promela is `bench/compare/spin/pausable_lock.pml`, in Stateright
//! `bench/compare/stateright/`). It is not part of the kernel's API: the benchmark
//! (`examples/pausable_lock.rs`) and its pinned state counts
//! (`sim/tests/pausable_lock_counts.rs`) include this file as a module of their own.
//!
//! The idea: a tiny, exactly specified transition system that several model checkers can
//! explore, so that their speed is compared on the *same* reachable state space. N clients
//! take a lease-based lock from one Redis-like server by request/response through one-slot
//! channels; the lease expires TTL ticks after the grant, a holder must leave its critical
//! section within C ticks of running time, and a client may be paused for P ticks at a time
//! out of a pause budget B shared by all clients. Time is a global tick counter that only
//! advances when no message is in flight towards a running client and no running holder has
//! overstayed. A paused holder keeps believing it holds the lock while its lease runs out, so
//! mutual exclusion fails exactly when `TTL <= C + B * P` (with `H >= TTL`).
//!
//! The state is a compact `Copy` value of bytes: a 5-byte header and 4 bytes per client
//! (program counter, request slot and response slot packed into one byte, then `since`,
//! `resume` and `rounds`), with room for [`MAX_CLIENTS`] clients. The fingerprint hashes the
//! used bytes as a handful of 64-bit words instead of feeding every field to the hasher.

use lockcheck_sim::{Fingerprint, FpHasher, Model, Property};
use std::fmt;
use std::hash::{Hash, Hasher};

/// The most clients a [`PausableLock`] supports.
pub const MAX_CLIENTS: usize = 8;

/// A client's program counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pc {
    Idle,
    WaitAcq,
    Holding,
    WaitRel,
    Done,
}

/// The client -> server slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Req {
    None,
    Acq,
    Rel,
}

/// The server -> client slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resp {
    None,
    Ok,
    Fail,
    Released,
}

/// One client's part of the state, 4 bytes.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Client {
    /// `pc` in bits 0..3, `req` in bits 3..5, `resp` in bits 5..7.
    bits: u8,
    /// The tick at which the client entered `Holding` (0 otherwise).
    pub since: u8,
    /// The tick at which its pause ends (0 when running).
    pub resume: u8,
    /// Rounds left.
    pub rounds: u8,
}

impl Client {
    pub fn pc(self) -> Pc {
        match self.bits & 0b111 {
            0 => Pc::Idle,
            1 => Pc::WaitAcq,
            2 => Pc::Holding,
            3 => Pc::WaitRel,
            _ => Pc::Done,
        }
    }

    pub fn req(self) -> Req {
        match (self.bits >> 3) & 0b11 {
            0 => Req::None,
            1 => Req::Acq,
            _ => Req::Rel,
        }
    }

    pub fn resp(self) -> Resp {
        match (self.bits >> 5) & 0b11 {
            0 => Resp::None,
            1 => Resp::Ok,
            2 => Resp::Fail,
            _ => Resp::Released,
        }
    }

    pub fn set_pc(&mut self, pc: Pc) {
        self.bits = (self.bits & !0b111) | pc as u8;
    }

    pub fn set_req(&mut self, req: Req) {
        self.bits = (self.bits & !(0b11 << 3)) | ((req as u8) << 3);
    }

    pub fn set_resp(&mut self, resp: Resp) {
        self.bits = (self.bits & !(0b11 << 5)) | ((resp as u8) << 5);
    }

    /// `running(i)`: not paused.
    pub fn running(self) -> bool {
        self.resume == 0
    }

    /// The four bytes as one word, for the fingerprint.
    #[inline]
    fn word(self) -> u32 {
        u32::from_le_bytes([self.bits, self.since, self.resume, self.rounds])
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.pc())?;
        if self.req() != Req::None {
            write!(f, " req={:?}", self.req())?;
        }
        if self.resp() != Resp::None {
            write!(f, " resp={:?}", self.resp())?;
        }
        if self.pc() == Pc::Holding {
            write!(f, " since={}", self.since)?;
        }
        if !self.running() {
            write!(f, " paused until {}", self.resume)?;
        }
        write!(f, " rounds={}", self.rounds)
    }
}

/// A state of the model: 37 bytes, `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct LockState {
    pub now: u8,
    /// The holder's id (1..=N), 0 when the lock is free.
    pub owner: u8,
    /// When the lease ends (0 when free).
    pub expiry: u8,
    /// Pause budget left, shared by all clients.
    pub pauses_left: u8,
    /// How many of `clients` are in use.
    len: u8,
    clients: [Client; MAX_CLIENTS],
}

impl LockState {
    /// The clients, client 1 first.
    pub fn clients(&self) -> &[Client] {
        &self.clients[..self.len as usize]
    }

    /// Client `id` (1-based, as in the spec).
    pub fn client(&self, id: usize) -> Client {
        self.clients()[id - 1]
    }

    /// How many clients are in `Holding`.
    pub fn holders(&self) -> usize {
        self.clients()
            .iter()
            .filter(|c| c.pc() == Pc::Holding)
            .count()
    }

    #[inline]
    fn header_word(&self) -> u32 {
        u32::from_le_bytes([self.now, self.owner, self.expiry, self.pauses_left])
    }
}

impl fmt::Debug for LockState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "now={} ", self.now)?;
        if self.owner == 0 {
            write!(f, "lock free")?;
        } else {
            write!(f, "lock c{} until {}", self.owner, self.expiry)?;
        }
        write!(f, ", pauses left {}", self.pauses_left)?;
        for (i, c) in self.clients().iter().enumerate() {
            write!(f, "; c{}: {:?}", i + 1, c)?;
        }
        Ok(())
    }
}

/// An action of the model. Client numbers are 1-based, as in the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A1: an idle running client sends an acquire request.
    Request(u8),
    /// A2: the server answers an acquire request.
    Grant(u8),
    /// A3: a running client takes its response.
    Receive(u8),
    /// A4: a running holder leaves its critical section and sends a release request.
    Exit(u8),
    /// A5: the server answers a release request.
    Unlock(u8),
    /// A6: a running client is paused for P ticks (a fault, out of the shared budget).
    Pause(u8),
    /// A7: time advances by one tick.
    Tick,
}

/// A configuration of the benchmark model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PausableLock {
    /// N, the number of clients (ids 1..=N).
    pub clients: u8,
    /// TTL, the lease in ticks.
    pub ttl: u8,
    /// C, the longest critical section in ticks of running time.
    pub max_critical: u8,
    /// P, the length of one pause in ticks.
    pub pause_len: u8,
    /// B, the pause budget shared by all clients.
    pub pause_budget: u8,
    /// H, the time horizon: no tick past it.
    pub horizon: u8,
    /// R, rounds per client.
    pub rounds: u8,
    /// Whether fingerprints are hashed in both lanes ([`PausableLock::with_wide_fingerprints`]).
    pub wide: bool,
}

/// Why a configuration was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl PausableLock {
    /// The configuration `N TTL C P B H R` of the spec, or why it cannot be represented:
    /// `1 <= N <= MAX_CLIENTS`, `R >= 1`, and `H + max(TTL, P) <= 255` (fields are bytes).
    pub fn try_new(
        clients: u64,
        ttl: u64,
        max_critical: u64,
        pause_len: u64,
        pause_budget: u64,
        horizon: u64,
        rounds: u64,
    ) -> Result<Self, ConfigError> {
        let err = |m: String| Err(ConfigError(m));
        if clients == 0 || clients > MAX_CLIENTS as u64 {
            return err(format!("N must be in 1..={MAX_CLIENTS}, got {clients}"));
        }
        if rounds == 0 || rounds > 255 {
            return err(format!("R must be in 1..=255, got {rounds}"));
        }
        if max_critical > 255 || pause_budget > 255 {
            return err("C and B must be at most 255".to_string());
        }
        if horizon.saturating_add(ttl.max(pause_len)) > 255 {
            return err(format!(
                "H + max(TTL, P) must be at most 255 (times are bytes), got {}",
                horizon.saturating_add(ttl.max(pause_len))
            ));
        }
        Ok(PausableLock {
            clients: clients as u8,
            ttl: ttl as u8,
            max_critical: max_critical as u8,
            pause_len: pause_len as u8,
            pause_budget: pause_budget as u8,
            horizon: horizon as u8,
            rounds: rounds as u8,
            wide: false,
        })
    }

    /// Hashes fingerprints in both lanes, so that a search may compare 128 bits.
    pub fn with_wide_fingerprints(mut self) -> Self {
        self.wide = true;
        self
    }

    /// Like [`try_new`](Self::try_new), panicking on a configuration it refuses.
    pub fn new(n: u64, ttl: u64, c: u64, p: u64, b: u64, h: u64, r: u64) -> Self {
        Self::try_new(n, ttl, c, p, b, h, r).unwrap_or_else(|e| panic!("pausable-lock: {e}"))
    }

    /// The spec's prediction, where it makes one: with `N >= 2`, `R >= 1`, `P >= 1` and
    /// `H >= TTL` a violation exists iff `TTL <= C + B * P`; with `B = 0` (and `N >= 2`,
    /// `H >= TTL`) iff `TTL <= C`.
    pub fn predicted_violation(&self) -> Option<bool> {
        if self.clients < 2 || self.horizon < self.ttl {
            return None;
        }
        let reach = self.max_critical as u32 + self.pause_budget as u32 * self.pause_len as u32;
        if self.pause_budget == 0 || self.pause_len >= 1 {
            Some(self.ttl as u32 <= reach)
        } else {
            None
        }
    }

    fn tick_enabled(&self, s: &LockState) -> bool {
        s.now < self.horizon
            && s.clients().iter().all(|c| {
                c.req() == Req::None
                    && (c.resp() == Resp::None || !c.running())
                    && !(c.running()
                        && c.pc() == Pc::Holding
                        && s.now - c.since >= self.max_critical)
            })
    }
}

impl Model for PausableLock {
    type State = LockState;
    type Action = Action;

    fn init_states(&self) -> Vec<LockState> {
        let client = Client {
            rounds: self.rounds,
            ..Client::default()
        };
        let mut clients = [Client::default(); MAX_CLIENTS];
        clients[..self.clients as usize].fill(client);
        vec![LockState {
            now: 0,
            owner: 0,
            expiry: 0,
            pauses_left: self.pause_budget,
            len: self.clients,
            clients,
        }]
    }

    fn actions(&self, s: &LockState, out: &mut Vec<Action>) {
        for (i, c) in s.clients().iter().enumerate() {
            let id = i as u8 + 1;
            let running = c.running();
            if running && c.pc() == Pc::Idle {
                out.push(Action::Request(id));
            }
            match c.req() {
                Req::Acq => out.push(Action::Grant(id)),
                Req::Rel => out.push(Action::Unlock(id)),
                Req::None => {}
            }
            if running && c.resp() != Resp::None {
                out.push(Action::Receive(id));
            }
            if running && c.pc() == Pc::Holding {
                out.push(Action::Exit(id));
            }
            if running && c.pc() != Pc::Done && s.pauses_left > 0 {
                out.push(Action::Pause(id));
            }
        }
        if self.tick_enabled(s) {
            out.push(Action::Tick);
        }
    }

    fn next_state(&self, s: &LockState, action: &Action) -> Option<LockState> {
        let mut n = *s;
        match *action {
            Action::Request(id) => {
                let c = &mut n.clients[id as usize - 1];
                c.set_req(Req::Acq);
                c.set_pc(Pc::WaitAcq);
            }
            Action::Grant(id) => {
                let free = n.owner == 0;
                if free {
                    n.owner = id;
                    n.expiry = n.now + self.ttl;
                }
                let c = &mut n.clients[id as usize - 1];
                c.set_req(Req::None);
                c.set_resp(if free { Resp::Ok } else { Resp::Fail });
            }
            Action::Receive(id) => {
                let now = n.now;
                let c = &mut n.clients[id as usize - 1];
                match c.resp() {
                    Resp::Ok => {
                        c.set_pc(Pc::Holding);
                        c.since = now;
                    }
                    Resp::Fail => c.set_pc(Pc::Idle),
                    Resp::Released => {
                        c.rounds -= 1;
                        c.set_pc(if c.rounds == 0 { Pc::Done } else { Pc::Idle });
                    }
                    Resp::None => unreachable!("receive is enabled only with a response"),
                }
                c.set_resp(Resp::None);
            }
            Action::Exit(id) => {
                let c = &mut n.clients[id as usize - 1];
                c.set_req(Req::Rel);
                c.set_pc(Pc::WaitRel);
                c.since = 0;
            }
            Action::Unlock(id) => {
                if n.owner == id {
                    n.owner = 0;
                    n.expiry = 0;
                }
                let c = &mut n.clients[id as usize - 1];
                c.set_req(Req::None);
                c.set_resp(Resp::Released);
            }
            Action::Pause(id) => {
                n.clients[id as usize - 1].resume = n.now + self.pause_len;
                n.pauses_left -= 1;
            }
            Action::Tick => {
                n.now += 1;
                if n.owner != 0 && n.expiry <= n.now {
                    n.owner = 0;
                    n.expiry = 0;
                }
                let now = n.now;
                for c in &mut n.clients[..self.clients as usize] {
                    if c.resume != 0 && c.resume <= now {
                        c.resume = 0;
                    }
                }
            }
        }
        Some(n)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("mutual-exclusion", |_, s: &LockState| {
            s.holders() <= 1
        })]
    }

    /// The used bytes (header, then 4 bytes a client) as 64-bit words.
    #[inline]
    fn fingerprint(&self, s: &LockState) -> Fingerprint {
        let mut h = FpHasher::of_width(self.wide);
        let clients = s.clients();
        h.write_u64(s.header_word() as u64 | (clients[0].word() as u64) << 32);
        for pair in clients[1..].chunks(2) {
            let high = pair.get(1).map_or(0, |c| c.word());
            h.write_u64(pair[0].word() as u64 | (high as u64) << 32);
        }
        h.finish_wide()
    }

    /// Both lanes hash every used word, when made so.
    fn wide_fingerprints(&self) -> bool {
        self.wide
    }

    fn label(&self, s: &LockState, action: &Action) -> String {
        match *action {
            Action::Request(id) => format!("request c{id}"),
            Action::Grant(id) => {
                if s.owner == 0 {
                    format!("grant c{id} until {}", s.now + self.ttl)
                } else {
                    format!("grant c{id} refused")
                }
            }
            Action::Receive(id) => {
                let what = match s.client(id as usize).resp() {
                    Resp::Ok => "ok",
                    Resp::Fail => "fail",
                    Resp::Released => "released",
                    Resp::None => "nothing",
                };
                format!("receive c{id} {what}")
            }
            Action::Exit(id) => format!("exit c{id}"),
            Action::Unlock(id) => format!("unlock c{id}"),
            Action::Pause(id) => format!("pause c{id} until {}", s.now + self.pause_len),
            Action::Tick => format!("tick -> {}", s.now + 1),
        }
    }

    /// One tick counts as one millisecond of virtual time.
    fn virtual_time_ms(&self, s: &LockState) -> u64 {
        s.now as u64
    }

    fn is_fault(&self, action: &Action) -> bool {
        matches!(action, Action::Pause(_))
    }

    fn model_hash(&self) -> u64 {
        let mut h = FpHasher::new();
        self.hash(&mut h);
        h.finish()
    }

    fn name(&self) -> String {
        let PausableLock {
            clients: n,
            ttl,
            max_critical: c,
            pause_len: p,
            pause_budget: b,
            horizon: h,
            rounds: r,
            wide: _,
        } = *self;
        format!("pausable-lock N={n} TTL={ttl} C={c} P={p} B={b} H={h} R={r}")
    }
}
