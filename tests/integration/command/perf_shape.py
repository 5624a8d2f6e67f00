#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""`pageclear bench mem` answers as the real perf does: for each command
line of tests/data/perf/cases.txt, pageclear's output has perf's lines,
fields and units, and its messages and exit statuses are perf's; only the
figures may differ (and what docs/perf.md, "What differs", lists).

  stored  (default) against tests/data/perf/fixtures.json, perf 7.3.4's
          recorded answers: no perf needed.
  --live  against a perf run here, beside pageclear, on the cases that
          need no huge pages: PERF, or $PAGECLEAR_PERF, or a `perf` on
          PATH whose `bench mem` has mmap, or scripts/perf7.sh once it has
          fetched perf (it downloads nothing here). Exit 77 without one.

Sizes above 256MB run at 256MB and loops above 2 at 2, the size echoed in
perf's lines changed to match, so that the test stays short; a case that
needs huge pages gets them reserved under /tmp/pageclear-hugetlb.lock and
given back (as root), else it is skipped with a note.

Usage: perf_shape.py PAGECLEAR [--live [PERF]]
"""

import contextlib
import fcntl
import json
import os
import pathlib
import platform
import re
import shlex
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parents[2]
FIXTURES = SRC / "tests" / "data" / "perf" / "fixtures.json"
CAP_SIZE, CAP_NAME, CAP_LOOPS = 256 << 20, "256MB", 2
UNITS = {"": 0, "B": 0, "KB": 10, "MB": 20, "GB": 30, "TB": 40}
HUGE = {"2MB": ("hugepages-2048kB", 2 << 20), "1GB": ("hugepages-1048576kB", 1 << 30)}
# What pageclear does not have, by benchmark: perf's blocks and list
# lines for them are dropped before comparing (docs/perf.md).
ABSENT = {"memcpy": {"x86-64-unrolled", "x86-64-movsq"}, "mem": {"find_bit"}}
PERF_X86_MEMSETS = {"x86-64-unrolled", "x86-64-stosq"}


def absent_memsets(pageclear):
    """perf's x86-64 memsets that this build of pageclear cannot run: all
    of them off x86-64, and in a build without the x86-64 primitives
    (PC_PORTABLE_ONLY), as `pageclear list` shows."""
    if platform.machine() != "x86_64":
        return set(PERF_X86_MEMSETS)
    out = subprocess.run([pageclear, "list"], capture_output=True, text=True, check=True).stdout
    runs = {ln.split()[0] for ln in out.splitlines() if ln.strip() and "[not supported here]" not in ln}
    return PERF_X86_MEMSETS - runs


RATE = re.compile(r"^ (?P<num>[ \d.a-z+-]{14,}?)(?P<d>d?) (?P<unit>bytes/sec|KB/sec|MB/sec|GB/sec"
                  r"|cycles/byte)(?P<thr>/thread\t\( \+- [ \d]{3,}\.\d\d% \))?$")
SIMPLE = re.compile(r"^(\d+\.\d{6}|inf|-?nan)$")
OPTION = re.compile(r"^(    -\w, --[\w-]+(?: <[^>]*>)?)(?: {2,}\S.*)?$")


def size_of(s):
    m = re.fullmatch(r"(\d+)([KMGT]?B|[kmgt]?b)?", s)
    return int(m.group(1)) << UNITS[(m.group(2) or "").upper()] if m else None


def capped(args):
    """The arguments with big sizes and many loops cut, and the size
    strings that changed (for perf's lines that echo them)."""
    words, renamed = shlex.split(args), {}
    if "-k" in words and words[words.index("-k") + 1:][:1] == ["x"]:
        return words, renamed  # a size only parsed, never used
    for i in range(1, len(words)):
        if words[i - 1] == "-s" and (size_of(words[i]) or 0) > CAP_SIZE:
            renamed[words[i]] = CAP_NAME
            words[i] = CAP_NAME
        if words[i - 1] == "-l" and words[i].isdigit() and int(words[i]) > CAP_LOOPS:
            words[i] = str(CAP_LOOPS)
    return words, renamed


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    return {"exit": r.returncode, "stdout": r.stdout, "stderr": r.stderr}


def benchmark(words):
    """memset, memcpy, mmap, or mem for the collection alone."""
    i = words.index("mem")
    return words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("-") else "mem"


def drop_absent(lines, bench):
    """perf's lines for what pageclear has not: its function blocks and
    its list entries."""
    gone, out, skipping = ABSENT.get(bench, set()), [], False
    for ln in lines:
        m = re.match(r"# function '([^']*)'", ln)
        if m:
            skipping = m.group(1) in gone
        if skipping or any(re.match(rf"^\s*{re.escape(g)}(:| \.\.\. )", ln) for g in gone):
            continue
        out.append(ln)
    return out


def rate_problem(p, o):
    """Two figure lines: the same kind, suffix and format; the unit the
    one perf's rule gives the figure printed."""
    mp, mo = RATE.match(p), RATE.match(o)
    if not mp or not mo:
        return f"figure line {o!r} against perf's {p!r}"
    num, unit = mo.group("num"), mo.group("unit")
    if (mp.group("unit") == "cycles/byte") != (unit == "cycles/byte"):
        return f"{unit} where perf prints {mp.group('unit')}"
    if bool(mp.group("thr")) != bool(mo.group("thr")):
        return f"per-thread suffix differs: {o!r} against {p!r}"
    if len(num) != max(14, len(num.strip())) or not re.fullmatch(r"\d+\.\d{6}", num.strip()):
        return f"figure {num!r} not as perf's %14lf"
    if bool(mo.group("d")) != (unit == "KB/sec"):
        return f"KB/sec's stray 'd' misplaced in {o!r}"
    v = float(num)
    if unit.endswith("/sec") and not ((unit == "bytes/sec" or v >= 1) and (unit == "GB/sec" or v < 1024)):
        return f"{v} {unit}: perf's rule would print another unit"
    return None


def list_problem(p_list, o_list):
    """perf's list of functions leads pageclear's, in its order."""
    pn = [ln.split(" ... ")[0] for ln in p_list]
    on = [ln.split(" ... ")[0] for ln in o_list]
    if on[:len(pn)] != pn:
        return f"functions {on} do not begin with perf's {pn}"
    for p, o in zip(p_list, o_list):
        if p.split(" ... ")[0].strip() in ("default", "demand", "populate") and p != o:
            return f"{o!r} against perf's {p!r}"
    return None


def stdout_problems(p_lines, o_lines):
    out, i = [], 0
    p_list = [ln for ln in p_lines if ln.startswith("\t")]
    o_list = [ln for ln in o_lines if ln.startswith("\t")]
    if p_list or o_list:
        err = list_problem(p_list, o_list)
        if err:
            out.append(err)
        p_lines = [ln for ln in p_lines if not ln.startswith("\t")]
        o_lines = [ln for ln in o_lines if not ln.startswith("\t")]
    if len(p_lines) != len(o_lines):
        return out + [f"{len(o_lines)} lines of output against perf's {len(p_lines)}"]
    for p, o in zip(p_lines, o_lines):
        i += 1
        if RATE.match(p) or RATE.match(o):
            err = rate_problem(p, o)
        elif SIMPLE.match(p):
            err = None if SIMPLE.match(o) else f"line {i}: {o!r} is not a bare figure"
        elif p.startswith("# function '") and p.split("(")[0].strip() not in (
                "# function 'default'", "# function 'demand'", "# function 'populate'"):
            err = None if o.split("(")[0] == p.split("(")[0] else f"line {i}: {o!r} against {p!r}"
        else:
            err = None if o == p else f"line {i}: {o!r} against perf's {p!r}"
        if err:
            out.append(err)
    return out


def masked_stderr(text):
    """Usage lines without their help texts (pageclear's own words)."""
    out = []
    for ln in text.splitlines():
        m = OPTION.match(ln)
        if m:
            out.append(m.group(1))
        elif not re.match(r"^ {26}\S", ln):
            out.append(ln)
    return out


def compare(words, renamed, perf, ours):
    """The problems of pageclear's answer against perf's."""
    def norm(text):
        text = text.replace("perf bench", "pageclear bench")
        for old, new in renamed.items():
            text = text.replace(f"# Copying {old} bytes", f"# Copying {new} bytes")
            text = text.replace(f"size ({old})", f"size ({new})")
        return text
    bench = benchmark(words)
    p_out = drop_absent(norm(perf["stdout"]).splitlines(), bench)
    o_out = ours["stdout"].splitlines()
    problems = stdout_problems(p_out, o_out)
    failed = any(ln.startswith("# Memory allocation failed") for ln in o_out)
    p_err = masked_stderr(norm(perf["stderr"]))
    o_err = masked_stderr(ours["stderr"])
    reasons = [ln for ln in o_err if ln.startswith("pageclear: bench mem: ")]
    o_err = [ln for ln in o_err if ln not in reasons]
    if o_err != p_err:
        problems.append(f"stderr {o_err} against perf's {p_err}")
    if failed and not reasons:
        problems.append("the allocation failed and stderr says neither why nor the fix")
    if failed and "-p 4KB" not in " ".join(words) and "-p" in words and \
            not any("echo" in r for r in reasons):
        problems.append(f"no `echo` reserving huge pages in {reasons}")
    want = perf["exit"]
    if want == 0 and (failed or any(ln.startswith(("Unknown format", "Invalid repeat"))
                                    for ln in o_out)):
        want = 1  # perf says it failed and exits 0; pageclear exits 1
    if ours["exit"] != want:
        problems.append(f"exit {ours['exit']}, perf's {perf['exit']} (want {want})")
    return problems


@contextlib.contextmanager
def reserved(spec, words):
    """Huge pages for a case that needs them, at its capped size: True if
    had (and given back after), False if not."""
    if spec in ("-", "none"):
        yield True
        return
    size = spec.split(":")[0]
    d, pg = HUGE[size]
    s = size_of(words[words.index("-s") + 1]) if "-s" in words else 1 << 20
    n = 2 * ((s + pg - 1) // pg) * max(1, int(words[words.index("-t") + 1]) if "-t" in words else 1)
    nr = pathlib.Path("/sys/kernel/mm/hugepages") / d / "nr_hugepages"
    try:
        lock = open("/tmp/pageclear-hugetlb.lock", "a")
    except OSError:
        yield False
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            before = int(nr.read_text())
            nr.write_text(str(before + n))
        except OSError:
            yield False
            return
        try:
            free = int((nr.parent / "free_hugepages").read_text())
            yield free >= n
        finally:
            nr.write_text(str(before))


def runs_absent(words):
    """The function a case names with -f, if this build lacks it."""
    bench = next((w for w in words if w in ABSENT and w != "mem"), None)
    for i, w in enumerate(words[:-1]):
        if w in ("-f", "--function") and bench and words[i + 1] in ABSENT[bench]:
            return words[i + 1]
    return None


def stored(pageclear):
    """Each recorded case once: those recorded with huge pages run with
    them reserved here, those recorded without ("none") run without."""
    doc = json.loads(FIXTURES.read_text())
    fails, checked, notes = 0, 0, []
    for perf in doc["cases"]:
        words, renamed = capped(perf["args"])
        if runs_absent(words):
            notes.append(f"{perf['name']}: {runs_absent(words)} not in this build: skipped")
            continue
        with reserved(perf["pages"], words) as had:
            ours = run([pageclear, "bench"] + words) if had else None
        failed = ours is not None and "# Memory allocation failed" in ours["stdout"]
        if ours is None or failed != (perf["pages"] == "none"):
            notes.append(f"{perf['name']}: huge pages {'free' if perf['pages'] == 'none' else 'short'}"
                         " here: skipped")
            continue
        if "-c" in words and ours["exit"] == 0:
            ok = all("cycles/byte" in ln for ln in ours["stdout"].splitlines() if "/" in ln)
            notes.append(f"{perf['name']}: counters here: cycles/byte {'ok' if ok else 'BAD'}")
            fails += not ok
            continue
        problems = compare(words, renamed, perf, ours)
        checked += 1
        fails += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {perf['name']}: pageclear bench {' '.join(words)}")
        for p in problems:
            print(f"       {p}")
    for n in notes:
        print(f"note {n}")
    print(f"{checked - fails} passed, {fails} failed (against {doc['perf']}'s recorded output)")
    return 1 if fails else 0


def find_perf(given):
    cands = [given] if given else []
    if os.environ.get("PAGECLEAR_PERF"):
        cands.append(os.environ["PAGECLEAR_PERF"])
    if shutil.which("perf"):
        cands.append("perf")
    if pathlib.Path("/var/tmp/pageclear-perf7/root/usr/bin/perf").exists():
        cands.append(str(SRC / "scripts" / "perf7.sh"))
    for c in cands:
        r = run(shlex.split(c) + ["bench", "mem", "mmap", "-h"])
        if "Usage: perf bench mem mmap" in r["stderr"]:
            return shlex.split(c)
    return None


def live(pageclear, given):
    perf = find_perf(given)
    if perf is None:
        print("no perf with `bench mem mmap` here (PAGECLEAR_PERF, perf, scripts/perf7.sh): skipped")
        return 77
    cases = json.loads(FIXTURES.read_text())["cases"]
    fails = checked = 0
    for c in cases:
        if c["pages"] != "-" or " -c" in c["args"]:
            continue
        words, renamed = capped(c["args"])
        if runs_absent(words):
            print(f"note {c['name']}: {runs_absent(words)} not in this build: skipped")
            continue
        p = run(perf + ["bench"] + words)
        o = run([pageclear, "bench"] + words)
        problems = compare(words, {}, p, o)
        checked += 1
        fails += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {c['name']}: bench {' '.join(words)}")
        for pr in problems:
            print(f"       {pr}")
    version = run(perf + ["--version"])["stdout"].strip()
    print(f"{checked - fails} passed, {fails} failed (against {version}, run here)")
    return 1 if fails else 0


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pageclear = sys.argv[1]
    gone = absent_memsets(pageclear)
    if gone:
        ABSENT["memset"] = gone
    if len(sys.argv) > 2 and sys.argv[2] == "--live":
        return live(pageclear, sys.argv[3] if len(sys.argv) > 3 else None)
    return stored(pageclear)


if __name__ == "__main__":
    sys.exit(main())
