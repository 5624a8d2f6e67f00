#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The short-call tables of docs/notes.md ("Short calls") on this
machine: the time of a memset call through libpageclear-preload.so over the
C library's own, per size, for each of the entry's store paths, under each
C library asked for.

Each column is one way of running BUILD/tests/preload/preload_calls (which times
both memsets in one process, interleaved, and prints per size the median
of its rounds' ratios). The columns are run in turn, RUNS times over, so
that a drift of the shared machine meets every column alike; a cell is the
median of the runs' ratios, with the lowest and highest of them. Cache
state: the same 64 KiB extent repeated (warm), and in the second table
the last bytes of a page before a PROT_NONE page (the same bytes every
call). Above 1: the preload is slower. The column "none" runs without
the preload, the C library's memset on both sides: how far from 1 a cell
strays on this machine with nothing to find.

  scripts/preload_calls.py [--build DIR] [--runs N] [--rounds R]
      [--paths none,entry,baseline,avx2,sse2,v3,v4,v4evex] [--glibc CMD]...
      [--tunables T]...
      [SIZE...]

--glibc CMD runs each column under CMD as well (a wrapper that starts a
program under another C library, with that library's loader);
--tunables T under GLIBC_TUNABLES=T as well (the C library's memset as
another CPU runs it: glibc.cpu.hwcaps=Prefer_No_AVX512 for the 256-bit
EVEX one of Intel's AVX-512 CPUs without AVX-VNNI; on an Intel CPU with
RTM, glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-RTM,-Prefer_No_VZEROUPPER
for the plain AVX2 one of Zen 3, which without the last two is the one
built for transactions; docs/notes.md, "An entry for the AVX2 CPUs").
"""
import argparse
import os
import pathlib
import signal
import statistics
import subprocess
import sys

from bench_host import check_wrappers, cpu_name

# The entry's store paths (preload.c reads these variables). "entry" is
# what it chooses on this CPU; the others force a path, and a path the CPU
# cannot run falls back to the one it can (the ratios then repeat). "v3"
# is the preload's copy for the AVX2 CPUs (its own entry, beside the
# preload), its AVX2 case on as in "avx2"; "v4" the copy for the AVX-512
# CPUs, as it chooses on this CPU, and "v4evex" with 256-bit stores for
# 65-128 B too and 129-512 B passed on (as on the AVX-512 CPUs before
# AVX-VNNI). Every entry reads its limits from memory on every call (no
# code is written at run time). "none" runs without the preload: both
# pointers preload_calls times are then the C library's memset, and its
# ratios are the noise a column's cells sit in on this machine.
PATHS = {
    "none": {},
    "entry": {},
    "baseline": {"PAGECLEAR_PRELOAD_AVX512": "0"},
    "avx2": {"PAGECLEAR_PRELOAD_AVX512": "0", "PAGECLEAR_PRELOAD_AVX2": "1"},
    "sse2": {"PAGECLEAR_PRELOAD_AVX512": "0", "PAGECLEAR_PRELOAD_AVX2": "0"},
    "v3": {"PAGECLEAR_PRELOAD_AVX2": "1"},
    "v4": {},
    "v4evex": {"PAGECLEAR_PRELOAD_AVX512": "0"},
}
# The copies beside the preload, by path name.
COPIES = {p: f"glibc-hwcaps/x86-64-{p[:2]}/libpageclear-preload-impl.so"
          for p in ("v3", "v4", "v4evex")}
# The default sizes: the entry's own cases and their edges, and calls
# between 128 B and 320 B, where the tests before the jump to the C library
# showed most (docs/notes.md, "Calls passed on: 129-320 B") and which the
# AVX-512 copy now stores itself ("Calls of
# 129-512 B stored here").
SIZES = [1, 3, 4, 8, 12, 16, 24, 31, 32, 40, 48, 56, 64, 65, 96, 128, 160, 200, 248, 256, 288,
         4096]


def parse(text):
    """{(table, size): ratio} from preload_calls' output: table 0 over the
    extent, 1 at a page's end."""
    out, table = {}, 0
    for line in text.splitlines():
        if "PROT_NONE" in line:
            table = 1
        f = line.split()
        if len(f) == 6 and f[0].isdigit():
            out[(table, int(f[0]))] = float(f[3])
    return out


def columns(args):
    """(label, env, command prefix, preload) for each column, in run order."""
    libcs = [("", [])] + [(pathlib.Path(g).name, [g]) for g in args.glibc]
    tunables = [""] + args.tunables
    cols = []
    for lname, prefix in libcs:
        for t in tunables:
            for p in args.paths:
                label = " ".join(x for x in (lname, t.replace("glibc.cpu.", ""), p) if x)
                env = dict(PATHS[p])
                if t:
                    env["GLIBC_TUNABLES"] = t
                lib = args.preload.parent / COPIES[p] if p in COPIES else args.preload
                if p == "none":
                    lib = None
                cols.append((label, env, prefix, lib))
    return cols


def run(calls, preload, rounds, sizes, env, prefix):
    e = {k: v for k, v in os.environ.items() if not k.startswith("PAGECLEAR_")}
    e.update(env)
    e.pop("LD_PRELOAD", None)
    if preload is not None:
        e["LD_PRELOAD"] = str(preload)
    cmd = prefix + [str(calls), str(rounds)] + [str(s) for s in sizes]
    r = subprocess.run(cmd, env=e, capture_output=True, text=True, check=False)
    if r.returncode != 0 or ("a preload's" if preload else "no preload") not in r.stdout:
        sys.exit(f"preload_calls.py: {' '.join(cmd)} (exit {r.returncode}):\n{r.stdout}{r.stderr}")
    return parse(r.stdout), "no preload" in r.stdout


def cell(xs):
    if not xs:
        return ""
    return f"{statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"


def table(results, labels, table_no, sizes):
    lines = ["| per call | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
    for s in sizes:
        cells = [cell(results[lab].get((table_no, s), [])) for lab in labels]
        if any(cells):
            name = f"{s // 1024} KiB" if s >= 1024 and s % 1024 == 0 else f"{s} B"
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="the build directory (default build)")
    ap.add_argument("--calls", help="preload_calls (default BUILD/tests/preload/preload_calls)")
    ap.add_argument("--preload", help="the preload (default BUILD/preload/libpageclear-preload-impl.so, "
                    "the default entry; the filter users name, libpageclear-preload.so, loads "
                    "the build for this CPU)")
    ap.add_argument("--runs", type=int, default=3, help="processes per column (default 3)")
    ap.add_argument("--rounds", type=int, default=7, help="rounds in each (default 7)")
    ap.add_argument("--paths", default="entry,sse2",
                    help="store paths, of " + ",".join(PATHS) + " (default entry,sse2)")
    ap.add_argument("--glibc", action="append", default=[], metavar="CMD")
    ap.add_argument("--tunables", action="append", default=[], metavar="T")
    ap.add_argument("sizes", nargs="*", type=int, help="bytes per call (default the docs' list)")
    args = ap.parse_args()
    args.paths = [p for p in args.paths.split(",") if p]
    for p in args.paths:
        if p not in PATHS:
            ap.error(f"--paths: no path {p!r} (there are {', '.join(PATHS)})")
    if not 1 <= args.runs <= 99 or not 1 <= args.rounds <= 101:
        ap.error("--runs must be 1-99 and --rounds 1-101")
    sizes = args.sizes or SIZES
    if any(s < 1 or s > 65536 for s in sizes):
        ap.error("a size must be 1-65536 bytes")
    build = pathlib.Path(args.build)
    calls = pathlib.Path(args.calls or build / "tests/preload/preload_calls")
    args.preload = pathlib.Path(args.preload
                                or build / "preload/libpageclear-preload-impl.so").resolve()
    for f in (calls, args.preload):
        if not f.is_file():
            ap.error(f"{f}: not found (build first, or give --build, --calls, --preload)")
    for p in args.paths:
        if p in COPIES and not (args.preload.parent / COPIES[p]).is_file():
            ap.error(f"--paths {p}: no {COPIES[p]} beside {args.preload} (an x86-64 build has it)")
    check_wrappers(ap, args.glibc)

    cols = columns(args)
    labels = [c[0] for c in cols]
    results = {lab: {} for lab in labels}
    bare = set()
    for _ in range(args.runs):
        for label, env, prefix, lib in cols:
            ratios, no_preload = run(calls, lib, args.rounds, sizes, env, prefix)
            if no_preload:
                bare.add(label)
            for key, ratio in ratios.items():
                results[label].setdefault(key, []).append(ratio)

    print(f"# {cpu_name()}; preload_calls, {args.rounds} rounds a process, "
          f"{args.runs} processes a column; time through the preload / the C library's own")
    if bare:
        # As preload_calls reported it, not as asked: the noise columns.
        print("# without the preload (the C library on both sides): "
              + ", ".join(lab for lab in labels if lab in bare))
    print("\nCalls over a 64 KiB extent (warm):\n")
    print(table(results, labels, 0, sizes))
    print("\nEach call on a page's last bytes, before a PROT_NONE page (the same bytes):\n")
    print(table(results, labels, 1, sizes))
    return 0


if __name__ == "__main__":
    # Piped into head, end quietly when the reader goes, as a filter does.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
