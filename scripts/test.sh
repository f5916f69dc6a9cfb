#!/usr/bin/env bash
# The project's test command: everything CI checks, in named stages.
#
#   scripts/test.sh            every stage, in order (the same as `all`)
#   scripts/test.sh STAGE...   the named stages only
#   scripts/test.sh --list     each stage with what it checks
#   scripts/test.sh --names    the stage names of `all`, one a line (.ci/run
#                              runs them as separate steps)
#
# On a fresh machine it first installs what is missing (cmake, make,
# pkg-config, and for the reliability checks valgrind, the sanitizer runtimes
# and cargo-fuzz; needs root or sudo). AETHER_FUZZ_SECONDS sets the time per
# fuzz target (default 60). Stage `staticlibs` links the archive stage
# `cmake` installed, so it runs after it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# name, then what it checks; `all` runs them in this order.
stages=(
  "lint|cargo fmt --check and clippy on every crate and target"
  "test|cargo test --workspace: the Rust tests, the C harness, the header freshness check"
  "large|the large-file tests in release: soundness at scale, the search's proofs, the greedy against the literal"
  "offline|the library alone builds with --offline --locked and an empty CARGO_HOME, compiling no crate but its own"
  "cmake|CMake build (empty CARGO_HOME) and ctest, install, relocation, the consumer project, the 0.1 symbols, the README's integration blocks and installed sizes"
  "staticlibs|two Rust static libraries in one C program"
  "reliability|sanitizers, valgrind, resource limits, Miri, fuzzing (scripts/reliability.sh)"
)
stage_names() { local s; for s in "${stages[@]}"; do echo "${s%%|*}"; done; }

case "${1:-all}" in
  --list)
    for s in "${stages[@]}"; do printf '%-12s %s\n' "${s%%|*}" "${s#*|}"; done
    exit 0 ;;
  --names)
    stage_names
    exit 0 ;;
esac
if [ $# -eq 0 ] || [ "$*" = all ]; then
  mapfile -t wanted < <(stage_names)
else
  wanted=("$@")
  # Read the names once: `stage_names | grep -q` under pipefail fails
  # when grep stops reading before the list is written (SIGPIPE).
  known=$(stage_names)
  for w in "${wanted[@]}"; do
    grep -qx -- "$w" <<<"$known" || {
      echo "unknown stage '$w'; the stages are: $(stage_names | tr '\n' ' ')" >&2
      exit 2
    }
  done
fi

install_missing() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v make >/dev/null || missing+=(make)
  command -v c++ >/dev/null || missing+=(g++)
  command -v pkg-config >/dev/null || missing+=(pkg-config)
  command -v readelf >/dev/null || missing+=(binutils)
  [ ${#missing[@]} -eq 0 ] && return
  echo "== installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Every CMake build shares one cargo target directory, so the library is
# compiled once, not once per build tree. It is not the workspace's own
# target directory: the CMake build compiles the library from its own
# manifest (cmake/library/), whose outputs would take the same file names.
cargo_target="${CARGO_TARGET_DIR:-$root/target}/cmake-library"
build="$root/build/ci"
prefix="$build/moved"
links_shared() { readelf -d "$1" | grep -q 'NEEDED.*libaether_planner'; }

stage_lint() {
  echo "== cargo fmt --check"
  cargo fmt --all --check
  echo "== cargo clippy"
  cargo clippy --workspace --all-targets -- -D warnings
  echo "== the fuzz crate (outside the workspace): fmt and clippy"
  (cd fuzz && cargo fmt --check)
  cargo clippy --manifest-path fuzz/Cargo.toml --lib --tests -- -D warnings
}

stage_test() {
  echo "== cargo test (Rust, the C harness, header freshness)"
  cargo test --workspace
  echo "== the fuzz crate's own tests: the constrained plan checker, its brute force, the seed corpus"
  cargo test --manifest-path fuzz/Cargo.toml --lib
}

stage_large() {
  echo "== large-file tests, in release: soundness at scale, the search's proofs there, the greedy bit for bit against the literal"
  cargo test --release --test scale -- --ignored
  cargo test --release --test search_scale -- --ignored
  cargo test --release -p aether-bench --test scale_equivalence -- --ignored
}

# The lines of section [$2] of manifest $1, comments and blank lines left
# out; for [package], only the fields both manifests must share.
manifest_section() {
  awk -v want="[$2]" '
    /^\[/ { inside = ($0 == want); next }
    inside && !/^ *(#|$)/ { print }' "$1" |
    if [ "$2" = package ]; then grep -E '^(name|version|edition|rust-version|license) ='; else cat; fi
}

stage_offline() {
  echo "== the library's own manifest agrees with Cargo.toml"
  local section
  for section in package lib features profile.release profile.profiling; do
    if ! diff <(manifest_section Cargo.toml "$section" | grep -v '^path =') \
      <(manifest_section cmake/library/Cargo.toml "$section" | grep -v '^path ='); then
      echo "cmake/library/Cargo.toml's [$section] differs from Cargo.toml's (above)" >&2
      exit 1
    fi
  done

  echo "== the library alone builds offline, with an empty cargo cache, and compiles no crate but its own"
  local home log compiled
  home=$(mktemp -d)
  log=$(CARGO_HOME="$home" cargo build --offline --locked --lib \
    --manifest-path cmake/library/Cargo.toml --target-dir "$root/target/offline-check" 2>&1) ||
    { echo "$log" >&2; exit 1; }
  rm -rf "$home" "$root/target/offline-check"
  compiled=$(grep -c '^ *Compiling ' <<<"$log" || true)
  if [ "$compiled" != 1 ] || ! grep -q '^ *Compiling aether-planner ' <<<"$log"; then
    echo "the library build compiled more than itself:" >&2
    echo "$log" >&2
    exit 1
  fi
}

# The README's blocks marked `<!-- tested: NAME -->`, exactly as written.
readme_block() {
  local text
  text=$(awk -v marker="<!-- tested: $1 -->" '
    $0 == marker { state = 1; next }
    state == 1 && /^```/ { state = 2; next }
    state == 2 && /^```/ { exit }
    state == 2 { print }' README.md)
  [ -n "$text" ] || { echo "README.md has no block marked 'tested: $1'" >&2; exit 1; }
  printf '%s\n' "$text"
}

# The size the README's table of installed sizes gives for the row labelled
# $1 ("14.2 MB", "451 KB"), in bytes.
readme_size() {
  local cell
  cell=$(awk -v label="$1" -F'|' '
    /^<!-- sizes: / { table = 1; next }
    table && !/^\|/ && seen { exit }
    table && /^\|/ { seen = 1; l = $2; gsub(/^ +| +$/, "", l); if (l == label) { print $3; exit } }' README.md)
  [ -n "$cell" ] || { echo "README.md's size table has no row '$1'" >&2; exit 1; }
  awk -v cell="$cell" 'BEGIN {
    split(cell, f, " "); n = f[1]; gsub(/,/, "", n)
    unit = (f[2] == "MB") ? 1e6 : (f[2] == "KB") ? 1e3 : (f[2] == "B") ? 1 : -1
    if (unit < 0) exit 1
    printf "%d\n", n * unit }' || { echo "README.md: cannot read size '$cell'" >&2; exit 1; }
}

# Fails when the file $2 differs from the README's figure for row $1 by more
# than the stated 10%.
check_size() {
  local stated actual
  stated=$(readme_size "$1")
  actual=$(stat -c %s "$2")
  echo "  $1: $actual B (README: $stated B)"
  if [ $((actual * 10)) -lt $((stated * 9)) ] || [ $((actual * 10)) -gt $((stated * 11)) ]; then
    echo "README.md says $1 is $stated B, but it is $actual B: update the size table" >&2
    exit 1
  fi
}

stage_cmake() {
  echo "== CMake build (with an empty cargo cache) and ctest"
  rm -rf "$build"
  cmake -S . -B "$build/lib" -DCMAKE_BUILD_TYPE=Release \
    -DAETHER_PLANNER_CARGO_TARGET_DIR="$cargo_target" >/dev/null
  local home
  home=$(mktemp -d)
  CARGO_HOME="$home" cmake --build "$build/lib"
  rm -rf "$home"
  ctest --test-dir "$build/lib" --output-on-failure

  echo "== install, relocate, and consume the package"
  cmake --install "$build/lib" --prefix "$build/installed" >/dev/null
  # The package must not remember where it was installed.
  mv "$build/installed" "$prefix"
  echo "installed sizes in bytes:" $(cd "$prefix/lib" && stat -c '%n %s' libaether_planner.a \
    libaether_planner.so.*.*.*)
  cmake -S c_tests/consumer -B "$build/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$build/consumer"
  local exe
  for exe in consumer_c_static consumer_c_shared consumer_cxx_static consumer_cxx_shared \
    consumer_default consumer_hpp; do
    "$build/consumer/$exe"
  done
  ! links_shared "$build/consumer/consumer_c_static" && links_shared "$build/consumer/consumer_c_shared"
  # The default target follows BUILD_SHARED_LIBS.
  ! links_shared "$build/consumer/consumer_default"
  cmake -S c_tests/consumer -B "$build/consumer-shared" -DCMAKE_PREFIX_PATH="$prefix" \
    -DBUILD_SHARED_LIBS=ON >/dev/null
  cmake --build "$build/consumer-shared" --target consumer_default >/dev/null
  links_shared "$build/consumer-shared/consumer_default"
  "$build/consumer-shared/consumer_default"
  # An incompatible version must be refused for that reason.
  local wrong
  if wrong=$(cmake -S c_tests/consumer -B "$build/consumer-wrong" -DCMAKE_PREFIX_PATH="$prefix" \
    -DAETHER_PLANNER_WANTED_VERSION=0.2 2>&1); then
    echo "find_package(aether_planner 0.2) accepted version 0.1" >&2
    exit 1
  fi
  grep -q 'not compatible\|is not suitable\|requested version' <<<"$wrong" || { echo "$wrong" >&2; exit 1; }
  echo "find_package(aether_planner 0.2) refused version 0.1, as it must"

  echo "== the 0.1 C symbols stay exported (c_tests/abi/symbols-0.1.txt)"
  local shared=("$prefix"/lib/libaether_planner.so.*.*.*)
  local missing
  missing=$(comm -23 <(sort -u c_tests/abi/symbols-0.1.txt) \
    <(nm -D --defined-only --format=posix "${shared[0]}" | awk '$2 == "T" { print $1 }' | sort -u))
  [ -z "$missing" ] || { echo "the shared library no longer exports:" $missing >&2; exit 1; }
  missing=$(comm -23 <(sort -u c_tests/abi/symbols-0.1.txt) \
    <(nm --defined-only --format=posix "$prefix/lib/libaether_planner.a" 2>/dev/null |
      awk '$2 == "T" { print $1 }' | sort -u))
  [ -z "$missing" ] || { echo "the static library no longer defines:" $missing >&2; exit 1; }
  echo "$(wc -l <c_tests/abi/symbols-0.1.txt) symbols of 0.1, all exported"

  echo "== the README's CMake blocks: find_package, add_subdirectory, FetchContent"
  local way project
  for way in find_package add_subdirectory FetchContent; do
    project="$build/readme-$way"
    mkdir -p "$project/src"
    cp c_tests/consumer/main.c "$project/src/app.c"
    {
      echo 'cmake_minimum_required(VERSION 3.25)'
      # C only: building the library must not need a C++ compiler.
      echo 'project(readme_consumer LANGUAGES C)'
      echo 'add_executable(app app.c)'
      readme_block "$way" | sed "s|/path/to/aether-planner|$root|g"
    } >"$project/src/CMakeLists.txt"
    cmake -S "$project/src" -B "$project/build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DAETHER_PLANNER_CARGO_TARGET_DIR="$cargo_target" -DCMAKE_CXX_COMPILER=/nonexistent/c++ \
      --no-warn-unused-cli >/dev/null
    cmake --build "$project/build" >/dev/null
    "$project/build/app"
    # The library's tests and examples stay out of a parent project's build.
    # grep reads a process substitution, not a pipe: under pipefail a grep
    # that stops at its first match would fail the pipe (SIGPIPE).
    if grep -q 'test_planner\|example_\|cxx_wrapper' < <(cmake --build "$project/build" --target help); then
      echo "$way: the library's tests or examples joined the consumer's build" >&2
      exit 1
    fi
    [ "$way" = find_package ] && continue
    # A parent project installs nothing of the library unless it asks to.
    cmake --install "$project/build" --prefix "$project/installed" >/dev/null
    if [ -n "$(find "$project/installed" -type f -o -type l 2>/dev/null)" ]; then
      echo "$way: the consumer's install installed the library unasked:" >&2
      find "$project/installed" >&2
      exit 1
    fi
  done
  # ... and when it asks, gets the whole relocatable package.
  project="$build/readme-add_subdirectory"
  cmake "$project/build" -DAETHER_PLANNER_INSTALL=ON >/dev/null
  cmake --install "$project/build" --prefix "$project/installed" >/dev/null
  for f in lib/libaether_planner.a lib/libaether_planner.so include/aether_planner.h \
    lib/cmake/aether_planner/aether_plannerConfig.cmake lib/pkgconfig/aether_planner.pc; do
    [ -e "$project/installed/$f" ] || { echo "AETHER_PLANNER_INSTALL=ON did not install $f" >&2; exit 1; }
  done
  echo "a parent project installs the library only with AETHER_PLANNER_INSTALL=ON"

  echo "== the README's pkg-config block, exactly as typed: shared and static"
  local pc="$build/readme-pkg-config"
  mkdir -p "$pc"
  cp c_tests/consumer/main.c "$pc/app.c"
  readme_block pkg-config | sed "s|/opt/aether|$prefix|g" >"$pc/commands.sh"
  (cd "$pc" && env -u LD_LIBRARY_PATH bash -euo pipefail commands.sh)
  links_shared "$pc/app" && ! links_shared "$pc/app_static"
  # Started with no LD_LIBRARY_PATH: the .pc file's line must be enough.
  env -u LD_LIBRARY_PATH "$pc/app"
  env -u LD_LIBRARY_PATH "$pc/app_static"
  # Every path the .pc files give leads into the moved prefix.
  local p
  for p in $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs aether_planner \
    aether_planner-static | tr ' ' '\n' | sed -n 's/^-I//p; s/^-L//p; s/^-Wl,-rpath,//p; /^\//p'); do
    case "$(realpath "$p")" in "$prefix"/*) ;; *) echo "a .pc path leads outside the prefix: $p" >&2; exit 1 ;; esac
  done

  # ... and --define-prefix prints them normalised.
  local normalised
  normalised=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --define-prefix --cflags --libs \
    aether_planner | xargs)
  [ "$normalised" = "-I$prefix/include -L$prefix/lib -Wl,-rpath,$prefix/lib -laether_planner" ] ||
    { echo "pkg-config --define-prefix printed: $normalised" >&2; exit 1; }

  echo "== installed sizes against the README's table (10% tolerance)"
  cc -std=c99 -O2 -I"$prefix/include" c_tests/consumer/main.c "$prefix/lib/libaether_planner.a" \
    -lpthread -ldl -lm -Wl,--gc-sections -o "$pc/app_static_gc"
  "$pc/app_static_gc" >/dev/null
  check_size '`libaether_planner.a`' "$prefix/lib/libaether_planner.a"
  check_size '`libaether_planner.so.0.1.0`' "$prefix/lib/libaether_planner.so.0.1.0"
  check_size 'static program' "$pc/app_static"
  check_size 'static program, `-Wl,--gc-sections`' "$pc/app_static_gc"
  check_size 'shared program' "$pc/app"
}

stage_staticlibs() {
  echo "== two Rust static libraries in one C program"
  [ -e "$prefix/lib/libaether_planner.a" ] ||
    { echo "stage staticlibs links what stage cmake installs: run 'scripts/test.sh cmake staticlibs'" >&2; exit 1; }
  cargo build --offline --release --quiet --manifest-path c_tests/consumer/other_staticlib/Cargo.toml \
    --target-dir "$cargo_target/other_staticlib"
  local order ours other libs
  for order in ours-first other-first; do
    ours="$prefix/lib/libaether_planner.a"
    other="$cargo_target/other_staticlib/release/libother_staticlib.a"
    [ "$order" = ours-first ] && libs=("$ours" "$other") || libs=("$other" "$ours")
    cc -std=c99 -Wall -Wextra -Werror -I"$prefix/include" c_tests/consumer/two_staticlibs.c \
      "${libs[@]}" -lpthread -ldl -lm -o "$build/two_staticlibs_$order"
    "$build/two_staticlibs_$order"
  done
}

stage_reliability() {
  echo "== reliability: sanitizers, valgrind, resource limits, fuzzing"
  bash scripts/reliability.sh
}

install_missing
for w in "${wanted[@]}"; do
  start=$SECONDS
  "stage_$w"
  echo "== stage $w passed in $((SECONDS - start)) s"
done
echo "== passed: ${wanted[*]}"
