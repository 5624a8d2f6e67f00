#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Every libFuzzer target for a while, under AddressSanitizer and
# UndefinedBehaviorSanitizer: the parsers and protocols a user or a peer
# can feed (the daemon's requests and configuration, results files,
# profiles, a program's ELF headers), the readers of the kernel's text
# files, and the library's clears and pool.
# CI runs each for 45 s (ctest, clang-release); this is the long run.
# Builds build-fuzz/ (clang, RelWithDebInfo, PC_SANITIZE, PC_FUZZ), runs
# each target in turn for SECONDS with its corpus in build-fuzz/corpus/,
# and prints a line per target: executions, per second, the corpus, and
# any finding (its input in build-fuzz/findings/).
# Usage: scripts/fuzz.sh [SECONDS [TARGET...]]   (600 s; every target)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"; shift || true
case "$seconds" in ''|*[!0-9]*) echo "usage: $0 [SECONDS [TARGET...]]" >&2; exit 2 ;; esac
all=(fuzz_clear fuzz_pool fuzz_profile fuzz_results fuzz_serve fuzz_text test_exec_elf)
targets=("${@:-${all[@]}}")
build=build-fuzz
command -v clang >/dev/null || { echo "fuzz.sh: clang not found (scripts/deps.sh clang-release)" >&2; exit 1; }
mkdir -p "$build"
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPC_SANITIZE=ON \
    -DPC_FUZZ=ON > "$build/configure.log" 2>&1 ||
    { echo "fuzz.sh: configure failed ($build/configure.log)" >&2; exit 1; }
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/%/_libfuzzer}" > "$build/build.log" 2>&1 ||
    { echo "fuzz.sh: build failed ($build/build.log)" >&2; exit 1; }
mkdir -p "$build/findings"
status=0
printf '%-16s %12s %10s %8s  %s\n' target executions "per s" corpus findings
for t in "${targets[@]}"; do
    corpus="$build/corpus/$t"; mkdir -p "$corpus"
    log="$build/$t.log"
    "$build/tests/${t}_libfuzzer" -max_total_time="$seconds" -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$build/findings/$t-" "$corpus" > "$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    found=$(ls "$build/findings" | grep -c "^$t-" || true)
    [ "$rc" -eq 0 ] && [ "$found" -eq 0 ] || status=1
    printf '%-16s %12s %10s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$(ls "$corpus" | wc -l)" \
        "$([ "$found" -eq 0 ] && [ "$rc" -eq 0 ] && echo none || echo "exit $rc, $found: $log")"
done
exit "$status"
