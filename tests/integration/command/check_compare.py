#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Files for `pageclear compare` and checks of what it says (cli_compare.sh).

The Mann-Whitney U test is computed here independently of cli/compare/utest.c:
midranks by counting (not by sorting), the exact p by enumerating every
way to split the runs (itertools, exact fractions), U by counting pairs,
the normal approximation from its textbook formula with math.erfc.
Usage:
  check_compare.py scale IN OUT FACTOR     every run (and statistic) times FACTOR
  check_compare.py tight IN OUT            runs replaced by 10.00, 10.01, ...
  check_compare.py synth IN OUT SEED       IN's header, records of random runs
  check_compare.py edit IN OUT KEY=VALUE.. header values changed
  check_compare.py verify CMP.json FILE..  every row against the reference
  check_compare.py expect CMP.json WHAT    all rows: same (p = 1, no change),
                                           plus50 (+50%, p as the reference)
"""
import itertools
import json
import math
import random
import statistics
import sys
from fractions import Fraction

ALPHA = 0.05
EXACT_MAX = 50  # runs in the two files together, as compare says it uses


def midranks(values):
    """Rank of each value among all: those below, plus the mean position
    of its ties (1-based)."""
    return [Fraction(2 * sum(w < v for w in values) + sum(w == v for w in values) + 1, 2)
            for v in values]


def u_of(x, y):
    """Pairs (a, b) with a > b, ties counting one half."""
    return sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in x for b in y)


def exact_p(x, y):
    """Twice the smaller tail of x's rank sum over every split, at most 1."""
    ranks = midranks(list(x) + list(y))
    obs = sum(ranks[:len(x)])
    le = ge = total = 0
    for pick in itertools.combinations(range(len(ranks)), len(x)):
        s = sum(ranks[i] for i in pick)
        le += s <= obs
        ge += s >= obs
        total += 1
    return min(1.0, float(2 * Fraction(min(le, ge), total)))


def normal_p(x, y):
    n1, n2 = len(x), len(y)
    n = n1 + n2
    counts = {}
    for v in list(x) + list(y):
        counts[v] = counts.get(v, 0) + 1
    ties = sum(t ** 3 - t for t in counts.values())
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u_of(x, y) - n1 * n2 / 2) - 0.5) / math.sqrt(var)
    return 1.0 if z <= 0 else math.erfc(z / math.sqrt(2))


def reference(x, y):
    """(U, p, exact) for runs x against runs y."""
    if len(x) + len(y) <= EXACT_MAX:
        return u_of(x, y), exact_p(x, y), True
    return u_of(x, y), normal_p(x, y), False


def load(path):
    return json.load(open(path))


def save(doc, path):
    json.dump(doc, open(path, "w"), indent=1)


def scale(src, dst, factor):
    doc = load(src)
    for r in doc["records"]:
        r["samples"] = [v * factor for v in r["samples"]]
        for k in ("mean", "median", "min", "max", "p99"):
            r[k] *= factor
    save(doc, dst)


def tight(src, dst):
    doc = load(src)
    for r in doc["records"]:
        r["samples"] = [10 + 0.01 * i for i in range(r["runs"])]
        st = r["samples"]
        r.update(mean=statistics.fmean(st), median=statistics.median(st), min=min(st),
                 max=max(st), p99=max(st), stdev_pct=100 * statistics.stdev(st) / statistics.fmean(st))
    save(doc, dst)


def synth(src, dst, seed):
    """Records of random runs: few and many, with and without ties, so
    both the exact count and the normal approximation are reached."""
    rnd = random.Random(seed)
    doc = load(src)
    recs = []
    for i in range(40):
        n = rnd.choice([2, 3, 4, 5, 6, 8, 9]) if i < 30 else rnd.choice([26, 30, 35])
        levels = rnd.choice([3, 6, 1000])  # few levels: many ties
        shift = rnd.choice([0, 0, 1, 3])
        st = [float(rnd.randrange(levels) + shift) + 1 for _ in range(n)]
        recs.append({"workload": "synth", "function": f"f{i}", "size": 4096, "chunk": 0,
                     "page": "4KB", "loops": 1, "threads": 1, "unit": "GB/s",
                     "mean": statistics.fmean(st), "median": statistics.median(st),
                     "min": min(st), "max": max(st), "p99": max(st), "stdev_pct": 0,
                     "runs": n, "l1d_loads": None, "l1d_misses": None, "cache": None,
                     "stores": None, "verdict": None, "samples": st, "utime_s": None,
                     "stime_s": None})
    doc["records"] = recs
    save(doc, dst)


def edit(src, dst, pairs):
    doc = load(src)
    for p in pairs:
        k, v = p.split("=", 1)
        doc["header"][k] = v
    save(doc, dst)


def runs(rec, metric):
    return rec[{"value": "samples", "stime": "stime_s", "utime": "utime_s"}[metric]]


def key(r):
    return (r["workload"], r["function"], r["size"], r["chunk"], r["page"], r["threads"],
            r["cache"], r["stores"], r["unit"])


def verify(cmp_path, files):
    """Each row's medians, spreads, changes, U and p against the files' own
    runs, and each table's geometric means."""
    out = load(cmp_path)
    docs = [load(f) for f in files]
    checked = 0
    medians = {}  # section: row: each file's median, from the runs
    for row in out["rows"]:
        k = (row["workload"], row["function"], row["size"], row["chunk"], row["page"],
             row["threads"], row["cache"], row["stores"])
        base = None
        for i, doc in enumerate(docs):
            cell = row["files"][i]
            recs = [r for r in doc["records"] if key(r)[:8] == k and
                    (row["metric"] != "value" or r["unit"] == row["unit"])]
            if cell is None:
                continue
            v = runs(recs[0], row["metric"])
            # written to 9 significant digits
            assert math.isclose(cell["median"], statistics.median(v), rel_tol=1e-8), (row, v)
            # the sample standard deviation in % of the mean; none (0) for
            # one run, or for runs of mean 0 (system time below a tick)
            mean = statistics.fmean(v)
            sd = 100 * statistics.stdev(v) / mean if len(v) > 1 and mean != 0 else 0
            assert math.isclose(cell["stdev_pct"], sd, rel_tol=1e-6, abs_tol=1e-6), (row, sd)
            medians.setdefault(section(row), {}).setdefault(id(row), []).append(
                statistics.median(v))
            if i == 0:
                base = v
                continue
            if base is None:
                continue
            u, p, exact = reference(base, v)
            assert math.isclose(cell["u"], u, abs_tol=1e-9), (row, u)
            assert math.isclose(cell["p"], p, rel_tol=1e-6, abs_tol=1e-12), (row, p, base, v)
            assert cell["exact"] == exact, row
            assert cell["significant"] == (p < ALPHA), row
            m0, m = statistics.median(base), statistics.median(v)
            if m0 == 0:  # no ratio: nothing both times is no change, else none
                assert cell["change_pct"] == (0 if m == 0 else None), row
            else:
                want = 100 * (m / m0 - 1)
                assert math.isclose(cell["change_pct"], want, rel_tol=1e-6, abs_tol=1e-6), row
            checked += 1
    assert checked > 0, "nothing compared"
    verify_geomeans(out, medians, len(files))
    print(f"ok: {checked} comparisons agree with the reference")


def section(row):
    return (row["workload"], row["metric"], row["unit"])


def verify_geomeans(out, medians, nfiles):
    """Each table's geometric mean per file: over the rows in every file
    with positive medians, exp of the mean of their logs; the change the
    ratio of two such means."""
    got = {section(g): g for g in out["geomeans"]}
    for sec, rows in medians.items():
        full = [m for m in rows.values() if len(m) == nfiles and min(m) > 0]
        if not full:
            continue
        g = got[sec]
        assert g["rows"] == len(full), (sec, g, len(full))
        want = [math.exp(statistics.fmean(math.log(m[f]) for m in full)) for f in range(nfiles)]
        for f in range(nfiles):
            assert math.isclose(g["values"][f], want[f], rel_tol=1e-6), (sec, g, want)
            if f:
                assert math.isclose(g["change_pct"][f], 100 * (want[f] / want[0] - 1),
                                    rel_tol=1e-5, abs_tol=1e-5), (sec, g, want)


def expect(cmp_path, what):
    out = load(cmp_path)
    n = 0
    for row in out["rows"]:
        assert row["in_every_file"], row
        for cell in row["files"][1:]:
            if what == "same":
                assert cell["change_pct"] == 0 and cell["p"] == 1 and not cell["significant"], row
            elif what == "plus50" and row["metric"] == "value":
                assert math.isclose(cell["change_pct"], 50, abs_tol=1e-6), row
            elif what == "significant" and row["metric"] == "value":
                assert cell["significant"] and cell["p"] < ALPHA, row
            n += 1
    assert n > 0
    print(f"ok: {n} comparisons are {what}")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "scale":
        scale(args[0], args[1], float(args[2]))
    elif cmd == "tight":
        tight(args[0], args[1])
    elif cmd == "synth":
        synth(args[0], args[1], int(args[2]))
    elif cmd == "edit":
        edit(args[0], args[1], args[2:])
    elif cmd == "verify":
        verify(args[0], args[1:])
    elif cmd == "expect":
        expect(args[0], args[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
