#!/usr/bin/env bash
# The compiler-scale benchmark: every strategy on the large real problems of
# data/large and on a heavy-tailed random 100k table, with this tree and with
# 0.1.0 (built from its commit, 15521b1, into a temporary folder, never kept
# in the tree), measured side by side in one run. Writes docs/scale.md.
# AETHER_SCALE_SEARCH_MS sets the search's time budget (default 10000).
#
# `scripts/bench_scale.sh sweep` runs the scaling sweep of issue 21 instead:
# every strategy on the six shape families of workloads::Family, n doubling
# from 16k to 1M (the greedy and its heap-free form to 4M), this tree and
# 0.1.0 side by side, each run capped (30 s, 6 GiB); it writes
# docs/scale_sweep.md and keeps the raw rows in
# target/scale_sweep.rows. Its settings are the AETHER_SWEEP_* variables of
# benches/src/bin/bench_sweep.rs (AETHER_SWEEP_MAX_N=65536 for a quick check;
# AETHER_SWEEP_OLD=0 leaves 0.1.0 out). It prints how long the last sweep
# took before it starts and how long this one took at the end; the report
# says it too.
#
# `scripts/bench_scale.sh shapes` runs the same sweep on the further shapes
# of workloads::Family::MORE (a staircase of nested lifetimes, all live
# together, long random lifetimes, a sawtooth, a star, groups all live
# together, a chain of growing sizes), n doubling from 32k to 256k (the
# greedy and its heap-free forms to 1M), and writes docs/scale_shapes.md
# (rows in target/scale_shapes.rows); the AETHER_SWEEP_* variables apply.
#
# `scripts/bench_scale.sh caps` runs the search on the six families at 1M
# buffers under time caps from 1000 ms down to 10 ms instead, and writes
# docs/search_caps.md (settings: the AETHER_CAPS_* variables of
# benches/src/bin/bench_caps.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
mode=${1:-scale}
case "$mode" in scale | sweep | shapes | caps) ;; *) echo "usage: $0 [sweep | shapes | caps]" >&2; exit 2 ;; esac
if [ "$mode" = caps ]; then
  echo "== building this tree"
  cargo build --release -q -p aether-bench --bin bench-caps
  echo "== the capped search on every shape family (progress on stderr)"
  target/release/bench-caps docs/search_caps.md
  exit 0
fi
started=$(date +%s)
search_ms=${AETHER_SCALE_SEARCH_MS:-10000}
work=$(mktemp -d /tmp/aether-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "== building this tree"
cargo build --release -q -p aether-bench --bin bench-scale --bin bench-sweep
new="$root/target/release/bench-scale"

build_old() {
  echo "== building 0.1.0 (15521b1) in $work/old"
  mkdir -p "$work/old"
  git archive 15521b1 | tar -x -C "$work/old"
  mkdir -p "$work/old/driver/src"
  cat >"$work/old/driver/Cargo.toml" <<TOML
[package]
name = "old-driver"
version = "0.0.0"
edition = "2021"
[dependencies]
aether-planner = { path = ".." }
[workspace]
[profile.release]
panic = "unwind"
TOML
  cat >"$work/old/driver/src/main.rs" <<RS
#[path = "$root/benches/src/scale_driver.rs"]
mod driver;
fn main() {
    let args: Vec<String> = std::env::args().skip(2).collect();
    driver::run(&args);
}
RS
  # aether_old: the driver's forms 0.1.0 lacks run its nearest one.
  (cd "$work/old/driver" && RUSTFLAGS="--cfg aether_old" CARGO_TARGET_DIR="$work/old/target" cargo build --release -q)
  old="$work/old/target/release/old-driver"
}
old=-
if [ "$mode" = scale ] || [ "${AETHER_SWEEP_OLD:-1}" != 0 ]; then build_old; fi

if [ "$mode" = sweep ] || [ "$mode" = shapes ]; then
  report=scale_sweep
  if [ "$mode" = shapes ]; then
    report=scale_shapes
    export AETHER_SWEEP_FAMILIES=${AETHER_SWEEP_FAMILIES:-staircase,all_live,long_random,sawtooth,star,cliques,growing_chain}
    export AETHER_SWEEP_MIN_N=${AETHER_SWEEP_MIN_N:-32768}
    export AETHER_SWEEP_MAX_N=${AETHER_SWEEP_MAX_N:-262144}
  fi
  rows_file=target/$report.rows
  last=$(sed -n 's/^# seconds=//p' "$rows_file" 2>/dev/null || true)
  if [ -n "$last" ]; then
    prev() { sed -n "s/^# $1=//p" "$rows_file"; }
    echo "== the last $mode run here took $((last / 60)) min (n to $(prev max_n), cap $(prev cap_s) s; $rows_file)"
  fi
  echo "== the sweep (progress on stderr; rows in $rows_file)"
  "$root/target/release/bench-sweep" run "$new" "$old" "$work" "$rows_file" "docs/$report.md"
  echo "== the sweep took $((($(date +%s) - started) / 60)) min $((($(date +%s) - started) % 60)) s"
  exit 0
fi

"$new" write-heavy 100000 7 "$work/heavy_100k.csv"

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }
rows="$work/rows"
: >"$rows"
loads=()
measure() { # label file strategy [budget]
  local label=$1 file=$2 strategy=$3 budget=${4:-}
  loads+=("$(cut -d' ' -f1 /proc/loadavg)")
  # The greedy is quick: the median of five runs each. The others run once
  # (0.1.0's search alone takes half a minute on S_1).
  local runs=1 a b i
  [ "$strategy" = greedy ] && runs=5
  local as=() bs=()
  for ((i = 0; i < runs; i++)); do
    as+=("$("$new" run "$file" "$strategy" $budget)")
    bs+=("$("$old" run "$file" "$strategy" $budget)")
  done
  a=$(median_of "${as[@]}")
  b=$(median_of "${bs[@]}")
  echo "$label $strategy new $a" | tee -a "$rows"
  echo "$label $strategy old $b" | tee -a "$rows"
}
# The line whose seconds= field is the median of the lines given.
median_of() {
  printf '%s\n' "$@" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^seconds=/) { split($i, kv, "="); print kv[2] "\t" $0 } }' |
    sort -g | awk -F'\t' -v m=$((($# + 1) / 2)) 'NR == m { print $2 }'
}
for name in resnet50 G_1 pangu_2.6B S_1; do
  f="data/large/$name.csv"
  measure "$name" "$f" greedy
  measure "$name" "$f" heuristic
  measure "$name" "$f" search "$search_ms"
done
measure heavy_100k "$work/heavy_100k.csv" greedy

# ---- the report ---------------------------------------------------------
get() { grep "^$1 $2 $3 " "$rows" | head -1; }
num() { field "$1" "$(get "$2" "$3" "$4")"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
verdict() { if awk "BEGIN { exit !($1) }"; then echo met; else echo "**not met**"; fi; }
out=docs/scale.md
{
  echo "# Offset planning at compiler scale"
  echo
  echo "Generated by \`scripts/bench_scale.sh\` on $(date -u +%Y-%m-%d), $(nproc) cores,"
  echo "load average $(printf '%s ' "${loads[@]}" | awk '{ min=$1; max=$1; for (i=1;i<=NF;i++) { if ($i<min) min=$i; if ($i>max) max=$i } printf "%s to %s", min, max }') during the run (the machine is shared)."
  echo "Each run is a process of its own: this tree, then 0.1.0 (commit 15521b1) right after it, on the"
  echo "same input. The greedy runs five times each, alternating, and the run of median time is shown; the"
  echo "heuristic and the search run once. *Seconds* is the library call only; *MiB* is the process's peak"
  echo "resident memory during the call, the table included. The search runs with a ${search_ms} ms time budget. \`heavy_100k\` is"
  echo "\`workloads::heavy_tailed_tensors(100000, 7)\`: 5 % of tensors live up to n/4 nodes, six sizes."
  echo
  echo "| problem | buffers | conflict pairs | peak | strategy | arena | 0.1.0 arena | s | 0.1.0 s | speed-up | MiB | 0.1.0 MiB |"
  echo "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
  while read -r label strategy who rest; do
    [ "$who" = new ] || continue
    n=$(get "$label" "$strategy" new); o=$(get "$label" "$strategy" old)
    echo "| $label | $(field buffers "$n") | $(field pairs "$n") | $(field peak "$n") | $strategy | $(field arena "$n") | $(field arena "$o") | $(field seconds "$n") | $(field seconds "$o") | $(ratio "$(field seconds "$o")" "$(field seconds "$n")")x | $(mib "$(field rss_kib "$n")") | $(mib "$(field rss_kib "$o")") |"
  done <"$rows"
  echo
  echo "Greedy, ns per conflict pair (this tree / 0.1.0):"
  for label in pangu_2.6B S_1 heavy_100k; do
    p=$(num pairs "$label" greedy new)
    echo "- $label: $(awk -v s="$(num seconds "$label" greedy new)" -v p="$p" 'BEGIN{printf "%.1f", s*1e9/p}') / $(awk -v s="$(num seconds "$label" greedy old)" -v p="$p" 'BEGIN{printf "%.1f", s*1e9/p}')"
  done
  echo
  echo "## Targets"
  echo
  echo "| target | figure | verdict |"
  echo "|---|---|---|"
  for label in S_1 pangu_2.6B heavy_100k; do
    r=$(ratio "$(num seconds "$label" greedy old)" "$(num seconds "$label" greedy new)")
    same=$([ "$(num arena "$label" greedy old)" = "$(num arena "$label" greedy new)" ] && echo "same arena" || echo "ARENA DIFFERS")
    echo "| greedy at least 3x faster on $label | ${r}x, $same | $(verdict "$r >= 3") |"
  done
  for label in pangu_2.6B S_1 heavy_100k; do
    echo "| greedy memory O(n) beyond the input on $label | $(mib "$(num rss_kib "$label" greedy new)") MiB (0.1.0: $(mib "$(num rss_kib "$label" greedy old)") MiB), input included | the index is \`O(n log n)\` ranges at worst: see the note below |"
  done
  for label in resnet50 G_1 pangu_2.6B S_1; do
    b=$(num buffers "$label" heuristic new); k=$(num rss_kib "$label" heuristic new)
    limit=$(awk -v b="$b" 'BEGIN { printf "%.0f", (64 * 1048576 + 100 * b) / 1024 }')
    echo "| heuristic peak memory on $label at most 64 MiB + 100 B/buffer ($(mib "$limit") MiB) | $(mib "$k") MiB | $(verdict "$k <= $limit") |"
  done
  for pair in S_1:1.5 pangu_2.6B:0.6; do
    label=${pair%%:*}; max=${pair##*:}; s=$(num seconds "$label" heuristic new)
    echo "| heuristic planning on $label at most $max s | $s s | $(verdict "$s <= $max") |"
  done
  for label in resnet50 G_1 pangu_2.6B S_1; do
    a=$(num arena "$label" heuristic new); o=$(num arena "$label" heuristic old); g=$(num arena "$label" greedy new)
    echo "| heuristic arena on $label no larger than 0.1.0's and greedy's | $a (0.1.0 $o, greedy $g) | $(verdict "$a <= $o && $a <= $g") |"
  done
  for label in pangu_2.6B S_1; do
    s=$(num seconds "$label" search new)
    echo "| search on $label within its ${search_ms} ms budget + 5 % | $s s (0.1.0: $(num seconds "$label" search old) s) | $(verdict "$s <= $search_ms * 1.05 / 1000") |"
  done
  echo "| pangu_2.6B proven optimal within 10 s | proven=$(num proven pangu_2.6B search new), lower bound $(num lower pangu_2.6B search new) | $(verdict "\"$(num proven pangu_2.6B search new)\" == \"true\"") |"
  echo
  echo "Greedy memory: the index holds \`O(n)\` arrays (two raw entries per tensor, a tree over its"
  echo "endpoint ranks) and coalesced unions of byte ranges. A placed range enters the unions of its end"
  echo "paths (the walk stops at the first that already covers it) and of its canonical nodes, or, above"
  echo "a few levels, the covers below those nodes as queries reach them (at most 2,048 per tensor on"
  echo "average), so the unions are \`O(n log n)\` ranges at worst; unions no later placement reads are"
  echo "dropped. The table's figures are the whole process during the call, the table included (its"
  echo "CSV text is read line by line and the peak restarted before the call)."
  echo
  echo "## The scaling sweep"
  echo
  cat <<'MD'
Every strategy on six shape families (chain, sliding window, random short, nested scopes,
heavy-tailed, a training step), n doubling from 16k to 1M (the greedy and its two heap-free forms
to 4M), side by side with 0.1.0, with the fitted growth exponents and the targets of issue 21:
[scale_sweep.md](scale_sweep.md), written by `scripts/bench_scale.sh sweep` (it states its
settings, the load and how long it took). The heap-free forms are
`aether_plan_offsets_in_workspace` in its 4 words per tensor, whose time follows the conflicting
pairs (quadratic on the training step), and `aether_plan_offsets_in_indexed_workspace` over the
workspace `aether_plan_offsets_indexed_workspace_size` states, which keeps the same plan
near-linear there.

Seven further shapes (a staircase of nested lifetimes, all live together, long random lifetimes,
a sawtooth, a star, groups all live together, a chain of growing sizes), n doubling from 32k to
256k (the greedy and its heap-free forms to 1M), run the same way, beside 0.1.0:
[scale_shapes.md](scale_shapes.md), written by `scripts/bench_scale.sh shapes`.
MD
} >"$out"
echo "== wrote $out"
echo "== took $((($(date +%s) - started) / 60)) min $((($(date +%s) - started) % 60)) s"
