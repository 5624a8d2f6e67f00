#!/bin/bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# A real VMM started both ways: QEMU with a guest of SIZE on 2 MiB hugetlb
# pages, started paused (-S) and told to quit at once, so the time is what
# it takes until the guest could run: (a) memory-backend-memfd with
# hugetlb=on,prealloc=on (QEMU faults and the kernel zeroes every page),
# (b) memory-backend-file on /proc/self/fd/N of a memfd from `pageclear
# serve` (`pageclear get`), prealloc=on (page tables only); and, for the
# fixed cost of starting QEMU, (c) hugetlb memfd without prealloc. Runs are
# interleaved; the daemon's reserve is refilled (and waited for) between
# them. Reserves 2 x SIZE + 1 GiB of huge pages and gives them back; run it under
# both locks:
#   flock /tmp/pageclear-bench.lock flock /tmp/pageclear-hugetlb.lock \
#     scripts/serve_qemu.sh build/cli/pageclear 4 7
# Ends with each contender's runs, one line each ("runs NAME: ms...").
# Usage: serve_qemu.sh PAGECLEAR GIB RUNS
set -euo pipefail
bin="$(realpath "$1")"
gib="${2:-4}"
runs="${3:-5}"
hp=/sys/kernel/mm/hugepages/hugepages-2048kB
command -v qemu-system-x86_64 >/dev/null || { echo "no qemu-system-x86_64 (scripts/deps.sh serve-qemu installs it)"; exit 77; }
tmp="$(mktemp -d /tmp/pc-serve-qemu.XXXXXX)"
old=$(cat "$hp/nr_hugepages")
pid=
cleanup() {
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    echo "$old" > "$hp/nr_hugepages"
    rm -rf "$tmp"
}
trap cleanup EXIT
need=$((old + 2 * gib * 512 + 512)) # a GiB of margin: the machine is shared
echo "$need" > "$hp/nr_hugepages"
[ "$(cat "$hp/nr_hugepages")" -ge "$need" ] || { echo "cannot reserve $((2 * gib)) GiB of huge pages"; exit 77; }
accel=tcg cpu=max
[ -w /dev/kvm ] && accel=kvm cpu=host
export PAGECLEAR_SOCKET="$tmp/sock"
printf 'reserve.2M = %dG\n' "$gib" > "$tmp/conf"
"$bin" serve --config "$tmp/conf" 2>"$tmp/log" & pid=$!

qemu() { # memory-backend object
    echo quit | qemu-system-x86_64 -S -nodefaults -display none -monitor stdio -cpu $cpu \
        -machine "pc,accel=$accel,memory-backend=mem" -m "${gib}G" -object "$1" >/dev/null
}
full() { # wait for the reserve to be full for the n-th time
    for _ in $(seq 3000); do
        [ "$(grep -c "reserve of 2MiB pages full" "$tmp/log")" -ge "$1" ] && return 0
        sleep 0.1
    done
    echo "the reserve did not fill:"; cat "$tmp/log"; exit 1
}
ms() { echo "$(( ($2 - $1) / 1000000 ))"; }
fresh=() service=() none=()
fills=1
for i in $(seq 0 "$runs"); do # run 0 is not counted
    full $fills
    t0=$(date +%s%N)
    "$bin" get "${gib}G" --reserve-only -- sh -c "echo quit | exec qemu-system-x86_64 -S \
        -nodefaults -display none -monitor stdio -cpu $cpu -machine pc,accel=$accel,memory-backend=mem \
        -m ${gib}G -object memory-backend-file,id=mem,size=${gib}G,mem-path=/proc/self/fd/\$PAGECLEAR_FD,share=on,prealloc=on >/dev/null"
    t1=$(date +%s%N)
    fills=$((fills + 1))
    full $fills # the refill (at idle priority) is not timed with the others
    t2=$(date +%s%N)
    qemu "memory-backend-memfd,id=mem,size=${gib}G,hugetlb=on,hugetlbsize=2M,prealloc=on"
    t3=$(date +%s%N)
    qemu "memory-backend-memfd,id=mem,size=${gib}G,hugetlb=on,hugetlbsize=2M,prealloc=off"
    t4=$(date +%s%N)
    [ "$i" -eq 0 ] && continue
    service+=("$(ms "$t0" "$t1")")
    fresh+=("$(ms "$t2" "$t3")")
    none+=("$(ms "$t3" "$t4")")
done
stats() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "median %d ms (%d-%d)", v[int((NR+1)/2)], v[1], v[NR]}'; }
echo "QEMU $(qemu-system-x86_64 --version | head -1 | awk '{print $4}'), accel=$accel, ${gib} GiB guest on 2 MiB pages, $runs runs, paused start + quit:"
echo "  memory-backend-memfd,hugetlb=on,prealloc=on:        $(stats "${fresh[@]}")"
echo "  memory-backend-file on a memfd from pageclear serve: $(stats "${service[@]}")  (get + start)"
echo "  memory-backend-memfd,hugetlb=on, no prealloc:       $(stats "${none[@]}")"
# Every run, for scripts/real_programs.py (ms, in run order).
echo "runs fresh: ${fresh[*]}"
echo "runs service: ${service[*]}"
echo "runs none: ${none[*]}"
