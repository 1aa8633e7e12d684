//! The pausable-lock benchmark model (see `README.md` one folder up) written for Stateright 0.31,
//! so that its breadth-first checker can be timed against lockcheck's explorer on the very same
//! reachable state space.
//!
//! ```text
//! pausable-lock-stateright [--threads T] N TTL C P B H R
//! ```
//!
//! The whole reachable space is explored: the run does not stop at the first violation (see
//! [`main`] for how). The last line is `states=<unique> violation=<yes|no> seconds=<wall>`, the
//! wall time of the whole process.

use stateright::{Checker, HasDiscoveries, Model, Property};
use std::hash::{Hash, Hasher};
use std::process::ExitCode;
use std::time::Instant;

/// The most clients a state has room for.
const MAX_CLIENTS: usize = 8;

// Program counter, request slot and response slot values. Every field is one byte.
const IDLE: u8 = 0;
const WAIT_ACQ: u8 = 1;
const HOLDING: u8 = 2;
const WAIT_REL: u8 = 3;
const DONE: u8 = 4;

const REQ_NONE: u8 = 0;
const REQ_ACQ: u8 = 1;
const REQ_REL: u8 = 2;

const RESP_NONE: u8 = 0;
const RESP_OK: u8 = 1;
const RESP_FAIL: u8 = 2;
const RESP_RELEASED: u8 = 3;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Client {
    pc: u8,
    req: u8,
    resp: u8,
    /// The tick at which the client entered Holding (0 otherwise).
    since: u8,
    /// The tick at which its pause ends (0 when running).
    resume: u8,
    /// Rounds left.
    rounds: u8,
}

impl Client {
    fn running(&self) -> bool {
        self.resume == 0
    }
}

/// A state: the shared fields and room for `MAX_CLIENTS` clients, of which `len` are used.
/// Equality and hashing look at the used clients only.
#[derive(Clone, Copy, Debug)]
struct State {
    now: u8,
    owner: u8,
    expiry: u8,
    pauses_left: u8,
    len: u8,
    clients: [Client; MAX_CLIENTS],
}

impl State {
    fn clients(&self) -> &[Client] {
        &self.clients[..self.len as usize]
    }
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        (self.now, self.owner, self.expiry, self.pauses_left)
            == (other.now, other.owner, other.expiry, other.pauses_left)
            && self.clients() == other.clients()
    }
}

impl Eq for State {}

impl Hash for State {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.now.hash(h);
        self.owner.hash(h);
        self.expiry.hash(h);
        self.pauses_left.hash(h);
        self.clients().hash(h);
    }
}

/// Client numbers are 0-based here (client 1 of the spec is 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Action {
    Request(u8),
    Grant(u8),
    Receive(u8),
    Exit(u8),
    Unlock(u8),
    Pause(u8),
    Tick,
}

#[derive(Clone, Copy, Debug)]
struct PausableLock {
    n: u8,
    ttl: u8,
    c: u8,
    p: u8,
    b: u8,
    h: u8,
    r: u8,
}

impl PausableLock {
    fn tick_enabled(&self, s: &State) -> bool {
        s.now < self.h
            && s.clients().iter().all(|c| {
                c.req == REQ_NONE
                    && (c.resp == RESP_NONE || !c.running())
                    && !(c.running() && c.pc == HOLDING && s.now - c.since >= self.c)
            })
    }
}

impl Model for PausableLock {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        let client = Client {
            rounds: self.r,
            ..Client::default()
        };
        let mut clients = [Client::default(); MAX_CLIENTS];
        clients[..self.n as usize].fill(client);
        vec![State {
            now: 0,
            owner: 0,
            expiry: 0,
            pauses_left: self.b,
            len: self.n,
            clients,
        }]
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        for (i, c) in s.clients().iter().enumerate() {
            let i = i as u8;
            let running = c.running();
            if running && c.pc == IDLE {
                actions.push(Action::Request(i));
            }
            if c.req == REQ_ACQ {
                actions.push(Action::Grant(i));
            }
            if running && c.resp != RESP_NONE {
                actions.push(Action::Receive(i));
            }
            if running && c.pc == HOLDING {
                actions.push(Action::Exit(i));
            }
            if c.req == REQ_REL {
                actions.push(Action::Unlock(i));
            }
            if running && c.pc != DONE && s.pauses_left > 0 {
                actions.push(Action::Pause(i));
            }
        }
        if self.tick_enabled(s) {
            actions.push(Action::Tick);
        }
    }

    fn next_state(&self, s: &State, action: Action) -> Option<State> {
        let mut n = *s;
        match action {
            Action::Request(i) => {
                let c = &mut n.clients[i as usize];
                c.req = REQ_ACQ;
                c.pc = WAIT_ACQ;
            }
            Action::Grant(i) => {
                let free = n.owner == 0;
                if free {
                    n.owner = i + 1;
                    n.expiry = n.now + self.ttl;
                }
                let c = &mut n.clients[i as usize];
                c.req = REQ_NONE;
                c.resp = if free { RESP_OK } else { RESP_FAIL };
            }
            Action::Receive(i) => {
                let now = n.now;
                let c = &mut n.clients[i as usize];
                match c.resp {
                    RESP_OK => {
                        c.pc = HOLDING;
                        c.since = now;
                    }
                    RESP_FAIL => c.pc = IDLE,
                    RESP_RELEASED => {
                        c.rounds -= 1;
                        c.pc = if c.rounds == 0 { DONE } else { IDLE };
                    }
                    _ => unreachable!("receive is enabled only with a response"),
                }
                c.resp = RESP_NONE;
            }
            Action::Exit(i) => {
                let c = &mut n.clients[i as usize];
                c.req = REQ_REL;
                c.pc = WAIT_REL;
                c.since = 0;
            }
            Action::Unlock(i) => {
                if n.owner == i + 1 {
                    n.owner = 0;
                    n.expiry = 0;
                }
                let c = &mut n.clients[i as usize];
                c.req = REQ_NONE;
                c.resp = RESP_RELEASED;
            }
            Action::Pause(i) => {
                n.clients[i as usize].resume = n.now + self.p;
                n.pauses_left -= 1;
            }
            Action::Tick => {
                n.now += 1;
                if n.owner != 0 && n.expiry <= n.now {
                    n.owner = 0;
                    n.expiry = 0;
                }
                let now = n.now;
                for c in &mut n.clients[..self.n as usize] {
                    if c.resume != 0 && c.resume <= now {
                        c.resume = 0;
                    }
                }
            }
        }
        Some(n)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("mutual exclusion", |_, s: &State| {
                s.clients().iter().filter(|c| c.pc == HOLDING).count() <= 1
            }),
            // Never discovered. Stateright stops expanding once every property has a discovery
            // (and does not expand a state that completes them), so this keeps the search going
            // over the whole reachable space after a mutual-exclusion violation is found.
            Property::sometimes("whole space", |_, _| false),
        ]
    }
}

const USAGE: &str = "usage: pausable-lock-stateright [--threads T] N TTL C P B H R
  (H + max(TTL, P) <= 255, 1 <= N <= 8, R >= 1; T defaults to 1)";

fn main() -> ExitCode {
    let start = Instant::now();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = 1usize;
    if args.first().map(String::as_str) == Some("--threads") {
        match args.get(1).and_then(|t| t.parse().ok()) {
            Some(t) if t >= 1 => threads = t,
            _ => return usage("--threads needs a positive integer"),
        }
        args.drain(..2);
    }
    if args.len() != 7 {
        return usage(&format!("expected 7 arguments, got {}", args.len()));
    }
    let mut v = [0u64; 7];
    for (value, arg) in v.iter_mut().zip(&args) {
        match arg.parse() {
            Ok(x) => *value = x,
            Err(_) => return usage(&format!("not a non-negative integer: {arg:?}")),
        }
    }
    let [n, ttl, c, p, b, h, r] = v;
    if n == 0
        || n > MAX_CLIENTS as u64
        || r == 0
        || r > 255
        || c > 255
        || b > 255
        || h.saturating_add(ttl.max(p)) > 255
    {
        return usage("parameters out of range");
    }
    let model = PausableLock {
        n: n as u8,
        ttl: ttl as u8,
        c: c as u8,
        p: p as u8,
        b: b as u8,
        h: h as u8,
        r: r as u8,
    };
    println!(
        "stateright 0.31 bfs, {threads} thread(s): pausable-lock N={n} TTL={ttl} C={c} P={p} B={b} H={h} R={r}"
    );

    let explore_start = Instant::now();
    let checker = model
        .checker()
        .threads(threads)
        // Never true while "whole space" has no discovery: the search runs to the end.
        .finish_when(HasDiscoveries::All)
        .spawn_bfs()
        .join();
    let explore_secs = explore_start.elapsed().as_secs_f64();

    let states = checker.unique_state_count();
    let violation = checker.discovery("mutual exclusion");
    if let Some(path) = &violation {
        let actions = path.clone().into_actions();
        println!(
            "mutual exclusion violated: counterexample of {} steps: {:?}",
            actions.len(),
            actions
        );
    }
    println!(
        "generated {} states, {} unique, max depth {}, {:.2} M unique states/s",
        checker.state_count(),
        states,
        checker.max_depth(),
        states as f64 / explore_secs.max(1e-9) / 1e6
    );
    if let Some(peak) = peak_rss_bytes() {
        println!(
            "peak memory {:.1} MB ({:.1} bytes/state)",
            peak as f64 / 1e6,
            peak as f64 / states.max(1) as f64
        );
    }
    println!(
        "states={states} violation={} seconds={:.3}",
        if violation.is_some() { "yes" } else { "no" },
        start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

fn usage(message: &str) -> ExitCode {
    eprintln!("pausable-lock-stateright: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

/// The peak resident set size of this process (`VmHWM`), in bytes.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
