#!/usr/bin/env bash
# The benchmark command: builds in release and regenerates BENCHMARKS.md with
# median time and peak memory of the library, the specification's literal
# algorithms and the peers on every workload (about 20 minutes on 2 cores).
#
#   scripts/bench.sh           the full run, rewrites BENCHMARKS.md
#   scripts/bench.sh --quick   a reduced set with fewer runs (about a minute),
#                              written to target/BENCHMARKS.quick.md
#
# Micro-benchmarks of the smaller workloads: cargo bench -p aether-bench
set -euo pipefail
cd "$(dirname "$0")/.."

quick=()
out=BENCHMARKS.md
if [[ "${1:-}" == "--quick" ]]; then
    quick=(--quick)
    out="${CARGO_TARGET_DIR:-target}/BENCHMARKS.quick.md"
fi

cargo build --release -p aether-bench --bin bench-report
"${CARGO_TARGET_DIR:-target}/release/bench-report" "${quick[@]}" --out "$out"
