#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""A client of `pageclear serve` for tests/integration/daemon/serve.sh and
tests/stress/, speaking the wire format of docs/serve.md itself (not
through the library), so that it can also send what the library never
would.

  serve_client.py check FD [HOLD_S]   FD (inherited from `pageclear get`) is a
        sealed hugetlb memfd whose every byte reads zero; prints its inode
        and size, then holds it HOLD_S seconds
  serve_client.py malformed           sends bad requests, one per connection,
        and checks each gets the documented status and no descriptor
  serve_client.py silent              connects and exits without a request
  serve_client.py vanish SIZE         sends a request and exits at once,
        before the reply
  serve_client.py hold FD DIR         maps FD, closes it (the mapping alone
        holds the memory), creates DIR/held and exits when DIR/release
        appears (120 s at most)
  serve_client.py garbage N           N malformed requests, one per
        connection, each refused as malformed
"""
import fcntl
import mmap
import os
import socket
import struct
import sys
import time

F_GET_SEALS = 1034
SEALS = 0x1 | 0x2 | 0x4  # F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW
HUGETLBFS_MAGIC = 0x958458F6
MSG = 32
PAGE_2M = 2 << 20
ST = {"ok": 0, "proto": 1, "version": 2, "inval": 3}


def sock_path():
    return os.environ.get("PAGECLEAR_SOCKET") or "/run/pageclear/serve.sock"


def request(size, page=PAGE_2M, flags=0, version=1, op=1, magic=b"pcRQ", reserved=0):
    return magic + struct.pack("=HHQQII", version, op, size, page, flags, reserved)


def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sock_path())
    return s


def check(fd, hold):
    size = os.fstat(fd).st_size
    seals = fcntl.fcntl(fd, F_GET_SEALS)
    if seals & SEALS != SEALS:
        sys.exit("FAIL: seals %#x, want %#x" % (seals, SEALS))
    try:
        os.ftruncate(fd, size + PAGE_2M)
        sys.exit("FAIL: the memfd could grow")
    except OSError:
        pass
    m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    zero = bytes(1 << 20)
    for off in range(0, size, 1 << 20):
        if m[off:off + (1 << 20)] != zero[:min(1 << 20, size - off)]:
            sys.exit("FAIL: non-zero bytes at %d" % off)
    m[0:8] = b"written!"  # ours alone: nobody else may ever see this
    print("inode %d size %d" % (os.fstat(fd).st_ino, size), flush=True)
    time.sleep(hold)
    m.close()


def malformed():
    cases = [
        ("short", b"pcRQ\x01\x00", ST["proto"]),
        ("magic", request(PAGE_2M, magic=b"XXXX"), ST["proto"]),
        ("version", request(PAGE_2M, version=2), ST["version"]),
        ("op", request(PAGE_2M, op=7), ST["proto"]),
        ("reserved", request(PAGE_2M, reserved=1), ST["proto"]),
        ("oversized", request(PAGE_2M) + bytes(32), ST["proto"]),
        ("large", request(PAGE_2M) + bytes(4000), ST["proto"]),
        ("size0", request(0), ST["inval"]),
        ("size2^63", request(1 << 63), ST["inval"]),
        ("page4k", request(PAGE_2M, page=4096), ST["inval"]),
        ("flags", request(PAGE_2M, flags=0x80), ST["inval"]),
    ]
    for name, msg, want in cases:
        s = connect()
        s.send(msg)
        data, anc, _, _ = s.recvmsg(64, socket.CMSG_SPACE(16))
        s.close()
        if len(data) != MSG or data[:4] != b"pcRP":
            sys.exit("FAIL: %s: reply %r" % (name, data))
        status = struct.unpack_from("=H", data, 6)[0]
        if status != want or anc:
            sys.exit("FAIL: %s: status %d (want %d), %d ancillary items"
                     % (name, status, want, len(anc)))
    print("ok: %d malformed requests refused" % len(cases))


def hold(fd, where):
    """Hold the memory by a mapping only: no descriptor is left."""
    size = os.fstat(fd).st_size
    m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    os.close(fd)
    m[0:4] = b"held"
    open(os.path.join(where, "held"), "w").close()
    for _ in range(1200):  # a hang-catcher, not a duration
        if os.path.exists(os.path.join(where, "release")):
            break
        time.sleep(0.1)
    m.close()


def garbage(n):
    for i in range(n):
        s = connect()
        s.send(b"pcRQ\x01\x00")
        data = s.recv(64)
        s.close()
        if len(data) != MSG or struct.unpack_from("=H", data, 6)[0] != ST["proto"]:
            sys.exit("FAIL: garbage %d: reply %r" % (i, data))
    print("ok: %d malformed requests refused" % n)


def main():
    cmd = sys.argv[1]
    if cmd == "check":
        check(int(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else 0)
    elif cmd == "malformed":
        malformed()
    elif cmd == "hold":
        hold(int(sys.argv[2]), sys.argv[3])
    elif cmd == "garbage":
        garbage(int(sys.argv[2]))
    elif cmd == "silent":
        connect().close()
    elif cmd == "vanish":
        s = connect()
        s.send(request(int(sys.argv[2])))
        os._exit(0)  # the socket closes with the process, the reply unread
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
