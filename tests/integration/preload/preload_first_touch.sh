#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# PAGECLEAR_PRELOAD_FIRST_TOUCH under a program built without pageclear
# (tests/integration/preload/first_touch.c): the zero memset of fresh
# anonymous memory
# is faulted in by the kernel (populate, the default: no page absent
# afterwards), left alone exactly where the kernel had handed out nothing
# (skip: those pages still absent), or stored by the C library (store:
# the stats then say what populate would do). The memset over a file's
# private mapping is refused and goes to the C library in every mode.
# Every byte reads zero afterwards each time (the program checks). The
# older PAGECLEAR_PRELOAD_SKIP_ABSENT=1 means skip; `pageclear exec
# --first-touch=MODE` and `--skip-absent` set the same; a bad value is
# reported and ignored.
# Usage: preload_first_touch.sh PRELOAD TARGET SANITIZED PAGECLEAR
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
export PAGECLEAR_PROFILE= PAGECLEAR_QUIET=1 PAGECLEAR_PRELOAD_MIN=1M PAGECLEAR_PRELOAD_STATS=1
unset LD_PRELOAD
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# run NAME CMD...: the program's output in NAME.out, the stats in NAME.err.
run() {
    name="$1"; shift
    "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    rc=$?
    [ "$rc" -eq 0 ] || { bad "$name: exit $rc"; cat "$tmp/$name.err"; }
}
# field NAME WORD: the value after WORD on the stats' first-touch line.
field() {
    awk -v f="$2" '/^pageclear-preload: first-touch / {
        for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' "$tmp/$1.err"
}
# route NAME FIELD: the [16M, 256M) class's field (1 pageclear calls,
# 2 bytes, 3 C-library calls, 4 bytes).
route() {
    awk -v f="$2" 'index($0, "pageclear-preload: [16M, 256M) ") == 1 {
        split(substr($0, 32), a, " "); print a[f] }' "$tmp/$1.err"
}
out() { sed -n "s/^$2 //p" "$tmp/$1.out"; }

anon=$((64 << 20))
# check NAME MODE: NAME's run did what MODE does.
check() {
    name="$1" mode="$2"
    absent=$(out "$name" "anon absent") after=$(out "$name" "anon absent-after")
    first=$(out "$name" "file first-touch")
    [ -n "$absent" ] && [ "$absent" -gt $((anon / 2)) ] || { bad "$name: absent '$absent'"; return; }
    grep -q "^pageclear-preload: first-touch $mode: calls 1 " "$tmp/$name.err" ||
        bad "$name: not one call in mode $mode: $(grep first-touch "$tmp/$name.err")"
    case "$mode" in
    populate) did=populated cleared=cleared refused=refused left=0 ;;
    skip) did=skipped cleared=cleared refused=refused left="$absent" ;;
    store) did=would-populate cleared=would-clear refused=would-refuse left=0 ;;
    esac
    [ "$(field "$name" "$did")" = "$absent" ] || bad "$name: $did $(field "$name" "$did"), want $absent"
    [ "$(field "$name" "$cleared")" = $((anon - absent)) ] ||
        bad "$name: $cleared $(field "$name" "$cleared"), want $((anon - absent))"
    [ "$after" = "$left" ] || bad "$name: $after bytes absent after the memset, want $left"
    [ "$(field "$name" "$refused")" = "$first" ] ||
        bad "$name: $refused $(field "$name" "$refused"), want $first"
    if [ "$mode" = store ]; then
        [ "$(route "$name" 1)" = $((1 - first)) ] && [ "$(route "$name" 3)" = $((1 + first)) ] ||
            bad "$name: the first touches not to the C library"
    else
        [ "$(route "$name" 1)" = $((2 - first)) ] && [ "$(route "$name" 3)" = "$first" ] ||
            bad "$name: calls via pageclear $(route "$name" 1), to the C library $(route "$name" 3)"
    fi
    grep -qx ok "$tmp/$name.out" || bad "$name: the program did not finish"
}

for mode in store populate skip; do
    run "$mode" env LD_PRELOAD="$preload" PAGECLEAR_PRELOAD_FIRST_TOUCH="$mode" "$target"
    check "$mode" "$mode"
    run "exec-$mode" env PAGECLEAR_PRELOAD_STATS= "$bin" exec --lib "$preload" --stats \
        --first-touch="$mode" -- "$target"
    check "exec-$mode" "$mode"
done
run default env LD_PRELOAD="$preload" "$target"
check default populate
run older env LD_PRELOAD="$preload" PAGECLEAR_PRELOAD_SKIP_ABSENT=1 "$target"
check older skip
run exec-skip-absent env PAGECLEAR_PRELOAD_STATS= "$bin" exec --lib "$preload" --stats \
    --skip-absent -- "$target"
check exec-skip-absent skip
# The variable wins over the older one.
run both env LD_PRELOAD="$preload" PAGECLEAR_PRELOAD_SKIP_ABSENT=1 \
    PAGECLEAR_PRELOAD_FIRST_TOUCH=store "$target"
check both store

# A bad value: said (unless quiet) and ignored, the default kept.
run badv env LD_PRELOAD="$preload" PAGECLEAR_QUIET=0 PAGECLEAR_PRELOAD_FIRST_TOUCH=lazy "$target"
grep -q 'ignoring PAGECLEAR_PRELOAD_FIRST_TOUCH="lazy": want store, populate or skip' \
    "$tmp/badv.err" || bad "a bad value not said: $(cat "$tmp/badv.err")"
check badv populate
"$bin" exec --lib "$preload" --first-touch=lazy -- "$target" > "$tmp/badx.out" 2>&1 &&
    bad "exec --first-touch=lazy accepted"
grep -q "first-touch" "$tmp/badx.out" || bad "exec --first-touch=lazy: no message"
# A process whose resident memory is over 16 times the call: left to the C
# library (preload/first_touch.c, RESIDENT_MAX), and counted.
run large env LD_PRELOAD="$preload" "$target" large
[ "$(field large costly)" = 1 ] && [ "$(field large populated)" = 0 ] ||
    bad "large: $(grep first-touch "$tmp/large.err")"
# Without the stats nothing is printed, and the mode still works.
run quiet env LD_PRELOAD="$preload" PAGECLEAR_PRELOAD_STATS= PAGECLEAR_PRELOAD_FIRST_TOUCH=skip \
    "$target"
[ ! -s "$tmp/quiet.err" ] || bad "no stats asked, yet stderr: $(cat "$tmp/quiet.err")"
[ "$(out quiet "anon absent-after")" = "$(out quiet "anon absent")" ] || bad "quiet: not skipped"
[ "$fail" -eq 0 ] && echo "preload_first_touch: every mode as the pagemap says, every byte zero"
exit "$fail"
