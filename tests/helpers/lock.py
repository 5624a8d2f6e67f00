#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The flock the tests and scripts share a machine's hugetlb pages, swap
and quiet under (/tmp/pageclear-hugetlb.lock, -swap.lock, -bench.lock):
taken unless a process this one runs under holds it already, as
`flock LOCK ctest ...` does, where taking it again would wait for ever.
One copy for every caller: Python imports it, the shell scripts and the
C tests (tests/helpers/present.h) run it.
Usage: lock.py held-above PATH
  exit 0 if this process or one it runs under holds an flock on PATH,
  1 if none does (or /proc/locks cannot say).
"""
import fcntl
import os
import sys


def held_above(lockf):
    """Does a process this one runs under hold the lock already (`flock
    LOCK ctest ...`)? Taking it again would wait for ever."""
    try:
        ino = os.stat(lockf).st_ino
        with open("/proc/locks") as f:
            holders = {int(w[4]) for w in (ln.split() for ln in f)
                       if len(w) > 5 and w[1] == "FLOCK" and w[5].split(":")[-1] == str(ino)}
    except (OSError, ValueError):
        return False
    p = os.getpid()
    while p > 1:
        if p in holders:
            return True
        try:
            with open("/proc/%d/status" % p) as f:
                p = next(int(ln.split()[1]) for ln in f if ln.startswith("PPid:"))
        except (OSError, StopIteration, ValueError):
            return False
    return False


def take(lockf, waiting):
    """The lock, unless an ancestor holds it: its descriptor, or None
    (go ahead under the ancestor's). Prints `waiting` first if another
    process holds it."""
    if held_above(lockf):
        return None
    fd = os.open(lockf, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(waiting, flush=True)
        fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def main(argv):
    if len(argv) != 3 or argv[1] != "held-above":
        sys.stderr.write("Usage: " + __doc__.split("Usage: ")[1])
        return 2
    return 0 if held_above(argv[2]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
