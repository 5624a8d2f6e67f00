#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The figures of docs/skip-absent.md (issue 47), as Markdown tables:
#   calloc   the loop calloc(1, 1e9), one byte written, free, per call
#            (tests/integration/preload/calloc_loop.c), under glibc's malloc, jemalloc
#            and mimalloc (Debian's libjemalloc2 and libmimalloc2.0,
#            LD_PRELOAD), each alone and with the preload before it in
#            LD_PRELOAD, first touches skipped (and stored, "skip off", for
#            mimalloc: PAGECLEAR_PRELOAD_FIRST_TOUCH). One process per contender and round, the
#            contenders in turn, ROUNDS rounds; each process makes CALLS
#            calls and its first is dropped (the allocator's and the
#            preload's first use). Every call maps fresh memory: first
#            touch, cold.
#   present  pc_clear_present against pc_clear at 0, 1, 50 and 100 % of
#            the pages present, 64 MiB and 1 GiB, 4 KiB pages and THP
#            (tests/stress/bench_present.c, wall clock, fresh mappings; 1 GiB
#            with nothing present is the cost of the scan alone); then
#            every page present in the thread's CPU time, 51 repetitions,
#            on fresh mappings and warm (a mapping rewritten before each
#            call): a few percent apart needs the spread of a machine
#            shared with other jobs kept out.
# The whole run holds /tmp/pageclear-bench.lock (unless an ancestor holds
# it: `flock /tmp/pageclear-bench.lock scripts/bench_skip_absent.sh` is
# fine too). No PAGECLEAR_* variable of the caller's, no profile.
# Usage: scripts/bench_skip_absent.sh [-r ROUNDS] [-c CALLS] [-n REPS] [BUILD] [calloc|present]...
#   BUILD   the build directory (default build), built first
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=5 calls=4 reps=7 build=build parts=()
while [ $# -gt 0 ]; do
    case "$1" in
        -r) rounds="$2"; shift 2 ;;
        -c) calls="$2"; shift 2 ;;
        -n) reps="$2"; shift 2 ;;
        calloc|present) parts+=("$1"); shift ;;
        -*) sed -n '2,29s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
        *) build="$1"; shift ;;
    esac
done
[ ${#parts[@]} -gt 0 ] || parts=(calloc present)

lockf=/tmp/pageclear-bench.lock
# Unless an ancestor of this shell holds it (flock(1) around us).
if ! python3 tests/helpers/lock.py held-above "$lockf"; then
    exec 9>"$lockf"
    flock 9
fi
for v in $(env | sed -n 's/^\(PAGECLEAR_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PAGECLEAR_PROFILE=
unset LD_PRELOAD

cmake --build "$build" --target calloc_loop bench_present pageclear_preload pageclear_preload_filter \
    -j"$(nproc)" > /dev/null
preload="$(cd "$build" && pwd)/preload/libpageclear-preload.so"
[ -r "$preload" ] || { echo "bench_skip_absent: no $preload" >&2; exit 1; }
lib=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
echo "# $(git log -1 --format='%h %s' 2>/dev/null || true); load average $(cut -d' ' -f1-3 /proc/loadavg)"

# median_spread: the median and (lowest-highest) of the numbers on stdin,
# in ms from ns.
median_spread() {
    sort -n | awk '{ v[NR] = $1 / 1e6 } END {
        if (NR == 0) { print "-"; exit }
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.3f (%.3f-%.3f) | %d", m, v[1], v[NR], NR }'
}

calloc_part() {
    local names=(glibc "glibc, preload, skip on" jemalloc "jemalloc, preload, skip on"
                 mimalloc "mimalloc, preload, skip off" "mimalloc, preload, skip on")
    local pre=("" "$preload" "$lib/libjemalloc.so.2" "$preload:$lib/libjemalloc.so.2"
               "$lib/libmimalloc.so.2" "$preload:$lib/libmimalloc.so.2"
               "$preload:$lib/libmimalloc.so.2")
    local skip=(store skip store skip store store skip) # off: the C library's stores
    for f in "$lib/libjemalloc.so.2" "$lib/libmimalloc.so.2"; do
        [ -f "$f" ] || { echo "no $f: apt-get install libjemalloc2 libmimalloc2.0" >&2; exit 1; }
    done
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    for ((r = 0; r < rounds; r++)); do
        for i in "${!names[@]}"; do
            # A library the loader cannot preload is only a warning to it:
            # here it would time the wrong contender, so it ends the run.
            env ${pre[$i]:+LD_PRELOAD="${pre[$i]}"} PAGECLEAR_PRELOAD_FIRST_TOUCH="${skip[$i]}" \
                "$build/tests/preload/calloc_loop" "$calls" 2> "$tmp/err" | tail -n +2 >> "$tmp/$i"
            if grep -q "cannot be preloaded" "$tmp/err"; then
                cat "$tmp/err" >&2; exit 1
            fi
        done
    done
    echo
    echo "calloc(1, 1e9), one byte written, free: per call, ms, median (lowest-highest);"
    echo "$rounds rounds of one process per contender, $calls calls each, the first dropped"
    echo
    echo "| allocator | per call, ms | calls |"
    echo "|---|---|---|"
    for i in "${!names[@]}"; do
        echo "| ${names[$i]} | $(median_spread < "$tmp/$i") |"
    done
}

for part in "${parts[@]}"; do
    case "$part" in
        calloc) calloc_part ;;
        present)
            echo; "$build/tests/bench_present" -n "$reps"
            echo; "$build/tests/bench_present" -c -n 51 -p 100
            echo; "$build/tests/bench_present" -c -w -n 51 ;;
    esac
done
