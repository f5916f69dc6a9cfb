#!/usr/bin/env bash
# The project's test command: everything CI checks. On a fresh machine it
# first installs what is missing (cmake, make, pkg-config, and for the
# reliability checks valgrind, the sanitizer runtimes and cargo-fuzz; needs
# root or sudo). AETHER_FUZZ_SECONDS sets the time per fuzz target (default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

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
install_missing

echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
echo "== cargo test (Rust, the C harness, header freshness)"
cargo test --workspace

echo "== large-file tests, in release: soundness at scale, the search's proofs there, the greedy bit for bit against the literal"
cargo test --release --test scale -- --ignored
cargo test --release --test search_scale -- --ignored
cargo test --release -p aether-bench --test scale_equivalence -- --ignored

echo "== the library alone builds offline and compiles no crate but its own"
offline_log=$(cargo build --offline --lib --package aether-planner \
  --target-dir "$root/target/offline-check" 2>&1) || { echo "$offline_log" >&2; exit 1; }
rm -rf "$root/target/offline-check"
compiled=$(grep -c '^ *Compiling ' <<<"$offline_log" || true)
if [ "$compiled" != 1 ] || ! grep -q '^ *Compiling aether-planner ' <<<"$offline_log"; then
  echo "the library build compiled more than itself:" >&2
  echo "$offline_log" >&2
  exit 1
fi

# Every CMake build below shares one cargo target directory, so the library
# is compiled once, not once per build tree.
cargo_target="${CARGO_TARGET_DIR:-$root/target}"

echo "== CMake build and ctest"
build="$root/build/ci"
rm -rf "$build"
cmake -S . -B "$build/lib" -DCMAKE_BUILD_TYPE=Release \
  -DAETHER_PLANNER_CARGO_TARGET_DIR="$cargo_target" >/dev/null
cmake --build "$build/lib"
ctest --test-dir "$build/lib" --output-on-failure

echo "== install, relocate, and consume the package"
cmake --install "$build/lib" --prefix "$build/installed" >/dev/null
# The package must not remember where it was installed.
mv "$build/installed" "$build/moved"
prefix="$build/moved"
echo "installed sizes in bytes:" $(cd "$prefix/lib" && stat -c '%n %s' libaether_planner.a \
  libaether_planner.so.*.*.*)
cmake -S c_tests/consumer -B "$build/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$build/consumer"
for exe in consumer_c_static consumer_c_shared consumer_cxx_static consumer_cxx_shared \
  consumer_default consumer_hpp; do
  "$build/consumer/$exe"
done
links_shared() { readelf -d "$1" | grep -q 'NEEDED.*libaether_planner'; }
! links_shared "$build/consumer/consumer_c_static" && links_shared "$build/consumer/consumer_c_shared"
# The default target follows BUILD_SHARED_LIBS.
! links_shared "$build/consumer/consumer_default"
cmake -S c_tests/consumer -B "$build/consumer-shared" -DCMAKE_PREFIX_PATH="$prefix" \
  -DBUILD_SHARED_LIBS=ON >/dev/null
cmake --build "$build/consumer-shared" --target consumer_default >/dev/null
links_shared "$build/consumer-shared/consumer_default"
"$build/consumer-shared/consumer_default"
# An incompatible version must be refused for that reason.
if wrong=$(cmake -S c_tests/consumer -B "$build/consumer-wrong" -DCMAKE_PREFIX_PATH="$prefix" \
  -DAETHER_PLANNER_WANTED_VERSION=0.2 2>&1); then
  echo "find_package(aether_planner 0.2) accepted version 0.1" >&2
  exit 1
fi
grep -q 'not compatible\|is not suitable\|requested version' <<<"$wrong" || { echo "$wrong" >&2; exit 1; }
echo "find_package(aether_planner 0.2) refused version 0.1, as it must"

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

echo "== the README's CMake blocks: find_package, add_subdirectory, FetchContent"
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
  if cmake --build "$project/build" --target help | grep -q 'test_planner\|example_\|cxx_wrapper'; then
    echo "$way: the library's tests or examples joined the consumer's build" >&2
    exit 1
  fi
done

echo "== the README's pkg-config block, shared and static"
pc="$build/readme-pkg-config"
mkdir -p "$pc"
cp c_tests/consumer/main.c "$pc/app.c"
readme_block pkg-config | sed "s|/opt/aether|$prefix|g" >"$pc/commands.sh"
(cd "$pc" && env -u LD_LIBRARY_PATH bash -euo pipefail commands.sh)
links_shared "$pc/app" && ! links_shared "$pc/app_static"
# Started with no LD_LIBRARY_PATH: the documented line must be enough.
env -u LD_LIBRARY_PATH "$pc/app"
env -u LD_LIBRARY_PATH "$pc/app_static"

echo "== two Rust static libraries in one C program"
cargo build --offline --release --quiet --manifest-path c_tests/consumer/other_staticlib/Cargo.toml \
  --target-dir "$cargo_target/other_staticlib"
for order in ours-first other-first; do
  ours="$prefix/lib/libaether_planner.a"
  other="$cargo_target/other_staticlib/release/libother_staticlib.a"
  [ "$order" = ours-first ] && libs=("$ours" "$other") || libs=("$other" "$ours")
  cc -std=c99 -Wall -Wextra -Werror -I"$prefix/include" c_tests/consumer/two_staticlibs.c \
    "${libs[@]}" -lpthread -ldl -lm -o "$build/two_staticlibs_$order"
  "$build/two_staticlibs_$order"
done

echo "== reliability: sanitizers, valgrind, resource limits, fuzzing"
bash scripts/reliability.sh

echo "== all checks passed"
