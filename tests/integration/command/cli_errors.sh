#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The command's error paths: a clear message and exit status 2 for usage
# errors, 1 for run-time failures; never a crash.
bin="$1"
fail=0
expect() { # expect STATUS PATTERN ARGS...
    want=$1; pat=$2; shift 2
    err=$("$bin" "$@" 2>&1 >/dev/null); got=$?
    if [ "$got" != "$want" ] || ! printf '%s' "$err" | grep -q -- "$pat"; then
        echo "FAIL: pageclear $* -> status $got (want $want), stderr: $err"; fail=1
    else
        echo "ok   pageclear $* -> $got"
    fi
}
expect 2 "unknown command" frobnicate
expect 2 "usage" bogus-top-level
expect 2 "expected 'memset' or 'clear'" mem memcpy
expect 2 "invalid size" mem clear -s 12Q
expect 2 "at least 1 byte" mem clear -s 0
expect 2 "too large" mem clear -s 99999999999999999999
expect 2 "invalid size" mem clear -s 1M -k -3
expect 2 "unknown function" mem clear -s 1M -f nope
expect 2 "unknown function 'nope'" mem memset -s 4K -f glibc,nope
expect 2 "an empty or overlong name" mem memset -s 4K -f glibc,
expect 2 "invalid page size" mem clear -s 1M -p 3MB
expect 2 "needs a value" mem clear -s
expect 2 "no command given" exec
expect 2 "no command given" exec --stats --
expect 2 "no such command" exec -- /nonexistent/command
expect 2 "invalid size" exec --min 12Q -- true
expect 2 "unknown option" mem clear --bogus
expect 2 "invalid state" mem clear -s 1M --cache lukewarm
expect 2 "needs a value" mem clear -s 1M --cache
expect 2 "-v applies to memset" mem clear -s 1M -v 7
expect 2 "not a whole number" mem memset -s 1M -v 256
expect 2 "not a whole number" mem memset -s 1M -v -1
expect 2 "stores only zeros" mem memset -s 1M -f pc_clear
expect 2 "stores only zeros" mem memset -s 1M -f pc_clear_cold
expect 2 "unknown option" tune --bogus
expect 2 "needs a file name" tune -o ""
expect 2 "choose one" tune --json -o -
expect 2 "give -o FILE, not -o -" tune --if-needed -o -
expect 2 "not a whole number" tune -n 1
expect 1 "cannot create the directory" tune -o /proc/nonexistent/dir/profile
expect 2 "unknown option" check --bogus
expect 2 "not a whole number" check -n 0
expect 2 "not a whole number" check -n 201
expect 2 "not a whole number" mem clear -s 1M -l 0
expect 2 "not a whole number" mem clear -s 1M -n x
expect 2 "-s SIZE is required" mmap
expect 2 "at least 1 byte" mmap -s 0
expect 2 "not populate, demand or anon-w-seq" mmap -s 1M -f lazily
expect 2 "not anon-w-seq" mmap -s 1M -f anon-w-seq -r 3
expect 1 "less than one 2MB page for each of 4 threads" mmap -s 4M -p 2MB -f anon-w-seq -t 4 -l 1
expect 2 "not a whole number" mmap -s 1M -t 0
expect 2 "not a whole number" mmap -s 1M -r -4
expect 2 "invalid page size" mmap -s 1M -p 64KB
expect 1 "does not fit" mmap -s 64TB -l 1
expect 1 "does not fit" mmap -s 1TB -p thp -l 1
expect 1 "does not fit" mem clear -s 1TB -n 1
expect 2 "two results files or more" compare
expect 2 "cannot open" compare /nonexistent/a.json /nonexistent/b.json
expect 2 "unknown option" compare --bogus a.json b.json
expect 2 "not a whole number" bench --runs 0
expect 2 "unknown option" bench --frobnicate
expect 2 "unknown option" --frobnicate
expect 2 "not a whole number" pool -c 0
expect 2 "not for this command" pool -s 1G
expect 2 "not for this command" parallel -c 4
expect 2 "option '--size=1G' is not for this command" pool --size=1G
expect 2 "option '--count=4' is not for this command" parallel --count=4
expect 2 "at least 1 byte" parallel -s 0
expect 1 "does not fit" parallel -s 1TB -n 1
expect 2 "unknown option" prealloc --bogus
expect 2 "at least 4096 bytes" prealloc -s 100
expect 2 "not a whole number" prealloc -n 0
expect 2 "invalid page size '3MB'" prealloc -p 4KB,3MB
expect 1 "no page size could be measured" prealloc -s 1TB -n 1 --no-reserve
expect 1 "more than half the memory" prealloc -s 1TB -n 1 --json
expect 1 "does not fit" pool -c 1000000 -n 1
# Hugetlb pages that are not reserved: a run-time failure that says what to do.
if [ "$(cat /sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages 2>/dev/null || echo 0)" = 0 ]; then
    expect 1 "nr_hugepages" mem clear -s 2G -p 1GB -n 1
    expect 1 "nr_hugepages" mmap -s 2G -p 1GB -l 1
fi
# serve's configuration and get's arguments; get with no daemon behind
# the socket (tests/integration/daemon/serve.sh runs the daemon itself).
cfg=$(mktemp)
printf 'quota = 1G\n\nreserve.2M = 3M\n' > "$cfg"
expect 2 "line 3: reserve.2M: 3M is not a whole number of 2MiB pages" serve --check-config --config "$cfg"
printf 'group = no-such-group-pc\n' > "$cfg"
expect 2 "line 1: no group 'no-such-group-pc'" serve --check-config --config "$cfg"
rm -f "$cfg"
expect 2 "cannot read /nonexistent/serve.conf" serve --check-config --config /nonexistent/serve.conf
expect 2 "unknown option" serve --bogus
expect 2 "SIZE is required" get
expect 2 "a command to run is required" get 4M
expect 2 "want 2MB or 1GB" get 4M --page 4KB -- true
expect 2 "invalid size" get 4Q -- true
PAGECLEAR_SOCKET=/nonexistent/serve.sock expect 1 "no pageclear serve on /nonexistent/serve.sock" get 4M -- true
# Demand-faulting hugetlb memory with no pages behind it raises SIGBUS:
# caught, reported, exit 1.
d2=/sys/kernel/mm/hugepages/hugepages-2048kB
if [ "$(cat $d2/free_hugepages 2>/dev/null || echo 1)" = 0 ] &&
   [ "$(cat /proc/sys/vm/nr_overcommit_hugepages 2>/dev/null || echo 1)" = 0 ]; then
    expect 1 "SIGBUS" mmap -s 8MB -p 2MB -f demand --noreserve -l 1
fi
exit $fail
