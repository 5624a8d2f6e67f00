#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Record the real perf's answers to tests/data/perf/cases.txt into
tests/data/perf/fixtures.json: each case's arguments, the huge pages it
ran with, perf's exit status, standard output and standard error.
tests/integration/command/perf_shape.py then holds `pageclear bench mem`
to their shape.

It measures (perf runs its benchmarks), so it takes the machine's bench
lock; cases that need huge pages reserve them under the hugetlb lock and
give them back (root). Cases recorded with "none" need no free huge page
of their size.

Usage: tests/data/perf/record.py [--perf CMD] [--only NAME...]
       CMD defaults to scripts/perf7.sh (Debian's linux-perf 7.x)."""

import argparse
import contextlib
import fcntl
import json
import pathlib
import platform
import shlex
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parent.parent.parent
HUGE = {"2MB": "hugepages-2048kB", "1GB": "hugepages-1048576kB"}


def cases():
    for line in (HERE / "cases.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, pages, args = (f.strip() for f in line.split("|", 2))
            yield name, pages, args


@contextlib.contextmanager
def locked(path):
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def hp(size, what):
    return pathlib.Path("/sys/kernel/mm/hugepages") / HUGE[size] / what


@contextlib.contextmanager
def pages(spec):
    """Reserve N pages of a size for the block, or check none is free."""
    if spec == "-":
        yield
        return
    if spec == "none":
        busy = {s: int(hp(s, "free_hugepages").read_text()) for s in HUGE}
        if any(busy.values()):
            sys.exit(f"record.py: huge pages are free ({busy}): a 'none' case would succeed")
        yield
        return
    size, n = spec.split(":")
    with locked("/tmp/pageclear-hugetlb.lock"):
        nr = hp(size, "nr_hugepages")
        before = int(nr.read_text())
        nr.write_text(str(before + int(n)))
        try:
            if int(hp(size, "free_hugepages").read_text()) < int(n):
                sys.exit(f"record.py: could not reserve {n} pages of {size}")
            yield
        finally:
            nr.write_text(str(before))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perf", default=str(SRC / "scripts" / "perf7.sh"))
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    perf = shlex.split(a.perf)
    out = HERE / "fixtures.json"
    old = json.loads(out.read_text())["cases"] if out.exists() and a.only else []
    version = subprocess.run(perf + ["--version"], capture_output=True, text=True).stdout.strip()
    recorded = {c["name"]: c for c in old}
    with locked("/tmp/pageclear-bench.lock"):
        for name, spec, args in cases():
            if a.only and name not in a.only:
                continue
            with pages(spec):
                r = subprocess.run(perf + ["bench"] + shlex.split(args), capture_output=True,
                                   text=True, timeout=1800)
            recorded[name] = {"name": name, "pages": spec, "args": args, "exit": r.returncode,
                              "stdout": r.stdout, "stderr": r.stderr}
            print(f"{name}: exit {r.returncode}", file=sys.stderr)
    order = [n for n, _, _ in cases()]
    doc = {
        "format": "pageclear-perf-fixtures",
        "perf": version,
        "command": "perf bench ARGS, perf being " + " ".join(perf[:1]).replace(str(SRC) + "/", ""),
        "made_by": "tests/data/perf/record.py",
        "machine": {"cpu": next((ln.split(":", 1)[1].strip()
                                 for ln in open("/proc/cpuinfo") if ln.startswith("model name")),
                                "?"),
                    "kernel": platform.release()},
        "cases": [recorded[n] for n in order if n in recorded],
    }
    out.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
