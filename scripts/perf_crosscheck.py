#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Do `pageclear bench mem` and the real perf measure the same thing? Both
run the same command lines (perf's mmap for each page size, demand and
populate; memset per chunk size), interleaved round by round (who goes
first alternates), in --format=simple (bytes a second). Per case: both
medians, their ratio, each side's spread, and an exact permutation test
of the difference (p < 0.05: they differ beyond this machine's noise).

Run it alone on the machine, under the bench lock; with --reserve it
reserves the huge pages the cases need under the hugetlb lock (root) and
gives them back:

  flock /tmp/pageclear-bench.lock scripts/perf_crosscheck.py --reserve \\
      --pageclear build/cli/pageclear --json docs/results/perf/NAME.json

Where perf runs under another C library (scripts/perf7.sh: glibc 2.41),
pageclear runs under the same one, so that memset is the same code.
docs/perf.md's table is made from the JSON:
  scripts/perf_crosscheck.py --page docs/perf.md     (--check: unchanged?)
"""

import argparse
import contextlib
import fcntl
import itertools
import json
import os
import pathlib
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent
PERF7 = pathlib.Path(os.environ.get("PAGECLEAR_PERF7_DIR", "/var/tmp/pageclear-perf7"))
HUGE = {"2MB": ("hugepages-2048kB", 2 << 20), "1GB": ("hugepages-1048576kB", 1 << 30)}
MARK = re.compile(r"<!-- crosscheck: (\S+) \(made by scripts/perf_crosscheck.py from (\S+): "
                  r"do not edit\) -->\n.*?<!-- crosscheck: end -->", re.S)


def cases(size, loops, memset_size):
    out = []
    for page in ("4KB", "2MB", "1GB"):
        for fn in ("demand", "populate"):
            out.append(f"mem mmap -p {page} -f {fn} -s {size} -l {loops}")
    for chunk in ("4KB", "2MB", "0"):
        out.append(f"mem memset -f default -s {memset_size} -k {chunk} -l {loops}")
    return out


def find_perf(given):
    for c in [given, os.environ.get("PAGECLEAR_PERF"), "perf" if shutil.which("perf") else None,
              str(SRC / "scripts" / "perf7.sh") if (PERF7 / "root/usr/bin/perf").exists() else None]:
        if not c:
            continue
        r = subprocess.run(shlex.split(c) + ["bench", "mem", "mmap", "-h"], capture_output=True,
                           text=True)
        if "Usage: perf bench mem mmap" in r.stderr:
            return shlex.split(c)
    return None


def libc_of(perf):
    """The loader perf runs under when it is scripts/perf7.sh: pageclear
    runs under it too."""
    if not perf[0].endswith("perf7.sh"):
        return []
    lib = PERF7 / "root/usr/lib/x86_64-linux-gnu"
    return [str(lib / "ld-linux-x86-64.so.2"), "--library-path", str(lib)]


def one(cmd, args):
    """One run in --format=simple: its figure, bytes a second."""
    r = subprocess.run(cmd + ["bench", "--format=simple"] + shlex.split(args),
                       capture_output=True, text=True, timeout=3600)
    figures = [ln for ln in r.stdout.splitlines() if re.fullmatch(r"\d+\.\d+", ln)]
    if r.returncode != 0 or len(figures) != 1:
        sys.exit(f"{' '.join(cmd)} bench {args}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return float(figures[0])


def permutation_p(a, b, limit=20000, seed=1):
    """Two-sided: how often a relabelling of the pooled runs gives a
    difference of means at least as large as the one seen. Exact over
    every relabelling when there are at most `limit`, else a sample."""
    pooled, n = a + b, len(a)
    seen = abs(statistics.mean(a) - statistics.mean(b))
    total = sum(pooled)
    splits = list(itertools.combinations(range(len(pooled)), n))
    if len(splits) > limit:
        rnd = random.Random(seed)
        splits = [tuple(rnd.sample(range(len(pooled)), n)) for _ in range(limit)]
    hits = 0
    for idx in splits:
        sa = sum(pooled[i] for i in idx)
        d = abs(sa / n - (total - sa) / (len(pooled) - n))
        hits += d >= seen - 1e-12 * max(1.0, seen)
    return hits / len(splits)


def spread(v):
    return 100 * statistics.stdev(v) / statistics.mean(v) if len(v) > 1 else 0.0


def summary(args, p, q):
    pm, qm = statistics.median(p), statistics.median(q)
    pv = permutation_p(p, q)
    return {"args": args, "perf": p, "pageclear": q, "perf_median": pm, "pageclear_median": qm,
            "ratio": qm / pm, "perf_spread_pct": spread(p), "pageclear_spread_pct": spread(q),
            "p": pv, "verdict": "differs" if pv < 0.05 else "within noise"}


@contextlib.contextmanager
def reserve(wanted):
    """wanted: {"2MB": pages, ...} reserved for the block, then the
    previous counts put back."""
    if not wanted:
        yield
        return
    with open("/tmp/pageclear-hugetlb.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        before = {}
        try:
            for size, n in wanted.items():
                nr = pathlib.Path("/sys/kernel/mm/hugepages") / HUGE[size][0] / "nr_hugepages"
                before[nr] = int(nr.read_text())
                nr.write_text(str(before[nr] + n))
                free = int((nr.parent / "free_hugepages").read_text())
                if free < n:
                    sys.exit(f"perf_crosscheck: {free} of the {n} {size} pages reserved")
            yield
        finally:
            for nr, v in before.items():
                nr.write_text(str(v))


def needed(all_cases):
    """The huge pages the cases need at once: {"2MB": pages, ...}."""
    out = {}
    for args in all_cases:
        w = shlex.split(args)
        if "-p" in w and w[w.index("-p") + 1] in HUGE:
            page = w[w.index("-p") + 1]
            m = re.fullmatch(r"(\d+)([KMGT]B)", w[w.index("-s") + 1])
            size = int(m.group(1)) << {"KB": 10, "MB": 20, "GB": 30, "TB": 40}[m.group(2)]
            out[page] = max(out.get(page, 0), -(-size // HUGE[page][1]))
    return out


def measure(a):
    perf = find_perf(a.perf)
    if perf is None:
        print("perf_crosscheck: no perf with `bench mem mmap` (--perf, PAGECLEAR_PERF, perf, "
              "scripts/perf7.sh): nothing to compare", file=sys.stderr)
        return 77
    pc = libc_of(perf) + [str(pathlib.Path(a.pageclear).resolve())]
    all_cases = a.case or cases(a.size, a.loops, a.memset_size)
    runs = {c: ([], []) for c in all_cases}
    # One page size at a time, so that huge pages are held (and the
    # hugetlb lock with them) only while their cases run.
    groups = {}
    for c in all_cases:
        groups.setdefault(tuple(needed([c]).items()), []).append(c)
    for want, group in groups.items():
        with reserve(dict(want) if a.reserve else {}):
            for c in group:  # untimed: fresh huge pages are slow the first time
                one(perf, c), one(pc, c)
            for r in range(a.rounds):
                for c in group:
                    order = [(0, perf), (1, pc)] if r % 2 == 0 else [(1, pc), (0, perf)]
                    for side, cmd in order:
                        runs[c][side].append(one(cmd, c))
        print(f"{dict(want) or 'no huge pages'}: {a.rounds} rounds", file=sys.stderr)
    doc = {
        "format": "pageclear-perf-crosscheck",
        "perf": subprocess.run(perf + ["--version"], capture_output=True, text=True).stdout.strip(),
        "pageclear": subprocess.run(pc + ["version"], capture_output=True,
                                    text=True).stdout.strip(),
        "same_libc": bool(libc_of(perf)),
        "machine": {"cpu": next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                                 if ln.startswith("model name")), "?"),
                    "kernel": platform.release(), "cpus": os.cpu_count(),
                    "load_after": round(os.getloadavg()[0], 2)},
        "rounds": a.rounds, "unit": "bytes/s",
        "command": "scripts/perf_crosscheck.py " + " ".join(sys.argv[1:]),
        "cases": [summary(c, *runs[c]) for c in all_cases],
    }
    text = json.dumps(doc, indent=1) + "\n"
    if a.json:
        pathlib.Path(a.json).write_text(text)
    print(table(doc))
    return 0


def table(doc):
    gib = 1 << 30
    rows = ["| case | perf, GiB/s | pageclear, GiB/s | ratio | spread perf / pageclear | p |",
            "|---|---|---|---|---|---|"]
    for c in doc["cases"]:
        rows.append(f"| `{c['args']}` | {c['perf_median'] / gib:.2f} | "
                    f"{c['pageclear_median'] / gib:.2f} | {c['ratio']:.2f} | "
                    f"{c['perf_spread_pct']:.1f}% / {c['pageclear_spread_pct']:.1f}% | "
                    f"{c['p']:.2f}{' (differs)' if c['p'] < 0.05 else ''} |")
    load = doc["machine"].get("load_after")
    return (f"{doc['machine']['cpu']}, {doc['machine']['cpus']} CPUs, "
            f"{doc['machine']['kernel']}{f', load average {load} at the end' if load else ''}; "
            f"{doc['perf']} against {doc['pageclear']}"
            f"{', both under glibc 2.41' if doc['same_libc'] else ''}; medians of "
            f"{doc['rounds']} interleaved rounds (GiB = 2^30 bytes, perf's GB):\n\n"
            + "\n".join(rows) + "\n")


def page(path, check):
    text = pathlib.Path(path).read_text()

    def made(m):
        data = json.loads((SRC / m.group(2)).read_text())
        return (f"<!-- crosscheck: {m.group(1)} (made by scripts/perf_crosscheck.py from "
                f"{m.group(2)}: do not edit) -->\n{table(data)}<!-- crosscheck: end -->")
    new = MARK.sub(made, text)
    if check:
        if new != text:
            print(f"{path}: its cross-check table is not what the JSON makes "
                  "(scripts/perf_crosscheck.py --page)", file=sys.stderr)
            return 1
        print(f"{path}: cross-check tables as the JSON makes them")
        return 0
    pathlib.Path(path).write_text(new)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pageclear", default=str(SRC / "build" / "cli" / "pageclear"))
    ap.add_argument("--perf", help="the perf command (default: found as perf_shape.py does)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--size", default="4GB", help="mmap's -s (default 4GB)")
    ap.add_argument("--memset-size", default="1GB")
    ap.add_argument("--loops", default="5")
    ap.add_argument("--case", action="append",
                    help="a command line after `bench` (repeatable; default: the set above)")
    ap.add_argument("--reserve", action="store_true", help="reserve the huge pages (root)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--page", help="remake the tables of this Markdown page from their JSON")
    ap.add_argument("--check", action="store_true", help="with --page: fail if they differ")
    a = ap.parse_args()
    if a.page:
        return page(a.page, a.check)
    return measure(a)


if __name__ == "__main__":
    sys.exit(main())
