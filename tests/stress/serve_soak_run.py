# SPDX-License-Identifier: MIT OR Apache-2.0
"""The run of tests/stress/serve_soak.py: the daemon's processes, the clients'
(forked from this single-threaded process, one per cycle), what they
report, and the checks at the end. Every time bound here is a
hang-catcher, far above what a cycle takes on a loaded machine."""
import json
import os
import select
import signal
import sys
import time
import traceback
from collections import Counter

import serve_soak_client as client
from serve_soak_daemon import (OTHER_QUOTA, OTHER_UID, REQUEST_TIMEOUT, RESERVE_MIB,  # noqa: F401
                               SETTLE_S, DaemonControl, die_with_parent, kill_daemons)

# Sizes clients ask for, with weights: odd sizes (rounded up), within the
# reserve's blocks, and beyond its largest (filled at request time).
SIZES = ((1, 5), (2 << 20, 15), ((2 << 20) + 1, 10), (3 << 20, 10), (4 << 20, 10),
         (6 << 20, 10), (8 << 20, 10), (12 << 20, 5), (16 << 20, 5),
         (20 << 20, 8), (24 << 20, 6), (32 << 20, 6))
BAD_AT_ONCE = 4         # bad clients alongside the good ones
P_VIA_GET = 0.25        # cycles through `pageclear get` (the library's client)
P_SELF_KILL = 0.3       # cycles that SIGKILL themselves at a protocol point
P_KILLED = 0.05         # cycles the soak SIGKILLs at a random moment
P_RESERVE_ONLY = 0.05   # requests with the reserve-only flag
P_OTHER_UID = 0.15      # protocol cycles as OTHER_UID (serve_soak_daemon)
HOLD_MAX_S = 0.1        # a client holds its memory up to this long
# A flood of connections (a bad client's) holds the daemon at its limit
# for its request_timeout; one at most this often: busy a tenth of the time.
FLOOD_EVERY_S = 20
# Hang-catchers, 18 to 36 times the longest cycle (fork to exit) seen,
# 3.3 s: a TSan build of the daemon on a loaded 2-core machine (the soak:
# docs/serve.md, "Soak").
HANG_S = 120            # a client's whole life
STALL_S = 60            # the daemon serves no cycle for this long: it stopped
RESTART_S = 60          # the restarted daemon serves within this long
CID = object()     # Soak.probe's stand-in for a client's id
_children = set()  # the clients forked and not yet reaped, for kill_all()


def kill_all():
    """SIGKILL and reap every process this run started (any way out)."""
    for pid in list(_children):
        os.kill(pid, signal.SIGKILL)  # ours and not reaped: cannot be another's
        os.waitpid(pid, 0)
    _children.clear()
    kill_daemons()


class Proc:
    """A client process: what it was told to do and when it must end."""

    def __init__(self, cid, t0, kind, want=None, kill_at=None, flags=0, uid=0):
        self.cid, self.t0, self.kind, self.want, self.flags = cid, t0, kind, want, flags
        self.uid = uid
        self.result = None  # "ok", or what went wrong
        self.kill_at = kill_at
        self.deadline = t0 + HANG_S
        self.killed_by_us = self.hung = False


class Soak(DaemonControl):
    def __init__(self, pageclear, tmp, clients, rnd):
        self.bin, self.tmp, self.nclients, self.rnd = pageclear, tmp, clients, rnd
        self.sock = os.path.join(tmp, "sock")
        self.log = os.path.join(tmp, "log")
        os.environ["PAGECLEAR_SOCKET"] = self.sock
        self.me = os.getpid()
        self.rep_r, self.rep_w = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(self.rep_r, False)
        self.buf = b""
        self.records = {}
        self.procs = {}  # pid -> Proc
        self.next_id = 0
        self.daemon = None
        self.started = self.ok = self.ok_get = self.nonzero = 0
        self.latencies, self.failures = [], []
        self.killed, self.errors, self.garbage = Counter(), Counter(), Counter()
        self.t_kill = self.t_restart = self.window_end = None
        self.run_seconds = self.longest = 0.0
        self.t0 = time.monotonic()
        self.last_ok = time.monotonic()
        self.last_flood = -FLOOD_EVERY_S

    def fail(self, why):
        if why not in self.failures:
            self.failures.append(why)

    # -- clients ---------------------------------------------------------
    def fork(self, proc, fn, *args):
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                if proc.uid != 0:  # before the death signal: a change of uid clears it
                    os.setgroups([])
                    os.setgid(proc.uid)
                    os.setuid(proc.uid)
                die_with_parent()
                if os.getppid() != self.me:
                    os._exit(0)
                for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                    signal.signal(s, signal.SIG_DFL)
                fn(*args)
            except BaseException:  # noqa: B036 - a child never returns into the soak
                traceback.print_exc()
                code = 3
            finally:
                os._exit(code)
        self.procs[pid] = proc
        _children.add(pid)

    def get_exec(self, cid, size, flags, hold):
        """The child of a cycle through `pageclear get`: it becomes it."""
        err = os.open(self.err_file(cid), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(err, 1)
        os.dup2(err, 2)
        os.set_inheritable(self.rep_w, True)
        argv = [self.bin, "get", str(size)] + (["--reserve-only"] if flags else [])
        argv += ["--", sys.executable, "-I", "-S", client.__file__, "check", str(cid),
                 str(self.rep_w), str(size), "%.3f" % hold]
        os.execv(self.bin, argv)

    def spawn_cycle(self, now):
        r = self.rnd
        cid, self.next_id = self.next_id, self.next_id + 1
        size = r.choices([s for s, _ in SIZES], [w for _, w in SIZES])[0]
        flags = 1 if r.random() < P_RESERVE_ONLY else 0
        hold = r.uniform(0, HOLD_MAX_S)
        kill_at = now + r.uniform(0, 0.05) if r.random() < P_KILLED else None
        self.started += 1
        if r.random() < P_VIA_GET:
            self.fork(Proc(cid, now, "get", kill_at=kill_at, flags=flags), self.get_exec, cid,
                      size, flags, hold)
            return
        fate = r.choice(client.KILL_POINTS) if r.random() < P_SELF_KILL else "none"
        uid = OTHER_UID if r.random() < P_OTHER_UID else 0
        self.fork(Proc(cid, now, "cycle", kill_at=kill_at, flags=flags, uid=uid), client.cycle,
                  self.rep_w, cid, self.sock, size, flags, fate, hold)

    def spawn_bad(self, now):
        cid, self.next_id = self.next_id, self.next_id + 1
        kind = self.rnd.choice(client.GARBAGE)
        if kind == "flood":  # one at a time, FLOOD_EVERY_S apart: busy part of the time
            if now < self.last_flood + FLOOD_EVERY_S:
                kind = "silent"
            else:
                self.last_flood = now
        msg, want = client.garbage_message(kind, self.rnd)
        self.garbage[kind] += 1
        self.fork(Proc(cid, now, "bad:" + kind, want=want), client.garbage, self.rep_w, cid,
                  self.sock, kind, msg, REQUEST_TIMEOUT + STALL_S)

    # -- what comes back -------------------------------------------------
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
            rec = json.loads(ln)
            self.records[rec["id"]] = rec

    def in_window(self, p):
        """Did p's life overlap the restart: from the kill to the first
        cycle served by the new daemon?"""
        return self.t_kill is not None and (self.window_end is None or p.t0 < self.window_end)

    def error(self, p, kind):
        p.result = kind
        tag = kind + ("(reserve only)" if p.flags and kind == "status_nomem" else "")
        tag += "(uid %d)" % p.uid if p.uid else ""
        self.errors[("restart:" if self.in_window(p) else "") + tag] += 1
        # A well-formed request the daemon calls malformed, or a page size
        # it has: wrong anywhere. A connection reset while the daemon
        # serves: it closed one with the request unread, losing its reply.
        if kind in ("status_proto", "status_version", "status_inval", "status_notsup"):
            self.fail("a well-formed request got %s" % kind)
        elif kind == "reset" and not self.in_window(p):
            self.fail("a client's connection was reset while the daemon served")

    def served(self, p, rec, now):
        p.result = "ok"
        self.ok += 1
        self.ok_get += p.kind == "get"
        self.last_ok = now
        if self.t_restart is not None and self.window_end is None and p.t0 > self.t_restart:
            self.window_end = now

    def get_error(self, p):
        """Why `pageclear get` exited 1, from its message, by kind."""
        try:
            with open(self.err_file(p.cid), errors="replace") as f:
                msg = f.read()
        except FileNotFoundError:
            msg = ""
        for text, kind in (("no pageclear serve", "no_daemon"), ("busy", "status_busy"),
                           ("neither its reserve nor", "status_nomem"),
                           ("has no", "status_nomem"), ("quota", "status_quota"),
                           ("Connection reset", "reset"), ("Protocol error", "get_eproto")):
            if text in msg:
                return kind, msg.strip()
        return "get_other", msg.strip()

    def err_file(self, cid):
        return os.path.join(self.tmp, "get-%d.err" % cid)

    def finish_cycle(self, p, rec, status, now):
        self.longest = max(self.longest, now - p.t0)
        if p.kind == "get":
            self.finish_get(p, rec, status, now)
            try:
                os.unlink(self.err_file(p.cid))
            except FileNotFoundError:
                pass  # killed before it made it
            return
        self.finish_one(p, rec, status, now)

    def finish_get(self, p, rec, status, now):
        """A cycle through `pageclear get`: its error is in its message."""
        if rec is None and not p.killed_by_us and os.WIFEXITED(status) and \
                os.WEXITSTATUS(status) == 1:
            kind, msg = self.get_error(p)
            self.error(p, kind)
            if kind in ("get_eproto", "get_other"):
                self.fail("pageclear get: %s" % msg)
            return
        self.finish_one(p, rec, status, now)

    def finish_one(self, p, rec, status, now):
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        ev = rec["ev"] if rec else None
        if ev in ("ok", "killed"):
            self.nonzero += rec.get("nonzero", 0)
            if rec.get("lat", -1) >= 0:
                self.latencies.append(rec["lat"])
        if ev == "ok":
            self.served(p, rec, now)
        elif ev == "killed":
            self.killed[rec["at"]] += 1
        elif ev == "error":
            self.error(p, rec["kind"])
        elif ev == "bad":
            self.fail("client %d (%s): %s" % (p.cid, p.kind, rec.get("why", rec.get("kind"))))
        elif p.killed_by_us:
            self.killed["random"] += 1
        else:
            self.fail("client %d (%s) ended with no report: %s" % (
                p.cid, p.kind, "signal %d" % sig if sig else "exit %d" % os.WEXITSTATUS(status)))

    def finish_bad(self, p, rec):
        got = rec["got"] if rec else "killed" if p.killed_by_us else "no report"
        ok = got == p.want or p.want is None or got == "status_busy"
        # While the daemon restarts, a connection refused or cut is its answer.
        ok = ok or (self.in_window(p) and got in ("no_socket", "refused", "reset", "eof"))
        ok = ok and got not in ("descriptors", "bad_reply", "kept_open", "no report")
        if not ok:
            self.fail("bad client %s got %s, want %s" % (p.kind[4:], got, p.want))

    def reap(self, now):
        exited = []
        for pid, p in self.procs.items():
            if p.kill_at is not None and now >= p.kill_at and not p.killed_by_us:
                p.killed_by_us = True
                os.kill(pid, signal.SIGKILL)
            elif now >= p.deadline and not p.hung:
                p.hung = p.killed_by_us = True
                self.fail("client %d (%s) still running after %d s: killed" % (p.cid, p.kind,
                                                                              HANG_S))
                os.kill(pid, signal.SIGKILL)
            got, status = os.waitpid(pid, os.WNOHANG)
            if got:
                exited.append((pid, status))
        self.drain()  # after the reaping: an exited client's record is in the pipe
        for pid, status in exited:
            p = self.procs.pop(pid)
            _children.discard(pid)
            rec = self.records.pop(p.cid, None)
            if p.kind.startswith("bad:"):
                self.finish_bad(p, rec)
            else:
                self.finish_cycle(p, rec, status, now)

    def check_daemon(self, now):
        """False if the run must end now: the daemon died by itself, or
        stopped serving."""
        if not self.daemon_down and self.daemon.poll() is not None:
            self.fail("the daemon exited by itself: status %d" % self.daemon.returncode)
            return False
        if self.t_kill is not None and self.window_end is None:
            if now - self.t_kill > RESTART_S:
                self.fail("the restarted daemon served nothing in %d s" % RESTART_S)
                return False
        elif now - max(self.last_ok, self.window_end or 0) > STALL_S:
            self.fail("no cycle served for %d s" % STALL_S)
            return False
        return True

    def step(self, now, spawn):
        if self.t_kill is None and spawn and now >= self.kill_time:
            self.kill_daemon(now)
        if self.t_kill is not None and self.t_restart is None and now >= self.restart_at:
            self.start_daemon()
            self.t_restart = time.monotonic()
        ncycles = sum(1 for p in self.procs.values() if not p.kind.startswith("bad:"))
        while spawn and ncycles < self.nclients:
            self.spawn_cycle(now)
            ncycles += 1
        while spawn and len(self.procs) - ncycles < BAD_AT_ONCE:
            self.spawn_bad(now)
        select.select([self.rep_r], [], [], 0.01)
        self.reap(time.monotonic())

    def loop(self, seconds):
        t0 = self.t0 = time.monotonic()
        self.last_ok = t0
        self.kill_time = t0 + seconds * self.rnd.uniform(0.35, 0.55)
        now = t0
        # Past the end only until the restarted daemon has served once
        # (check_daemon bounds that).
        while now < t0 + seconds or self.window_end is None:
            if not self.check_daemon(now):
                break
            self.step(now, True)
            now = time.monotonic()
        self.run_seconds = now - t0
        self.wait_all()  # the last clients end

    # -- after the run ---------------------------------------------------
    def final_checks(self):
        """The daemon serves after all that (bad clients first); its threads
        and descriptors are back; SIGTERM stops it cleanly."""
        if self.daemon_down or self.daemon.poll() is not None:
            return
        now = time.monotonic()
        for kind in ("short", "random", "with_fd", "bad_field"):
            cid, self.next_id = self.next_id, self.next_id + 1
            msg, want = client.garbage_message(kind, self.rnd)
            self.fork(Proc(cid, now, "bad:" + kind, want=want), client.garbage, self.rep_w,
                      cid, self.sock, kind, msg, REQUEST_TIMEOUT + STALL_S)
        self.wait_all()
        p = self.probe("get", self.get_exec, CID, 3 << 20, 0, 0.0)
        if p.result != "ok":
            self.fail("after the run, pageclear get was not served: %s" % p.result)
        # The other uid's whole quota: what its clients held is all given
        # back (the daemon releases a grant as it sees its process exit).
        end = time.monotonic() + SETTLE_S
        while True:
            p = self.probe("cycle", client.cycle, self.rep_w, CID, self.sock,
                           OTHER_QUOTA, 0, "none", 0.0, uid=OTHER_UID)
            if p.result == "ok" or p.result != "status_quota" or time.monotonic() > end:
                break
            time.sleep(0.2)
        if p.result != "ok":
            self.fail("after the run, uid %d could not take its quota of %d MiB: %s"
                      % (OTHER_UID, OTHER_QUOTA >> 20, p.result))
        self.settle_daemon()
        self.stop_daemon()

    def wait_all(self):
        while self.procs:
            self.step(time.monotonic(), False)

    def probe(self, kind, fn, *args, uid=0):
        """One client of the checks after the run, to its end; CID in args
        stands for its id."""
        p = Proc(self.next_id, time.monotonic(), kind, uid=uid)
        self.next_id += 1
        self.fork(p, fn, *(p.cid if a is CID else a for a in args))
        self.wait_all()
        return p

    def window_seconds(self):
        if self.t_kill is None or self.window_end is None:
            return None
        return round(self.window_end - self.t_kill, 2)

    def timeline(self):
        """When the daemon was killed, started again, and served again
        (seconds from the start of the run), for a window that looks odd."""
        return {k: None if t is None else round(t - self.t0, 2) for k, t in (
            ("killed", self.t_kill), ("restarted", self.t_restart),
            ("served_again", self.window_end))}
