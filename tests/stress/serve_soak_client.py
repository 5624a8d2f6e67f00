#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The clients of tests/stress/serve_soak.py: each runs in a process of its own
(forked by the soak, or exec'd by `pageclear get`), does one thing to the
daemon and writes one record, a JSON line, to the soak's report pipe (a
write of less than PIPE_BUF bytes: whole or not at all, even if the
process is killed). Speaks the wire format of docs/serve.md itself.

  serve_soak_client.py check ID REPORT_FD SIZE HOLD_S
        run by `pageclear get SIZE -- ...`: checks the memfd in PAGECLEAR_FD
        as cycle() does, writes junk over it and holds it HOLD_S seconds
"""
import fcntl
import mmap
import os
import signal
import socket
import struct
import sys
import time

# The protocol's message, page and seals, as the functional tests have them
# (tests/helpers/: this file also runs as `python3 -I`, with no path set).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from serve_client import F_GET_SEALS, MSG, PAGE_2M, SEALS, request  # noqa: E402,F401

CHUNK = 1 << 20
ZERO = bytes(CHUNK)
# Reply statuses (docs/serve.md), by name for the report.
STATUS = {0: "ok", 1: "proto", 2: "version", 3: "inval", 4: "quota", 5: "nomem",
          6: "busy", 7: "notsup"}
# Where a client kills itself (SIGKILL) when told to: the protocol's points.
KILL_POINTS = ("before_send", "after_send", "after_fd", "holding")


def report(fd, **rec):
    """One record on the report pipe: flat JSON of ints and short strings."""
    parts = []
    for k, v in rec.items():
        parts.append('"%s": %s' % (k, v if isinstance(v, int) else '"%s"' % v))
    os.write(fd, ("{" + ", ".join(parts) + "}\n").encode())


def die():
    os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)  # never reached: SIGKILL is not caught


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    return s


def send(s, msg, anc=()):
    """Send msg; a daemon that refused the connection (busy) before it came
    has answered already and reads no more: the send fails with EPIPE and
    the answer is there to read, as pc_serve_get does."""
    try:
        s.sendmsg([msg], list(anc))
    except BrokenPipeError:
        pass


def receive(s):
    """The reply and the descriptors that came with it (SCM_RIGHTS)."""
    data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16 * 4))
    fds = []
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            n = len(payload) - len(payload) % 4
            fds.extend(struct.unpack("=%di" % (n // 4), payload[:n]))
    return data, fds


def error_kind(e):
    """A connection's failure, by kind, for the soak's counts."""
    if isinstance(e, FileNotFoundError):
        return "no_socket"
    if isinstance(e, ConnectionRefusedError):
        return "refused"
    if isinstance(e, (ConnectionResetError, BrokenPipeError)):
        return "reset"
    return "oserror_%s" % (getattr(e, "errno", None) or type(e).__name__)


def inspect(fd, size):
    """What is wrong with the memfd a grant carries, or None: a hugetlb
    file of 2 MiB pages, of the size promised, every page in it already
    (filled ahead or at request time, never at the client's fault),
    sealed against growing and shrinking."""
    st = os.fstat(fd)
    if st.st_size != size:
        return "size %d, promised %d" % (st.st_size, size)
    if os.fstatvfs(fd).f_bsize != PAGE_2M:
        return "not a file of 2 MiB pages (block size %d)" % os.fstatvfs(fd).f_bsize
    if st.st_blocks * 512 != size:
        return "%d of %d bytes allocated" % (st.st_blocks * 512, size)
    seals = fcntl.fcntl(fd, F_GET_SEALS)
    if seals & SEALS != SEALS:
        return "seals %#x, want %#x" % (seals, SEALS)
    return None


def use(fd, size, junk):
    """Map the memory, count its non-zero bytes, then write junk over every
    byte (a daemon that handed these pages to anyone else would show it).
    Returns the count."""
    m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    nonzero = 0
    for off in range(0, size, CHUNK):
        piece = m[off:off + CHUNK]
        if piece != ZERO[:len(piece)]:
            nonzero += len(piece) - piece.count(0)
    fill = bytes([junk % 255 + 1]) * CHUNK
    for off in range(0, size, CHUNK):
        m[off:off + CHUNK] = fill[:min(CHUNK, size - off)]
    m.close()
    return nonzero


def rounded(size):
    return (size + PAGE_2M - 1) // PAGE_2M * PAGE_2M


def cycle(rep, cid, path, size, flags, fate, hold):
    """One client's life: connect, request, receive, check, map, verify,
    write junk, hold, exit; or SIGKILL at the point `fate` names."""
    try:
        s = connect(path)
        if fate == "before_send":
            report(rep, id=cid, ev="killed", at=fate)
            die()
        send(s, request(size, flags=flags))
        t0 = time.monotonic_ns()
        if fate == "after_send":
            report(rep, id=cid, ev="killed", at=fate)
            die()
        data, fds = receive(s)
        lat = time.monotonic_ns() - t0
    except OSError as e:
        report(rep, id=cid, ev="error", kind=error_kind(e))
        return
    s.close()
    if not data:
        report(rep, id=cid, ev="error", kind="eof_no_reply")
        return
    if len(data) != MSG or data[:4] != b"pcRP":
        report(rep, id=cid, ev="bad", why="reply of %d bytes %r" % (len(data), data[:8]))
        return
    status, rsize = struct.unpack_from("=HQ", data, 6)[0], struct.unpack_from("=Q", data, 8)[0]
    if status != 0:
        for fd in fds:
            os.close(fd)
        if fds:
            report(rep, id=cid, ev="bad", why="%d descriptors with status %d" % (len(fds), status))
        else:
            report(rep, id=cid, ev="error", kind="status_" + STATUS.get(status, str(status)))
        return
    if len(fds) != 1 or rsize != rounded(size):
        report(rep, id=cid, ev="bad", why="%d descriptors, size %d for %d" % (len(fds), rsize, size))
        return
    finish(rep, cid, fds[0], rsize, fate, hold, lat)


def finish(rep, cid, fd, size, fate, hold, lat):
    """The part of a cycle that holds the memory."""
    if fate == "after_fd":
        report(rep, id=cid, ev="killed", at=fate, lat=lat)
        die()
    why = inspect(fd, size)
    if why is not None:
        report(rep, id=cid, ev="bad", why=why)
        return
    nonzero = use(fd, size, cid)
    if fate == "holding":
        report(rep, id=cid, ev="killed", at=fate, lat=lat, nonzero=nonzero, size=size)
        time.sleep(hold)
        die()
    time.sleep(hold)
    report(rep, id=cid, ev="ok", lat=lat, nonzero=nonzero, size=size)


# A field of a well-formed request made wrong, and the status it must get.
BAD_FIELDS = (
    (dict(version=2), 2), (dict(op=7), 1), (dict(reserved=1), 1), (dict(size=0), 3),
    (dict(size=1 << 63), 3), (dict(page=4096), 3), (dict(flags=0x80), 3),
)
# What each kind of bad client sends, and what it must see: a status, or
# "eof" (closed with no reply), or None (it does not wait to see).
GARBAGE = ("silent", "close_at_once", "empty", "short", "short_then_close", "random",
           "bad_field", "oversized", "with_fd", "request_then_close", "flood")
# A flood: this many silent connections at once, more than the daemon's
# 64 (in all, and per uid here), so that it refuses some as busy, the
# flood's and good clients', and serves on after.
FLOOD = 70


def garbage_message(kind, rnd):
    """(message, expected outcome) for a kind of garbage; rnd: random.Random."""
    if kind == "short" or kind == "short_then_close":
        msg = request(PAGE_2M)[:rnd.randrange(1, MSG)]
        return msg, "status_proto" if kind == "short" else None
    if kind == "random":  # never the request magic: that would be a later version
        return bytes([rnd.randrange(0, 256) | 0x80]) + rnd.randbytes(rnd.randrange(0, 100)), \
            "status_proto"
    if kind == "bad_field":
        fields, st = BAD_FIELDS[rnd.randrange(len(BAD_FIELDS))]
        rest = {k: v for k, v in fields.items() if k != "size"}
        return request(fields.get("size", PAGE_2M), **rest), "status_" + STATUS[st]
    if kind == "oversized":
        return request(PAGE_2M) + bytes(rnd.randrange(1, 4000)), "status_proto"
    if kind == "with_fd":
        return request(PAGE_2M)[:20], "status_proto"
    if kind in ("empty", "flood"):
        return b"", "eof"
    return request(PAGE_2M), None


def garbage(rep, cid, path, kind, msg, wait):
    """A bad client of one kind; reports what it got back. wait: seconds to
    wait for the daemon to answer or close (a hang-catcher)."""
    if kind == "flood":
        flood(rep, cid, path, wait)
        return
    try:
        s = connect(path)
        s.settimeout(wait)
        if kind == "close_at_once":
            s.close()
            report(rep, id=cid, ev="garbage", got="closed")
            return
        if kind == "with_fd":
            r, w = os.pipe()  # the daemon must neither keep nor return it
            send(s, msg, [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("=i", r))])
        elif kind != "silent":
            send(s, msg)
        if kind in ("short_then_close", "request_then_close"):
            s.close()
            report(rep, id=cid, ev="garbage", got="closed")
            return
        data, fds = receive(s)
    except socket.timeout:
        report(rep, id=cid, ev="garbage", got="kept_open")
        return
    except OSError as e:
        report(rep, id=cid, ev="garbage", got=error_kind(e))
        return
    if fds:
        got = "descriptors"
    elif not data:
        got = "eof"
    elif len(data) != MSG or data[:4] != b"pcRP":
        got = "bad_reply"
    else:
        got = "status_" + STATUS.get(struct.unpack_from("=H", data, 6)[0], "unknown")
    report(rep, id=cid, ev="garbage", got=got)


def flood(rep, cid, path, wait):
    """FLOOD silent connections; each must be closed or refused as busy.
    Reports the worst: what is not one of those, else busy if any was."""
    socks, got = [], set()
    try:
        for _ in range(FLOOD):
            socks.append(connect(path))
        for s in socks:
            s.settimeout(wait)
            data, fds = receive(s)
            if fds:
                got.add("descriptors")
            elif not data:
                got.add("eof")
            else:
                got.add("status_" + STATUS.get(struct.unpack_from("=H", data, 6)[0], "unknown"))
    except socket.timeout:
        got.add("kept_open")
    except OSError as e:
        got.add(error_kind(e))
    odd = sorted(got - {"eof", "status_busy"})
    report(rep, id=cid, ev="garbage", got=odd[0] if odd else max(got))


def check_main(argv):
    """`pageclear get SIZE -- serve_soak_client.py check ID REPORT_FD SIZE HOLD`."""
    cid, rep, size, hold = int(argv[0]), int(argv[1]), int(argv[2]), float(argv[3])
    fd = int(os.environ["PAGECLEAR_FD"])
    if os.fstat(fd).st_size != rounded(size):
        report(rep, id=cid, ev="bad", why="get: size %d for %d" % (os.fstat(fd).st_size, size))
        return
    finish(rep, cid, fd, rounded(size), "none", hold, -1)


if __name__ == "__main__":
    if len(sys.argv) != 6 or sys.argv[1] != "check":
        sys.exit(__doc__)
    check_main(sys.argv[2:])
