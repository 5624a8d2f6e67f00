#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Help is uniform: for every row of the command table in cli/main.c (so a
# subcommand added there is covered without touching this file),
# `pageclear CMD --help` and `-h` print its usage on stdout and exit 0, and
# an unknown option is a usage error: a message on stderr, exit 2, nothing
# on stdout. A row marked .bare_is_help prints its usage when run bare.
# Usage: cli_help.sh PAGECLEAR cli/main.c
bin="$1"; main="$2"
fail=0
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
# The rows: `.name = "X"` up to the next row, one line each.
rows=$(sed -n '/^static const struct cli_command commands\[\]/,/^};/p' "$main" |
       tr '\n' ' ' | sed 's/{ *\.name = /\n/g' | sed -n 's/^"\([^"]*\)"\(.*\)/\1 \2/p')
names=$(printf '%s\n' "$rows" | cut -d' ' -f1)
[ "$(printf '%s\n' "$names" | wc -l)" -ge 10 ] || { echo "FAIL: rows not found in $main"; exit 1; }
run() { # run STATUS WHERE ARGS...: WHERE is stdout or stderr, the other empty
    want=$1; where=$2; shift 2
    timeout 60 "$bin" "$@" >"$out" 2>"$err"; got=$?
    if [ "$where" = stdout ]; then full=$out; empty=$err; else full=$err; empty=$out; fi
    if [ "$got" != "$want" ] || [ ! -s "$full" ] || [ -s "$empty" ] ||
       ! grep -q '^usage: pageclear' "$full"; then
        echo "FAIL: pageclear $* -> status $got (want $want, usage on $where only)"
        sed 's/^/  stdout: /' "$out"; sed 's/^/  stderr: /' "$err"; fail=1
    else
        echo "ok   pageclear $* -> $got, usage on $where"
    fi
}
for c in $names; do
    run 0 stdout "$c" --help
    run 0 stdout "$c" -h
    run 2 stderr "$c" --no-such-option
    if printf '%s\n' "$rows" | grep "^$c " | grep -q 'bare_is_help = 1'; then
        run 0 stdout "$c"
    fi
    # The help command names each command's usage too: the same text.
    if [ "$c" != help ]; then
        a=$("$bin" help "$c"); b=$("$bin" "$c" --help)
        [ "$a" = "$b" ] || { echo "FAIL: 'help $c' differs from '$c --help'"; fail=1; }
    fi
done
run 0 stdout --help
run 0 stdout -h
run 2 stderr no-such-command
exit $fail
