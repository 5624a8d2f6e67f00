# SPDX-License-Identifier: MIT OR Apache-2.0
"""The two tenants of tests/stress/serve_hostile.py, each a process (or several)
forked by it, already running as its uid and in its cgroup. They speak the
wire format of docs/serve.md themselves (serve_soak_client's helpers) and
write one JSON record per event to the run's report pipe.

The well-behaved tenant asks for whole blocks of the reserve, one at a
time: reserve-only first (a hit), else filled at request time (a miss);
it checks every byte of what it gets, holds it a moment and lets it go.

The hostile one runs every attack of the issue at once: askers that fork
a child to hold the memory and exit at once (the child keeps only a
mapping), requests of one byte against large blocks, floods of
connections, connections that wait before they send, and garbage."""
import mmap
import os
import random
import signal
import socket
import struct
import time

import serve_soak_client as sc
from serve_client import PAGE_2M, request

MIB = 1 << 20
GOOD_HOLD_S = 0.15     # the well-behaved tenant uses its memory this long
GOOD_THINK_S = 0.15    # and waits this long before it asks again
WAIT_S = 120           # hang-catcher: a reply, a refill
FORK_SIZES = (1, 2 * MIB + 1, 4 * MIB, 8 * MIB, 16 * MIB)
FLOOD_CONNS = 20       # more than a uid's connections (the daemon's are 8)
FLOOD_EVERY_S = 3.0


def now():
    return time.monotonic()


def get(path, size, flags=0, timeout=WAIT_S):
    """(status, fd or None, seconds from request to reply)."""
    s = sc.connect(path)
    s.settimeout(timeout)
    try:
        t0 = now()
        sc.send(s, request(size, flags=flags))
        data, fds = sc.receive(s)
        lat = now() - t0
    finally:
        s.close()
    if len(data) != sc.MSG or data[:4] != b"pcRP":
        for fd in fds:
            os.close(fd)
        raise OSError("bad reply %r" % data[:8])
    status = struct.unpack_from("=H", data, 6)[0]
    if status != 0 or len(fds) != 1:
        for fd in fds:
            os.close(fd)
        return status, None, lat
    return 0, fds[0], lat


def log_count(log, text):
    with open(log, errors="replace") as f:
        return f.read().count(text)


def good(rep, path, size, deadline, log, sync):
    """The well-behaved tenant's loop. With sync, it waits after each take
    until the daemon says its reserve is full again, so that whether its
    next request hits depends on the design alone, not on the machine's
    speed; otherwise it asks at its own pace."""
    full = "reserve of 2MiB pages full"
    while now() < deadline:
        seen = log_count(log, full) if sync else 0
        st, fd, lat = get(path, size, flags=1)
        hit = fd is not None
        if not hit:
            st, fd, lat2 = get(path, size)
            lat += lat2
        if fd is None:
            sc.report(rep, ev="good_error", status=st)
            time.sleep(GOOD_THINK_S)
            continue
        why = sc.inspect(fd, size)
        nonzero = sc.use(fd, size, 7) if why is None else 0
        if why is not None:
            sc.report(rep, ev="bad", why="good tenant: " + why)
        time.sleep(GOOD_HOLD_S)
        os.close(fd)
        sc.report(rep, ev="good", hit=int(hit), lat=int(lat * 1e6), nonzero=nonzero)
        end = now() + WAIT_S
        while sync and hit and log_count(log, full) <= seen and now() < end:
            time.sleep(0.02)
        time.sleep(GOOD_THINK_S)


def holder(rep, fd, size, hold):
    """The hostile asker's child: maps the memory, closes the descriptor,
    says what it holds, holds it, says it lets go, and exits."""
    m = None
    try:
        nonzero = sc.use(fd, size, 9)
        m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
        os.close(fd)
        sc.report(rep, ev="hold", id=os.getpid(), size=size, nonzero=nonzero)
        time.sleep(hold)
        sc.report(rep, ev="unhold", id=os.getpid())  # before the memory goes
    finally:
        if m is not None:
            m.close()


def asker(rep, path, rnd):
    """Asks once; a child holds what it got; the asker exits at once."""
    size = rnd.choice(FORK_SIZES)
    try:
        st, fd, _ = get(path, size, flags=rnd.choice((0, 1)))
    except OSError as e:
        sc.report(rep, ev="hostile", kind=sc.error_kind(e))
        return
    sc.report(rep, ev="hostile", kind="fork_" + sc.STATUS.get(st, str(st)))
    if fd is None:
        return
    if os.fork() == 0:
        try:
            holder(rep, fd, (size + PAGE_2M - 1) // PAGE_2M * PAGE_2M, rnd.uniform(0.2, 1.5))
        finally:
            os._exit(0)
    os.close(fd)


def forker(rep, path, deadline, seed):
    rnd = random.Random(seed)
    while now() < deadline:
        pid = os.fork()
        if pid == 0:
            try:
                asker(rep, path, rnd)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        rnd.random()  # a different draw in the next asker


def tiny(rep, path, deadline, seed):
    """One byte at a time, against blocks of the reserve far larger."""
    rnd = random.Random(seed)
    while now() < deadline:
        try:
            st, fd, _ = get(path, 1, flags=rnd.choice((0, 1)))
        except OSError as e:
            sc.report(rep, ev="hostile", kind=sc.error_kind(e))
            continue
        if fd is not None:
            os.close(fd)
        sc.report(rep, ev="hostile", kind="tiny_" + sc.STATUS.get(st, str(st)))


def flood(rep, path, deadline, timeout):
    """Bursts of silent connections, more than a uid may have."""
    while now() < deadline:
        socks, got = [], {}
        try:
            for _ in range(FLOOD_CONNS):
                socks.append(sc.connect(path))
            for s in socks:
                s.settimeout(timeout + WAIT_S)
                data, fds = sc.receive(s)
                for fd in fds:
                    os.close(fd)
                k = "eof" if not data else sc.STATUS.get(struct.unpack_from("=H", data, 6)[0], "?")
                got[k] = got.get(k, 0) + 1
        except OSError as e:
            got[sc.error_kind(e)] = 1
        for s in socks:
            s.close()
        for k, n in got.items():
            sc.report(rep, ev="hostile", kind="flood_" + k, n=n)
        time.sleep(FLOOD_EVERY_S)


def slow(rep, path, deadline, timeout, seed):
    """Connects, waits most of request_timeout, then asks."""
    rnd = random.Random(seed)
    while now() < deadline:
        try:
            s = sc.connect(path)
            s.settimeout(timeout + WAIT_S)
            time.sleep(rnd.uniform(0.3, 0.9) * timeout)
            sc.send(s, request(2 * MIB))
            data, fds = sc.receive(s)
            for fd in fds:
                os.close(fd)
            s.close()
            k = "eof" if not data else sc.STATUS.get(struct.unpack_from("=H", data, 6)[0], "?")
        except OSError as e:
            k = sc.error_kind(e)
        sc.report(rep, ev="hostile", kind="slow_" + k)


def garbage(rep, path, deadline, timeout, seed):
    rnd = random.Random(seed)
    kinds = ("random", "bad_field", "oversized", "with_fd", "short", "empty")
    while now() < deadline:
        kind = rnd.choice(kinds)
        msg, _ = sc.garbage_message(kind, rnd)
        pipe = ()
        try:
            s = sc.connect(path)
            s.settimeout(timeout + WAIT_S)
            anc = []
            if kind == "with_fd":
                pipe = os.pipe()  # the daemon must neither keep nor return it
                anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("=i", pipe[0]))]
            sc.send(s, msg, anc)
            data, fds = sc.receive(s)
            for fd in fds:
                os.close(fd)
            s.close()
            got = "descriptors" if fds else "eof" if not data else \
                sc.STATUS.get(struct.unpack_from("=H", data, 6)[0], "?")
        except OSError as e:
            got = sc.error_kind(e)
        for fd in pipe:
            os.close(fd)
        sc.report(rep, ev="hostile", kind="garbage_" + got)


def hostile(rep, path, deadline, timeout, which, seed):
    """One of the hostile tenant's attacks, by name, until deadline."""
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    if which == "forker":
        forker(rep, path, deadline, seed)
    elif which == "tiny":
        tiny(rep, path, deadline, seed)
    elif which == "flood":
        flood(rep, path, deadline, timeout)
    elif which == "slow":
        slow(rep, path, deadline, timeout, seed)
    else:
        garbage(rep, path, deadline, timeout, seed)


ATTACKS = ("forker", "forker", "tiny", "flood", "slow", "garbage")
