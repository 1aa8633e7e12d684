#!/usr/bin/env bash
# Reproduces the counterexamples of built-ins on real redis-server and prints the rows of the guide's
# table (docs/guide/commands.md, "Reproducing a counterexample on real Redis"): the verdict
# of one run at x1 and of three at x10. Needs redis-server 7 on the PATH. Not part of CI: a
# built-in runs its whole virtual time at x1.
#
#   bash bench/reproduce-table.sh                 # every violating built-in
#   bash bench/reproduce-table.sh NAME...         # these built-ins
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
bin=$PWD/target/release/lockcheck
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if [ $# -eq 0 ]; then
  set -- $("$bin" --json scenarios | python3 -c 'import json,sys; print(" ".join(s["name"] for s in json.load(sys.stdin)))')
fi
verdict() { # the reproduction's verdict line, or the reason it did not run
  local out
  out=$("$bin" reproduce "$@" 2>&1) || true
  echo "$out" | grep -E '^verdict:' | tail -1 | sed 's/^verdict: //' || true
}
for name in "$@"; do
  status=0
  "$bin" check "$name" -o "$name.json" >/dev/null 2>&1 || status=$?
  if [ "$status" != 1 ]; then
    continue # safe (or cut short): no counterexample to play
  fi
  x1=$(verdict "$name.json" --speed 1)
  x10=$(verdict "$name.json" --speed 10 --repeat 3)
  echo "| \`$name\` | | ${x1:-not run} | ${x10:-not run} |"
done
