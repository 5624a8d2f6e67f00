#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# A large test suite this project did not write, numpy's, run plain and
# under `pageclear exec` in each first-touch mode: each run must end as the
# plain one does (the same counts of passed, failed, skipped, xfailed and
# errors; tests that fail plain, for want of a compiler or a network, fail
# the same way). --min sets preload_min for the preloaded runs, so that
# far more of numpy's memsets go through pageclear than under the default
# threshold. Needs numpy, pytest and hypothesis in PYTHON (pip install).
# Usage: scripts/real_suite.sh PAGECLEAR [--min SIZE] [--python PYTHON] [PYTEST ARGS...]
#   e.g. scripts/real_suite.sh build/cli/pageclear --min 64K
set -uo pipefail
bin="$(realpath "$1")"; shift
min=64K python=python3
while [ $# -gt 0 ]; do
    case "$1" in
    --min) min="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    *) break ;;
    esac
done
python="$(realpath "$(command -v "$python")")" # past shims: the interpreter itself
"$python" -c 'import numpy, pytest, hypothesis' ||
    { echo "real_suite: $python lacks numpy, pytest or hypothesis (pip install numpy pytest hypothesis)"; exit 77; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
# The installed package's tests; f2py's need a Fortran compiler and
# sources the wheel lacks: left out.
dir="$("$python" -c 'import numpy, os; print(os.path.dirname(numpy.__file__))')"
suite=(-m pytest -q -p no:cacheprovider "$dir" --ignore="$dir/f2py" "$@")
# counts FILE: pytest's summary line, its counts sorted by name.
counts() { tail -n 5 "$1" | grep -Eo '[0-9]+ (passed|failed|skipped|xfailed|xpassed|errors?|warnings?|deselected)' |
           grep -v warning | sort -k2 | tr '\n' ' '; }
echo "numpy $("$python" -c 'import numpy; print(numpy.__version__)'), $python"
start=$(date +%s)
(cd "$tmp" && "$python" "${suite[@]}") > "$tmp/plain.log" 2>&1
want=$(counts "$tmp/plain.log")
echo "plain: $want ($(( $(date +%s) - start )) s)"
fail=0
for mode in store populate skip; do
    start=$(date +%s)
    (cd "$tmp" && "$bin" exec --min "$min" --first-touch "$mode" -- "$python" "${suite[@]}") \
        > "$tmp/$mode.log" 2>&1
    got=$(counts "$tmp/$mode.log")
    echo "$mode (preload_min $min): $got ($(( $(date +%s) - start )) s)"
    if [ "$got" != "$want" ]; then
        echo "real_suite: $mode differs from plain; its failures:"
        grep -E '^(FAILED|ERROR)' "$tmp/$mode.log" | head -20
        fail=1
    fi
done
[ "$fail" -eq 0 ] && echo "real_suite: every mode as plain"
exit "$fail"
