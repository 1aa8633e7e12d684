//! The protected resource: an account that lock holders debit, with the defences that make a
//! broken lock harmless or not.
//!
//! A client reads `(balance, version, done)` for business operation `biz_id`, works, then
//! asks to debit `amount`, computed from what it read. The account decides:
//! - with **fencing**, every access raises the highest token seen and a debit whose token is
//!   lower than it is refused (a read counts: a newer holder that has read makes an older
//!   holder's write stale);
//! - with seed 003's **unique business id**, a second debit for the same `biz_id` is refused;
//! - with seed 003's **conditional debit**, the debit is `balance -= amount` on the current
//!   balance, only `if balance >= amount`, so a stale read cannot lose an update;
//! - otherwise the write is the client's read-modify-write: `balance = read - amount`.
//!
//! It also keeps the ground truth the ME-resource oracle reads: writes that overwrote an
//! update their client never saw (lost updates) and business operations debited twice.

use crate::msg::{Msg, ResourceOp, ResourceReply, Timer};
use crate::node::RedisContext;
use lockcheck_sim::world::{Actor, ProcessId};

/// The account's configuration and defences.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Account {
    pub initial_balance: i64,
    pub fencing: bool,
    pub unique_biz_id: bool,
    pub conditional_debit: bool,
}

/// The account's state, with the damage done so far.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AccountState {
    pub balance: i64,
    pub version: u32,
    /// Highest fencing token accepted.
    pub max_token: Option<u64>,
    /// Business operations debited, sorted.
    pub done: Vec<u32>,
    pub lost_updates: u32,
    pub duplicate_debits: u32,
    /// Debits the defences refused.
    pub refused: u32,
}

impl AccountState {
    /// Whether a stale holder did damage: a lost update or a duplicate debit.
    pub fn damaged(&self) -> bool {
        self.lost_updates + self.duplicate_debits > 0
    }
}

impl Account {
    fn debit(
        &self,
        s: &mut AccountState,
        biz_id: u32,
        amount: i64,
        read: (i64, u32),
        token: Option<u64>,
    ) -> bool {
        if self.fencing {
            let token = token.unwrap_or(0);
            if s.max_token.is_some_and(|max| token < max) {
                return false;
            }
            s.max_token = Some(token);
        }
        let already = s.done.binary_search(&biz_id);
        if self.unique_biz_id && already.is_ok() {
            return false;
        }
        if self.conditional_debit {
            if s.balance < amount {
                return false;
            }
            s.balance -= amount;
        } else {
            if s.version != read.1 {
                s.lost_updates += 1;
            }
            s.balance = read.0 - amount;
        }
        match already {
            Ok(_) => s.duplicate_debits += 1,
            Err(at) => s.done.insert(at, biz_id),
        }
        s.version += 1;
        true
    }
}

impl Actor for Account {
    type Msg = Msg;
    type Timer = Timer;
    type State = AccountState;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, _ctx: &mut RedisContext) -> AccountState {
        AccountState {
            balance: self.initial_balance,
            version: 0,
            max_token: None,
            done: Vec::new(),
            lost_updates: 0,
            duplicate_debits: 0,
            refused: 0,
        }
    }

    fn on_message(&self, s: &mut AccountState, from: ProcessId, msg: Msg, ctx: &mut RedisContext) {
        let Msg::Resource(op) = msg else {
            panic!("the account handles only resource operations, not {msg:?}")
        };
        let reply = match op {
            ResourceOp::Read { biz_id, token } => {
                if self.fencing {
                    s.max_token = s.max_token.max(token);
                }
                ResourceReply::Value {
                    balance: s.balance,
                    version: s.version,
                    done: s.done.binary_search(&biz_id).is_ok(),
                }
            }
            ResourceOp::Debit {
                biz_id,
                amount,
                read_balance,
                read_version,
                token,
            } => {
                let applied = self.debit(s, biz_id, amount, (read_balance, read_version), token);
                s.refused += u32::from(!applied);
                ResourceReply::Debited(applied)
            }
        };
        ctx.send(from, Msg::ResourceReply(reply));
    }

    fn on_timer(&self, _: &mut AccountState, timer: Timer, _: &mut RedisContext) {
        panic!("the account sets no {timer:?} timer")
    }
}

/// A linearizable counter outside Redis that hands out fencing tokens (it survives what
/// Redis does not: failovers, restarts).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TokenService;

impl Actor for TokenService {
    type Msg = Msg;
    type Timer = Timer;
    type State = u64;
    type Fault = lockcheck_sim::world::NoFault;

    fn on_start(&self, _ctx: &mut RedisContext) -> u64 {
        0
    }

    fn on_message(&self, last: &mut u64, from: ProcessId, msg: Msg, ctx: &mut RedisContext) {
        assert_eq!(
            msg,
            Msg::NextToken,
            "the token service only hands out tokens"
        );
        *last += 1;
        ctx.send(from, Msg::Token(*last));
    }

    fn on_timer(&self, _: &mut u64, timer: Timer, _: &mut RedisContext) {
        panic!("the token service sets no {timer:?} timer")
    }
}
