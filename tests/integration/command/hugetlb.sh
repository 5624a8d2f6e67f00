#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Hugetlb memory for real: reserve 2 MiB pages (as root), run the workloads
# on them, check every page is given back, and restore the reservation.
# Exit 77 (skipped) where pages cannot be reserved.
set -u
bin="$1"
dir=/sys/kernel/mm/hugepages/hugepages-2048kB
[ -w "$dir/nr_hugepages" ] || { echo "skip: cannot reserve hugetlb pages here (not root?)"; exit 77; }
# The reservation is machine-wide: another run reserving or using huge pages
# at the same time would move the counts checked below. Everything of this
# project that reserves them takes this lock first.
# A caller that already holds it (flock LOCK ctest ...) would block us for
# good: wait a bounded time, then go on without it.
lock="${PAGECLEAR_HUGETLB_LOCK:-/tmp/pageclear-hugetlb.lock}"
if command -v flock >/dev/null && exec 9>"$lock"; then
    flock -w 300 9 || echo "note: $lock busy for 5 minutes (held by our caller?): counting without it"
fi
old=$(cat "$dir/nr_hugepages")
restore() { echo "$old" > "$dir/nr_hugepages"; }
trap restore EXIT
want=$((old + 24))
echo "$want" > "$dir/nr_hugepages"
[ "$(cat "$dir/nr_hugepages")" -ge $((old + 24)) ] || { echo "skip: the kernel gave fewer pages than asked"; exit 77; }
free0=$(cat "$dir/free_hugepages")
fail=0
for f in populate demand; do
    "$bin" mmap -s 32MB -p 2MB -f $f -l 2 --format=simple | grep -Eq '^[0-9]+\.[0-9]+$' || { echo "FAIL: mmap 2MB $f"; fail=1; }
done
"$bin" mem clear -s 32MB -p 2MB -f pc_clear -n 2 --format=simple | grep -Eq '^[0-9]+\.[0-9]+$' || { echo "FAIL: mem 2MB"; fail=1; }
# More than is free: refused with the advice, exit 1, nothing kept.
err=$("$bin" mmap -s $(( (free0 + 8) * 2 ))MB -p 2MB -l 1 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || { echo "FAIL: too few pages gave exit $rc"; fail=1; }
echo "$err" | grep -q "nr_hugepages" || { echo "FAIL: no advice in: $err"; fail=1; }
[ "$(cat "$dir/free_hugepages")" -eq "$free0" ] || { echo "FAIL: hugetlb pages not given back"; fail=1; }
[ $fail -eq 0 ] && echo "ok: 2MB hugetlb workloads, all $free0 pages given back"
exit $fail
