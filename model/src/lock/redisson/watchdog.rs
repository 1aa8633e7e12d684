//! Redisson's watchdog (`renewExpiration`): `lease / 3` after the acquire's answer and after
//! each renewal's, on the process's own timer, the renew script; what a failed renewal does
//! depends on the [`Generation`].

use super::{Generation, Redisson, RedissonPhase, RedissonState, Watchdog, FAILED_CAP, RENEW};
use crate::lock::engine::LockIo;
use crate::msg::LockTimer;
use crate::redis::{Command, LockScript, Reply};

impl Redisson {
    pub(super) fn schedule_renewal(&self, state: &mut RedissonState, io: &mut LockIo) {
        state.watchdog = Watchdog::Ticking;
        io.set_timer(LockTimer::Renew, self.renew_every_ms());
    }

    pub(super) fn renew(&self, state: &mut RedissonState, io: &mut LockIo) {
        let script = LockScript::RedissonRenew {
            key: io.key.to_vec(),
            field: Self::field(io.owner),
            lease_ms: self.watchdog_timeout_ms as i64,
        };
        let tag = self.send(state, RENEW, Command::Script(script), io);
        state.watchdog = Watchdog::Renewing { tag };
    }

    /// A renewal's answer (`None`: it timed out).
    pub(super) fn on_renewal(
        &self,
        state: &mut RedissonState,
        answer: Option<Reply>,
        io: &mut LockIo,
    ) {
        let renewed = answer == Some(Reply::Integer(1));
        let field_gone = answer == Some(Reply::Integer(0));
        if !renewed && state.phase == RedissonPhase::Holding {
            state.failed_renewals = (state.failed_renewals + 1).min(FAILED_CAP);
        }
        let go_on = renewed || (!field_gone && self.generation == Generation::From3_44);
        if go_on {
            self.schedule_renewal(state, io);
        } else {
            state.watchdog = Watchdog::Off;
        }
    }

    pub(super) fn stop_watchdog(&self, state: &mut RedissonState, io: &mut LockIo) {
        match state.watchdog {
            Watchdog::Ticking => io.cancel_timer(LockTimer::Renew),
            Watchdog::Renewing { tag } => io.cancel_timer(LockTimer::RequestTimeout(tag)),
            Watchdog::Off => {}
        }
        state.watchdog = Watchdog::Off;
    }
}
