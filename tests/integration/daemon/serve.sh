#!/bin/bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# `pageclear serve` for real, one scenario per run (ctest runs each by
# name, serve_SCENARIO): the daemon on a socket of its own, with 2 MiB
# hugetlb pages this script reserves (nr_hugepages, as root, under
# /tmp/pageclear-hugetlb.lock) and gives back. Every scenario ends with the
# daemon stopped by SIGTERM (or SIGKILL) and the kernel's counts of free
# and reserved huge pages back where they were before it started.
# Exit 77 (skipped, with the reason) where the pages cannot be had.
# Usage: serve.sh PAGECLEAR_BINARY SCENARIO
set -u
bin="$1"
scenario="$2"
here="$(cd "$(dirname "$0")" && pwd)"
client="python3 $here/../../helpers/serve_client.py"
hp=/sys/kernel/mm/hugepages/hugepages-2048kB
pages=24 # what the largest scenario needs: 16 MiB of reserve and a client's 8 MiB

[ -w "$hp/nr_hugepages" ] || { echo "skip: cannot reserve hugetlb pages here (not root?)"; exit 77; }
# The lock, unless a process this one runs under holds it already
# (`flock /tmp/pageclear-hugetlb.lock ctest ...`): taking it again here
# would wait for ever.
lockf=/tmp/pageclear-hugetlb.lock
if ! python3 "$here/../../helpers/lock.py" held-above "$lockf"; then
    exec 9>"$lockf"
    flock 9
fi
tmp="$(mktemp -d /tmp/pc-serve-test.XXXXXX)"
old=$(cat "$hp/nr_hugepages")
pid=
cg="" cg_enabled=""
cleanup() {
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    if [ -n "$cg" ] && [ -d "$cg" ]; then
        # Its processes (the holders) told to go, then killed; the cgroup
        # removed once empty.
        : > "$tmp/h1/release" 2>/dev/null; : > "$tmp/h2/release" 2>/dev/null
        for _ in $(seq 50); do [ -s "$cg/cgroup.procs" ] || break; sleep 0.1; done
        xargs -r kill -KILL < "$cg/cgroup.procs" 2>/dev/null
        for _ in $(seq 100); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
        [ -d "$cg" ] && echo "cleanup: could not remove $cg"
    fi
    [ -n "$cg_enabled" ] && echo -hugetlb > "$(dirname "$cg")/cgroup.subtree_control" 2>/dev/null
    echo "$old" > "$hp/nr_hugepages"
    rm -rf "$tmp"
}
trap cleanup EXIT
echo $((old + pages)) > "$hp/nr_hugepages"
[ "$(cat "$hp/nr_hugepages")" -ge $((old + pages)) ] ||
    { echo "skip: the kernel gave fewer than $pages more huge pages"; exit 77; }
export PAGECLEAR_SOCKET="$tmp/sock"
fail=0
no() { echo "FAIL: $*"; fail=1; }
meminfo() { awk -v k="HugePages_$1:" '$1 == k {print $2}' /proc/meminfo; }
free0=$(meminfo Free)
rsvd0=$(meminfo Rsvd)

# start CONFIG_TEXT: the daemon in the background, its log in $tmp/log.
# Without the lock's descriptor: a daemon left behind by a killed run
# would hold the lock and stall every later run's hugetlb tests.
start() {
    printf '%b' "$1" > "$tmp/conf"
    "$bin" serve --config "$tmp/conf" 9>&- 2>>"$tmp/log" &
    pid=$!
    for _ in $(seq 600); do [ -S "$tmp/sock" ] && return 0; sleep 0.1; done
    no "the daemon did not create its socket"; cat "$tmp/log"; exit 1
}
# wait_log TEXT [N]: until the log has N (1) lines with TEXT, 120 s at
# most (a bound for a hang: a loaded machine fills a reserve slowly).
wait_log() {
    for _ in $(seq 1200); do
        [ "$(grep -c -- "$1" "$tmp/log")" -ge "${2:-1}" ] && return 0
        sleep 0.1
    done
    no "no '$1' in the log (${2:-1} times)"
}
stop() {
    kill -TERM "$pid"; wait "$pid"; local rc=$?; pid=
    [ $rc -eq 0 ] || no "the daemon exited $rc on SIGTERM"
    grep -q "stopped; every reserved page given back" "$tmp/log" || no "no stop line in the log"
}
# The counts of free and reserved pages are back (the kernel frees a dead
# process's pages as it reaps it: a moment after wait returns, at most;
# 60 s bounds it on a loaded machine).
given_back() {
    for _ in $(seq 600); do
        [ "$(meminfo Free)" -eq "$free0" ] && [ "$(meminfo Rsvd)" -eq "$rsvd0" ] && return 0
        sleep 0.1
    done
    no "huge pages not given back: Free $(meminfo Free) (was $free0), Rsvd $(meminfo Rsvd) (was $rsvd0)"
}
get() { "$bin" get "$@"; }

case "$scenario" in
two_clients) # at once, both from the reserve, two different memfds
    start 'reserve.2M = 8M 8M\n'
    wait_log "reserve of 2MiB pages full"
    get 8M -- sh -c "exec $client check \$PAGECLEAR_FD 1" >"$tmp/out1" 2>&1 & c1=$!
    get 8M -- sh -c "exec $client check \$PAGECLEAR_FD 1" >"$tmp/out2" 2>&1 & c2=$!
    wait $c1 $c2
    for i in 1 2; do grep -q "^inode .* size 8388608$" "$tmp/out$i" || no "client $i: $(cat "$tmp/out$i")"; done
    [ "$(cut -d' ' -f2 "$tmp/out1")" != "$(cut -d' ' -f2 "$tmp/out2")" ] || no "both clients got the same memfd"
    [ "$(grep -c "8MiB of 2MiB pages from the reserve" "$tmp/log")" -ge 2 ] || no "not both from the reserve"
    stop ;;
client_dies) # silent, vanishing before the reply, timing out: the daemon serves on
    start 'reserve.2M = 4M 4M\nrequest_timeout = 1\n'
    wait_log "reserve of 2MiB pages full"
    $client silent || no "silent client"
    $client vanish $((4 << 20)) || no "vanishing client"
    # Silent past request_timeout: the daemon closes the connection. The
    # client waits for that as long as a loaded machine needs (120 s is a
    # bound for a hang, not a measurement).
    python3 -c 'import socket,os; s=socket.socket(socket.AF_UNIX,socket.SOCK_SEQPACKET); s.connect(os.environ["PAGECLEAR_SOCKET"]); s.settimeout(120); print("eof" if s.recv(64)==b"" else "data")' > "$tmp/slow" 2>&1
    grep -qx eof "$tmp/slow" || no "a client silent past request_timeout: $(cat "$tmp/slow")"
    # The daemon answered the vanished client, or found it gone before it
    # could read its cgroups (then nothing was taken for it).
    wait_log "refused 4MiB of 2MiB pages\|gone before the reply\|4MiB of 2MiB pages from the reserve"
    get 4M -- sh -c "exec $client check \$PAGECLEAR_FD" >/dev/null || no "no memory after the clients that died"
    stop ;;
quota) # a uid holds its quota while its process lives, and gets it back when it exits
    start 'reserve.2M = 4M 4M\nquota = 6M\n'
    wait_log "reserve of 2MiB pages full"
    # The holder says when it holds its 4M and exits when told: no sleep
    # stands in for either, so a loaded machine changes nothing.
    get 4M -- sh -c ': > "$0/held"; for _ in $(seq 1200); do [ -e "$0/release" ] && exit 0; sleep 0.1; done; exit 1' "$tmp" &
    holder=$!
    for _ in $(seq 1200); do [ -e "$tmp/held" ] && break; sleep 0.1; done
    [ -e "$tmp/held" ] || no "the holder did not get its 4M"
    err=$(get 4M -- true 2>&1); rc=$?
    [ $rc -eq 1 ] && echo "$err" | grep -q "over this user's quota" || no "over the quota: exit $rc: $err"
    get 2M -- true || no "2M within the quota"
    : > "$tmp/release"
    wait $holder || no "the holder exited $?"
    # The daemon releases the quota when it sees the holder gone: retried
    # until it has (60 s bound for a hang).
    for _ in $(seq 600); do get 4M -- true 2>/dev/null && break; sleep 0.1; done
    get 4M -- true || no "the quota was not released when the holder exited"
    grep -q "over the quota (holds 4MiB of 6MiB" "$tmp/log" || no "no quota log line"
    stop ;;
quota_fork) # a grant counts while its memory exists: passed to a child, then only mapped
    start 'reserve.2M = 4M 4M\nquota = 6M\n'
    wait_log "reserve of 2MiB pages full"
    # The asker exits at once; its child maps the memory, closes the
    # descriptor and holds only the mapping until told.
    get 4M -- sh -c "$client hold \$PAGECLEAR_FD $tmp & exit 0" || no "get 4M"
    for _ in $(seq 1200); do [ -e "$tmp/held" ] && break; sleep 0.1; done
    [ -e "$tmp/held" ] || no "the child did not hold the 4M"
    err=$(get 4M -- true 2>&1); rc=$?
    [ $rc -eq 1 ] && echo "$err" | grep -q "over this user's quota" ||
        no "the asker gone, its child's 4M must still count: exit $rc: $err"
    : > "$tmp/release"
    for _ in $(seq 600); do get 4M -- true 2>/dev/null && break; sleep 0.1; done
    get 4M -- true || no "the quota was not released when the memory went"
    stop ;;
tenants) # uids at once are bounded: past it, a clear refusal; a tenant's memory keeps it one
    chmod 711 "$tmp"
    start "reserve.2M = 4M\ntenants = 1\ngroup = 65534\n"
    wait_log "reserve of 2MiB pages full"
    get 4M -- sh -c "$client hold \$PAGECLEAR_FD $tmp & exit 0" || no "get 4M"
    for _ in $(seq 1200); do [ -e "$tmp/held" ] && break; sleep 0.1; done
    err=$(setpriv --reuid 65534 --regid 65534 --clear-groups "$bin" get 2M -- true 2>&1) &&
        no "a second tenant was served past tenants = 1"
    echo "$err" | grep -q "busy" || no "a second tenant: $err"
    grep -q "uid 65534 pid [0-9]*: refused a connection: 1 uids are tenants already (tenants = 1)" \
        "$tmp/log" || no "no log line for the tenant refused"
    : > "$tmp/release"
    for _ in $(seq 600); do setpriv --reuid 65534 --regid 65534 --clear-groups "$bin" get 2M -- true 2>/dev/null && break; sleep 0.1; done
    setpriv --reuid 65534 --regid 65534 --clear-groups "$bin" get 2M -- true ||
        no "the second tenant was not served once the first one's memory went"
    stop ;;
refusal_log) # refusals are logged at refusal_log_rate, and the rest counted, not lost
    start 'refusal_log_rate = 1\n'
    $client garbage 200 >/dev/null || no "200 malformed requests"
    sleep 1.5 # a token for the next refusal
    $client garbage 1 >/dev/null || no "one more"
    logged=$(grep -c "refused a request of 6 bytes" "$tmp/log")
    dropped=$(sed -n 's/.*: \([0-9]*\) refusals not logged (refusal_log_rate = 1 a second)$/\1/p' "$tmp/log" |
              awk '{n += $1} END {print n + 0}')
    [ "$dropped" -gt 0 ] && [ $((logged + dropped)) -eq 201 ] ||
        no "201 refusals: $logged logged, $dropped counted as not logged"
    stop ;;
malformed) # each refused with its status, nothing handed out, the daemon serves on
    grp=root
    getent group daemon >/dev/null && grp=daemon # a group the daemon is not in
    start "reserve.2M = 4M\ngroup = $grp\n"
    wait_log "reserve of 2MiB pages full"
    [ "$(stat -c %a:%G "$tmp/sock")" = "660:$grp" ] || no "socket $(stat -c %a:%G "$tmp/sock"), want 660:$grp"
    $client malformed || no "malformed requests"
    err=$(get 1T -- true 2>&1) && no "1 TiB was handed out"
    echo "$err" | grep -q "neither its reserve nor the kernel" || no "1 TiB: $err"
    get 4M -- sh -c "exec $client check \$PAGECLEAR_FD" >/dev/null || no "no memory after the malformed requests"
    grep -q "refused a request of 6 bytes: malformed request" "$tmp/log" || no "no log line for a short request"
    stop ;;
sigkill) # killed with its reserve full: every page comes back; a new daemon takes the socket
    start 'reserve.2M = 8M 8M\n'
    wait_log "reserve of 2MiB pages full"
    [ "$(meminfo Free)" -eq $((free0 - 8)) ] || no "the reserve does not hold 8 pages (Free $(meminfo Free), was $free0)"
    kill -KILL "$pid"; wait "$pid" 2>/dev/null; pid=
    given_back
    [ -S "$tmp/sock" ] || no "the socket file went with SIGKILL?"
    start 'reserve.2M = 8M 8M\n'
    wait_log "reserve of 2MiB pages full" 2
    get 8M -- sh -c "exec $client check \$PAGECLEAR_FD" >/dev/null || no "no memory from the restarted daemon"
    stop ;;
larger_than_reserve) # filled at request time; refused with --reserve-only and on_miss = error
    start 'reserve.2M = 4M\n'
    wait_log "reserve of 2MiB pages full"
    get 8M -- sh -c "exec $client check \$PAGECLEAR_FD" >/dev/null || no "8M beyond a 4M reserve"
    grep -q "8MiB of 2MiB pages filled at request time" "$tmp/log" || no "no request-time fill in the log"
    err=$(get 8M --reserve-only -- true 2>&1) && no "--reserve-only was filled"
    echo "$err" | grep -q "has no 8MiB" || no "--reserve-only: $err"
    stop
    start 'reserve.2M = 4M\non_miss = error\n'
    wait_log "reserve of 2MiB pages full" 2
    get 8M -- true 2>/dev/null && no "on_miss = error filled 8M"
    stop ;;
one_gib) # 1 GiB pages, where one can be had: from the reserve, zeroed, and given back
    g=/sys/kernel/mm/hugepages/hugepages-1048576kB
    [ -w "$g/nr_hugepages" ] || { echo "skip: no 1 GiB huge pages on this kernel"; exit 77; }
    gold=$(cat "$g/nr_hugepages")
    trap 'echo "$gold" > "$g/nr_hugepages"; cleanup' EXIT
    echo $((gold + 1)) > "$g/nr_hugepages"
    [ "$(cat "$g/nr_hugepages")" -gt "$gold" ] ||
        { echo "skip: the kernel has no free 1 GiB of contiguous memory for a page"; exit 77; }
    gfree=$(cat "$g/free_hugepages")
    # At normal priority: at idle priority a machine that is never idle
    # (CI's, under load) fills 1 GiB slowly or not at all.
    start 'reserve.1G = 1G\nfill_priority = normal\n'
    for _ in $(seq 1200); do grep -q "reserve of 1GiB pages full" "$tmp/log" && break; sleep 0.1; done
    grep -q "reserve of 1GiB pages full" "$tmp/log" || no "the 1 GiB reserve did not fill in 120 s"
    [ "$(cat "$g/free_hugepages")" -eq $((gfree - 1)) ] || no "the reserve does not hold the 1 GiB page"
    get 600M --page 1GB --reserve-only -- sh -c "exec $client check \$PAGECLEAR_FD" > "$tmp/out" ||
        no "600M of 1 GiB pages from the reserve"
    grep -q "size 1073741824$" "$tmp/out" || no "not one whole 1 GiB page: $(cat "$tmp/out")"
    stop
    [ "$(cat "$g/free_hugepages")" -eq "$gfree" ] || no "the 1 GiB page was not given back" ;;
cgroup_limit) # a tenant's cgroup limit holds through the daemon, forks included
    # cgroup v2 with the hugetlb controller, where there is one: a cgroup
    # of this run's, removed however the script ends (cleanup).
    v2=$(awk '$9 == "cgroup2" && $4 == "/" {print $5; exit}' /proc/self/mountinfo)
    [ -n "$v2" ] && grep -qw hugetlb "$v2/cgroup.controllers" 2>/dev/null ||
        { echo "skip: no hugetlb controller on cgroup v2 here"; exit 77; }
    if ! grep -qw hugetlb "$v2/cgroup.subtree_control"; then
        echo +hugetlb > "$v2/cgroup.subtree_control" || { echo "skip: cannot enable hugetlb"; exit 77; }
        cg_enabled=1
    fi
    cg="$v2/pc-serve-test.$$"
    mkdir "$cg" && echo 8M > "$cg/hugetlb.2MB.max" || no "cannot make $cg"
    start 'reserve.2M = 8M 8M\n'
    wait_log "reserve of 2MiB pages full"
    in_cg() { sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@"; }
    # Two 4M, each handed to a child that keeps only a mapping: 8M held.
    for i in 1 2; do
        mkdir "$tmp/h$i"
        in_cg "$bin" get 4M -- sh -c "$client hold \$PAGECLEAR_FD $tmp/h$i & exit 0" || no "get 4M ($i)"
        for _ in $(seq 1200); do [ -e "$tmp/h$i/held" ] && break; sleep 0.1; done
    done
    [ "$(cat "$cg/hugetlb.2MB.current")" -eq $((8 << 20)) ] ||
        no "the cgroup is charged $(cat "$cg/hugetlb.2MB.current"), want its 8M"
    err=$(in_cg "$bin" get 2M -- true 2>&1) && no "2M past the cgroup's 8M limit was handed out"
    echo "$err" | grep -q "over its cgroup's limit" || no "past the limit: $err"
    err=$(in_cg "$bin" get 2M --reserve-only -- true 2>&1) && no "the reserve went to a limited cgroup"
    [ "$(grep -c "from the reserve" "$tmp/log")" -eq 0 ] || no "a limited cgroup took from the reserve"
    [ "$(grep -c "4MiB of 2MiB pages filled at request time" "$tmp/log")" -eq 2 ] || no "not filled at request time"
    grep -q "refused 2MiB of 2MiB pages: over the quota (over its cgroup's limit" "$tmp/log" ||
        no "no log line for the limit"
    get 8M --reserve-only -- true || no "the reserve, for a cgroup with no limit"
    : > "$tmp/h1/release"; : > "$tmp/h2/release"
    for _ in $(seq 600); do [ "$(cat "$cg/hugetlb.2MB.current")" -eq 0 ] && break; sleep 0.1; done
    [ "$(cat "$cg/hugetlb.2MB.current")" -eq 0 ] || no "the cgroup is still charged when its memory is gone"
    stop ;;
small_request) # a request never empties a block more than twice its size
    start 'reserve.2M = 16M\n'
    wait_log "reserve of 2MiB pages full"
    err=$(get 1 --reserve-only -- true 2>&1) && no "1 byte took the 16M block"
    echo "$err" | grep -q "has no 1B of 2MiB pages" || no "1 byte, reserve only: $err"
    get 1 -- sh -c "exec $client check \$PAGECLEAR_FD" >/dev/null || no "1 byte, filled at request time"
    grep -q "2MiB of 2MiB pages filled at request time" "$tmp/log" || no "1 byte was not filled at request time"
    [ "$(meminfo Free)" -eq $((free0 - 8)) ] || no "the 16M block is not whole (Free $(meminfo Free), was $free0)"
    err=$(get 6M --reserve-only -- true 2>&1) && no "6M took the 16M block"
    get 8M --reserve-only -- sh -c "exec $client check \$PAGECLEAR_FD" >/dev/null ||
        no "8M, half the block, was not served from it"
    stop ;;
short_reserve) # more reserve than huge pages: a clear log line, and the service serves on
    # The 4M block fills first; the other, larger than the pages there are,
    # fills as far as they go.
    start "reserve.2M = 4M $((2 * (free0 + 8)))M\n"
    wait_log "raise /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
    grep "filled: the kernel has no free pages left" "$tmp/log" || no "no clear log line"
    get 4M --reserve-only -- sh -c "exec $client check \$PAGECLEAR_FD" >/dev/null || no "nothing served from a short reserve"
    stop ;;
*) echo "unknown scenario $scenario"; exit 2 ;;
esac
[ -z "$pid" ] || stop
given_back
[ $fail -eq 0 ] || { echo "--- daemon log"; cat "$tmp/log"; exit 1; }
echo "ok: serve $scenario; huge pages given back (Free $free0, Rsvd $rsvd0)"
