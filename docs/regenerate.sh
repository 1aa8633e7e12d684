#!/usr/bin/env bash
# Regenerates the README's pictures in docs/ from docs/pictures.txt with a fresh build of
# lockcheck. tests/docs_pictures.rs fails when docs/ is not what these commands write.
#
#   bash docs/regenerate.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cargo build --quiet --manifest-path "$repo/Cargo.toml" --bin lockcheck
bin="$repo/target/debug/lockcheck"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/out"
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086 # the line is split into arguments on purpose
  (cd "$work" && "$bin" ${line//\{repo\}/$repo} >/dev/null) || [ $? -eq 1 ]
done < "$repo/docs/pictures.txt"
cp "$work"/out/* "$repo/docs/"
ls "$work/out"
