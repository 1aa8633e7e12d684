#!/usr/bin/env bash
# Breaks partial-order and symmetry reduction and the value abstraction on purpose, one way at a time, and runs the
# differential tests (tests/reduction_differential.rs, tests/node_symmetry.rs, tests/key_memo.rs,
# sim/tests/reduction_proviso.rs, sim/tests/symmetry.rs, sim/tests/dead_values.rs,
# sim/tests/fault_timing.rs, sim/tests/shared_fate.rs,
# sim/tests/resume_order.rs) and the pinned
# verdicts (tests/scenario_verdicts.rs) against each broken version: every mutation must be
# caught. The source is restored after each one (and on Ctrl-C). Not part of CI: each
# mutation rebuilds and runs the tests optimized but with debug assertions (so the explorer
# also checks every property's declaration of what it observes), without LTO, in
# target/mutants; the last run's output is target/reduction-mutant.log.
#
#   bash bench/reduction-mutants.sh            # every mutation
#   bash bench/reduction-mutants.sh 'dead values'   # those whose name contains the words
set -euo pipefail
only=${1:-}
cd "$(dirname "$0")/.."

# name @@ file @@ original text @@ mutated text
mutations=(
  'same-process events treated as independent@@sim/src/world/independence.rs@@self.is_on(state, &enabled[i], p)));@@self.is_on(state, &enabled[i], p)).take(1));'
  'fingerprint: the choice among overdue timers hidden@@sim/src/world/resume.rs@@n if n >= 2 => n,@@n if n >= 2 => 0,'
  'overdue timers of one process treated as independent@@sim/src/world/independence.rs@@self.action_process(action) == Some(p)@@self.action_process(action) == Some(p) && self.overtaken(_state, action).is_none()'
  'ME-lock declares it sees no client action@@src/oracles.rs@@.is_some_and(|p| world.processes[p].actor.lock_client().is_some())@@.is_some_and(|p| world.processes[p].actor.lock_client().is_some() && false)'
  'digests not checked@@sim/src/explorer/expand.rs@@if abandoned.is_none() && !self.invisible_here(@@if abandoned.is_none() && false && !self.invisible_here('
  'an anchor opening a window at its own instant not checked@@sim/src/world/independence.rs@@if zero_delay_in || self.anchor_may_open_now(state, p) || self.faults.shares_fate(p) {@@if zero_delay_in || self.faults.shares_fate(p) {'
  'partitions not checked@@sim/src/world/independence.rs@@if cuts_a_message_to_p {@@if cuts_a_message_to_p && false {'
  'no cycle proviso@@sim/src/explorer/reduction.rs@@if !seen_any {@@if true {'
  'symmetry: clocks not checked@@sim/src/world/symmetry.rs@@if self.clocks[a] != self.clocks[b] {@@if false && self.clocks[a] != self.clocks[b] {'
  'symmetry: ids inside states not renamed@@sim/src/world/canonical.rs@@Life::Up(s) => actor.rename_state(s, r).map(Life::Up),@@Life::Up(_) => None,'
  'symmetry: fault envelope not checked@@sim/src/world/symmetry.rs@@envelope_refusal(&self.faults, &r)@@Ok::<(), String>(())'
  'symmetry: a Redlock sweep keeps its slots when its nodes are renamed@@model/src/lock/redlock/symmetry.rs@@sweep.permute(to);@@let _ = (sweep, to);'
  'symmetry: Redlock nodes asked one after another trade places@@model/src/lock/redlock/symmetry.rs@@(i >= sequential && to >= sequential || to == i).then_some(to)@@Some(to).filter(|_| sequential < usize::MAX)'
  'symmetry: a remembered key answers for the other kind of key@@sim/src/world/key_memo.rs@@(r.own == lane_a(own) && r.without_dead == without_dead)@@(r.own == lane_a(own))'
  'symmetry: a remembered key answers for a changed state@@sim/src/world/key_memo.rs@@(r.own == lane_a(own) && r.without_dead == without_dead)@@(r.without_dead == without_dead)'
  'dead values: a client declares them in every phase@@model/src/lock/client.rs@@state.phase == Phase::Done@@true'
  'dead values: the network left out of live fingerprints@@sim/src/world/dead_values.rs@@state.hash_rest(&mut h);@@'
  'shared fate: a member explored alone@@sim/src/world/independence.rs@@ || self.faults.shares_fate(p)@@'
  'symmetry: shared fates not checked@@sim/src/world/symmetry.rs@@if !faults.shared_fate.contains(&image) {@@if false {'
)

if [ -n "$(git status --porcelain -- sim/src model/src src/oracles.rs)" ]; then
  echo "sim/src, model/src or src/oracles.rs has uncommitted changes; commit them first (each mutant is undone with git checkout)" >&2
  exit 2
fi
restore() { git checkout -- sim/src model/src src/oracles.rs; }
trap restore EXIT INT TERM

caught=0
total=0
for m in "${mutations[@]}"; do
  name=${m%%@@*}; rest=${m#*@@}
  if [ -n "$only" ] && [[ "$name" != *"$only"* ]]; then
    continue
  fi
  file=${rest%%@@*}; rest=${rest#*@@}
  original=${rest%%@@*}; mutated=${rest#*@@}
  total=$((total + 1))
  count=$(grep -cF -- "$original" "$file" || true)
  if [ "$count" != 1 ]; then
    echo "$name: the original text is found $count times in $file (expected once)" >&2
    exit 2
  fi
  python3 - "$file" "$original" "$mutated" <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(old, new, 1))
PY
  if (export CARGO_TARGET_DIR=target/mutants CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_INCREMENTAL=true \
    CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true
    cargo test --release -p lockcheck-sim --test reduction_proviso --test symmetry --test dead_values --test fault_timing \
      --test shared_fate --test resume_order &&
      cargo test --release --test reduction_differential --test node_symmetry --test key_memo --test scenario_verdicts
  ) >target/reduction-mutant.log 2>&1; then
    echo "MISSED  $name"
  else
    echo "caught  $name"
    caught=$((caught + 1))
  fi
  restore
done
echo "reduction mutants: $caught of $total caught"
