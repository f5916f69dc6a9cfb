#!/usr/bin/env bash
# The project's test command: everything CI checks. On a fresh machine it
# first installs what is missing (cmake, pkg-config, and for the reliability
# checks valgrind, the sanitizer runtimes and cargo-fuzz; needs root or
# sudo). AETHER_FUZZ_SECONDS sets the time per fuzz target (default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

install_missing() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
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

echo "== CMake build and ctest"
build="$root/build/ci"
rm -rf "$build"
cmake -S . -B "$build/lib" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/lib"
ctest --test-dir "$build/lib" --output-on-failure

echo "== install, relocate, and consume the package"
cmake --install "$build/lib" --prefix "$build/installed" >/dev/null
# The package must not remember where it was installed.
mv "$build/installed" "$build/moved"
prefix="$build/moved"
cmake -S c_tests/consumer -B "$build/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$build/consumer"
for exe in consumer_c_static consumer_c_shared consumer_cxx_static consumer_cxx_shared consumer_default; do
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

echo "== pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror c_tests/consumer/main.c -o "$build/pkgconfig_shared" \
  $(pkg-config --cflags --libs aether_planner) -Wl,-rpath,"$(pkg-config --variable=libdir aether_planner)"
"$build/pkgconfig_shared"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror c_tests/consumer/main.c -o "$build/pkgconfig_static" \
  $(pkg-config --cflags aether_planner) "$(pkg-config --variable=libdir aether_planner)/libaether_planner.a" \
  $(pkg-config --libs-only-l --static aether_planner | sed 's/-laether_planner//')
"$build/pkgconfig_static"

echo "== reliability: sanitizers, valgrind, resource limits, fuzzing"
bash scripts/reliability.sh

echo "== all checks passed"
