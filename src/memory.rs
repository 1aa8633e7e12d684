//! The process's real memory, for memory limits on a search.
//!
//! The kernel bounds what a [`MemoryGauge`] reads and never reads the system itself; this is
//! the gauge backed by Linux's `/proc/self/statm` (resident pages), and the default limit a
//! search gets when none is given: three quarters of the memory available when it starts
//! (`MemAvailable` in `/proc/meminfo`, or what the cgroup's memory limit leaves, if that is
//! less), so that a search too large for the machine ends as a named limit outcome with its
//! statistics instead of being killed for want of memory. Elsewhere both are absent: no
//! gauge (the kernel falls back to its estimate) and no default limit.

use lockcheck_sim::MemoryGauge;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// The fraction of available memory a search may use by default: `NUMERATOR / 4`.
const DEFAULT_SHARE_NUMERATOR: u64 = 3;

/// Resident bytes of this process, read from `/proc/self/statm`; its peak, from the
/// high-water mark `VmHWM` in `/proc/self/status`, which a search resets as it begins
/// (writing `5` to `/proc/self/clear_refs`) so that the peak is the search's own.
#[derive(Debug, Default)]
pub struct ProcessMemory {
    /// Whether the high-water mark was reset, so that it is the peak of this search.
    peak_reset: AtomicBool,
}

impl MemoryGauge for ProcessMemory {
    fn resident_bytes(&self) -> Option<u64> {
        let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
        resident_pages(&statm)?.checked_mul(page_size_bytes()?)
    }

    fn start_peak(&self) {
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        self.peak_reset.store(reset, Ordering::Relaxed);
    }

    fn peak_bytes(&self) -> Option<u64> {
        if !self.peak_reset.load(Ordering::Relaxed) {
            return None;
        }
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        kib_field(&status, "VmHWM:")
    }
}

/// A `Name: N kB` field of `/proc` text, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let mut fields = line.split_whitespace().skip(1);
    let kib: u64 = fields.next()?.parse().ok()?;
    match fields.next() {
        Some("kB") => kib.checked_mul(1024),
        _ => None,
    }
}

/// The second field of `statm`: resident pages.
fn resident_pages(statm: &str) -> Option<u64> {
    statm.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(target_os = "linux")]
fn page_size_bytes() -> Option<u64> {
    // SAFETY: sysconf reads a constant of the system and has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).ok().filter(|&s| s > 0)
}

#[cfg(not(target_os = "linux"))]
fn page_size_bytes() -> Option<u64> {
    None
}

/// The memory limit of a search that names none (computed once per process, so that every
/// point of a sweep gets the same), or `None` where available memory cannot be read.
pub fn default_limit_bytes() -> Option<u64> {
    static DEFAULT: OnceLock<Option<u64>> = OnceLock::new();
    *DEFAULT.get_or_init(|| {
        let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
        let available = meminfo.as_deref().and_then(mem_available_bytes);
        let cgroup = cgroup_headroom_bytes();
        let least = match (available, cgroup) {
            (Some(a), Some(c)) => Some(a.min(c)),
            (a, c) => a.or(c),
        };
        least.map(|bytes| bytes / 4 * DEFAULT_SHARE_NUMERATOR)
    })
}

/// `MemAvailable` from the text of `/proc/meminfo`, in bytes.
fn mem_available_bytes(meminfo: &str) -> Option<u64> {
    kib_field(meminfo, "MemAvailable:")
}

/// What the cgroup's memory limit leaves (limit minus usage), when there is a limit:
/// cgroup v2's `memory.max` and `memory.current`, or v1's `memory.limit_in_bytes` and
/// `memory.usage_in_bytes`, in this process's own cgroup (named in `/proc/self/cgroup`) or,
/// where that is not mounted under its name (a container's cgroup namespace), at the root.
fn cgroup_headroom_bytes() -> Option<u64> {
    let read = |path: String| std::fs::read_to_string(path).ok();
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let v2 = own_cgroup(&own, "").unwrap_or("/");
    let v1 = own_cgroup(&own, "memory").unwrap_or("/");
    let (v2_files, v1_files) = (
        ("memory.max", "memory.current"),
        ("memory.limit_in_bytes", "memory.usage_in_bytes"),
    );
    let candidates = [
        (format!("/sys/fs/cgroup{v2}"), v2_files),
        ("/sys/fs/cgroup".to_string(), v2_files),
        (format!("/sys/fs/cgroup/memory{v1}"), v1_files),
        ("/sys/fs/cgroup/memory".to_string(), v1_files),
    ];
    candidates.iter().find_map(|(dir, (limit, usage))| {
        let dir = dir.trim_end_matches('/');
        headroom_bytes(
            &read(format!("{dir}/{limit}"))?,
            &read(format!("{dir}/{usage}"))?,
        )
    })
}

/// The path of this process's cgroup in the hierarchy with `controller` (`""` for v2's
/// unified one), from the text of `/proc/self/cgroup` (`id:controllers:path` lines).
fn own_cgroup<'a>(text: &'a str, controller: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_id, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let matches = if controller.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        matches.then_some(path)
    })
}

/// Limit minus usage, from the two files' texts; `None` when there is no limit (`max`, or
/// v1's "unlimited", a number near `i64::MAX`).
fn headroom_bytes(limit: &str, usage: &str) -> Option<u64> {
    let limit: u64 = limit.trim().parse().ok()?;
    let usage: u64 = usage.trim().parse().ok()?;
    (limit < 1 << 60).then(|| limit.saturating_sub(usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statm_gives_resident_pages_in_its_second_field() {
        assert_eq!(resident_pages("4331 1186 863 52 0 281 0\n"), Some(1186));
        assert_eq!(resident_pages("4331"), None);
    }

    #[test]
    fn meminfo_gives_available_memory_in_kib() {
        let text = "MemTotal:       24684104 kB\nMemFree:         9897072 kB\nMemAvailable:   23564456 kB\n";
        assert_eq!(mem_available_bytes(text), Some(23_564_456 * 1024));
        assert_eq!(mem_available_bytes("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn a_cgroup_limit_leaves_its_headroom_and_no_limit_leaves_none() {
        assert_eq!(
            headroom_bytes("1073741824\n", "73741824\n"),
            Some(1_000_000_000)
        );
        assert_eq!(headroom_bytes("max\n", "73741824\n"), None);
        assert_eq!(headroom_bytes("9223372036854771712\n", "5\n"), None);
        assert_eq!(headroom_bytes("100\n", "200\n"), Some(0));
    }

    #[test]
    fn the_own_cgroup_is_found_by_controller() {
        let text = "4:memory:/process_api/abc\n3:cpu,cpuacct:/x\n0::/user.slice/u.scope\n";
        assert_eq!(own_cgroup(text, "memory"), Some("/process_api/abc"));
        assert_eq!(own_cgroup(text, "cpuacct"), Some("/x"));
        assert_eq!(own_cgroup(text, ""), Some("/user.slice/u.scope"));
        assert_eq!(own_cgroup("1:pids:/\n", "memory"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_resident_memory_and_a_default_limit_above_it() {
        let resident = ProcessMemory::default()
            .resident_bytes()
            .expect("statm is readable");
        assert!(resident > 1 << 20, "{resident} bytes resident");
        let limit = default_limit_bytes().expect("meminfo is readable");
        assert!(limit > resident, "{limit} bytes by default");
    }
}
