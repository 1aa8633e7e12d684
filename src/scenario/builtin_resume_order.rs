//! Built-ins of the resume order: what a paused process runs first when it resumes.
//!
//! node-redlock 5's `using()` routine checks `signal.aborted` before it writes, and the
//! extension timer aborts the signal when it finds the lock expired. Here the routine's work
//! ends during a 6 s pause, after the extension was due: when the process resumes, the
//! overdue extension and the routine's next write are both ready. In due order the
//! extension runs first, aborts, and the routine does not write. When the write's
//! continuation is not a timer of the same loop (an I/O callback the loop runs before its
//! next timers phase, a worker thread), it may run first, see a signal not yet aborted, and
//! debit while the second client holds the lock: the check is a race the pause decides.
//! `resume_order = "due"` states that both are timers of one event loop (libuv fires
//! expired timers by due time), which makes the same world safe.

use super::builtin_node_redlock_5::using_pause;
use super::*;

/// `using_pause`'s checked routine working 10 s: its work ends during the pause (5 s to
/// 11 s), after the overdue extension (about 8.9 s) and after the keys expired (about
/// 9.4 s), when `p2` takes the lock.
fn write_during_pause(order: ResumeOrder) -> Scenario {
    let mut s = using_pause(true, None);
    for c in s.clients.iter_mut().filter(|c| c.name == "p1") {
        c.workload.work_ms = vec![10_000];
    }
    s.faults.resume_order = order;
    s
}

/// The routine's write may run before the overdue extension aborts the signal.
pub fn node_redlock_5_using_write_before_abort() -> Scenario {
    Scenario {
        name: "node-redlock-5-using-write-before-abort".into(),
        description: "node-redlock 5's using() with the routine checking signal.aborted: its 10 s work ends during a 6 s pause, and at the resume its write runs before the overdue extension aborts the signal, so it debits while the second client holds the lock".into(),
        expect: ExpectedVerdict::Violated {
            oracle: "me-resource".into(),
        },
        ..write_during_pause(ResumeOrder::Any)
    }
}

/// Overdue timers in due order: the extension aborts first.
pub fn node_redlock_5_using_abort_before_write() -> Scenario {
    Scenario {
        name: "node-redlock-5-using-abort-before-write".into(),
        description: "the same with resume_order = \"due\" (the extension and the routine's write are timers of one event loop): the extension, due first, aborts the signal and the routine does not write".into(),
        expect: ExpectedVerdict::Safe,
        ..write_during_pause(ResumeOrder::Due)
    }
}

pub(crate) fn all() -> Vec<Scenario> {
    vec![
        node_redlock_5_using_write_before_abort(),
        node_redlock_5_using_abort_before_write(),
    ]
}
