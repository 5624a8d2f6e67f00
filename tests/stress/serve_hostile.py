#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Two tenants of `pageclear serve` that do not trust each other: one
well-behaved, one hostile (tests/stress/serve_hostile_clients.py has both). The
real daemon, with 2 MiB huge pages reserved for the run (as
tests/stress/serve_soak.py does, under the same lock and guardian), runs twice:
the well-behaved tenant alone, then with the hostile one beside it.

- the well-behaved tenant is uid 65533, in a cgroup of its own with no
  limit (where cgroup v2 has the hugetlb controller), and asks for whole
  blocks of the reserve, one at a time;
- the hostile one is uid 65534 with a quota of 16 MiB, in a cgroup whose
  hugetlb.2MB.max is 16 MiB: askers that fork a child to hold what they
  got and exit, requests of one byte against 64 MiB blocks, floods of
  connections, connections that wait before they ask, and garbage.

Measured: the well-behaved tenant's reserve hit rate and time to memory
(p50, p99) in both runs; the most the hostile tenant held at once (from
its holders' own reports, and its cgroup's hugetlb.2MB.current) against
its limit; pages leaked; non-zero bytes handed out. It fails if a byte
was not zero, a page leaked, the hostile tenant held more than its limit,
a garbage request got a descriptor, or the daemon died; and, with --pace
sync (the default), if the well-behaved tenant's hit rate with the
hostile one falls below 90% of its rate alone: it then waits for its
block to be refilled before it asks again, so its hit rate depends on the
design (who may take which block, whose pages a fill takes) and not on
the machine's speed. With --pace natural it asks at its own pace, and the
rates are reported only. Exit 77 where the pages cannot be had.

Usage: serve_hostile.py PAGECLEAR [--seconds S] [--pace sync|natural]
                        [--seed N] [--json FILE] [--log FILE]
       serve_hostile.py --markdown JSON...
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import serve_hostile_clients as hc  # noqa: E402
import serve_soak as soak  # noqa: E402
from serve_soak_daemon import _libc, die_with_parent  # noqa: E402

GOOD_UID, BAD_UID = 65533, 65534
GROUP = 65534          # the socket's group: both tenants are in it
BLOCK = 64 << 20       # the reserve's blocks, and what the good tenant asks for
BLOCKS = 2
BAD_LIMIT = 16 << 20   # the hostile tenant's quota and cgroup limit
TIMEOUT = 2            # request_timeout
# Pages for the run: the reserve, a block the good tenant holds, the
# hostile tenant's limit, and some slack.
PAGES = (BLOCKS * BLOCK + BLOCK + BAD_LIMIT) // (2 << 20) + 8
PR_SET_CHILD_SUBREAPER = 36
SAMPLE_S = 0.05
HANG_S = 60            # the tenants end this long after the run at most


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)


def children(exclude):
    """This process's children but exclude (pids), from /proc."""
    me, out = str(os.getpid()), []
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) not in exclude:
            try:
                with open("/proc/%s/stat" % d) as f:
                    if f.read().rsplit(")", 1)[1].split()[1] == me:
                        out.append(int(d))
            except (OSError, IndexError):
                continue
    return out


def kill_children(exclude):
    """SIGKILL and reap every child but exclude: the daemon, the tenants,
    and the holders this process became the parent of."""
    for pid in children(exclude):
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass


def cgroup_root():
    """cgroup v2's mount point if it has the hugetlb controller, else None."""
    with open("/proc/self/mountinfo") as f:
        for ln in f:
            w = ln.split()
            sep = w.index("-") if "-" in w else -1
            if sep > 0 and w[sep + 1] == "cgroup2" and w[3] == "/":
                try:
                    with open(os.path.join(w[4], "cgroup.controllers")) as c:
                        return w[4] if "hugetlb" in c.read().split() else None
                except OSError:
                    return None
    return None


class Cgroups:
    """A parent cgroup of the run's with the hugetlb controller, and the two
    tenants' below it; the guardian removes them if the run dies first."""

    def __init__(self, guardian):
        self.root = cgroup_root()
        self.good = self.bad = self.parent = self.enabled = None
        if self.root is None:
            return
        ctl = self.enabled = os.path.join(self.root, "cgroup.subtree_control")
        with open(ctl) as f:
            if "hugetlb" in f.read().split():
                self.enabled = None
            else:
                os.write(guardian, b"enabled=%s\n" % ctl.encode())
                write_text(ctl, "+hugetlb")
        self.parent = os.path.join(self.root, "pc-serve-hostile.%d" % os.getpid())
        self.good, self.bad = self.parent + "/good", self.parent + "/bad"
        for d in (self.parent, self.good, self.bad):
            os.write(guardian, b"cg=%s\n" % d.encode())
        os.mkdir(self.parent)
        write_text(self.parent + "/cgroup.subtree_control", "+hugetlb")
        os.mkdir(self.good)
        os.mkdir(self.bad)
        write_text(self.bad + "/hugetlb.2MB.max", str(BAD_LIMIT))

    def current(self):
        return soak.read_int(self.bad + "/hugetlb.2MB.current") if self.bad else 0

    def cpu_usec(self):
        if self.bad is None:
            return None
        with open(self.bad + "/cpu.stat") as f:
            return int(next(ln.split()[1] for ln in f if ln.startswith("usage_usec")))

    def remove(self, guardian):
        if self.parent is not None:
            soak.remove_cgroups([self.good, self.bad, self.parent])
        if self.enabled is not None:  # as it was before the run
            try:
                write_text(self.enabled, "-hugetlb")
            except OSError:
                pass
            os.write(guardian, b"disabled=%s\n" % self.enabled.encode())


class Run:
    """One run of the daemon with the good tenant, and the hostile one if
    asked; what their records say."""

    def __init__(self, args, tmp, cgroups, hostile):
        self.args, self.tmp, self.cg, self.hostile = args, tmp, cgroups, hostile
        self.sock, self.log = os.path.join(tmp, "sock"), os.path.join(tmp, "log")
        self.rep_r, self.rep_w = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(self.rep_r, False)
        self.buf, self.failures = b"", []
        self.good = {"cycles": 0, "hits": 0, "errors": 0, "lat": []}
        self.bad = {}
        self.held = {}     # the hostile holders' pid -> bytes
        self.max_held = self.max_current = self.nonzero = 0
        self.seconds, self.bad_cpu_s = 0.0, None

    def fail(self, why):
        if why not in self.failures:
            self.failures.append(why)

    def start_daemon(self):
        conf = os.path.join(self.tmp, "conf")
        with open(conf, "w") as f:
            f.write("socket = %s\nreserve.2M = %s\nconnections = 8\nrequest_timeout = %d\n"
                    "group = %d\nquota.%d = %dM\n" % (
                        self.sock, " ".join(["%dM" % (BLOCK >> 20)] * BLOCKS), TIMEOUT, GROUP,
                        BAD_UID, BAD_LIMIT >> 20))
        with open(self.log, "w") as log:
            self.daemon = subprocess.Popen(
                [self.args.pageclear, "serve", "--config", conf], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=log, preexec_fn=die_with_parent)
        end = time.monotonic() + hc.WAIT_S
        while time.monotonic() < end and self.daemon.poll() is None:
            if hc.log_count(self.log, "reserve of 2MiB pages full") > 0:
                return True
            time.sleep(0.05)
        self.fail("the daemon did not fill its reserve")
        return False

    def spawn(self, uid, cgroup, fn, *args):
        pid = os.fork()
        if pid:
            return pid
        code = 0
        try:
            if cgroup is not None:
                write_text(cgroup + "/cgroup.procs", "0")
            os.setgroups([GROUP])
            os.setgid(uid)
            os.setuid(uid)
            die_with_parent()
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(s, signal.SIG_DFL)
            fn(self.rep_w, *args)
        except BaseException:  # noqa: B036 - a child never returns into the run
            import traceback
            traceback.print_exc()
            code = 3
        finally:
            os._exit(code)

    def record(self, rec):
        ev = rec["ev"]
        if ev == "good":
            self.good["cycles"] += 1
            self.good["hits"] += rec["hit"]
            self.good["lat"].append(rec["lat"] / 1e3)
            self.nonzero += rec["nonzero"]
        elif ev == "good_error":
            self.good["errors"] += 1
        elif ev == "hold":
            self.held[rec["id"]] = rec["size"]
            self.nonzero += rec["nonzero"]
            self.max_held = max(self.max_held, sum(self.held.values()))
        elif ev == "unhold":
            self.held.pop(rec["id"], None)
        elif ev == "hostile":
            self.bad[rec["kind"]] = self.bad.get(rec["kind"], 0) + rec.get("n", 1)
            if rec["kind"] == "garbage_descriptors":
                self.fail("a garbage request got a descriptor")
        else:
            self.fail("a client: %s" % rec.get("why", rec))

    def drain(self):
        while True:
            try:
                chunk = os.read(self.rep_r, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        for ln in lines:
            self.record(json.loads(ln))

    def reap(self):
        """Every child that has ended (the holders too: this process is
        their subreaper). False once none is left."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.daemon.pid:
                self.daemon.returncode = status
            elif os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
                self.fail("a tenant's process failed (its traceback above)")

    def go(self):
        if not self.start_daemon():
            self.stop()
            return
        rnd = random.Random(self.args.seed + self.hostile)
        t0 = time.monotonic()
        deadline = t0 + self.args.seconds
        cpu0 = self.cg.cpu_usec()
        self.spawn(GOOD_UID, self.cg.good, hc.good, self.sock, BLOCK, deadline, self.log,
                   self.args.pace == "sync")
        if self.hostile:
            for which in hc.ATTACKS:
                self.spawn(BAD_UID, self.cg.bad, hc.hostile, self.sock, deadline, TIMEOUT, which,
                           rnd.randrange(1 << 30))
        end = deadline + HANG_S
        while time.monotonic() < end:
            self.drain()
            self.max_current = max(self.max_current, self.cg.current())
            if self.daemon.poll() is not None and self.daemon.returncode is not None:
                self.fail("the daemon died: status %s" % self.daemon.returncode)
                break
            if not self.reap_tenants():
                break
            time.sleep(SAMPLE_S)
        else:
            self.fail("the tenants did not end within %d s of the run's end" % HANG_S)
        self.seconds = time.monotonic() - t0
        cpu1 = self.cg.cpu_usec()
        self.bad_cpu_s = None if cpu0 is None else round((cpu1 - cpu0) / 1e6, 2)
        self.drain()
        self.stop()

    def reap_tenants(self):
        """Reap what ended; True while a tenant's process is left."""
        self.reap()
        return bool(children({self.daemon.pid, self.args.guardian_pid}))

    def stop(self):
        if self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
            try:
                if self.daemon.wait(timeout=60) != 0:
                    self.fail("the daemon exited %d on SIGTERM" % self.daemon.returncode)
            except subprocess.TimeoutExpired:
                self.daemon.kill()
                self.fail("the daemon did not stop on SIGTERM")
        os.close(self.rep_r)
        os.close(self.rep_w)

    def summary(self):
        g = self.good
        lat = soak.spread(g["lat"])
        return {"seconds": round(self.seconds, 1), "hostile": bool(self.hostile),
                "good": {"cycles": g["cycles"], "hits": g["hits"], "errors": g["errors"],
                         "hit_rate": round(g["hits"] / g["cycles"], 3) if g["cycles"] else None,
                         "latency_ms": {k: v if k == "n" or v is None else round(v, 2)
                                        for k, v in lat.items()}},
                "bad": dict(sorted(self.bad.items())), "bad_max_held": self.max_held,
                "bad_max_cgroup_current": self.max_current if self.cg.bad else None,
                "bad_cpu_s": self.bad_cpu_s, "nonzero_bytes": self.nonzero,
                "failures": self.failures}


def judge(solo, both, leaked, args):
    """The run's failures beyond each run's own."""
    bad = solo["failures"] + both["failures"]
    if both["bad_max_held"] > BAD_LIMIT:
        bad.append("the hostile tenant held %d bytes at once, past its limit of %d"
                   % (both["bad_max_held"], BAD_LIMIT))
    if (both["bad_max_cgroup_current"] or 0) > BAD_LIMIT:
        bad.append("the hostile tenant's cgroup was charged %d bytes, past %d"
                   % (both["bad_max_cgroup_current"], BAD_LIMIT))
    for r in (solo, both):
        if r["nonzero_bytes"]:
            bad.append("%d non-zero bytes handed out" % r["nonzero_bytes"])
        if not r["good"]["cycles"]:
            bad.append("the well-behaved tenant was served nothing")
    if leaked != {"free": 0, "rsvd": 0}:
        bad.append("huge pages not given back: %s" % leaked)
    s, b = solo["good"]["hit_rate"], both["good"]["hit_rate"]
    if args.pace == "sync" and s is not None and b is not None and b < 0.9 * s:
        bad.append("the well-behaved tenant's hit rate fell from %.3f alone to %.3f "
                   "beside the hostile one" % (s, b))
    return bad


def show(r):
    g, lat = r["good"], r["good"]["latency_ms"]
    print("%s: %s s; well-behaved: %d cycles, %d from the reserve (rate %s), %d errors, "
          "time to memory p50 %s ms, p99 %s ms" % (
              "with the hostile tenant" if r["hostile"] else "alone", r["seconds"], g["cycles"],
              g["hits"], g["hit_rate"], g["errors"], lat["p50"], lat["p99"]))
    if r["hostile"]:
        print("  hostile: most held at once %d MiB (its holders' reports), %s MiB (its cgroup), "
              "limit %d MiB; CPU in its cgroup %s s" % (
                  r["bad_max_held"] >> 20, "-" if r["bad_max_cgroup_current"] is None
                  else r["bad_max_cgroup_current"] >> 20, BAD_LIMIT >> 20, r["bad_cpu_s"]))
        print("  hostile requests by outcome: %s" % r["bad"])
    print("  non-zero bytes handed out: %d" % r["nonzero_bytes"])


def markdown(files):
    """docs/serve.md's table of --json runs, a column per file."""
    runs = []
    for name in files:
        with open(name) as f:
            runs.append(json.load(f))
    ms = (lambda x: "-" if x is None else "%.3g" % x)
    rows = [
        ("run (s): alone, beside the hostile tenant", lambda r: "%s, %s" % (
            r["alone"]["seconds"], r["hostile"]["seconds"])),
        ("well-behaved tenant's reserve hit rate: alone, beside it", lambda r: "%s, %s" % (
            r["alone"]["good"]["hit_rate"], r["hostile"]["good"]["hit_rate"])),
        ("its time to memory p50 / p99 (ms): alone; beside it", lambda r: "; ".join(
            "%s / %s" % (ms(x["good"]["latency_ms"]["p50"]), ms(x["good"]["latency_ms"]["p99"]))
            for x in (r["alone"], r["hostile"]))),
        ("hostile requests (forks, 1-byte, floods, slow, garbage)",
         lambda r: "%d" % sum(r["hostile"]["bad"].values())),
        ("of which served; over its quota or limit; refused as busy",
         lambda r: "; ".join("%d" % sum(n for k, n in r["hostile"]["bad"].items()
                                        if k.endswith(end))
                             for end in ("_ok", "_quota", "_busy"))),
        ("most the hostile tenant held at once (MiB): its reports, its cgroup; limit",
         lambda r: "%d, %s; %d" % (
             r["hostile"]["bad_max_held"] >> 20, "-" if r["hostile"]["bad_max_cgroup_current"]
             is None else r["hostile"]["bad_max_cgroup_current"] >> 20, BAD_LIMIT >> 20)),
        ("huge pages leaked", lambda r: "%d" % (r["leaked"]["free"] + r["leaked"]["rsvd"])),
        ("non-zero bytes handed out", lambda r: "%d" % (
            r["alone"]["nonzero_bytes"] + r["hostile"]["nonzero_bytes"])),
    ]
    print("| | " + " | ".join("%s, seed %s" % (r["pace"], r["seed"]) for r in runs) + " |")
    print("|---|" + "---|" * len(runs))
    for name, cell in rows:
        print("| %s | %s |" % (name, " | ".join(cell(r) for r in runs)))


def runs(args, tmp, pages, guardian):
    got = pages.raise_by(PAGES)
    if got < PAGES:
        print("skip: the kernel gave %d more huge pages, the run needs %d" % (got, PAGES))
        return soak.SKIP
    free0, rsvd0 = soak.pages_now()
    cg = Cgroups(guardian)
    try:
        out = {}
        for hostile in (0, 1):
            r = Run(args, tmp, cg, hostile)
            r.go()
            out["hostile" if hostile else "alone"] = r.summary()
            show(out["hostile" if hostile else "alone"])
    finally:
        cg.remove(guardian)
    leaked = soak.settle_pages(free0, rsvd0)
    res = {"pace": args.pace, "seed": args.seed, "cgroups": cg.root is not None,
           "leaked": leaked, **out}
    res["failures"] = judge(out["alone"], out["hostile"], leaked, args)
    print("huge pages leaked: %s; cgroups: %s" % (leaked, "yes" if cg.root else
                                                  "none (no hugetlb controller on cgroup v2)"))
    for f in res["failures"]:
        print("FAIL: " + f)
    if res["failures"]:
        with open(os.path.join(tmp, "log"), errors="replace") as f:
            print("--- the daemon's log, last 30 lines\n" + "".join(f.readlines()[-30:]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    if args.log:
        soak.shutil.copyfile(os.path.join(tmp, "log"), args.log)
    return 1 if res["failures"] else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pageclear", nargs="?")
    ap.add_argument("--seconds", type=float, default=8.0, help="each run's length")
    ap.add_argument("--pace", choices=("sync", "natural"), default="sync")
    ap.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "little"))
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--log", metavar="FILE", help="keep the daemon's log of the hostile run")
    ap.add_argument("--markdown", nargs="+", metavar="JSON")
    args = ap.parse_args()
    if args.markdown:
        return markdown(args.markdown)
    if args.pageclear is None:
        ap.error("the pageclear binary is required")
    if not os.access(soak.HP + "/nr_hugepages", os.W_OK):
        print("skip: cannot reserve 2 MiB hugetlb pages here (not root?)")
        return soak.SKIP
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, soak.on_signal)
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # the hostile holders come back to us
    lock = tmp = guardian = pages = guardian_pid = None
    rc = 1
    try:
        lock = soak.take_lock()
        guardian_pid, guardian = soak.start_guardian()
        args.guardian_pid = guardian_pid
        pages = soak.Pages(guardian)
        tmp = tempfile.mkdtemp(prefix="pc-serve-hostile.", dir="/tmp")
        os.write(guardian, b"tmp=%s\n" % tmp.encode())
        os.chmod(tmp, 0o711)  # the tenants reach the socket and the log, list nothing
        rc = runs(args, tmp, pages, guardian)
    except soak.Interrupted as e:
        print("serve_hostile: interrupted by signal %d; cleaning up" % e.args[0], file=sys.stderr)
        rc = 128 + e.args[0]
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        kill_children({guardian_pid} if guardian is not None else set())
        if pages is not None:
            pages.restore()
        if guardian is not None:
            os.close(guardian)
            os.waitpid(guardian_pid, 0)
        if tmp is not None:
            soak.shutil.rmtree(tmp, ignore_errors=True)
        if lock is not None:
            os.close(lock)
    return rc


if __name__ == "__main__":
    sys.exit(main())
