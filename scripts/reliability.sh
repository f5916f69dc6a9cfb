#!/usr/bin/env bash
# Reliability checks beyond `cargo test`: installs what a fresh Debian
# machine lacks (valgrind, cargo-fuzz, the nightly toolchain), then
#  1. runs tests/reliability.rs, which builds c_tests/hostile.c and
#     c_tests/threads.c plain, with -fsanitize=address,undefined and under
#     valgrind --error-exitcode=1, and probes resource limits in children;
#  2. runs threads.c at full size under ASan/UBSan and under valgrind;
#  3. runs tests/boundary.rs under Miri (Stacked Borrows, then Tree
#     Borrows): every entry point called as C calls it, aliasing included;
#  4. runs every fuzz target for AETHER_FUZZ_SECONDS (default 60) each.
# Under CI=true every one of these is required: a check that cannot run
# (no nightly, no Miri, no cargo-fuzz, no valgrind) fails the run. Outside CI
# such a check is skipped, loudly, and the closing line names what was
# skipped.
# Environment: AETHER_FUZZ_SECONDS, AETHER_FUZZ_JOBS (default 1), CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fuzz_seconds=${AETHER_FUZZ_SECONDS:-60}
in_ci=0
[ "${CI:-}" = true ] && in_ci=1
skipped=()
# A required check cannot run: fatal under CI, a loud skip elsewhere.
cannot_run() {
  if [ "$in_ci" = 1 ]; then
    echo "== FAILED: $1 cannot run, and under CI=true every reliability check is required" >&2
    exit 1
  fi
  echo "== SKIPPED: $1 cannot run on this machine (fatal under CI=true)" >&2
  skipped+=("$1")
}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
missing=()
command -v valgrind >/dev/null || missing+=(valgrind)
command -v cc >/dev/null || missing+=(gcc)
# gcc's sanitizer runtimes.
ls /usr/lib/*/libasan.so* >/dev/null 2>&1 || missing+=(libasan8)
ls /usr/lib/*/libubsan.so* >/dev/null 2>&1 || missing+=(libubsan1)
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# libFuzzer and Miri need nightly Rust.
have_nightly=1
rustup toolchain list | grep -q '^nightly' ||
  rustup toolchain install nightly --profile minimal --component miri,rust-src || have_nightly=0
can_fuzz=$have_nightly
can_miri=$have_nightly
if [ "$have_nightly" = 1 ]; then
  command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked || can_fuzz=0
  { rustup component list --toolchain nightly --installed | grep -q '^miri' &&
    rustup component list --toolchain nightly --installed | grep -q '^rust-src'; } ||
    rustup component add --toolchain nightly miri rust-src || can_miri=0
  [ "$can_miri" = 1 ] && { cargo +nightly miri setup >/dev/null 2>&1 || can_miri=0; }
else
  cannot_run "the nightly toolchain (for fuzzing and Miri)"
fi
[ "$have_nightly" = 1 ] && [ "$can_fuzz" = 0 ] && cannot_run "cargo-fuzz"
[ "$have_nightly" = 1 ] && [ "$can_miri" = 0 ] && cannot_run "Miri"
# tests/reliability.rs fails its valgrind tests under CI=true when valgrind
# is missing; say so here first.
command -v valgrind >/dev/null || cannot_run "valgrind"

echo "== hostile inputs and threads: plain, sanitized, valgrind, resource probes"
cargo test --test reliability

echo "== threads.c at full size under ASan/UBSan and valgrind"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --lib --package aether-planner --target-dir "$work/target" >/dev/null 2>&1
lib="$work/target/debug/libaether_planner.a"
flags=(-std=c99 -Wall -Wextra -Werror -pedantic -I"$root/include" -g)
link=("$lib" -lpthread -ldl -lm -pthread)
cc "${flags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
  c_tests/threads.c -o "$work/threads_asan" "${link[@]}"
ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$work/threads_asan" 32 200
cc "${flags[@]}" c_tests/threads.c -o "$work/threads_plain" "${link[@]}"
if command -v valgrind >/dev/null; then
  valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect --quiet \
    "$work/threads_plain" 8 40
  # Helgrind: the library keeps no shared state, so no race may be reported.
  # Rust's std caches CPU features (is_x86_feature_detected!) in relaxed
  # atomics, which helgrind cannot see as atomic: that one report is
  # suppressed, nothing else.
  cat >"$work/helgrind.supp" <<'SUPP'
{
   std_detect feature cache: relaxed atomics, not a race
   Helgrind:Race
   ...
   fun:*std_detect*detect*cache*
}
SUPP
  valgrind --tool=helgrind --error-exitcode=1 --quiet --suppressions="$work/helgrind.supp" \
    "$work/threads_plain" 8 20
fi

echo "== reduction matrices of 2^17..2^20 nodes (n^2/16 bytes: 1 GiB..64 GiB), figures"
cargo build --release --lib --package aether-planner --target-dir "$work/target" >/dev/null 2>&1
cc "${flags[@]}" -O2 c_tests/hostile.c -o "$work/hostile" "$work/target/release/libaether_planner.a" \
  -lpthread -ldl -lm
for log2 in 17 18 19 20; do
  # One edge touches almost none of the matrix: no address-space limit.
  printf 'one edge, 2^%s nodes, no limit:   ' "$log2"
  timeout 60 "$work/hostile" reduce "$log2" one 0 || echo "exit $?"
done
for log2 in 17 18 19 20; do
  # A chain touches every row: 2 GiB of address space holds only 2^17.
  printf 'chain, 2^%s nodes, 2 GiB limit:   ' "$log2"
  timeout 120 "$work/hostile" reduce "$log2" chain 2048 || echo "exit $?"
done

if [ "$can_miri" = 1 ]; then
  # The extern functions interpreted: every pointer the boundary builds is
  # checked against both aliasing models. Isolation stays on: the tests
  # need no files, no environment and no host clock.
  for model in stacked tree; do
    echo "== Miri, $model borrows: tests/boundary.rs"
    miri_flags="-Zmiri-strict-provenance"
    [ "$model" = tree ] && miri_flags="$miri_flags -Zmiri-tree-borrows"
    MIRIFLAGS="$miri_flags" cargo +nightly miri test --test boundary --quiet
  done
fi

if [ "$can_fuzz" != 1 ]; then
  echo "== reliability checks passed, with checks SKIPPED: ${skipped[*]}" >&2
  exit 0
fi
echo "== fuzzing, ${fuzz_seconds} s per target"
cd fuzz
export CARGO_TARGET_DIR="${AETHER_FUZZ_TARGET_DIR:-$root/fuzz/target}"
# Debug assertions, and with them overflow checks: an overflow in the
# library is then a panic (a PANIC status at the boundary) that the targets
# catch. Build and run take the same flags, so the run does not rebuild.
cargo +nightly fuzz build --debug-assertions >/dev/null 2>&1 || cargo +nightly fuzz build --debug-assertions
for target in $(cargo +nightly fuzz list); do
  echo "-- $target"
  # New inputs go to a scratch corpus; the checked-in seeds stay as they are.
  mkdir -p "$work/corpus/$target"
  log="$work/fuzz-$target.log"
  if ! cargo +nightly fuzz run --debug-assertions "$target" "$work/corpus/$target" "seeds/$target" -- \
    -max_total_time="$fuzz_seconds" -rss_limit_mb=4096 -malloc_limit_mb=4096 \
    -print_final_stats=1 >"$log" 2>&1; then
    tail -n 80 "$log" >&2
    echo "fuzz target $target failed; the input is under fuzz/artifacts/$target" >&2
    exit 1
  fi
  grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$log"
done
if [ ${#skipped[@]} -gt 0 ]; then
  echo "== reliability checks passed, with checks SKIPPED: ${skipped[*]}" >&2
else
  echo "== reliability checks passed"
fi
