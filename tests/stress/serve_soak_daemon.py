# SPDX-License-Identifier: MIT OR Apache-2.0
"""The daemon under tests/stress/serve_soak.py: its configuration for the run,
its processes (started, killed, stopped), and what is read of it from
outside (its log, its threads and descriptors in /proc)."""
import ctypes
import os
import re
import signal
import subprocess
import time
from collections import Counter

# Blocks of the reserve (MiB of 2 MiB pages): 44 MiB in sizes requests fit
# several ways.
RESERVE_MIB = (16, 8, 8, 4, 4, 2, 2)
REQUEST_TIMEOUT = 2  # the daemon's request_timeout for this run (seconds)
# Some cycles run as another user, with a quota of its own that its clients
# reach often; after the run it must be able to take all of it again (every
# grant of its clients given back, however they died). 65534 is the
# overflow id (nobody/nogroup); the kernel needs no passwd entry for it.
OTHER_UID = 65534
OTHER_QUOTA = 16 << 20
# Hang-catchers (see serve_soak_run's).
START_S = 60   # the daemon makes its socket and fills its reserve
SETTLE_S = 30  # pages, threads, descriptors come back within this long
STOP_S = 60    # SIGTERM stops it within this long
# The daemon's log line for each grant, with its own time for it.
GRANT = re.compile(r"of 2MiB pages (from the reserve|filled at request time) in ([0-9.]+) ms$")
SANITIZER = re.compile(r"ERROR: \w+Sanitizer|WARNING: ThreadSanitizer|runtime error:")
PR_SET_PDEATHSIG = 1

_libc = ctypes.CDLL(None, use_errno=True)
_daemons = []  # every daemon process started (subprocess.Popen)


def die_with_parent():
    """Our death ends the child (a ctest timeout kills only this process)."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def kill_daemons():
    for d in _daemons:
        if d.poll() is None:
            d.kill()
            d.wait()


class DaemonControl:
    """The daemon's side of serve_soak_run.Soak (a mixin: it uses the
    Soak's tmp, log, rnd and fail())."""

    def start_daemon(self):
        conf = os.path.join(self.tmp, "conf")
        with open(conf, "w") as f:
            f.write("reserve.2M = %s\nconnections = 64\nrequest_timeout = %d\n"
                    "group = %d\nquota.%d = %dM\n"
                    % (" ".join("%dM" % m for m in RESERVE_MIB), REQUEST_TIMEOUT,
                       OTHER_UID, OTHER_UID, OTHER_QUOTA >> 20))
        with open(self.log, "a") as log:
            self.daemon = subprocess.Popen(
                [self.bin, "serve", "--config", conf], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
                preexec_fn=die_with_parent)
        _daemons.append(self.daemon)
        self.daemon_down = False

    def wait_log(self, text, count):
        """Until the log has count lines with text (START_S at most)."""
        end = time.monotonic() + START_S
        while time.monotonic() < end:
            with open(self.log, errors="replace") as f:
                if f.read().count(text) >= count:
                    return True
            if self.daemon.poll() is not None:
                break
            time.sleep(0.05)
        self.fail("the daemon did not log '%s' (%d times)" % (text, count))
        return False

    def daemon_state(self):
        """(threads, descriptors by kind but memfds, memfds) of the daemon."""
        pid = self.daemon.pid
        kinds, memfds = Counter(), 0
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except FileNotFoundError:
                continue
            if link.startswith("/memfd:"):
                memfds += 1
            else:  # socket:[123] -> socket:[], anon_inode:[pidfd] as it is
                kinds[re.sub(r"\[\d+\]", "[]", link)] += 1
        return len(os.listdir("/proc/%d/task" % pid)), kinds, memfds

    def start(self):
        """The daemon, its reserve full: False if not."""
        self.start_daemon()
        if not self.wait_log("reserve of 2MiB pages full", 1):
            return False
        self.baseline = self.daemon_state()
        return True

    def kill_daemon(self, now):
        os.kill(self.daemon.pid, signal.SIGKILL)
        self.daemon.wait()
        self.daemon_down = True
        self.t_kill = now
        # A moment with no daemon at all, of up to 0.3 s: clients see the
        # socket refuse, not only connections cut.
        self.restart_at = now + self.rnd.uniform(0, 0.3)

    def show_log(self):
        with open(self.log, errors="replace") as f:
            lines = f.read().splitlines()
        print("--- the daemon's log, last 40 of %d lines" % len(lines))
        print("\n".join(lines[-40:]))

    def check_log(self):
        """A sanitizer's report in the daemon's log (a build with one)."""
        with open(self.log, errors="replace") as f:
            for ln in f:
                if SANITIZER.search(ln):
                    self.fail("the daemon's log: " + ln.strip())
                    return

    def settle_daemon(self):
        """Its threads and descriptors but the reserve's back to what they
        were before any client, and no more memfds than blocks."""
        threads0, kinds0, _ = self.baseline
        end = time.monotonic() + SETTLE_S
        while True:
            threads, kinds, memfds = self.daemon_state()
            if threads == threads0 and kinds == kinds0 and memfds <= len(RESERVE_MIB):
                return
            if time.monotonic() > end:
                self.fail("the daemon holds %d threads (had %d), descriptors %s (had %s), "
                          "%d memfds (%d blocks)" % (threads, threads0, dict(kinds), dict(kinds0),
                                                     memfds, len(RESERVE_MIB)))
                return
            time.sleep(0.1)

    def stop_daemon(self):
        """SIGTERM: it stops within STOP_S, exit 0, with its stop line."""
        self.daemon.send_signal(signal.SIGTERM)
        try:
            rc = self.daemon.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            self.fail("the daemon did not stop in %d s after SIGTERM" % STOP_S)
            return
        if rc != 0:
            self.fail("the daemon exited %d on SIGTERM" % rc)
        with open(self.log, errors="replace") as f:
            if "stopped; every reserved page given back" not in f.read():
                self.fail("no stop line in the daemon's log")

    def grant_times(self):
        """The daemon's own time per grant (ms), by where the memory came
        from: {"reserve": [...], "fill": [...]}."""
        times = {"reserve": [], "fill": []}
        with open(self.log, errors="replace") as f:
            for ln in f:
                m = GRANT.search(ln)
                if m:
                    key = "reserve" if m.group(1) == "from the reserve" else "fill"
                    times[key].append(float(m.group(2)))
        return times
