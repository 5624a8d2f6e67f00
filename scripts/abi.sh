#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The ABI gate (docs/abi.md): build the shared library with debug
# information and compare its ABI with the record, abi/libpageclear.so.1.abi
# (abidiff, through scripts/abi_gate.py). A change the size contract and
# the version script make compatible (a function added at a new version
# node, members appended to a struct, enum constants added) passes; any
# other fails, until the record is updated on purpose with --update.
# First the gate's own self-test (tests/abi/gate_selftest.sh), a few
# seconds; last the library of tests/abi built with every public struct a
# field longer, which must pass as the real library's own structs grown.
# The record is x86-64's (gcc, -O2 -g).
# Usage: scripts/abi.sh [--update] [BUILD_DIR]
#   --update   write the library's ABI to the record instead (then review
#              and commit the difference, docs/abi.md says when)
#   BUILD_DIR  where to build (default build-test/abi/build)
set -euo pipefail
cd "$(dirname "$0")/.."
src="$(pwd)"
update=""
[ "${1:-}" = --update ] && { update=1; shift; }
build="${1:-build-test/abi/build}"
record="abi/libpageclear.so.1.abi"

scripts/deps.sh --check abi || { echo "abi.sh: tools missing (above): scripts/deps.sh abi" >&2; exit 1; }
[ "$(uname -m)" = x86_64 ] ||
  { echo "abi.sh: $record is x86-64's; this is $(uname -m)" >&2; exit 1; }

# Paths relative to the tree (-ffile-prefix-map), so that the record does
# not depend on where it was built.
cmake -S . -B "$build" -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPC_TESTS=ON -DCMAKE_C_FLAGS="-ffile-prefix-map=$src/=" >/dev/null
cmake --build "$build" --target pageclear pageclear_grown -j"$(nproc)" >/dev/null
lib="$(find "$build" -maxdepth 1 -name 'libpageclear.so.*.*.*' | head -n1)"
grown_dir="$build/tests/abi/grown"
grown="$(find "$grown_dir/lib" -maxdepth 1 -name 'libpageclear.so.*.*.*' | head -n1)"
[ -n "$lib" ] && [ -n "$grown" ] || { echo "abi.sh: no libpageclear.so.X.Y.Z in $build" >&2; exit 1; }

if [ -n "$update" ]; then
  python3 scripts/abi_gate.py dump "$lib" include "$record"
  echo "abi.sh: $record now records $(basename "$lib"); review it (git diff) and commit it"
  exit 0
fi
tests/abi/gate_selftest.sh "$src" gcc
python3 scripts/abi_gate.py check "$record" "$lib" include
echo "abi.sh: the library with every struct grown by a field, against the same record:"
python3 scripts/abi_gate.py check "$record" "$grown" "$grown_dir"
