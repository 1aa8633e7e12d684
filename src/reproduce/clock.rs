//! One virtual timeline for the replayer and every real node: virtual time runs `speed`
//! times faster than the machine's monotonic clock from a shared base, and the nodes read it
//! through the preloaded clock library (`clock_shim.c`), one clock file per node holding
//! that base, the node's wall-clock offset and the rate.
//!
//! At speed 1 with no clock step the nodes need no library: their real clocks are the
//! timeline. The replayer sleeps until a step's instant, then spins for the last 200 µs.

use std::fs;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The clock library, built by `build.rs`.
const SHIM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libclockshim.so"));
/// How long before a step's instant the replayer stops sleeping and spins.
const SPIN_NS: i64 = 200_000;
/// The longest sleep between two looks at the interrupt flag.
const SLICE_NS: i64 = 50_000_000;

/// Nanoseconds on `clock`.
fn read_ns(clock: libc::clockid_t) -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// Nanoseconds on the machine's monotonic clock.
pub fn mono_ns() -> i64 {
    read_ns(libc::CLOCK_MONOTONIC)
}

/// The replayer's view of virtual time.
#[derive(Clone, Copy, Debug)]
pub struct VirtualClock {
    /// Virtual milliseconds per real second, times 1000 (1000: real speed).
    pub rate_milli: i64,
    base_mono_ns: i64,
    base_real_ns: i64,
    /// The monotonic instant of virtual 0 of the trace.
    zero_mono_ns: i64,
}

impl VirtualClock {
    /// A timeline at `speed` (x1..x10) whose base is now; virtual 0 is set by [`start`].
    ///
    /// [`start`]: VirtualClock::start
    pub fn new(speed: f64) -> VirtualClock {
        let now = mono_ns();
        VirtualClock {
            rate_milli: (speed * 1000.0).round() as i64,
            base_mono_ns: now,
            base_real_ns: read_ns(libc::CLOCK_REALTIME),
            zero_mono_ns: now,
        }
    }

    /// Virtual 0 of the trace is `warmup_ms` (real) from now.
    pub fn start(&mut self, warmup_ms: i64) {
        self.zero_mono_ns = mono_ns() + warmup_ms * 1_000_000;
    }

    /// The real monotonic instant of virtual `t_ms`.
    pub fn mono_at_ns(&self, t_ms: u64) -> i64 {
        self.zero_mono_ns + (t_ms as i64 * 1_000_000) * 1000 / self.rate_milli
    }

    /// Virtual 0 as the clock library shows it on the monotonic clock (ns): what a preloaded
    /// process reads at that instant.
    pub fn virtual_zero_ns(&self) -> i64 {
        self.base_mono_ns + (self.zero_mono_ns - self.base_mono_ns) * self.rate_milli / 1000
    }

    /// The virtual ms (since virtual 0) of the real monotonic instant `mono_ns`.
    pub fn ms_at(&self, mono_ns: i64) -> f64 {
        (mono_ns - self.zero_mono_ns) as f64 * self.rate_milli as f64 / 1e9
    }

    /// Virtual time now, in (fractional) milliseconds since virtual 0.
    pub fn now_ms(&self) -> f64 {
        (mono_ns() - self.zero_mono_ns) as f64 * self.rate_milli as f64 / 1e9
    }

    /// Sleeps, then spins, until virtual `t_ms` (returns at once if it has passed); returns
    /// early, false, once a signal has asked the process to stop.
    pub fn sleep_until(&self, t_ms: u64) -> bool {
        let target = self.mono_at_ns(t_ms);
        loop {
            if super::interrupted() {
                return false;
            }
            let rest = target - mono_ns() - SPIN_NS;
            if rest <= 0 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_nanos(rest.min(SLICE_NS) as u64));
        }
        while mono_ns() < target {
            std::hint::spin_loop();
        }
        true
    }

    /// Whether the nodes need the clock library: scaled time.
    pub fn scaled(&self) -> bool {
        self.rate_milli != 1000
    }
}

/// The clock library on disk and one clock file per node.
pub struct ClockFiles {
    pub library: PathBuf,
    clock: VirtualClock,
}

impl ClockFiles {
    /// Writes the library into `dir`.
    pub fn install(dir: &Path, clock: VirtualClock) -> io::Result<ClockFiles> {
        if SHIM.is_empty() {
            return Err(io::Error::other(
                "the clock library (--speed above 1, node clock steps) is built on Linux only",
            ));
        }
        let library = dir.join("libclockshim.so");
        fs::write(&library, SHIM)?;
        Ok(ClockFiles { library, clock })
    }

    /// Creates `path`, a node's clock file at offset 0.
    pub fn create(&self, path: &Path) -> io::Result<()> {
        let mut page = vec![0u8; 4096];
        let fields = [
            self.clock.base_mono_ns,
            self.clock.base_real_ns,
            0,
            self.clock.rate_milli,
        ];
        for (i, v) in fields.iter().enumerate() {
            page[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        fs::write(path, page)
    }
}

/// Steps the wall clock of the node whose clock file is `path` by `delta_ms`.
pub fn step(path: &Path, delta_ms: i64) -> io::Result<()> {
    let file = fs::OpenOptions::new().read(true).write(true).open(path)?;
    let mut offset = [0u8; 8];
    file.read_exact_at(&mut offset, 16)?;
    let now = i64::from_le_bytes(offset) + delta_ms * 1_000_000;
    file.write_all_at(&now.to_le_bytes(), 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_instants_are_scaled_from_virtual_zero() {
        let mut c = VirtualClock::new(10.0);
        c.start(0);
        let zero = c.mono_at_ns(0);
        assert_eq!(
            c.mono_at_ns(10_000) - zero,
            1_000_000_000,
            "10 s virtual at x10"
        );
        let one = VirtualClock::new(1.0);
        assert!(!one.scaled());
        assert_eq!(one.mono_at_ns(1) - one.mono_at_ns(0), 1_000_000);
    }

    #[test]
    fn a_step_adds_to_the_offset_of_the_clock_file() {
        let dir = std::env::temp_dir().join(format!("lockcheck-clock-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let files = ClockFiles::install(&dir, VirtualClock::new(2.0)).unwrap();
        let path = dir.join("node.clock");
        files.create(&path).unwrap();
        step(&path, 30_000).unwrap();
        step(&path, -5_000).unwrap();
        let bytes = fs::read(&path).unwrap();
        let field = |i: usize| i64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap());
        assert_eq!(field(2), 25_000_000_000);
        assert_eq!(field(3), 2000);
        fs::remove_dir_all(&dir).unwrap();
    }
}
