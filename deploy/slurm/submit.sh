#!/bin/sh
# Queues the shard array, then the merge once every task has ended.
set -eu
here=$(dirname "$0")
array=$(sbatch --parsable "$here/shards.sbatch")
sbatch --dependency="afterany:$array" "$here/merge.sbatch"
