#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# What users and scripts read must not change by accident: `pageclear
# list` (support markers aside), every command's usage, the labels of
# `pageclear info`, the profile format, and the shape of `check --json`
# (the results file's members, its header's keys in order, the records'
# keys and, for the library's functions and memset, which sizes and
# states it measures and where it gives verdicts). Machine-dependent
# values are masked; the rest is compared with tests/data/golden/.
# Usage: cli_golden.sh PAGECLEAR PRINT_PROFILE SOURCE_DIR
set -u
bin="$1"; print_profile="$2"; golden="$3/tests/data/golden"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
unset PAGECLEAR_IMPL PAGECLEAR_UNIT PAGECLEAR_VECTOR_MAX PAGECLEAR_NT_THRESHOLD \
      PAGECLEAR_COLD_NT_THRESHOLD PAGECLEAR_PARALLEL_NT_THRESHOLD
export PAGECLEAR_PROFILE=
fail=0
same() { # name produced expected
    if ! diff -u "$3" "$2" > "$tmp/diff"; then
        echo "FAIL: $1 differs from $3:"; cat "$tmp/diff"; fail=1
    fi
}

"$bin" list | sed 's/  \[not supported here\]$//' > "$tmp/list.txt"
same "pageclear list" "$tmp/list.txt" "$golden/list.txt"

# info: each line's label (what precedes the first ':'), tunable lines as one.
"$bin" info | sed -n 's/^\([a-z][a-z_ ]*[a-z]\):.*/\1/p' > "$tmp/info.txt"
same "pageclear info labels" "$tmp/info.txt" "$golden/info-labels.txt"

# The profile: identity values are the host's; keys, order and the
# threshold lines are the format.
"$print_profile" | sed -E 's/^(library|vendor|cpu|features|llc|hypervisor) = .*/\1 = */' \
    > "$tmp/profile.txt"
same "profile format" "$tmp/profile.txt" "$golden/profile.txt"

# Every command's usage, whole, and the top level's: the rows of the
# command table in cli/main.c (as cli_help.sh reads them), in its order.
rows=$(sed -n '/^static const struct cli_command commands\[\]/,/^};/p' "$3/cli/main.c" |
       grep -o '\.name = "[^"]*"' | cut -d'"' -f2)
[ -n "$rows" ] || { echo "FAIL: no rows in $3/cli/main.c"; fail=1; }
for c in $rows; do echo "== pageclear $c --help"; "$bin" "$c" --help; echo "(exit $?)"; done \
    > "$tmp/usage.txt" 2>&1
{ echo "== pageclear --help"; "$bin" --help; echo "(exit $?)"; } >> "$tmp/usage.txt" 2>&1
same "every command's usage" "$tmp/usage.txt" "$golden/usage.txt"

"$bin" check --quick -n 2 --json > "$tmp/check.json" || { echo "FAIL: check exit $?"; fail=1; }
python3 - "$tmp/check.json" > "$tmp/check-shape.txt" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
print("file:", " ".join(sorted(doc)), "| format", doc["format"], "| schema", doc["schema"])
print("header:", " ".join(doc["header"]))
recs = doc["records"]
print("keys:", " ".join(sorted({k for r in recs for k in r})))
for r in recs:
    if r["function"] in ("pc_clear", "pc_clear_batched", "pc_clear_cold", "glibc"):
        v = r["verdict"]
        print(r["workload"], r["function"], r["size"], r["cache"], r["page"], r["threads"],
              r["stores"], r["runs"], "verdict" if v is not None else "-")
PY
same "check --json shape" "$tmp/check-shape.txt" "$golden/check-shape.txt"

[ $fail -eq 0 ] && echo "outputs match tests/data/golden"
exit $fail
