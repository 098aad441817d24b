#!/usr/bin/env bash
# The benchmark harness: builds the corpus, installs the peers, times mcp-lint against ripgrep and
# ast-grep in one run, and writes benches/RESULTS.md. Usage: benches/run.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."

# Peers: ripgrep, GNU time and valgrind (instruction counts) from Debian's packages, ast-grep from PyPI.
if ! command -v rg >/dev/null || [ ! -x /usr/bin/time ] || ! command -v valgrind >/dev/null; then
  apt-get update -qq && apt-get install -y -qq ripgrep time valgrind >/dev/null
fi
if ! command -v ast-grep >/dev/null; then
  pip install --quiet ast-grep-cli==0.51.1
fi

cargo build --release --quiet --bin mcp-lint --example syn_parse_loop --example bench_triggers

# The corpus: the crates pinned by benches/corpus/Cargo.lock, vendored once.
if [ ! -d target/bench/vendor ]; then
  cargo vendor --quiet --locked --manifest-path benches/corpus/Cargo.toml target/bench/vendor >/dev/null
fi

exec python3 benches/bench.py "$@"
