#!/usr/bin/env bash
# A search's speed against the machine's random-access limit: runs the pausable-lock search
# (examples/pausable_lock.rs) on T threads, then the membound microbenchmark
# (examples/membound.rs: random 8-byte inserts into a visited table of the same size, split
# into T shards), and prints the search's unique states a second per thread over membound's
# inserts a second per thread. With more than one thread it also runs membound on one, and
# prints how far the machine's own random inserts scale from one thread to T: a search
# whose time goes to the table cannot scale further than that.
#
#   bench/membound/run.sh [--threads T] [CONFIG]
#
# CONFIG is seven numbers "N TTL C P B H R" in one argument (default: medium-large,
# "4 7 3 4 1 20 2"). Environment: CARGO_TARGET_DIR (default: target/ at the repository root).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
threads=1
if [ "${1:-}" = "--threads" ]; then
    threads=$2
    shift 2
fi
params=${1:-"4 7 3 4 1 20 2"}
target=${CARGO_TARGET_DIR:-$repo/target}
export CARGO_TARGET_DIR=$target
(cd "$repo" && cargo build --release --quiet --example pausable_lock --example membound)

search=$("$target/release/examples/pausable_lock" --threads "$threads" $params)
echo "$search" | grep -E '^(threads|peak memory|states=)'
states=$(echo "$search" | sed -n 's/^states=\([0-9]*\) .*/\1/p')
rate=$(echo "$search" | sed -n 's/.*, \([0-9.]*\) M states\/s,.*/\1/p')

bound=$("$target/release/examples/membound" --threads "$threads" "$states")
echo "$bound" | head -n 1
inserts=$(echo "$bound" | sed -n 's/.* per_second_per_thread=\([0-9]*\)$/\1/p')

awk -v rate="$rate" -v t="$threads" -v ins="$inserts" 'BEGIN {
    per_thread = rate * 1e6 / t
    printf "search: %.2f M states/s a thread; membound: %.2f M inserts/s a thread; ratio %.3f\n",
        per_thread / 1e6, ins / 1e6, per_thread / ins }'

if [ "$threads" -gt 1 ]; then
    one=$("$target/release/examples/membound" --threads 1 "$states")
    single=$(echo "$one" | sed -n 's/.* per_second=\([0-9]*\) .*/\1/p')
    total=$(echo "$bound" | sed -n 's/.* per_second=\([0-9]*\) .*/\1/p')
    awk -v one="$single" -v all="$total" -v t="$threads" 'BEGIN {
        printf "machine: random inserts %.2f M/s on 1 thread, %.2f M/s on %d: %.2fx\n",
            one / 1e6, all / 1e6, t, all / one }'
fi
