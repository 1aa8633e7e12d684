#!/usr/bin/env bash
# Times lockcheck (1 and 2 threads), Stateright (1 and 2 threads) and Spin (one core, and its
# multi-core build on two, -DNCORE=2) side by side on the pausable-lock benchmark model, on
# this machine.
#
#   bench/compare/run_all.sh [--runs K] [CONFIG...]
#
# CONFIG is a name from the benchmark's table (small, medium, safe-large, medium-large, large)
# or seven numbers "N TTL C P B H R" in one argument; the default is medium-large. Each tool runs
# K times (default 3), the tools taking turns, and the table shows the median wall time and the
# median peak resident memory (both from /usr/bin/time -v, whole process) for each tool. Spin's
# time covers its verifier's run only: spin -a and gcc run once, before the timings, like the
# cargo builds.
#
# Before the timings it waits up to IDLE_WAIT_S seconds (default 300) for the CPUs to be idle,
# and each run reports how much CPU the rest of the machine used meanwhile.
#
# Environment: CARGO_TARGET_DIR (default: target/ at the repository root) for both cargo
# builds; SPIN_HASH_BITS to force Spin's hash table size (by default 2^24 slots, more for
# configurations with more than 2^25 states, at most 2^26); see spin/run.sh for the others.
# Every run's full output is kept under bench/compare/results/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
runs=3
if [ "${1:-}" = "--runs" ]; then
    runs=$2
    shift 2
fi
[ $# -gt 0 ] || set -- medium-large

# name -> parameters and the reference unique-state count of the benchmark's table.
config_params() {
    case $1 in
        small) echo "2 5 2 3 1 12 1" ;;
        medium) echo "3 6 2 3 1 16 2" ;;
        safe-large) echo "4 8 3 4 0 24 2" ;;
        medium-large) echo "4 7 3 4 1 20 2" ;;
        large) echo "4 8 3 4 2 20 2" ;;
        *[!0-9\ ]* | '') echo "unknown configuration '$1'" >&2; return 1 ;;
        *) echo "$1" ;;
    esac
}
reference_states() {
    case $1 in
        "2 5 2 3 1 12 1") echo 6402 ;;
        "3 6 2 3 1 16 2") echo 481927 ;;
        "4 8 3 4 0 24 2") echo 974097 ;;
        "4 7 3 4 1 20 2") echo 11511070 ;;
        "4 8 3 4 2 20 2") echo 69711551 ;;
        *) echo "" ;;
    esac
}

for tool in /usr/bin/time spin gcc cargo; do
    command -v "$tool" >/dev/null || { echo "run_all.sh: '$tool' is needed" >&2; exit 1; }
done

target=${CARGO_TARGET_DIR:-$repo/target}
export CARGO_TARGET_DIR=$target
echo "== building (release)"
(cd "$repo" && cargo build --release --quiet --example pausable_lock)
cargo build --release --quiet --manifest-path "$here/stateright/Cargo.toml"
lockcheck_bin=$target/release/examples/pausable_lock
stateright_bin=$target/release/pausable-lock-stateright

results=$here/results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$results"
echo "== machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)," \
    "$(uname -sr), load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== lockcheck at $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- sim src examples Cargo.toml 2>/dev/null || echo ' (with uncommitted changes)'), $(spin -V | head -n 1), $(gcc --version | head -n 1), logs in $results"
# How busy the CPUs are over one second, in percent (the load average lags by a minute).
busy_percent() {
    local a b
    a=$(head -n 1 /proc/stat)
    sleep 1
    b=$(head -n 1 /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN {
        split(a, x); split(b, y); total = 0
        for (i = 2; i <= 9; i++) total += y[i] - x[i]
        idle = (y[5] - x[5]) + (y[6] - x[6])
        printf "%d", (total > 0) ? 100 * (total - idle) / total : 0 }'
}
# Wait (up to $IDLE_WAIT_S seconds, default 300) for the CPUs to be mostly idle.
idle_wait=${IDLE_WAIT_S:-300}
waited=0
while busy=$(busy_percent) && [ "$busy" -gt 15 ] && [ "$waited" -lt "$idle_wait" ]; do
    [ "$waited" -gt 0 ] || echo "== the CPUs are $busy% busy: waiting up to ${idle_wait}s for them to be idle"
    sleep 9
    waited=$((waited + 10))
done
echo "== CPUs busy before the timings: $busy%"
if [ "$busy" -gt 15 ]; then
    echo "warning: something else is using the CPUs: timings will be noisy" >&2
fi

# CPU time used by the whole machine so far, in clock ticks (busy time of all CPUs).
machine_busy_ticks() { awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

# run LOGFILE CMD... : runs CMD under /usr/bin/time -v and prints
# "wall_s peak_rss_kib states violation cpu_s others_pct", where others_pct is the CPU time that
# the rest of the machine used during the run, in percent of one core over the wall time.
run() {
    local log=$1
    shift
    local busy0 busy1
    busy0=$(machine_busy_ticks)
    /usr/bin/time -v -o "$log.time" "$@" >"$log" 2>&1 || {
        echo "run_all.sh: failed: $* (see $log)" >&2
        return 1
    }
    busy1=$(machine_busy_ticks)
    local wall rss cpu last others
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, t, ":"); s = 0
        for (i = 1; i <= n; i++) s = s * 60 + t[i]
        print s }' "$log.time")
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log.time")
    cpu=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { print s }' "$log.time")
    others=$(awk -v b0="$busy0" -v b1="$busy1" -v hz="$(getconf CLK_TCK)" -v cpu="$cpu" -v wall="$wall" \
        'BEGIN {
            if (wall < 1) { print "-"; exit }  # too short to tell
            o = ((b1 - b0) / hz - cpu) / wall * 100; printf "%d", (o > 0) ? o : 0 }')
    last=$(grep '^states=' "$log" | tail -n 1)
    local states=${last#states=}
    states=${states%% *}
    local violation=${last#*violation=}
    violation=${violation%% *}
    echo "$wall $rss $states $violation $cpu $others"
}

# run_tool TOOL LOGFILE N TTL C P B H R
run_tool() {
    local tool=$1 log=$2
    shift 2
    case $tool in
        lockcheck) run "$log" "$lockcheck_bin" "$@" ;;
        lockcheck-2) run "$log" "$lockcheck_bin" --threads 2 "$@" ;;
        stateright-1) run "$log" "$stateright_bin" --threads 1 "$@" ;;
        stateright-2) run "$log" "$stateright_bin" --threads 2 "$@" ;;
        spin) run "$log" env SPIN_HASH_BITS="$spin_bits" "$here/spin/run.sh" "$@" ;;
        spin-2) run "$log" env SPIN_HASH_BITS="$spin_bits" SPIN_NCORE=2 "$here/spin/run.sh" "$@" ;;
    esac
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

all_match=yes
noisy=no
for name in "$@"; do
    params=$(config_params "$name")
    ref=$(reference_states "$params")
    tag=${params// /-}
    spin_bits=${SPIN_HASH_BITS:-}
    if [ -z "$spin_bits" ]; then
        spin_bits=24
        if [ -n "$ref" ]; then
            while [ "$spin_bits" -lt 26 ] && [ $((1 << (spin_bits + 1))) -le "$ref" ]; do
                spin_bits=$((spin_bits + 1))
            done
        fi
    fi
    "$here/spin/run.sh" --build-only $params >/dev/null
    SPIN_NCORE=2 "$here/spin/run.sh" --build-only $params >/dev/null

    tools=(lockcheck lockcheck-2 stateright-1 stateright-2 spin spin-2)
    declare -A threads=([lockcheck]=1 [lockcheck-2]=2 [stateright-1]=1 [stateright-2]=2 [spin]=1
        [spin-2]=2)
    echo
    echo "== $name ($params): $runs runs of each tool, taking turns (Spin hash table 2^$spin_bits)"
    for tool in "${tools[@]}"; do : >"$results/$tag.$tool.runs"; done
    for ((k = 1; k <= runs; k++)); do
        for tool in "${tools[@]}"; do
            line=$(run_tool "$tool" "$results/$tag.$tool.$k.log" $params)
            echo "$line" >>"$results/$tag.$tool.runs"
            read -r wall rss states violation cpu others <<<"$line"
            printf '  run %d %-13s %8.2f s (cpu %7.2f s)  %8.1f MB  states=%s violation=%s  others used %s%% of a core\n' \
                "$k" "$tool" "$wall" "$cpu" "$(awk -v k="$rss" 'BEGIN { print k * 1024 / 1e6 }')" \
                "$states" "$violation" "$others"
            if [ "$others" != - ] && [ "$others" -gt 25 ]; then noisy=yes; fi
        done
    done

    echo
    printf '%-13s %7s %12s %4s %9s %9s %8s %9s %8s %12s %10s\n' tool threads states ok \
        'median s' 'cpu s' 'M st/s' 'peak MB' 'B/state' 'time/lockck' 'mem/lockck'
    base_s=$(cut -d' ' -f1 "$results/$tag.lockcheck.runs" | median)
    base_rss=$(cut -d' ' -f2 "$results/$tag.lockcheck.runs" | median)
    for tool in "${tools[@]}"; do
        f=$results/$tag.$tool.runs
        s=$(cut -d' ' -f1 "$f" | median)
        rss=$(cut -d' ' -f2 "$f" | median)
        cpu=$(cut -d' ' -f5 "$f" | median)
        states=$(cut -d' ' -f3 "$f" | sort -u | tr '\n' ' ' | sed 's/ $//')
        ok=yes
        if [ -n "$ref" ] && [ "$states" != "$ref" ]; then ok=NO; all_match=no; fi
        if [ -z "$ref" ]; then ok=-; fi
        awk -v t="$tool" -v th="${threads[$tool]}" -v st="$states" -v ok="$ok" -v s="$s" -v rss="$rss" \
            -v cpu="$cpu" -v bs="$base_s" -v brss="$base_rss" 'BEGIN {
            if (s < 0.01) s = 0.01; if (bs < 0.01) bs = 0.01
            printf "%-13s %7d %12s %4s %9.2f %9.2f %8.2f %9.1f %8.1f %11.2fx %9.2fx\n",
                t, th, st, ok, s, cpu, st / s / 1e6, rss * 1024 / 1e6, rss * 1024 / st, s / bs, rss / brss }'
    done
    echo "(median s: wall time; cpu s: user + system time; M st/s: unique states a wall second;"
    echo " peak MB: peak resident memory in 10^6 bytes; B/state: that over the unique states;"
    echo " time/lockck and mem/lockck: the tool's median wall time and peak memory over lockcheck's;"
    echo " above 1 means lockcheck is faster or smaller. ok: the unique-state count equals the"
    echo " benchmark's reference count${ref:+ ($ref)}.)"
done
if [ "$noisy" = yes ]; then
    echo "warning: other programs used more than a quarter of a core during some runs: those timings are noisy" >&2
fi
[ "$all_match" = yes ] || { echo "run_all.sh: some unique-state count differs from the reference" >&2; exit 1; }
