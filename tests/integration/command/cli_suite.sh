#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The command end to end: the quick default suite and each workload in
# every output format, JSON checked against docs/results.schema.json.
# Usage: cli_suite.sh PAGECLEAR SOURCE_DIR
set -u
bin="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail=0
step() { echo "--- $*"; }
bad() { echo "FAIL: $*"; fail=1; }
schema="$src/docs/results.schema.json"
check="python3 $src/tests/helpers/check_json.py $schema"

step "default suite, --quick --json"
"$bin" --quick --json > "$tmp/suite.json" || bad "suite exit $?"
$check "$tmp/suite.json" --expect units fault hint latency pool parallel states fill anon prealloc headroom || bad "suite JSON"

step "default suite, --quick tables"
"$bin" bench --quick > "$tmp/suite.txt" || bad "suite tables exit $?"
for h in "## 1." "## 2." "## 3." "## 4." "## 5." "## 6." "## 7. Cache state" "## 8. Zero" "## 9. anon-w-seq" "## 10. Time to usable memory" "Projection, not a measurement" "## 11. The kernel's headroom" "# this kernel clears " "# preemption " "# so it clears a huge page in " "The fault path would reach here" "stime s" "GB/s"; do
    grep -q -- "$h" "$tmp/suite.txt" || bad "table output lacks '$h'"
done
cr=$(printf '\r')
if grep -q "$cr" "$tmp/suite.txt"; then bad "progress leaked into stdout"; fi

step "mem clear -f all --json"
"$bin" mem clear -s 1MB -f all -n 2 --json > "$tmp/mem.json" || bad "mem exit $?"
$check "$tmp/mem.json" --expect clear || bad "mem JSON"
n_fns=$(python3 -c "import json,sys; print(len(json.load(open('$tmp/mem.json'))['records']))")
n_sup=$("$bin" list | grep -vc "not supported")
# + pc_clear, pc_clear_batched, pc_clear_cold, glibc; and libc where memset
# is interposed (a sanitizer's runtime, or a preload).
n_lib=$(( 4 + $("$bin" mem clear -f help | grep -c '^  libc ' || true) ))
[ "$n_fns" -eq $((n_sup + n_lib)) ] || bad "mem -f all gave $n_fns records for $n_sup primitives + $n_lib"

step "mem --cache cold|use and memset's stores"
for c in cold use; do
  "$bin" mem clear -s 64KB -f all -n 2 --cache $c --json > "$tmp/mem-$c.json" || bad "mem --cache $c exit $?"
  $check "$tmp/mem-$c.json" --expect clear || bad "mem --cache $c JSON"
  python3 - "$tmp/mem-$c.json" $c <<'PY' || bad "mem --cache $c records"
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert all(r["cache"] == sys.argv[2] and r["stores"] == "zero" for r in recs), recs[0]
assert {"pc_clear", "pc_clear_cold", "pc_clear_batched", "glibc"} <= {r["function"] for r in recs}
PY
done
"$bin" mem memset -s 64KB -n 2 --json > "$tmp/memset.json" || bad "memset exit $?"
python3 - "$tmp/memset.json" <<'PY' || bad "memset records"
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert [r["function"] for r in recs] == ["glibc"] and recs[0]["stores"] == "loop-index", recs
PY
"$bin" mem memset -s 64KB -f all -v 0x5a -n 2 --json > "$tmp/memset5a.json" 2>/dev/null &&
  bad "-v takes a decimal byte, 0x5a should be refused"
"$bin" mem memset -s 64KB -f all -v 90 -n 2 --json > "$tmp/memset5a.json" || bad "memset -v exit $?"
python3 - "$tmp/memset5a.json" <<'PY' || bad "memset -v records"
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
names = {r["function"] for r in recs}
assert all(r["stores"] == "0x5a" and r["workload"] == "memset" for r in recs)
assert "glibc" in names and not names & {"pc_clear", "pc_clear_cold", "x86-64-clzero", "aarch64-dczva"}, names
PY

step "mem memset --csv"
"$bin" mem memset -s 64KB -f glibc -n 3 --csv > "$tmp/mem.csv" || bad "csv exit $?"
head -1 "$tmp/mem.csv" | grep -q "^workload,function,size,chunk,page,loops,threads,unit,mean,median,min,max,p99,stdev_pct,runs,l1d_loads,l1d_misses,cache,stores,verdict,stime_s,utime_s,samples$" || bad "csv header"
[ "$(wc -l < "$tmp/mem.csv")" -eq 2 ] || bad "csv rows"
grep -q "^memset,glibc,65536,0,4KB," "$tmp/mem.csv" || bad "csv row content"
# three runs, and no CPU times for a workload that faults nothing in
grep -Eq ',"[^"]*",,,"[0-9.e+-]+ [0-9.e+-]+ [0-9.e+-]+"$' "$tmp/mem.csv" || bad "csv samples: $(tail -1 "$tmp/mem.csv")"

step "mem --format=simple and -k"
out=$("$bin" mem clear -s 2MB -k 4KB -f x86-64-stosb -n 2 --format=simple 2>/dev/null || "$bin" mem clear -s 2MB -k 4KB -f generic -n 2 --format=simple)
echo "$out" | grep -Eq '^[0-9]+\.[0-9]+$' || bad "simple format printed '$out'"

step "mem -e (counters: a number or 'not supported here', never a failure)"
"$bin" mem clear -s 1MB -n 2 -e > "$tmp/ctr.txt" || bad "counters exit $?"
grep -Eq "counters: (available|not supported here)" "$tmp/ctr.txt" || bad "counters status missing"

step "mmap populate/demand, threads, seed, --json"
for f in populate demand; do
    "$bin" mmap -s 32MB -f $f -l 2 -t 2 -r 9 --json > "$tmp/mmap.json" || bad "mmap $f exit $?"
    $check "$tmp/mmap.json" --expect mmap || bad "mmap JSON"
done
"$bin" mmap -s 8MB -p thp -f demand -l 2 --format=simple | grep -Eq '^[0-9]+\.[0-9]+$' || bad "mmap thp"

step "mmap -f anon-w-seq: threads' shares, system and user time"
for p in 4KB thp; do
    "$bin" mmap -s 32MB -p $p -f anon-w-seq -t 2 -l 3 --json > "$tmp/anon.json" || bad "anon-w-seq $p exit $?"
    $check "$tmp/anon.json" --expect mmap || bad "anon-w-seq $p JSON"
    python3 - "$tmp/anon.json" $p <<'PY' || bad "anon-w-seq $p record"
import json, sys
r, = json.load(open(sys.argv[1]))["records"]
assert (r["function"], r["page"], r["threads"], r["size"], r["runs"]) == \
    ("anon-w-seq", sys.argv[2], 2, 32 << 20, 3), r
# Every run used CPU time: getrusage's user + system is the scheduler's
# exact runtime. Its split is sampled at the timer tick (4 ms at HZ=250,
# without VIRT_CPU_ACCOUNTING_GEN), so one THP run (16 faults, a few ms)
# can show no system time; three runs of 8192 4 KiB faults are tens of
# ms, nearly all in the kernel, so some of its ticks land there.
assert all(u + s > 0 for u, s in zip(r["utime_s"], r["stime_s"])), r
assert sys.argv[2] != "4KB" or sum(r["stime_s"]) > 0, r["stime_s"]
PY
done
"$bin" mmap -s 8MB -f anon-w-seq -t 2 -l 2 | grep -q "s system, .* s user CPU time" || bad "anon-w-seq text lacks CPU time"

step "pool and parallel commands"
"$bin" pool -c 16 -n 2 --json > "$tmp/pool.json" || bad "pool exit $?"
$check "$tmp/pool.json" --expect pool || bad "pool JSON"
for m in page-at-a-time batched batched-cold fresh-populate pool-init-on-alloc pool-init-on-free pool-background pool-bg-caught-up pool-calloc-whole; do
    grep -q "\"$m\"" "$tmp/pool.json" || bad "pool lacks $m"
done
"$bin" parallel -s 160MB -n 2 --csv > "$tmp/par.csv" || bad "parallel exit $?"
grep -q "^parallel,MAP_POPULATE," "$tmp/par.csv" || bad "parallel lacks the kernel row"
grep -q "^parallel,pc_clear_parallel,.*,1,GB/s" "$tmp/par.csv" || bad "parallel lacks 1 thread"

step "prealloc command"
"$bin" prealloc -s 16MB -n 1 --no-reserve --json > "$tmp/pre.json" || bad "prealloc exit $?"
$check "$tmp/pre.json" --expect prealloc || bad "prealloc JSON"
python3 - "$tmp/pre.json" <<'PY' || bad "prealloc records"
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
rows = {(r["page"], r["function"], r["threads"], r["unit"]) for r in recs}
for fn in ("touch", "MAP_POPULATE", "qemu-split", "pc_populate"):
    for unit in ("GB/s", "stime s/TiB", "utime s/TiB"):
        assert ("4KB", fn, 1, unit) in rows, (fn, unit)
assert ("4KB", "pc_populate", 2, "GB/s") in rows or len({r["threads"] for r in recs}) == 1
assert all(r["median"] > 0 for r in recs if r["unit"] == "GB/s")
PY

step "info and list"
"$bin" info > "$tmp/info.txt" || bad "info exit $?"
for k in "cpu:" "features used:" "caches:" "pc_clear uses:" "pc_clear_cold uses:" "cold clear:" "parallel clear:" "profile:" "memset:" "hugetlb pages:" "thp:" "preemption:" "hw counters:"; do
    grep -q "^$k" "$tmp/info.txt" || bad "info lacks '$k'"
done
for name in generic x86-64-unrolled x86-64-stosq x86-64-stosb x86-64-avx2 x86-64-avx512 \
            x86-64-avx2-nt x86-64-avx512-nt x86-64-clzero aarch64-dczva aarch64-stp; do
    "$bin" list | grep -q "^$name " || bad "list lacks $name"
done

step "--plot"
if python3 -c "import matplotlib" 2>/dev/null; then
    "$bin" --quick --plot "$tmp/plots" > /dev/null || bad "plot exit $?"
    for png in units latency fault hint; do
        [ -s "$tmp/plots/$png.png" ] || bad "no $png.png"
    done
    $check "$tmp/plots/results.json" --expect units fault hint latency || bad "plot JSON"
else
    echo "skip: python3 has no matplotlib (scripts/deps.sh installs it)"
fi
"$bin" --quick --plot /proc/nonexistent/dir > /dev/null 2>&1; rc=$?
[ "$rc" -eq 1 ] || bad "--plot to an unwritable place: exit $rc, want 1"

[ $fail -eq 0 ] && echo "all CLI suite checks passed"
exit $fail
