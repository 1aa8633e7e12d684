#!/usr/bin/env bash
# Checks the pausable-lock model with Spin: generates the verifier for one configuration
# (spin -a), compiles it (gcc -O2 -DSAFETY -DNOREDUCE) and runs an exhaustive search that does
# not stop at the first error.
#
#   run.sh [--build-only] N TTL C P B H R
#
# The verifier is built once per configuration in build/N-TTL-C-P-B-H-R/ beside this script
# (rebuilt when pausable_lock.pml changes). The last line printed is
#   states=<Spin's "states, stored"> violation=<yes|no> seconds=<wall time of the search>
# where the time covers the verifier's run only, not spin -a and gcc.
#
# Environment:
#   SPIN_MEMLIM_MB   -DMEMLIM for the verifier, in MB (default 20000)
#   SPIN_HASH_BITS   hash table of 2^bits slots, pan -w (default 24, 16M slots: size it to about
#                    the number of states; Spin's hash table chains, so it is exact either way)
#   SPIN_DEPTH       pan -m, the largest search depth (default 100000)
#   SPIN_NCORE       Spin's multi-core search on this many cores (-DNCORE; default 1, the
#                    classic one-core verifier); built in its own folder, build/...-ncoreK
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build_only=0
if [ "${1:-}" = "--build-only" ]; then
    build_only=1
    shift
fi
if [ $# -ne 7 ]; then
    echo "usage: $0 [--build-only] N TTL C P B H R" >&2
    exit 2
fi
for arg in "$@"; do
    case $arg in
        '' | *[!0-9]*) echo "$0: not a non-negative integer: '$arg'" >&2; exit 2 ;;
    esac
done
n=$1 ttl=$2 c=$3 p=$4 b=$5 h=$6 r=$7
if [ "$n" -lt 1 ] || [ "$n" -gt 8 ] || [ "$r" -lt 1 ] || [ $((h + (ttl > p ? ttl : p))) -gt 255 ]; then
    echo "$0: need 1 <= N <= 8, R >= 1 and H + max(TTL, P) <= 255" >&2
    exit 2
fi

memlim=${SPIN_MEMLIM_MB:-20000}
hash_bits=${SPIN_HASH_BITS:-24}
depth=${SPIN_DEPTH:-100000}
ncore=${SPIN_NCORE:-1}
case $ncore in
    '' | 0 | *[!0-9]*) echo "$0: SPIN_NCORE is not a positive integer: '$ncore'" >&2; exit 2 ;;
esac

dir="$here/build/$n-$ttl-$c-$p-$b-$h-$r"
cores_flag=()
if [ "$ncore" -gt 1 ]; then
    dir="$dir-ncore$ncore"
    cores_flag=(-DNCORE="$ncore")
fi
mkdir -p "$dir"
if [ ! -x "$dir/pan" ] || [ "$here/pausable_lock.pml" -nt "$dir/pan" ] || [ "$0" -nt "$dir/pan" ] \
    || [ "$(cat "$dir/memlim" 2>/dev/null)" != "$memlim" ]; then
    (
        cd "$dir"
        rm -f pan pan.*
        spin -DNCLIENTS="$n" -DTTL="$ttl" -DCMAX="$c" -DPLEN="$p" -DBUDGET="$b" \
            -DHORIZON="$h" -DROUNDS="$r" -a "$here/pausable_lock.pml" >/dev/null
        gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM="$memlim" "${cores_flag[@]}" -o pan pan.c
        echo "$memlim" >memlim
    )
fi
if [ "$build_only" = 1 ]; then
    echo "$dir/pan"
    exit 0
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
# -c0: count every error, stop at none; -n: no unreached-code report.
(cd "$dir" && ./pan -m"$depth" -w"$hash_bits" -c0 -n) >"$out"
end=$(date +%s.%N)
cat "$out"

if grep -q "max search depth too small" "$out"; then
    echo "$0: the search was cut at depth $depth: raise SPIN_DEPTH" >&2
    exit 1
fi
if grep -q "out of memory\|memory limit" "$out"; then
    echo "$0: the verifier ran out of memory: raise SPIN_MEMLIM_MB" >&2
    exit 1
fi
states=$(awk '/states, stored/ { print $1; exit }' "$out")
errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$out" | head -n 1)
if [ -z "$states" ] || [ -z "$errors" ]; then
    echo "$0: could not read the verifier's report" >&2
    exit 1
fi
violation=no
if [ "$errors" -gt 0 ]; then
    violation=yes
fi
echo "states=$states violation=$violation seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')"
