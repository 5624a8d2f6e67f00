#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# PAGECLEAR_PRELOAD_SKIP_ABSENT under a program built without pageclear
# (tests/preload/skip.c): with the option on, the zero memset of fresh
# anonymous memory skips exactly the pages the kernel had not handed out
# (the program prints them, read from /proc/self/pagemap before the call),
# the one over a file's private mapping is refused and goes to the C
# library; with it off and PAGECLEAR_PRELOAD_STATS=1, the stats say the
# same as what it would do, and the C library gets both. Every byte reads
# zero afterwards each time (the program checks). A value other than 0 or
# 1 is reported and ignored. `pageclear exec --skip-absent` turns it on.
# Usage: preload_skip.sh PRELOAD SKIP_TARGET SANITIZED PAGECLEAR
set -u
preload="$1" target="$2" sanitized="$3" bin="$4"
if [ "$sanitized" = 1 ]; then
    echo "SKIP: a sanitizer build: its runtime must come first in the lookup order"
    echo "and intercepts memset itself (tests/preload.sh says more)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in $(env | sed -n 's/^\(PAGECLEAR_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PAGECLEAR_PROFILE= PAGECLEAR_QUIET=1 PAGECLEAR_PRELOAD_MIN=1M PAGECLEAR_PRELOAD_STATS=1
unset LD_PRELOAD
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# run NAME [VAR=VALUE ...]: the program under the preload; exit status in $rc.
run() {
    name="$1"; shift
    env LD_PRELOAD="$preload" "$@" "$target" > "$tmp/$name.out" 2> "$tmp/$name.err"
    rc=$?
    [ "$rc" -eq 0 ] || { bad "$name: exit $rc"; cat "$tmp/$name.err"; }
}
# skipline NAME FIELD: a field of the stats' skip-absent line (the value
# after the word FIELD).
skipline() {
    awk -v f="$2" '/^pageclear-preload: skip-absent / {
        for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' "$tmp/$1.err"
}
# route NAME FIELD: the [16M, 256M) class's field (1 pageclear calls,
# 2 bytes, 3 C-library calls, 4 bytes).
route() {
    awk -v f="$2" 'index($0, "pageclear-preload: [16M, 256M) ") == 1 {
        split(substr($0, 32), a, " "); print a[f] }' "$tmp/$1.err"
}

anon=$((64 << 20))
run on PAGECLEAR_PRELOAD_SKIP_ABSENT=1
absent=$(sed -n 's/^anon absent //p' "$tmp/on.out")
[ -n "$absent" ] && [ "$absent" -gt $((anon / 2)) ] || bad "on: the program's count: '$absent'"
grep -q '^pageclear-preload: skip-absent on:' "$tmp/on.err" || bad "on: no skip-absent line"
[ "$(skipline on calls)" = 1 ] || bad "on: calls $(skipline on calls), want 1 (the anonymous memset)"
[ "$(skipline on skipped)" = "$absent" ] || bad "on: skipped $(skipline on skipped), want $absent"
[ "$(skipline on cleared)" = $((anon - absent)) ] ||
    bad "on: cleared $(skipline on cleared), want $((anon - absent))"
# The file's memset: a first touch where its pages left the page cache
# (the program says), refused then and the C library's; else pc_clear's.
first=$(sed -n 's/^file first-touch //p' "$tmp/on.out")
[ "$(skipline on refused)" = "$first" ] || bad "on: refused $(skipline on refused), want $first"
[ "$(route on 1)" = $((2 - first)) ] || bad "on: calls via pageclear $(route on 1), want $((2 - first))"
[ "$(route on 3)" = "$first" ] || bad "on: calls to the C library $(route on 3), want $first"

run off
absent=$(sed -n 's/^anon absent //p' "$tmp/off.out")
grep -q '^pageclear-preload: skip-absent off:' "$tmp/off.err" || bad "off: no skip-absent line"
[ "$(skipline off would-skip)" = "$absent" ] ||
    bad "off: would-skip $(skipline off would-skip), want $absent"
[ "$(skipline off would-clear)" = $((anon - absent)) ] || bad "off: would-clear"
first=$(sed -n 's/^file first-touch //p' "$tmp/off.out")
[ "$(skipline off would-refuse)" = "$first" ] || bad "off: would-refuse $(skipline off would-refuse)"
[ "$(route off 1)" = $((1 - first)) ] && [ "$(route off 3)" = $((1 + first)) ] ||
    bad "off: the first touches not to the C library"

# pageclear exec --skip-absent: the same as the variable (and --stats).
env PAGECLEAR_PRELOAD_STATS= "$bin" exec --lib "$preload" --skip-absent --stats -- "$target" \
    > "$tmp/exec.out" 2> "$tmp/exec.err"
rc=$?
[ "$rc" -eq 0 ] || { bad "exec --skip-absent: exit $rc"; cat "$tmp/exec.err"; }
absent=$(sed -n 's/^anon absent //p' "$tmp/exec.out")
[ "$(skipline exec skipped)" = "$absent" ] ||
    bad "exec --skip-absent: skipped $(skipline exec skipped), want $absent"

# A bad value: said (unless quiet) and ignored, the option stays off.
run badv PAGECLEAR_QUIET=0 PAGECLEAR_PRELOAD_SKIP_ABSENT=yes
grep -q 'ignoring PAGECLEAR_PRELOAD_SKIP_ABSENT="yes": want 0 or 1' "$tmp/badv.err" ||
    bad "a bad value not said"
grep -q '^pageclear-preload: skip-absent off:' "$tmp/badv.err" || bad "a bad value turned it on"
# Without the stats nothing is counted, and the option still works.
run quiet PAGECLEAR_PRELOAD_SKIP_ABSENT=1 PAGECLEAR_PRELOAD_STATS=
[ ! -s "$tmp/quiet.err" ] || bad "no stats asked, yet stderr: $(cat "$tmp/quiet.err")"
[ "$fail" -eq 0 ] && echo "preload_skip: counts as the pagemap says, every byte zero"
exit "$fail"
