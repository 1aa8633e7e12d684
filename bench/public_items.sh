#!/usr/bin/env bash
# Counts the public items of each crate of the workspace, as rustdoc sees them.
#
# Usage: bench/public_items.sh [WORKSPACE_DIR]   (default: this repository)
#
# How it counts: `cargo doc --workspace --no-deps` documents what a user of each library can
# reach (pub items of pub modules, and what those re-export), one page per item. The count
# is the pages for modules (a folder's index.html), structs, enums, unions, traits, type
# aliases, functions, constants, statics and macros under target/doc/CRATE/. Methods and
# fields are not counted (they live on their type's page); re-exported crates (`pub use
# lockcheck_sim as sim`) are not either. Binaries are not documented, so `cli` counts once it
# is private to the binary.
set -euo pipefail
dir="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$dir"
target="${CARGO_TARGET_DIR:-$dir/target}"
rm -rf "$target/doc"  # pages of items gone since the last run would count
cargo doc --workspace --no-deps --lib --quiet 2>/dev/null
for crate in lockcheck lockcheck_model lockcheck_sim; do
  root="$target/doc/$crate"
  items=$(find "$root" -name '*.html' |
    grep -cE '/(index|struct\.[^/]*|enum\.[^/]*|union\.[^/]*|trait\.[^/]*|type\.[^/]*|fn\.[^/]*|constant\.[^/]*|static\.[^/]*|macro\.[^/]*)\.html$' || true)
  printf '%-16s %5d\n' "$crate" "$items"
done
