#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Soak `pageclear serve`: the real daemon, with 2 MiB huge pages reserved
for the run (nr_hugepages, as root, under the hugetlb lock
tests/integration/daemon/serve.sh takes) and given back on every way out, serves for a fixed time:

- CLIENTS (32) clients at once, a process per cycle (get, check the memfd,
  map it, count its non-zero bytes, write junk over every byte, hold it a
  moment, exit), of sizes within the reserve and beyond it; a quarter of
  them through `pageclear get SIZE -- ...` (the library's client), the rest
  speaking the protocol themselves (they time the get: request sent to
  descriptor received);
- clients that SIGKILL themselves at a point of the protocol (before
  sending, after sending, with the descriptor unmapped, while holding the
  memory), and others the soak kills at a random moment;
- bad clients alongside: silent connections, half requests, requests cut
  off, garbage, bad fields, oversized messages, descriptors sent along;
- the daemon itself killed with SIGKILL once, part way, and started again
  (what clients see until the new one serves is counted apart: expected).

Then it checks the daemon still serves, through `pageclear get` and after
a malformed request; that its threads and descriptors are back to what
they were before any client; that SIGTERM stops it cleanly; and that the
kernel's free and reserved 2 MiB pages are back where they were.
It fails (exit 1) if any client saw a non-zero byte, a page is leaked, a
reply or descriptor broke the protocol, a bad client got anything but its
refusal, a client hung, or the daemon died by itself or stopped serving.
Nothing about speed is asserted: the figures are reported only, and every
time bound is a hang-catcher. Exit 77 (skipped) where the pages cannot be
had (not root, no hugetlb, the kernel gives too few).

Usage: serve_soak.py PAGECLEAR [--soak SECONDS] [--clients N] [--seed N]
                     [--json FILE]
  default: a 10 s run (ctest's serve_soak); --soak SECONDS for a long one.
"""
import argparse
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import lock as locks  # noqa: E402
import serve_soak_run as run  # noqa: E402

HP = "/sys/kernel/mm/hugepages/hugepages-2048kB"
LOCK = os.environ.get("PAGECLEAR_HUGETLB_LOCK", "/tmp/pageclear-hugetlb.lock")
SKIP = 77
# Pages of 2 MiB to add for the run: the reserve's, and 4 for each client
# at once, a little under what a request asks for on average (4.7 pages,
# from serve_soak_run.SIZES): at peaks the kernel runs out, and the
# daemon's ways through that run too (ENOMEM replies, a reserve filled
# short and refilled later). The run needs at least the reserve and a page
# per client, else it is skipped.
PAGES_PER_CLIENT = 4


class Interrupted(Exception):
    pass


def on_signal(signum, _frame):
    raise Interrupted(signum)


def read_int(path):
    with open(path) as f:
        return int(f.read())


def write_int(path, value):
    with open(path, "w") as f:
        f.write("%d\n" % value)


def take_lock():
    """The hugetlb lock, unless an ancestor holds it: (fd or None)."""
    return locks.take(LOCK, "waiting for %s (another run reserves huge pages)" % LOCK)


def start_guardian():
    """A process that cleans up after this one if it dies without doing so
    (SIGKILL, a ctest timeout): it reads 'old=N', 'tmp=DIR' and 'restored'
    from a pipe; at the pipe's end (when this process and its clients are
    gone: the daemon and clients die with it) it writes N back unless told
    'restored', and removes DIR. It ignores the terminal's signals and
    leaves the process group, so a ^C reaches only us. 'cg=DIR' names a
    cgroup of the run (tests/stress/serve_hostile.py's): its processes are
    killed and it is removed, the deepest first; 'enabled=FILE' a
    cgroup.subtree_control the run wrote +hugetlb to, and gives back unless
    told 'disabled=FILE'. Returns its pid and the pipe's write end."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(w)
            os.setsid()
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(s, signal.SIG_IGN)
            data = b""
            while chunk := os.read(r, 4096):
                data += chunk
            words = data.decode().split("\n")
            old = [int(x[4:]) for x in words if x.startswith("old=")]
            if old and "restored" not in words:
                write_int(HP + "/nr_hugepages", old[-1])
            for x in words:
                if x.startswith("tmp="):
                    shutil.rmtree(x[4:], ignore_errors=True)
            remove_cgroups(sorted((x[3:] for x in words if x.startswith("cg=")), reverse=True))
            for x in words:  # a controller the run enabled, disabled again
                if x.startswith("enabled=") and "disabled=" + x[8:] not in words:
                    try:
                        with open(x[8:], "w") as f:
                            f.write("-hugetlb")
                    except OSError:
                        pass
        except BaseException:  # noqa: B036 - nothing may escape into the soak's code
            code = 1
        finally:
            os._exit(code)
    os.close(r)
    return pid, w


def remove_cgroups(dirs):
    """Kill what is left in each cgroup and remove it (a hang-catcher's
    bound on each: the kernel reaps a killed process at once)."""
    for d in dirs:
        if not os.path.isdir(d):
            continue
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                with open(os.path.join(d, "cgroup.procs")) as f:
                    pids = [int(x) for x in f.read().split()]
                for p in pids:
                    os.kill(p, signal.SIGKILL)
                os.rmdir(d)
                break
            except OSError:
                time.sleep(0.05)


class Pages:
    """nr_hugepages, raised for the run and restored (by the guardian too,
    if this process dies first)."""

    def __init__(self, guardian):
        self.guardian = guardian
        self.old = None

    def raise_by(self, need):
        """The pages the kernel gave (it may give fewer than asked)."""
        old = read_int(HP + "/nr_hugepages")
        os.write(self.guardian, b"old=%d\n" % old)
        self.old = old
        write_int(HP + "/nr_hugepages", old + need)
        return read_int(HP + "/nr_hugepages") - old

    def restore(self):
        if self.old is not None:
            write_int(HP + "/nr_hugepages", self.old)
            os.write(self.guardian, b"restored\n")
            self.old = None


def pages_now():
    return read_int(HP + "/free_hugepages"), read_int(HP + "/resv_hugepages")


def settle_pages(free0, rsvd0):
    """Wait (a bounded moment: the kernel frees a dead process's pages as
    it reaps it) for the counts to come back; the pages leaked."""
    end = time.monotonic() + run.SETTLE_S
    while True:
        free, rsvd = pages_now()
        if (free, rsvd) == (free0, rsvd0) or time.monotonic() > end:
            return {"free": free0 - free, "rsvd": rsvd - rsvd0}
        time.sleep(0.1)


def percentile(values, q):
    if not values:
        return None
    v = sorted(values)
    return v[max(0, min(len(v) - 1, -(-len(v) * q // 100) - 1))]


def spread(values):
    return {"n": len(values), "p50": percentile(values, 50), "p99": percentile(values, 99),
            "max": max(values) if values else None}


def summary(s, args, leaked, pages):
    lat = [x / 1e6 for x in s.latencies]
    return {
        "seconds": round(s.run_seconds, 1), "clients": args.clients, "seed": args.seed,
        "pages_reserved": pages, "reserve_MiB": list(run.RESERVE_MIB),
        "cycles": {"started": s.started, "ok": s.ok, "ok_via_get": s.ok_get,
                   "per_second": round(s.ok / s.run_seconds, 1) if s.run_seconds else 0},
        "get_latency_ms": spread(lat),
        "daemon_grant_ms": {k: spread(v) for k, v in s.grant_times().items()},
        "killed": dict(sorted(s.killed.items())),
        "errors": dict(sorted(s.errors.items())),
        "bad_clients": dict(sorted(s.garbage.items())),
        "restart_window_s": s.window_seconds(), "restart_s": s.timeline(),
        "longest_cycle_s": round(s.longest, 2),
        "leaked_pages": leaked, "nonzero_bytes": s.nonzero,
        "failures": s.failures,
    }


def print_summary(r):
    lat = r["get_latency_ms"]
    fmt = (lambda x: "-" if x is None else "%.2f" % x)
    print("soak: %s s, %d clients at once, seed %d, %d huge pages reserved"
          % (r["seconds"], r["clients"], r["seed"], r["pages_reserved"]))
    c = r["cycles"]
    print("cycles: %d started, %d ok (%d via pageclear get): %s per second"
          % (c["started"], c["ok"], c["ok_via_get"], c["per_second"]))
    print("get latency (request sent to descriptor received, %d gets): p50 %s ms, "
          "p99 %s ms, max %s ms" % (lat["n"], fmt(lat["p50"]), fmt(lat["p99"]), fmt(lat["max"])))
    for k, v in r["daemon_grant_ms"].items():
        print("the daemon's time per grant %s (%d): p50 %s ms, p99 %s ms, max %s ms"
              % ("from the reserve" if k == "reserve" else "filled at request time", v["n"],
                 fmt(v["p50"]), fmt(v["p99"]), fmt(v["max"])))
    print("killed clients: %s" % (r["killed"] or "none"))
    print("errors by kind: %s" % (r["errors"] or "none"))
    print("bad clients: %s" % r["bad_clients"])
    t = r["restart_s"]
    print("restart window: %s s (killed at %s s, started again at %s s, served at %s s); "
          "longest cycle %s s" % (r["restart_window_s"], t["killed"], t["restarted"],
                                  t["served_again"], r["longest_cycle_s"]))
    print("huge pages leaked: %d free, %d reserved; non-zero bytes handed out: %d"
          % (r["leaked_pages"]["free"], r["leaked_pages"]["rsvd"], r["nonzero_bytes"]))
    for f in r["failures"]:
        print("FAIL: " + f)


def ms(x):
    """A time in ms for the table: 3 significant digits."""
    return "-" if x is None else "%.3g" % x


def markdown(files):
    """docs/serve.md's table, a column per run, from --json files."""
    runs = []
    for name in files:
        with open(name) as f:
            runs.append(json.load(f))

    def errors(r, pick):
        return sum(n for k, n in r["errors"].items() if pick(k))

    def restart(k):
        return k.startswith("restart:")
    rows = [
        ("run (s), clients at once", lambda r: "%s, %d" % (r["seconds"], r["clients"])),
        ("cycles completed (through `pageclear get`)",
         lambda r: "%d (%d)" % (r["cycles"]["ok"], r["cycles"]["ok_via_get"])),
        ("cycles per second", lambda r: "%s" % r["cycles"]["per_second"]),
        ("get latency p50 / p99 (ms)", lambda r: "%s / %s" % (
            ms(r["get_latency_ms"]["p50"]), ms(r["get_latency_ms"]["p99"]))),
        ("the daemon's time per grant p50 / p99 (ms): from the reserve; filled then",
         lambda r: "; ".join("%s / %s" % (ms(r["daemon_grant_ms"][k]["p50"]),
                                           ms(r["daemon_grant_ms"][k]["p99"]))
                             for k in ("reserve", "fill"))),
        ("clients killed: before sending / after / with the fd / holding / at random",
         lambda r: " / ".join(str(r["killed"].get(k, 0)) for k in
                              ("before_send", "after_send", "after_fd", "holding", "random"))),
        ("bad clients (floods of %d connections)" % run.client.FLOOD, lambda r: "%d (%d)" % (
            sum(r["bad_clients"].values()), r["bad_clients"].get("flood", 0))),
        ("refused: busy / no memory / over uid 65534's quota", lambda r: "%d / %d / %d" % tuple(
            errors(r, lambda k, w=w: w in k and not restart(k))
            for w in ("status_busy", "status_nomem", "status_quota"))),
        ("daemon killed: window to its successor's first cycle (s), errors in it",
         lambda r: "%s, %d" % (r["restart_window_s"], errors(r, restart))),
        ("other errors", lambda r: "%d" % errors(r, lambda k: not restart(k) and not any(
            w in k for w in ("status_busy", "status_nomem", "status_quota")))),
        ("huge pages leaked", lambda r: "%d" % (r["leaked_pages"]["free"] +
                                                r["leaked_pages"]["rsvd"])),
        ("non-zero bytes handed out", lambda r: "%d" % r["nonzero_bytes"]),
    ]
    print("| | " + " | ".join("%s s" % r["seconds"] for r in runs) + " |")
    print("|---|" + "---|" * len(runs))
    for name, cell in rows:
        print("| %s | %s |" % (name, " | ".join(cell(r) for r in runs)))


def soak(args, tmp, pages):
    reserve = sum(run.RESERVE_MIB) // 2
    need = reserve + args.clients * PAGES_PER_CLIENT
    got = pages.raise_by(need)
    if got < reserve + args.clients:
        print("skip: the kernel gave %d more huge pages, the run needs %d" % (got, need))
        return SKIP
    free0, rsvd0 = pages_now()
    s = run.Soak(args.pageclear, tmp, args.clients, random.Random(args.seed))
    if s.start():
        s.loop(args.soak)
        s.final_checks()
    s.check_log()
    leaked = settle_pages(free0, rsvd0)
    if leaked != {"free": 0, "rsvd": 0}:
        s.fail("huge pages not given back: %d free, %d reserved" % (leaked["free"], leaked["rsvd"]))
    if s.nonzero:
        s.fail("%d non-zero bytes handed to clients" % s.nonzero)
    r = summary(s, args, leaked, got)
    print_summary(r)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1)
    if s.failures:
        s.show_log()
    if args.log:
        shutil.copyfile(s.log, args.log)
    return 1 if s.failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pageclear", nargs="?")
    ap.add_argument("--soak", type=float, default=10.0, metavar="SECONDS")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "little"))
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--log", metavar="FILE", help="keep the daemon's log there")
    ap.add_argument("--markdown", nargs="+", metavar="JSON",
                    help="print docs/serve.md's table of these runs' --json, and exit")
    args = ap.parse_args()
    if args.markdown:
        return markdown(args.markdown)
    if args.pageclear is None:
        ap.error("the pageclear binary is required")
    if not os.access(HP + "/nr_hugepages", os.W_OK):
        print("skip: cannot reserve 2 MiB hugetlb pages here (not root?)")
        return SKIP
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    lock = tmp = guardian = pages = None
    rc = 1
    try:
        lock = take_lock()
        guardian_pid, guardian = start_guardian()
        pages = Pages(guardian)
        tmp = tempfile.mkdtemp(prefix="pc-serve-soak.", dir="/tmp")
        os.write(guardian, b"tmp=%s\n" % tmp.encode())
        os.chmod(tmp, 0o711)  # the other uid reaches the socket, lists nothing
        rc = soak(args, tmp, pages)
    except Interrupted as e:
        print("soak: interrupted by signal %d; cleaning up" % e.args[0], file=sys.stderr)
        rc = 128 + e.args[0]
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        run.kill_all()
        if pages is not None:
            pages.restore()
        if guardian is not None:
            os.close(guardian)
            os.waitpid(guardian_pid, 0)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if lock is not None:
            os.close(lock)
    return rc


if __name__ == "__main__":
    sys.exit(main())
