//! The lease world in symbolic time: a prototype of the symbolic search on a small world,
//! proven against the concrete search of the same world (`sim/tests/symbolic_lease.rs`).
//!
//! The world: a key-value node grants one lease at a time for `ttl_ms`; client 1 asks at
//! time 0, holds for `work_ms` and releases; client 2 asks from `start2_ms` and, refused,
//! asks again every `retry_ms` until it is granted. Every message takes one of `delays_ms`.
//! The property: client 2 is granted while client 1 still holds (a lease shorter than the
//! work).
//!
//! A state keeps every time as time left. A value set at least `far_ms` ahead (the lease's
//! deadline, client 1's job, client 2's start) is *far*: the state's shape says only which
//! far values exist, and their times left are coordinates of a federation, so states that
//! differ only in them are one shape with a union of sets (`SymbolicStore`). A far value
//! leaves the federation when it falls due: where the next near event is `d` ms away, the
//! members whose earliest far values are all `v <= d` are split off value by value and
//! advanced by `v`, those values becoming near and due; the rest advance by `d`. With
//! `far_ms` above every time, the same code is the concrete search.

use lockcheck_sim::dbm::Federation;

pub type Ms = i64;

/// The world's parameters.
#[derive(Clone, Debug)]
pub struct Lease {
    pub ttl_ms: Ms,
    pub work_ms: Ms,
    pub retry_ms: Ms,
    pub start2_ms: Ms,
    pub delays_ms: Vec<Ms>,
    /// Values set at least this far ahead are far (`Ms::MAX`: none, the concrete search).
    pub far_ms: Ms,
}

impl Lease {
    /// The world the example and the tests search: client 2 from 100 ms, every message 1
    /// or 2 ms.
    pub fn new(ttl_ms: Ms, work_ms: Ms, retry_ms: Ms, far_ms: Ms) -> Self {
        Lease {
            ttl_ms,
            work_ms,
            retry_ms,
            start2_ms: 100,
            delays_ms: vec![1, 2],
            far_ms,
        }
    }
}

/// The far values, in the order of their coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    Lease,
    Job,
    Start2,
}

/// A time left: a value, or far (a coordinate of the state's federation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Left {
    Near(Ms),
    Far(Slot),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Client {
    One,
    Two,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Msg {
    Acquire(Client),
    Granted(Client),
    Denied(Client),
    Release(Client),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum One {
    Asking,
    Holding(Left),
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Two {
    Before(Left),
    Asking,
    Waiting(Ms),
    Granted,
}

/// A state's shape: everything but the far values' times left. Messages are near (a delay
/// is shorter than `far_ms`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    pub lease: Option<(Client, Left)>,
    pub one: One,
    pub two: Two,
    /// Messages in flight: time left and message, sorted.
    pub flights: Vec<(Ms, Msg)>,
    /// Client 2 was granted while client 1 held.
    pub overlap: bool,
}

/// A symbolic state: a shape and the times left of its far values.
#[derive(Clone, Debug)]
pub struct Symbolic {
    pub shape: Shape,
    pub far: Federation,
}

impl Shape {
    /// Every time left in the shape, with its slot where it is far.
    fn lefts(&mut self) -> Vec<&mut Left> {
        let mut out = Vec::new();
        if let Some((_, left)) = &mut self.lease {
            out.push(left);
        }
        if let One::Holding(left) = &mut self.one {
            out.push(left);
        }
        if let Two::Before(left) = &mut self.two {
            out.push(left);
        }
        out
    }

    /// The far slots present, in coordinate order.
    pub fn far_slots(&self) -> Vec<Slot> {
        let mut s = self.clone();
        let mut slots: Vec<Slot> = (s.lefts().into_iter())
            .filter_map(|l| match *l {
                Left::Far(slot) => Some(slot),
                Left::Near(_) => None,
            })
            .collect();
        slots.sort();
        slots
    }

    /// The concrete state of the member `point` (coordinates in [`Shape::far_slots`] order).
    pub fn concrete(&self, point: &[Ms]) -> Shape {
        let slots = self.far_slots();
        let mut s = self.clone();
        for left in s.lefts() {
            if let Left::Far(slot) = *left {
                let k = slots.iter().position(|&x| x == slot).unwrap();
                *left = Left::Near(point[k]);
            }
        }
        s
    }

    /// The next near due time (`None`: nothing near is pending).
    fn next_near(&mut self) -> Option<Ms> {
        let mut due: Vec<Ms> = self.flights.iter().map(|(d, _)| *d).collect();
        if let Two::Waiting(d) = self.two {
            due.push(d);
        }
        due.extend(self.lefts().into_iter().filter_map(|l| match *l {
            Left::Near(d) => Some(d),
            Left::Far(_) => None,
        }));
        due.into_iter().min()
    }

    /// Every near time moved `d` ms on.
    fn advance_near(&mut self, d: Ms) {
        self.flights.iter_mut().for_each(|(due, _)| *due -= d);
        if let Two::Waiting(w) = &mut self.two {
            *w -= d;
        }
        for left in self.lefts() {
            if let Left::Near(v) = left {
                *v -= d;
            }
        }
    }
}

impl Symbolic {
    /// `slot` set `ms` ahead: near, or a new coordinate fixed at `ms`.
    fn set(&mut self, slot: Slot, ms: Ms, world: &Lease) -> Left {
        if ms < world.far_ms {
            return Left::Near(ms);
        }
        let before = self.shape.far_slots();
        let mut after = before.clone();
        after.push(slot);
        after.sort();
        let sources: Vec<Option<usize>> = (after.iter())
            .map(|s| before.iter().position(|b| b == s).map(|i| i + 1))
            .collect();
        self.far = self.far.remap(&sources);
        let k = after.iter().position(|&s| s == slot).unwrap() + 1;
        self.far.constrain(k, 0, ms);
        self.far.constrain(0, k, -ms);
        Left::Far(slot)
    }

    /// Drops far `slot` (its value is gone before it fell due, or it became near).
    fn drop_far(&mut self, slot: Slot) {
        let before = self.shape.far_slots();
        let sources: Vec<Option<usize>> = (before.iter())
            .enumerate()
            .filter(|(_, &s)| s != slot)
            .map(|(i, _)| Some(i + 1))
            .collect();
        self.far = self.far.remap(&sources);
    }

    /// Clears the lease, dropping its coordinate if it was far.
    fn clear_lease(&mut self) {
        if let Some((_, Left::Far(slot))) = self.shape.lease {
            self.drop_far(slot);
        }
        self.shape.lease = None;
    }
}

/// `msg` sent, once per delay.
fn send(s: &Symbolic, msg: Msg, world: &Lease) -> Vec<Symbolic> {
    (world.delays_ms.iter())
        .map(|&d| {
            let mut next = s.clone();
            next.shape.flights.push((d, msg));
            next.shape.flights.sort();
            next
        })
        .collect()
}

/// The node or client receiving `msg`.
fn deliver(mut s: Symbolic, msg: Msg, world: &Lease) -> Vec<Symbolic> {
    match msg {
        Msg::Acquire(c) => match s.shape.lease {
            Some((_, Left::Far(_))) => send(&s, Msg::Denied(c), world),
            Some((_, Left::Near(left))) if left > 0 => send(&s, Msg::Denied(c), world),
            _ => {
                s.clear_lease();
                let left = s.set(Slot::Lease, world.ttl_ms, world);
                s.shape.lease = Some((c, left));
                send(&s, Msg::Granted(c), world)
            }
        },
        Msg::Release(c) => {
            if s.shape.lease.is_some_and(|(holder, _)| holder == c) {
                s.clear_lease();
            }
            vec![s]
        }
        Msg::Granted(Client::One) => {
            let left = s.set(Slot::Job, world.work_ms, world);
            s.shape.one = One::Holding(left);
            vec![s]
        }
        Msg::Denied(Client::One) => {
            s.shape.one = One::Done;
            vec![s]
        }
        Msg::Granted(Client::Two) => {
            s.shape.overlap |= matches!(s.shape.one, One::Holding(_));
            s.shape.two = Two::Granted;
            vec![s]
        }
        Msg::Denied(Client::Two) => {
            s.shape.two = Two::Waiting(world.retry_ms);
            vec![s]
        }
    }
}

/// The successors of the events due now, one set per event; empty when nothing is due.
fn fire_due(s: &Symbolic, world: &Lease) -> Vec<Symbolic> {
    let mut out = Vec::new();
    for (i, &(due, msg)) in s.shape.flights.iter().enumerate() {
        if due == 0 {
            let mut next = s.clone();
            next.shape.flights.remove(i);
            out.extend(deliver(next, msg, world));
        }
    }
    if let Some((_, Left::Near(0))) = s.shape.lease {
        let mut next = s.clone();
        next.shape.lease = None;
        out.push(next);
    }
    if s.shape.one == One::Holding(Left::Near(0)) {
        let mut next = s.clone();
        next.shape.one = One::Done;
        out.extend(send(&next, Msg::Release(Client::One), world));
    }
    if matches!(s.shape.two, Two::Before(Left::Near(0)) | Two::Waiting(0)) {
        let mut next = s.clone();
        next.shape.two = Two::Asking;
        out.extend(send(&next, Msg::Acquire(Client::Two), world));
    }
    out
}

/// Time moves on to the next event: the members whose earliest far values fall due at
/// `v <= d` (the next near event), split off value by value with those values made near
/// and due, and the rest moved on by `d`.
fn advance(s: &Symbolic) -> Vec<Symbolic> {
    let mut shape = s.shape.clone();
    let near = shape.next_near();
    let slots = s.shape.far_slots();
    let mut out = Vec::new();
    if let Some(d) = near {
        // The members none of whose far values falls due within `d`.
        let mut later = (1..=slots.len()).fold(s.far.clone(), |f, k| f.split_due(k, d).1);
        if !later.is_empty() {
            later.translate(-d);
            let mut next = Symbolic {
                shape: shape.clone(),
                far: later,
            };
            next.shape.advance_near(d);
            out.push(next);
        }
    }
    let last = near.unwrap_or_else(|| highest(&s.far));
    for v in 1..=last {
        // Each non-empty set of coordinates that fall due together at `v`.
        for mask in 1u32..(1 << slots.len()) {
            let mut part = s.far.clone();
            for k in 1..=slots.len() {
                if mask & (1 << (k - 1)) != 0 {
                    part.constrain(k, 0, v);
                    part.constrain(0, k, -v);
                } else {
                    part.constrain(0, k, -(v + 1));
                }
            }
            if part.is_empty() {
                continue;
            }
            part.translate(-v);
            let mut next = Symbolic {
                shape: shape.clone(),
                far: part,
            };
            next.shape.advance_near(v);
            for (k, &slot) in slots.iter().enumerate().rev() {
                if mask & (1 << k) != 0 {
                    next.drop_far(slot);
                    for left in next.shape.lefts() {
                        if *left == Left::Far(slot) {
                            *left = Left::Near(0);
                        }
                    }
                }
            }
            out.push(next);
        }
    }
    out
}

/// The largest value any coordinate of `far` may take (0 when there is none).
fn highest(far: &Federation) -> Ms {
    (far.pieces().iter())
        .flat_map(|p| (1..=p.dim()).map(move |k| p.bound(k, 0)))
        .max()
        .unwrap_or(0)
}

/// The successors of `s`: the events due now, or else time moving on.
pub fn successors(s: &Symbolic, world: &Lease) -> Vec<Symbolic> {
    let due = fire_due(s, world);
    if !due.is_empty() {
        return due;
    }
    advance(s)
}

/// The initial states: client 1's request on its way, client 2 waiting to start.
pub fn initial(world: &Lease) -> Vec<Symbolic> {
    let mut s = Symbolic {
        shape: Shape {
            lease: None,
            one: One::Asking,
            two: Two::Asking,
            flights: Vec::new(),
            overlap: false,
        },
        far: Federation::of(lockcheck_sim::dbm::Dbm::universe(0)),
    };
    let start = s.set(Slot::Start2, world.start2_ms, world);
    s.shape.two = Two::Before(start);
    send(&s, Msg::Acquire(Client::One), world)
}
