//! Ctrl-C and `kill`: a search stops at the next state and reports what it has.
//!
//! The idea: a signal handler may do almost nothing, so SIGINT and SIGTERM only raise one
//! flag (and note which signal it was); every search holds the flag in its kernel options and
//! ends with outcome `Interrupted` when it sees it up, and the command prints its partial
//! statistics and exits with [`exit_code`]: 130 after SIGINT, 143 after SIGTERM (128 plus
//! the signal's number, as shells report a process a signal ended). A second signal while
//! the first is being handled ends the process at once with the same code.
//!
//! The handlers are installed by the binary ([`install`]); code that uses the library in its
//! own process keeps its own signal handling, and its flag simply never rises.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Exit code after SIGINT.
pub(crate) const EXIT_SIGINT: u8 = 130;
/// Exit code after SIGTERM.
pub(crate) const EXIT_SIGTERM: u8 = 143;

struct State {
    /// Up once a signal has come.
    requested: Arc<AtomicBool>,
    /// The exit code owed to the last signal that came (0 before any).
    code: Arc<AtomicUsize>,
}

fn state() -> &'static State {
    static STATE: OnceLock<State> = OnceLock::new();
    STATE.get_or_init(|| State {
        requested: Arc::new(AtomicBool::new(false)),
        code: Arc::new(AtomicUsize::new(0)),
    })
}

/// Installs the SIGINT and SIGTERM handlers (once; later calls do nothing).
#[cfg(unix)]
pub fn install() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    static INSTALLED: OnceLock<()> = OnceLock::new();
    if INSTALLED.get().is_some() {
        return Ok(());
    }
    let s = state();
    for (signal, code) in [(SIGINT, EXIT_SIGINT), (SIGTERM, EXIT_SIGTERM)] {
        // The shutdown goes first: it fires only if an earlier signal already raised the flag.
        flag::register_conditional_shutdown(signal, code.into(), s.requested.clone())?;
        flag::register_usize(signal, s.code.clone(), code.into())?;
        flag::register(signal, s.requested.clone())?;
    }
    let _ = INSTALLED.set(());
    Ok(())
}

#[cfg(not(unix))]
pub fn install() -> std::io::Result<()> {
    Ok(())
}

/// The flag every search is given in its options.
pub fn flag() -> Arc<AtomicBool> {
    state().requested.clone()
}

/// Whether a signal has asked the process to stop (for loops outside a search: building
/// a sweep's points, waiting for a scenario to load).
pub fn requested() -> bool {
    state().requested.load(Ordering::Relaxed)
}

/// The exit code of a command that a signal stopped.
pub fn exit_code() -> u8 {
    match state().code.load(Ordering::Relaxed) {
        c if c == usize::from(EXIT_SIGTERM) => EXIT_SIGTERM,
        _ => EXIT_SIGINT,
    }
}

/// The name of the signal that stopped the command.
pub fn signal_name() -> &'static str {
    if exit_code() == EXIT_SIGTERM {
        "SIGTERM"
    } else {
        "SIGINT"
    }
}

/// Runs `work` on a thread of its own while this one waits for it or for a signal, looking
/// at the flag every 10 ms: `None` when a signal came first (the work is left to end with
/// the process). For work on user-sized input that looks at no flag itself (parsing and
/// checking a scenario file), so that an interrupt is answered while it runs.
pub fn unless_interrupted<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    let (tx, rx) = channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    loop {
        match rx.recv_timeout(std::time::Duration::from_millis(10)) {
            Ok(done) => return Some(done),
            Err(RecvTimeoutError::Timeout) if requested() => return None,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => match worker.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => unreachable!("the work ended without sending its result"),
            },
        }
    }
}
