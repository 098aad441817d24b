#!/usr/bin/env bash
# The ecosystem check: fetches the published crates pinned in benches/ecosystem/crates.txt (sources only,
# never built), runs `mcp-lint check --format json` over each, and writes benches/ecosystem/SUMMARY.md and
# findings.tsv, so a change's new and lost findings show as a diff of those two files.
# Usage: benches/ecosystem/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

list=benches/ecosystem/crates.txt
work=target/ecosystem
cache="${CARGO_HOME:-$HOME/.cargo}/registry/cache"

cargo build --release --quiet --bin mcp-lint
mkdir -p "$work/src" "$work/json"

# `cargo info NAME@VERSION`, run outside any workspace, downloads exactly that crate into cargo's registry
# cache (checked against the index's checksum) and nothing else: no resolution of the crate's own
# dependencies, so old and new crates never conflict and nothing is built. The .crate is then unpacked.
outside=$(mktemp -d)
trap 'rm -rf "$outside"' EXIT

grep -v '^[[:space:]]*\(#\|$\)' "$list" | while read -r name version _; do
  dir="$work/src/$name-$version"
  if [ ! -d "$dir" ]; then
    (cd "$outside" && cargo info --quiet "$name@$version" >/dev/null)
    crate=$(ls "$cache"/*/"$name-$version.crate" | head -n 1)
    tar xzf "$crate" -C "$work/src"
  fi
  # Run from the crate's parent folder so every path in the report starts with `name-version/`.
  (cd "$work/src" && ../../release/mcp-lint check --format json --exit-zero "$name-$version" \
    >"../json/$name-$version.json" 2>"../json/$name-$version.stderr")
done

python3 benches/ecosystem/summarize.py "$list" "$work"
