#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The preload under seccomp filters (tests/integration/preload/seccomp.c):
# a filter
# that kills, traps or refuses one of the system calls the first-touch
# modes make, installed by the program after start (prctl, seccomp(2),
# seccomp(2) with TSYNC while another thread zeroes) or before exec. In
# every case and every mode the program exits and prints what it does
# without the preload; where the preload saw the filter, its stats say
# that its calls are off, and its large calls still went through pageclear.
# A filter installed past the C library is the one the preload cannot see:
# PAGECLEAR_PRELOAD_CALLS=0 runs that program as it runs without it.
# Usage: preload_seccomp.sh PRELOAD SECCOMP_TARGET SANITIZED PAGECLEAR
set -u
preload="$1" target="$2" sanitized="$3" bin="$4"
if [ "$sanitized" = 1 ]; then
    echo "SKIP: a sanitizer build: its runtime must come first in the lookup order"
    echo "and intercepts memset itself (tests/integration/preload/preload.sh" \
         "says more)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in $(env | sed -n 's/^\(PAGECLEAR_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PAGECLEAR_PROFILE= PAGECLEAR_QUIET=1
unset LD_PRELOAD
fail=0 runs=0
bad() { echo "FAIL: $*"; fail=1; }

# The filter must work here at all: without the preload, a filter killing
# getpid-free calls leaves the program alone, and one killing a call it
# makes (write, at its end) kills it.
"$target" run prctl mincore kill > "$tmp/self.out" 2>&1 || bad "plain run under a filter: $(cat "$tmp/self.out")"
grep -qx ok "$tmp/self.out" || { echo "SKIP: seccomp filters cannot be installed here"; exit 77; }

# outcome NAME CMD...: "exit STATUS" and the program's stdout, in $tmp/NAME.
outcome() {
    name="$1"; shift
    "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    echo "exit $?" >> "$tmp/$name.out"
    runs=$((runs + 1))
}
# same NAME: NAME's outcome is the plain run's.
same() {
    cmp -s "$tmp/plain.out" "$tmp/$1.out" ||
        bad "$label $1: $(tr '\n' ' ' < "$tmp/$1.out"), without the preload: $(tr '\n' ' ' < "$tmp/plain.out")"
}

modes="store populate skip"
for how in prctl syscall tsync; do
    for call in mincore ioctl openat read madvise close sigaltstack; do
        for action in kill trap errno; do
            label="$how $call $action"
            outcome plain "$target" run "$how" "$call" "$action"
            for mode in $modes; do
                outcome "$mode" env LD_PRELOAD="$preload" PAGECLEAR_PRELOAD_FIRST_TOUCH="$mode" \
                    PAGECLEAR_PRELOAD_STATS=1 "$target" run "$how" "$call" "$action"
                same "$mode"
                # A program the filter kills without the preload has no stats to read
                # (glibc's thread exit calls madvise).
                grep -qx 'exit 0' "$tmp/$mode.out" || continue
                grep -q '^pageclear-preload: system calls: off: the program installed a seccomp filter' \
                    "$tmp/$mode.err" || bad "$how $call $action $mode: the stats do not say the calls are off"
            done
        done
    done
done
# Before exec: the calls the dynamic loader itself does not need.
for call in mincore ioctl madvise sigaltstack; do
    for action in kill trap errno; do
        label="exec $call $action"
        outcome plain "$target" exec "$call" "$action" "$target" run none - -
        for mode in $modes; do
            outcome "$mode" "$target" exec "$call" "$action" /usr/bin/env LD_PRELOAD="$preload" \
                PAGECLEAR_PRELOAD_FIRST_TOUCH="$mode" PAGECLEAR_PRELOAD_STATS=1 "$target" run none - -
            same "$mode"
            grep -qx 'exit 0' "$tmp/$mode.out" || continue
            grep -q '^pageclear-preload: system calls: off: a seccomp filter was in place at start' \
                "$tmp/$mode.err" || bad "exec $call $action $mode: the stats do not say the calls are off"
            awk 'index($0, "pageclear-preload: [16M, 256M) ") == 1 { split(substr($0, 32), a, " ");
                 if (a[1] < 3) exit 1 }' "$tmp/$mode.err" ||
                bad "exec $call $action $mode: the large calls did not go through pageclear"
        done
        outcome pcexec "$target" exec "$call" "$action" "$bin" exec --lib "$preload" -- \
            "$target" run none - -
        same pcexec
    done
done
# A filter installed past the C library is not seen: PAGECLEAR_PRELOAD_CALLS=0
# is the user's way to say so.
for call in mincore madvise openat; do
    label="raw $call kill"
    outcome plain "$target" run raw "$call" kill
    outcome calls0 env LD_PRELOAD="$preload" PAGECLEAR_PRELOAD_CALLS=0 PAGECLEAR_PRELOAD_STATS=1 \
        "$target" run raw "$call" kill
    same calls0
    grep -q '^pageclear-preload: system calls: off: PAGECLEAR_PRELOAD_CALLS=0' "$tmp/calls0.err" ||
        bad "$label: the stats do not say the calls are off"
done
label="no filter"
# No filter: the calls are on, and the default populates the first touch.
outcome plain "$target" run none - -
outcome dflt env LD_PRELOAD="$preload" PAGECLEAR_PRELOAD_STATS=1 "$target" run none - -
same dflt
grep -q '^pageclear-preload: system calls: on$' "$tmp/dflt.err" || bad "no filter: the calls are not on"
grep -q '^pageclear-preload: first-touch populate: calls [1-9]' "$tmp/dflt.err" ||
    bad "no filter: no first touch populated: $(grep first-touch "$tmp/dflt.err")"
[ "$fail" -eq 0 ] && echo "preload_seccomp: $runs runs, each as without the preload"
exit "$fail"
