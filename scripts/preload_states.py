#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The per-state table behind docs/notes.md's "The preload's threshold"
on this machine: memset
through libpageclear-preload.so against the C library's own, and against
pc_clear, per cache state and size, under each C library asked for.

Each cell is `pageclear mem clear -f glibc,libc -s SIZE -n RUNS --cache
STATE --json` under LD_PRELOAD of the filter users name
(BUILD/preload/libpageclear-preload.so, which has the loader load the
build for this CPU): `glibc` is the memset the program calls (the
preload's), `libc` the C library's own looked up past it; pageclear mem
interleaves the two run by run on the same extents. Then the same
without the preload, where both are the C library's: how far from 1 its
ratio strays with nothing to find (the call through the PLT against the
call through a pointer, and the order). From preload_min on, a third
process, `-f glibc,pc_clear` under the preload, for the target "within
5% of pc_clear from preload_min on". Not pc_clear beside libc: where it
streams, the extent the function after it finds is colder (at 16 MiB
warm that put the preload at 0.95-0.97 of the C library's own, against
1.00 without it).

The grid of processes is run PASSES times over, so that a drift of the
shared machine meets every cell alike. A GB/s cell is the median of the
passes' medians (lowest-highest); a ratio cell the median of the passes'
ratios of medians (lowest-highest). A ratio above 1: the first is
faster.

The cache states are pageclear mem's: warm (the same extent again), cold
(one not in cache), use (a cold one the caller then reads and writes,
timed) and first (a fresh mapping the call touches first). The profile
is off (PAGECLEAR_PROFILE= : the built-in preload_min, which the header
line prints) unless --min sets PAGECLEAR_PRELOAD_MIN.

  scripts/preload_states.py [--build DIR] [--runs N] [--passes P]
      [--states warm,use,cold,first] [--min SIZE] [--glibc CMD]... [SIZE...]
"""
import argparse
import json
import os
import pathlib
import re
import signal
import statistics
import subprocess
import sys

from bench_host import check_wrappers, cpu_name

STATES = ("warm", "use", "cold", "first")
# The sizes of the per-state tables (docs/notes.md, "The preload's
# threshold"): calls the preload passes on or stores itself (4 KiB to
# 16 MiB, below the built-in preload_min of 16 or 32 MiB; 4 and 8 KiB in
# the AVX-512 copy's rep stosb span on Intel) and calls it sends to
# pageclear (64 and 256 MiB).
SIZES = ["4KB", "8KB", "64KB", "1MB", "16MB", "64MB", "256MB"]
UNITS = {"": 1, "B": 1}
UNITS.update({p + s: 1 << (10 * (i + 1)) for i, p in enumerate("KMG") for s in ("", "B", "IB")})


def size_bytes(text):
    """Bytes in SIZE as pageclear reads it (powers of 1024), or None."""
    m = re.fullmatch(r"(\d+)\s*([A-Za-z]*)", text.strip())
    if not m or m.group(2).upper() not in UNITS:
        return None
    return int(m.group(1)) * UNITS[m.group(2).upper()]


def size_name(n):
    for unit, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {name}"
    return f"{n} B"


def environment(args, preload=True):
    e = {k: v for k, v in os.environ.items() if not k.startswith("PAGECLEAR_")}
    e["PAGECLEAR_PROFILE"] = ""
    if args.min:
        e["PAGECLEAR_PRELOAD_MIN"] = args.min
    e.pop("LD_PRELOAD", None)
    if preload:
        e["LD_PRELOAD"] = str(args.preload)
    return e


def preload_min(args, prefix):
    """preload_min as `pageclear info` reports it under the same settings."""
    r = subprocess.run(prefix + [str(args.bin), "info"], env=environment(args),
                       capture_output=True, text=True, check=False)
    m = re.search(r"^preload:.*, from (\S+)", r.stdout, re.M)
    if not m or size_bytes(m.group(1)) is None:
        sys.exit(f"preload_states.py: no preload_min in `pageclear info` under the preload:\n"
                 f"{r.stdout}{r.stderr}")
    return m.group(1)


def run(args, prefix, state, size, fns, preload=True):
    """{function: median GB/s} of one process running the functions fns."""
    cmd = prefix + [str(args.bin), "mem", "clear", "-f", ",".join(fns), "-s", size,
                    "-n", str(args.runs), "--cache", state, "--json"]
    r = subprocess.run(cmd, env=environment(args, preload), capture_output=True, text=True,
                       check=False)
    try:
        records = json.loads(r.stdout)["records"]
        out = {rec["function"]: rec["median"] for rec in records}
    except (ValueError, KeyError, TypeError):
        out = {}
    if r.returncode != 0 or set(out) != set(fns):
        sys.exit(f"preload_states.py: {' '.join(cmd)} (exit {r.returncode}):\n"
                 f"{r.stdout[-2000:]}{r.stderr}")
    return out


def cell(xs, fmt):
    return f"{fmt(statistics.median(xs))} ({fmt(min(xs))}-{fmt(max(xs))})"


def gbs(x):
    return f"{x:.3g}"


def cell_at(state, size, procs):
    """One table row from the passes' processes of a cell: "with" under the
    preload, "without" not, "pc" against pc_clear (from preload_min)."""
    with_, without = [p["with"] for p in procs], [p["without"] for p in procs]
    own = [p["glibc"] / p["libc"] for p in with_]
    noise = [p["glibc"] / p["libc"] for p in without]
    pc = [p["pc"]["glibc"] / p["pc"]["pc_clear"] for p in procs if "pc" in p]
    return (f"| {state} | {size_name(size_bytes(size))} | {cell([p['libc'] for p in with_], gbs)} "
            f"| {cell([p['glibc'] for p in with_], gbs)} | {cell(own, '{:.2f}x'.format)} "
            f"| {cell(noise, '{:.2f}x'.format)} | {cell(pc, '{:.0%}'.format) if pc else ''} |")


def table(cells, states, sizes):
    lines = ["| state | size | C library's own | through the preload | preload/own "
             "| own/own, no preload | preload/`pc_clear` |", "|---" * 7 + "|"]
    for state in states:
        for size in sizes:
            lines.append(cell_at(state, size, cells[(state, size)]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="the build directory (default build)")
    ap.add_argument("--runs", type=int, default=7, help="runs in each process (default 7)")
    ap.add_argument("--passes", type=int, default=2,
                    help="times the whole grid is run (default 2)")
    ap.add_argument("--states", default=",".join(STATES),
                    help="cache states, of " + ",".join(STATES) + " (default all)")
    ap.add_argument("--min", metavar="SIZE", help="PAGECLEAR_PRELOAD_MIN (default: built in)")
    ap.add_argument("--glibc", action="append", default=[], metavar="CMD",
                    help="run the grid under CMD as well (e.g. ../shared/tools/newer-glibc.sh)")
    ap.add_argument("sizes", nargs="*", help="bytes per call, as pageclear -s reads them "
                    "(default " + " ".join(SIZES) + ")")
    args = ap.parse_args()
    states = [s for s in args.states.split(",") if s]
    for s in states:
        if s not in STATES:
            ap.error(f"--states: no state {s!r} (there are {', '.join(STATES)})")
    if not states or not 1 <= args.runs <= 99 or not 1 <= args.passes <= 99:
        ap.error("--states must name one, --runs and --passes must be 1-99")
    sizes = args.sizes or SIZES
    for s in sizes + ([args.min] if args.min else []):
        n = size_bytes(s)
        if n is None or not 1 <= n <= 1 << 40:
            ap.error(f"{s!r}: not a size (a number of bytes with B, KB, MB or GB, up to 1 TB)")
    build = pathlib.Path(args.build)
    args.bin = (build / "cli/pageclear").resolve()
    args.preload = (build / "preload/libpageclear-preload.so").resolve()
    for f in (args.bin, args.preload):
        if not f.is_file():
            ap.error(f"{f}: not found (build first, or give --build)")
    check_wrappers(ap, args.glibc)

    libcs = [("the system's C library", [])] + [(g, [g]) for g in args.glibc]
    mins = {name: preload_min(args, prefix) for name, prefix in libcs}
    cells = {name: {(st, sz): [] for st in states for sz in sizes} for name, _ in libcs}
    for _ in range(args.passes):
        for name, prefix in libcs:
            for st in states:
                for sz in sizes:
                    p = {"with": run(args, prefix, st, sz, ["glibc", "libc"]),
                         "without": run(args, prefix, st, sz, ["glibc", "libc"], False)}
                    if size_bytes(sz) >= size_bytes(mins[name]):
                        p["pc"] = run(args, prefix, st, sz, ["glibc", "pc_clear"])
                    cells[name][(st, sz)].append(p)

    print(f"# {cpu_name()}; pageclear mem clear, {args.runs} runs a process, {args.passes} "
          f"passes; GB/s = 10^9 B/s, median (lowest-highest)")
    for name, _ in libcs:
        print(f"\n{name}, preload_min {mins[name]}:\n")
        print(table(cells[name], states, sizes))
    return 0


if __name__ == "__main__":
    # Piped into head, end quietly when the reader goes, as a filter does.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
