#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# `pageclear compare` end to end: a file against itself changes nothing
# significantly; every run scaled by 1.5 shows as +50% (significant where
# the runs are tight, and with the p of an independent implementation of
# the test, check_compare.py beside this script, everywhere); the
# environments' differences come first; records not in every file are
# listed; --json and --csv; two stored files from kernels that clear
# differently show the change of clearing and preemption model
# (tests/data/README.md); files it cannot read are refused with a reason
# and exit 2.
# Usage: cli_compare.sh PAGECLEAR SOURCE_DIR
set -u
bin="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail=0
step() { echo "--- $*"; }
bad() { echo "FAIL: $*"; fail=1; }
ref="python3 $src/tests/integration/command/check_compare.py"

step "results files to compare: mem (runs) and mmap anon-w-seq (runs and CPU times)"
"$bin" mem clear -s 64KB -f all -n 6 --json > "$tmp/mem.json" || bad "mem exit $?"
"$bin" mmap -s 16MB -f anon-w-seq -t 2 -l 5 --json > "$tmp/anon.json" || bad "mmap exit $?"
python3 - "$tmp/mem.json" "$tmp/anon.json" "$tmp/a.json" <<'PY' || bad "joining the files"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a["records"] += b["records"]
json.dump(a, open(sys.argv[3], "w"))
PY

step "a file against itself: no change, p = 1 everywhere"
"$bin" compare "$tmp/a.json" "$tmp/a.json" --json > "$tmp/self.json" || bad "compare exit $?"
$ref expect "$tmp/self.json" same || bad "self-comparison"
"$bin" compare "$tmp/a.json" "$tmp/a.json" > "$tmp/self.txt" || bad "compare text exit $?"
grep -q "Environment: the same in every file" "$tmp/self.txt" || bad "self: environment"
grep -q "Mann-Whitney U" "$tmp/self.txt" || bad "the test is not named"
grep -q "p < 0.05" "$tmp/self.txt" || bad "the threshold is not named"
grep -q "## mmap: system CPU seconds" "$tmp/self.txt" || bad "no stime table"
grep -q "## mmap: user CPU seconds" "$tmp/self.txt" || bad "no utime table"
if grep -E "[+-][0-9]+\.[0-9]%" "$tmp/self.txt" | grep -v geomean | grep -q .; then
    bad "a change against itself: $(grep -E '[+-][0-9]+\.[0-9]%' "$tmp/self.txt" | head -1)"
fi

step "every run scaled by 1.5: +50%, p as the reference's"
$ref scale "$tmp/a.json" "$tmp/a15.json" 1.5
"$bin" compare "$tmp/a.json" "$tmp/a15.json" --json > "$tmp/x15.json" || bad "compare exit $?"
$ref expect "$tmp/x15.json" plus50 || bad "scaled by 1.5"
$ref verify "$tmp/x15.json" "$tmp/a.json" "$tmp/a15.json" || bad "scaled: against the reference"
$ref tight "$tmp/a.json" "$tmp/t.json"
$ref scale "$tmp/t.json" "$tmp/t15.json" 1.5
"$bin" compare "$tmp/t.json" "$tmp/t15.json" --json > "$tmp/t15c.json" || bad "compare exit $?"
$ref expect "$tmp/t15c.json" significant || bad "tight runs scaled by 1.5 not significant"
"$bin" compare "$tmp/t.json" "$tmp/t15.json" > "$tmp/t15.txt"
grep -q "+50.0% (p=0.002)" "$tmp/t15.txt" || bad "text lacks '+50.0% (p=0.002)' (6 runs each: 2/C(12,6))"
grep -q "^geomean .* +50.0%" "$tmp/t15.txt" || bad "no geomean of +50%"

step "the test against the reference on random runs (exact and approximate)"
for s in 1 2 3; do $ref synth "$tmp/a.json" "$tmp/s$s.json" $s; done
"$bin" compare "$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json" --json > "$tmp/s.json" || bad "compare exit $?"
$ref verify "$tmp/s.json" "$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json" || bad "random runs"
"$bin" compare "$tmp/s1.json" "$tmp/s2.json" > "$tmp/s.txt"
grep -q "~ (too few samples)" "$tmp/s.txt" || bad "2 or 3 runs not called too few"

step "environment differences first, records not in every file listed"
$ref edit "$tmp/a.json" "$tmp/e1.json" thp_enabled=never preempt=none
$ref edit "$tmp/a15.json" "$tmp/e2.json" thp_enabled=always preempt=full
python3 - "$tmp/e2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["records"][0]["size"] *= 2  # now a record A lacks, and A has one it lacks
json.dump(d, open(sys.argv[1], "w"))
PY
"$bin" compare "$tmp/e1.json" "$tmp/e2.json" > "$tmp/e.txt" || bad "compare exit $?"
head -5 "$tmp/e.txt" | grep -q "^Environment, where the files differ" || bad "environment not first"
grep -q "thp_enabled *never → always" "$tmp/e.txt" || bad "THP difference"
grep -q "preempt *none → full" "$tmp/e.txt" || bad "preempt difference"
grep -q "^Not in every file (2)" "$tmp/e.txt" || bad "records in one file not listed"
grep -q "only in A: clear" "$tmp/e.txt" && grep -q "only in B: clear" "$tmp/e.txt" ||
    bad "only-in lines"
"$bin" compare "$tmp/e1.json" "$tmp/e2.json" --json > "$tmp/e.json"
python3 - "$tmp/e.json" <<'PY' || bad "JSON of the records not in every file"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
odd = [r for r in rows if not r["in_every_file"]]
assert len(odd) == 2 and sorted(r["files"].count(None) for r in odd) == [1, 1], odd
PY
"$bin" compare "$tmp/e1.json" "$tmp/e2.json" --csv > "$tmp/e.csv" || bad "csv exit $?"
head -1 "$tmp/e.csv" | grep -q "^workload,function,size,chunk,page,threads,cache,stores,metric,unit,file,median,stdev_pct,runs,change_pct,p,significant$" || bad "csv header"
rows=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['rows']))" "$tmp/e.json")
[ "$(wc -l < "$tmp/e.csv")" -eq $((2 * rows + 1)) ] || bad "csv: not a line per row and file"

step "kernels that clear differently: stored files, their environments' differences"
ka="$src/tests/data/kernel-a.json"; kb="$src/tests/data/kernel-b.json"
for f in "$ka" "$kb"; do
    python3 "$src/tests/helpers/check_json.py" "$src/docs/results.schema.json" "$f" \
        --expect fault headroom > /dev/null || bad "$f against the schema"
done
"$bin" compare "$ka" "$kb" > "$tmp/k.txt" || bad "compare kernels exit $?"
grep -q "^  clearing  *page at a time → in extents$" "$tmp/k.txt" || bad "no clearing change"
grep -q "^  preempt  *none → lazy$" "$tmp/k.txt" || bad "no preemption change"
grep -q "^  huge_page_units *4 KiB units → whole extent$" "$tmp/k.txt" || bad "no units change"
grep -q "^  clearing_from .*clear_page_erms.* → .*clear_pages" "$tmp/k.txt" || bad "no evidence"
grep -q "^## headroom: GB/s" "$tmp/k.txt" || bad "no headroom table"
grep -q "^x86-64-stosb 64MiB chunk=4KiB thp cold" "$tmp/k.txt" || bad "no kernel's-way row"
"$bin" compare "$ka" "$ka" > "$tmp/kk.txt" || bad "compare a kernel with itself exit $?"
grep -q "Environment: the same in every file (kernel 6.18.44-fc-v669, clearing page at a time, preempt none" \
    "$tmp/kk.txt" || bad "the same kernel: $(grep Environment "$tmp/kk.txt")"
"$bin" compare "$ka" "$kb" --json > "$tmp/k.json" || bad "compare kernels --json exit $?"
python3 - "$tmp/k.json" <<'PY' || bad "the headers in compare's JSON"
import json, sys
files = json.load(open(sys.argv[1]))["files"]
got = [(f["header"]["clearing"], f["header"]["preempt"], f["header"]["huge_page_units"])
       for f in files]
assert got == [("page at a time", "none", "4 KiB units"),
               ("in extents", "lazy", "whole extent")], got
PY

step "files it cannot read: a reason and exit 2"
python3 - "$tmp" "$tmp/a.json" <<'PY'
import json, sys
d, a = sys.argv[1], json.load(open(sys.argv[2]))
json.dump(a["records"], open(f"{d}/old.json", "w"))  # schema 1: a bare array
json.dump(dict(a, schema=3), open(f"{d}/v3.json", "w"))
json.dump({"results": []}, open(f"{d}/other.json", "w"))
text = open(sys.argv[2]).read()
open(f"{d}/cut.json", "w").write(text[: len(text) // 2])
a["records"][0]["runs"] += 1
json.dump(a, open(f"{d}/runs.json", "w"))
PY
expect() { # expect PATTERN ARGS...
    pat=$1; shift
    err=$("$bin" compare "$@" 2>&1 >/dev/null); got=$?
    if [ "$got" != 2 ] || ! printf '%s' "$err" | grep -q -- "$pat"; then
        bad "compare $* -> status $got (want 2), stderr: $err"
    else
        echo "ok   compare $* -> 2"
    fi
}
expect "old.json: a results file of schema 1" "$tmp/a.json" "$tmp/old.json"
expect "v3.json: results schema 3; this pageclear reads schema 2" "$tmp/v3.json" "$tmp/a.json"
expect "other.json: not a pageclear results file" "$tmp/a.json" "$tmp/other.json"
expect "cut.json: line .*truncated" "$tmp/a.json" "$tmp/cut.json"
expect "runs.json: records\[0\]: \"samples\" must be null or" "$tmp/a.json" "$tmp/runs.json"
expect "nothing.json: cannot open" "$tmp/a.json" "$tmp/nothing.json"
expect "two results files or more" "$tmp/a.json"
expect "unknown option" "$tmp/a.json" "$tmp/a.json" --bogus
expect "at most 8 files" "$tmp/a.json" "$tmp/a.json" "$tmp/a.json" "$tmp/a.json" \
    "$tmp/a.json" "$tmp/a.json" "$tmp/a.json" "$tmp/a.json" "$tmp/a.json"

[ $fail -eq 0 ] && echo "all compare checks passed"
exit $fail
