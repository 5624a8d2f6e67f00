#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Programs people run, under the preload: each case an unmodified program
from a package (CPython, Perl, libstdc++, mimalloc, tcmalloc, jemalloc,
glibc, numpy, QEMU) doing the large zeroing it does in real use, timed
plain (no preload) and under `pageclear exec` in each first-touch mode
(populate is the default), the modes interleaved round by round. Each
program times its own operation (the process start is not in the figure);
the C++ cases' few lines of driver are scripts/real/vector.cc.

Writes JSON (schema pageclear-real-programs/1) that scripts/results_pages.py
turns into docs/results/real/NAME.md and README.md's short table. Run it
under the bench lock, nothing else measuring:

  flock /tmp/pageclear-bench.lock scripts/real_programs.py --rounds 7 \\
      > docs/results/real/data/NAME.json
  scripts/results_pages.py

A case whose program is missing is left out and said on stderr
(scripts/deps.sh real-programs installs them all).
With --serve GIB, one more case: QEMU started on GIB of 2 MiB huge pages,
preallocated fresh against a memfd from `pageclear get` (the daemon's
reserve of zeroed pages), by scripts/serve_qemu.sh under the hugetlb lock.
Usage: real_programs.py [--pageclear PATH] [--rounds N] [--only NAME,...]
                        [--serve GIB] [--list]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile
from typing import Callable, Dict, List, Optional

SRC = pathlib.Path(__file__).resolve().parent.parent
MODES = ("plain", "store", "populate", "skip")
GIB = 1 << 30
LIBDIR = pathlib.Path("/usr/lib") / f"{platform.machine()}-linux-gnu"

PY_TIMED = ("import time, sys\n"
            "{setup}\n"
            "t = time.perf_counter()\n"
            "{op}\n"
            "print((time.perf_counter() - t) * 1e3)\n")


def python() -> Optional[str]:
    """The Python that runs this script, resolved past shims (pyenv's is a
    shell script, whose own start would be timed with the program)."""
    return os.path.realpath(sys.executable)


class Case:
    def __init__(self, name: str, what: str, program: str, argv: Callable[[pathlib.Path], List[str]],
                 needs: List[str], note: str, env: Optional[Dict[str, str]] = None,
                 resident: bool = False) -> None:
        self.name, self.what, self.program, self.argv = name, what, program, argv
        self.needs, self.note, self.env, self.resident = needs, note, env or {}, resident


def py(setup: str, op: str) -> Callable[[pathlib.Path], List[str]]:
    return lambda tmp: [str(python()), "-c", PY_TIMED.format(setup=setup, op=op)]


def allocator(lib: str) -> Dict[str, str]:
    return {"LD_PRELOAD": str(LIBDIR / lib)} if lib else {}


def cases() -> List[Case]:
    calloc = lambda tmp: [str(tmp / "calloc_loop"), "3", str(10 ** 9)]
    return [
        Case("cxx-vector", "`std::vector<unsigned char> v(1 GiB)`", "libstdc++ (g++ -O2)",
             lambda tmp: [str(tmp / "vector"), "vector", str(GIB)], ["g++"],
             "operator new hands out fresh memory (glibc's mmap); libstdc++ then "
             "stores zeros over every page the kernel has just zeroed", resident=True),
        Case("cxx-new-array", "`new double[1 GiB / 8]()`", "libstdc++ (g++ -O2)",
             lambda tmp: [str(tmp / "vector"), "array", str(GIB)], ["g++"],
             "the same through operator new[]", resident=True),
        Case("python-bytearray", "`bytearray(1 << 30)`", "CPython",
             py("", "b = bytearray(1 << 30)"), [],
             "CPython allocates, then memsets: a first touch"),
        Case("perl-string", "`$x = \"\\0\" x (1 << 30)`", "Perl", lambda tmp: [
             "perl", "-MTime::HiRes=time", "-e",
             'my $t = time; my $x = "\\0" x (1 << 30); printf "%f\\n", (time - $t) * 1e3'],
             ["perl"], "little or no gain: the repetition is one memset of fresh memory, but the "
             "assignment then copies the string into a second fresh GiB with memcpy, which "
             "the preload does not touch and which takes most of the time"),
        Case("mimalloc-calloc", "`calloc(1, 1e9)` + `free`, per call", "mimalloc 2.0",
             calloc, ["libmimalloc.so.2"],
             "mimalloc zeroes a large calloc with memset unless it knows the memory fresh",
             env=allocator("libmimalloc.so.2")),
        Case("tcmalloc-calloc", "`calloc(1, 1e9)` + `free`, per call", "gperftools tcmalloc",
             calloc, ["libtcmalloc_minimal.so.4"],
             "tcmalloc's calloc always memsets", env=allocator("libtcmalloc_minimal.so.4")),
        Case("jemalloc-calloc", "`calloc(1, 1e9)` + `free`, per call", "jemalloc 5",
             calloc, ["libjemalloc.so.2"],
             "no gain: jemalloc knows fresh mmap memory is zero and makes no memset",
             env=allocator("libjemalloc.so.2")),
        Case("glibc-calloc", "`calloc(1, 1e9)` + `free`, per call", "glibc", calloc, [],
             "no gain: glibc's calloc of a fresh mmap chunk makes no memset"),
        Case("numpy-zeros", "`np.zeros(1 << 27)` (1 GiB)", "numpy",
             py("import numpy as np", "a = np.zeros(1 << 27)"), ["numpy"],
             "no gain: numpy asks calloc, which gets fresh zeroed memory"),
        Case("numpy-fill", "`a.fill(0)` of 1 GiB resident", "numpy",
             py("import numpy as np\na = np.ones(1 << 27)", "a.fill(0)"), ["numpy"],
             "no gain: numpy fills with its own loop, not memset"),
        Case("qemu-prealloc", "start a 2 GiB guest with `prealloc=on`, paused, then quit",
             "QEMU (TCG)", lambda tmp: [str(tmp / "qemu.sh")], ["qemu-system-x86_64"],
             "no gain: QEMU preallocates with MADV_POPULATE_WRITE, no memset; a reserve "
             "of zeroed huge pages is what speeds it (docs/serve.md, scripts/serve_qemu.sh)"),
    ]


QEMU = """#!/bin/sh
t0=$(date +%s%N)
echo quit | qemu-system-x86_64 -S -nodefaults -display none -monitor stdio -cpu max \\
    -machine pc,accel=tcg,memory-backend=mem -m 2G \\
    -object memory-backend-ram,id=mem,size=2G,prealloc=on >/dev/null || exit 1
t1=$(date +%s%N)
echo $(( (t1 - t0) / 1000 )) | awk '{print $1 / 1000}'
"""


def available(c: Case) -> Optional[str]:
    """None, or what the case needs and lacks."""
    for n in c.needs:
        if n == "numpy":
            ok = subprocess.run([str(python()), "-c", "import numpy"], capture_output=True).returncode == 0
        elif n.endswith(".so.2") or n.endswith(".so.4"):
            ok = (LIBDIR / n).exists()
        else:
            ok = shutil.which(n) is not None
        if not ok:
            return n
    return None


def build(tmp: pathlib.Path, want: List[Case]) -> None:
    if any(c.name.startswith("cxx") for c in want):
        subprocess.run(["g++", "-O2", str(SRC / "scripts/real/vector.cc"), "-o", str(tmp / "vector")],
                       check=True)
    if any(c.name.endswith("calloc") for c in want):
        subprocess.run(["cc", "-O2", str(SRC / "tests/integration/preload/calloc_loop.c"), "-o",
                        str(tmp / "calloc_loop")], check=True)
    (tmp / "qemu.sh").write_text(QEMU)
    (tmp / "qemu.sh").chmod(0o755)


def run_once(c: Case, mode: str, pageclear: str, tmp: pathlib.Path) -> Dict[str, float]:
    """One run: its figure (ms; per call, the median of the calls) and,
    where the program says, the share of its memory resident after."""
    env = dict(os.environ, **c.env)
    env.pop("PAGECLEAR_PRELOAD_STATS", None)
    argv = c.argv(tmp)
    if mode != "plain":
        argv = [pageclear, "exec", "--first-touch", mode, "--", *argv]
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"{c.name} ({mode}): exit {p.returncode}: {p.stderr.strip()[-400:]}")
    lines = p.stdout.split()
    figures = sorted(float(x) for x in lines if x.replace(".", "", 1).isdigit())
    out = {"ms": figures[len(figures) // 2] / (1e6 if c.name.endswith("calloc") else 1)}
    if "resident" in lines:
        out["resident"] = float(lines[lines.index("resident") + 1].rstrip("%"))
    return out


SERVE_NOTE = ("QEMU preallocates a hugetlb memfd by faulting every page, which the kernel "
              "zeroes; a memfd from the daemon's reserve was zeroed ahead of time, so "
              "`pageclear get` leaves only the page tables (docs/startup.md)")


def serve_case(pageclear: str, gib: int, rounds: int) -> Optional[dict]:
    """QEMU's start on fresh huge pages against the daemon's (serve_qemu.sh,
    which reserves the pages and gives them back), or None if it cannot run."""
    p = subprocess.run(["flock", "/tmp/pageclear-hugetlb.lock", str(SRC / "scripts/serve_qemu.sh"),
                        pageclear, str(gib), str(rounds)], capture_output=True, text=True)
    runs = {l.split(":")[0][5:]: [float(x) for x in l.split(":")[1].split()]
            for l in p.stdout.splitlines() if l.startswith("runs ")}
    if p.returncode != 0 or not runs.get("fresh") or not runs.get("service"):
        print(f"real_programs: qemu-serve left out: {(p.stdout + p.stderr).strip()[-300:]}",
              file=sys.stderr)
        return None
    return {"name": "qemu-serve", "program": "QEMU (TCG)", "unit": "ms", "note": SERVE_NOTE,
            "what": f"start a {gib} GiB guest on 2 MiB huge pages, `prealloc=on`, paused, then quit",
            "runs": {"plain": runs["fresh"], "serve": runs["service"]}}


def header(pageclear: str, rounds: int) -> dict:
    def out(*argv: str) -> str:
        p = subprocess.run(argv, capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else ""
    info = {l.split(":", 1)[0]: l.split(":", 1)[1].strip()
            for l in out(pageclear, "info").splitlines() if ":" in l}
    return {"cpu": info.get("cpu", "unknown"), "kernel": platform.release(),
            "libc": "glibc " + platform.libc_ver()[1], "thp": info.get("thp", "unknown"),
            "cpus": os.cpu_count(), "pageclear": out(pageclear, "--version").split()[-1],
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "rounds": rounds, "command": "scripts/real_programs.py " + " ".join(sys.argv[1:])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pageclear", default=str(SRC / "build/cli/pageclear"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--serve", type=int, default=0, metavar="GIB")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    all_cases = cases()
    if a.list:
        for c in all_cases:
            print(f"{c.name:18} {c.program}: {c.what}")
        return 0
    want = [c for c in all_cases if not a.only or c.name in a.only.split(",")]
    if a.rounds < 1 or not want:
        ap.error("nothing to run")
    runnable = []
    for c in want:
        lack = available(c)
        if lack:
            print(f"real_programs: {c.name} left out: no {lack} (scripts/deps.sh real-programs)",
                  file=sys.stderr)
        else:
            runnable.append(c)
    runs: Dict[str, Dict[str, List[Dict[str, float]]]] = {c.name: {m: [] for m in MODES}
                                                          for c in runnable}
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        build(tmp, runnable)
        for r in range(a.rounds):
            for c in runnable:
                order = MODES[r % len(MODES):] + MODES[:r % len(MODES)]
                for mode in order:
                    runs[c.name][mode].append(run_once(c, mode, a.pageclear, tmp))
            print(f"real_programs: round {r + 1} of {a.rounds} done", file=sys.stderr)
    doc = {"schema": "pageclear-real-programs/1", "header": header(a.pageclear, a.rounds),
           "cases": [{"name": c.name, "what": c.what, "program": c.program, "note": c.note,
                      "unit": "ms", "runs": {m: [x["ms"] for x in runs[c.name][m]] for m in MODES},
                      **({"resident_percent": {m: [x.get("resident", 0) for x in runs[c.name][m]]
                                               for m in MODES}} if c.resident else {})}
                     for c in runnable]}
    served = serve_case(a.pageclear, a.serve, a.rounds) if a.serve > 0 else None
    if served is not None:
        doc["cases"].append(served)
    json.dump(doc, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
