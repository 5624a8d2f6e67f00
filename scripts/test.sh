#!/usr/bin/env bash
# Every test, in every configuration: gcc Release, clang Release with the
# libFuzzer targets, clang Debug with ASan+UBSan, clang with ThreadSanitizer
# (the threaded tests: pool and parallel), the portable-only build, and the
# arm64 cross build run under qemu-user. Installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
jobs="$(nproc)"
# test_parallel forks after starting workers and starts new ones in the
# child on purpose (the fork-safety case); ThreadSanitizer refuses that
# unless told otherwise.
export TSAN_OPTIONS="die_after_fork=0 ${TSAN_OPTIONS:-}"
fuzz_flag=-DPC_FUZZ=ON
if ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "test.sh: libFuzzer runtime not found; the fuzz target runs with its own driver only" >&2
  fuzz_flag=-DPC_FUZZ=OFF
fi
# name|cmake flags|ctest regex (empty: every test)
configs=(
  "gcc-release|-DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Release|"
  "clang-release|-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Release $fuzz_flag|"
  "clang-asan-ubsan|-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DPC_SANITIZE=ON|"
  "clang-tsan|-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DPC_TSAN=ON|test_pool|test_parallel|fuzz_pool"
  "portable-only|-DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Release -DPC_PORTABLE_ONLY=ON|"
  "arm64-qemu|-DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release|"
)
failed=()
for c in "${configs[@]}"; do
  name="${c%%|*}"; rest="${c#*|}"; flags="${rest%%|*}"; regex="${rest#*|}"
  echo "=== $name"
  # shellcheck disable=SC2086
  cmake -S . -B "build-test/$name" $flags >/dev/null
  cmake --build "build-test/$name" -j"$jobs" >/dev/null
  if ! (cd "build-test/$name" && ctest -j"$jobs" --output-on-failure ${regex:+-R "^($regex)\$"}); then
    failed+=("$name")
  fi
done
# The installed library works through pkg-config and CMake from a fresh
# PREFIX (moved elsewhere), and the examples build and run against it.
echo "=== install: pkg-config, CMake package, examples"
prefix="$(pwd)/build-test/prefix"
rm -rf "$prefix"
cmake --install build-test/gcc-release --prefix "$prefix" >/dev/null
if ! scripts/check_install.sh "$prefix"; then failed+=("install"); fi
# The Debian packages build (nocheck), pass lintian and work unpacked.
echo "=== Debian packages"; if ! scripts/test_deb.sh; then failed+=("deb"); fi
# The Python package: pip install . in a fresh venv, then pytest.
echo "=== Python"; if ! scripts/test_python.sh; then failed+=("python"); fi
# The Rust crates: fmt, clippy, tests (also through pkg-config), packaging.
if ! scripts/test_rust.sh "$prefix"; then failed+=("rust"); fi
if [ ${#failed[@]} -ne 0 ]; then
  echo "test.sh: FAILED in: ${failed[*]}"
  exit 1
fi
echo "test.sh: all configurations passed"
