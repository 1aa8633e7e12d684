/* A node's clock for `lockcheck reproduce`: preloaded into redis-server, it answers
 * clock_gettime, gettimeofday and time from one shared file, so that the replayer can scale
 * a node's time (rate) and step its wall clock (offset) while it runs.
 *
 * REALTIME  = base_real + offset + rate * (mono - base_mono)
 * MONOTONIC = base_mono + rate * (mono - base_mono)
 *
 * mono is read with the raw syscall; nothing here allocates or calls dlsym (libfaketime's
 * init does both and deadlocks against a jemalloc-linked redis-server). The file, named by
 * LOCKCHECK_CLOCK_FILE, holds four little-endian int64: base_mono_ns, base_real_ns,
 * offset_ns, rate_milli (1000 = real speed). Without the variable or the file, the real
 * clocks answer.
 *
 * A client library's process (`reproduce --library`) also sets LOCKCHECK_SCALE_WAITS=1: its
 * timers must fire on the scaled clock, so the timeouts of poll, epoll_wait, epoll_pwait,
 * nanosleep and clock_nanosleep (relative, or absolute on a faked clock) are divided by the
 * rate. redis-server keeps real waits (Sentinel's TILT check depends on them). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct shim_clock {
    volatile int64_t base_mono_ns;
    volatile int64_t base_real_ns;
    volatile int64_t offset_ns;
    volatile int64_t rate_milli;
};

static struct shim_clock *shim_file;
static int shim_state; /* 0: not looked yet, 1: looked */
static int shim_scale_waits;

static struct shim_clock *shim(void) {
    if (__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == 0) {
        const char *path = getenv("LOCKCHECK_CLOCK_FILE");
        const char *scale = getenv("LOCKCHECK_SCALE_WAITS");
        shim_scale_waits = scale != NULL && scale[0] == '1';
        if (path != NULL) {
            int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
            if (fd >= 0) {
                void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
                if (m != MAP_FAILED) shim_file = (struct shim_clock *)m;
                syscall(SYS_close, fd);
            }
        }
        __atomic_store_n(&shim_state, 1, __ATOMIC_RELEASE);
    }
    return shim_file;
}

static int raw_clock(clockid_t id, struct timespec *ts) {
    return (int)syscall(SYS_clock_gettime, id, ts);
}

/* The virtual reading of clock `id` in ns; 0 if the shim does not fake that clock. */
static int fake_ns(clockid_t id, int64_t *out) {
    struct shim_clock *c = shim();
    if (c == NULL) return 0;
    struct timespec m;
    if (raw_clock(CLOCK_MONOTONIC, &m) != 0) return 0;
    int64_t mono = (int64_t)m.tv_sec * 1000000000LL + m.tv_nsec;
    int64_t scaled = (mono - c->base_mono_ns) * c->rate_milli / 1000;
    switch (id) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
        *out = c->base_real_ns + c->offset_ns + scaled;
        return 1;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
        *out = c->base_mono_ns + scaled;
        return 1;
    default:
        return 0;
    }
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    int64_t ns;
    if (!fake_ns(id, &ns)) return raw_clock(id, ts);
    ts->tv_sec = ns / 1000000000LL;
    ts->tv_nsec = ns % 1000000000LL;
    return 0;
}

int gettimeofday(struct timeval *tv, void *tz) {
    (void)tz;
    int64_t ns;
    struct timespec ts;
    if (!fake_ns(CLOCK_REALTIME, &ns)) {
        raw_clock(CLOCK_REALTIME, &ts);
        ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    }
    if (tv != NULL) {
        tv->tv_sec = ns / 1000000000LL;
        tv->tv_usec = (ns % 1000000000LL) / 1000;
    }
    return 0;
}

time_t time(time_t *t) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t != NULL) *t = ts.tv_sec;
    return ts.tv_sec;
}

/* The rate when waits are scaled, else 0. */
static int64_t wait_rate(void) {
    struct shim_clock *c = shim();
    if (c == NULL || !shim_scale_waits || c->rate_milli <= 0) return 0;
    return c->rate_milli;
}

/* A timeout of `ms` virtual milliseconds in real ones (negative: none; a nonzero wait stays
 * nonzero). */
static int real_ms(int ms) {
    int64_t rate = wait_rate();
    if (rate == 0 || ms <= 0) return ms;
    int64_t r = (int64_t)ms * 1000 / rate;
    return r > 0 ? (int)r : 1;
}

static struct timespec real_span(const struct timespec *v, int64_t rate) {
    int64_t ns = ((int64_t)v->tv_sec * 1000000000LL + v->tv_nsec) * 1000 / rate;
    struct timespec r = {ns / 1000000000LL, ns % 1000000000LL};
    return r;
}

int poll(struct pollfd *fds, nfds_t n, int timeout) {
    return (int)syscall(SYS_ppoll, fds, n,
                        timeout < 0 ? NULL : &(struct timespec){real_ms(timeout) / 1000,
                                                                 (real_ms(timeout) % 1000) * 1000000L},
                        NULL, (size_t)8);
}

int epoll_wait(int fd, struct epoll_event *ev, int max, int timeout) {
    return (int)syscall(SYS_epoll_pwait, fd, ev, max, real_ms(timeout), NULL, (size_t)8);
}

int epoll_pwait(int fd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask) {
    return (int)syscall(SYS_epoll_pwait, fd, ev, max, real_ms(timeout), mask, (size_t)8);
}

int nanosleep(const struct timespec *req, struct timespec *rem) {
    int64_t rate = wait_rate();
    if (rate == 0) return (int)syscall(SYS_nanosleep, req, rem);
    struct timespec r = real_span(req, rate);
    return (int)syscall(SYS_nanosleep, &r, NULL);
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem) {
    int64_t rate = wait_rate();
    int64_t now;
    if (rate == 0 || !fake_ns(id, &now)) {
        long e = syscall(SYS_clock_nanosleep, id, flags, req, rem);
        return e < 0 ? errno : 0;
    }
    struct timespec span = *req;
    if (flags & TIMER_ABSTIME) {
        int64_t left = (int64_t)req->tv_sec * 1000000000LL + req->tv_nsec - now;
        if (left <= 0) return 0;
        span.tv_sec = left / 1000000000LL;
        span.tv_nsec = left % 1000000000LL;
    }
    struct timespec r = real_span(&span, rate);
    long e = syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &r, NULL);
    return e < 0 ? errno : 0;
}
