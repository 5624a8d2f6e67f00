#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Charts for `pageclear --plot DIR`: reads the suite's results.json (schema
2, docs/results.schema.json: an object whose "records" are the
measurements) and writes PNGs into DIR:
  units.png    bandwidth by unit size, one line per primitive, per extent
  latency.png  time per unit (median and p99) against bandwidth
  fault.png    the kernel's fault path by page size, populate and demand
  hint.png     first touch of the neighbourhood: straight clear vs hint
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def size_name(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return f"{n}B"


def units(recs, out):
    recs = [r for r in recs if r["workload"] == "units"]
    sizes = sorted({r["size"] for r in recs})
    if not sizes:
        return
    fig, axes = plt.subplots(1, len(sizes), figsize=(6.5 * len(sizes), 4.5), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        for fn in dict.fromkeys(r["function"] for r in recs if r["size"] == size):
            pts = [r for r in recs if r["size"] == size and r["function"] == fn]
            pts.sort(key=lambda r: r["chunk"] or size)
            xs = [size_name(r["chunk"]) if r["chunk"] else "whole" for r in pts]
            ys = [r["median"] for r in pts]
            err = [r["median"] * r["stdev_pct"] / 100 for r in pts]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=fn)
        ax.set_title(f"Clearing {size_name(size)} by unit size")
        ax.set_xlabel("unit (one call per unit)")
        ax.set_ylabel("GB/s (10^9 B/s), median ± stdev")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{out}/units.png", dpi=110)


def latency(recs, out):
    ms = {r["chunk"]: r for r in recs if r["workload"] == "latency" and r["unit"] == "ms"}
    bw = {r["chunk"]: r for r in recs if r["workload"] == "latency" and r["unit"] == "GB/s"}
    keys = [k for k in sorted(ms) if k in bw]
    if not keys:
        return
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for k in keys:
        label = size_name(k) + (" (whole)" if k == ms[k]["size"] else "")
        ax.scatter(bw[k]["median"], ms[k]["median"], marker="o", color="C0")
        ax.scatter(bw[k]["median"], ms[k]["p99"], marker="^", color="C3")
        ax.annotate(label, (bw[k]["median"], ms[k]["p99"]), textcoords="offset points",
                    xytext=(5, 5), fontsize=8)
    ax.set_yscale("log")
    # From zero: units trade latency for little or no bandwidth, and a
    # zoomed axis would make noise look like a trade-off.
    ax.set_xlim(0, 1.15 * max(bw[k]["median"] for k in keys))
    ax.set_xlabel("bandwidth, GB/s (10^9 B/s)")
    ax.set_ylabel("time per unit, ms (o median, ^ p99)")
    ax.set_title(f"Latency against throughput, {size_name(ms[keys[0]]['size'])}")
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(f"{out}/latency.png", dpi=110)


def fault(recs, out):
    recs = [r for r in recs if r["workload"] == "fault"]
    pages = list(dict.fromkeys(r["page"] for r in recs))
    if not pages:
        return
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    width = 0.38
    for i, fn in enumerate(("populate", "demand")):
        ys = [next((r["median"] for r in recs if r["page"] == p and r["function"] == fn), 0)
              for p in pages]
        ax.bar([x + (i - 0.5) * width for x in range(len(pages))], ys, width, label=fn)
    ax.set_xticks(range(len(pages)), pages)
    ax.set_ylabel("GB/s (10^9 B/s), median")
    ax.set_title(f"Fault path by page size, {size_name(recs[0]['size'])}")
    ax.legend()
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(f"{out}/fault.png", dpi=110)


def hint(recs, out):
    recs = [r for r in recs if r["workload"] == "hint"]
    sizes = sorted({r["size"] for r in recs})
    if not sizes:
        return
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    width = 0.38
    for i, fn in enumerate(("pc_clear", "pc_clear_hint")):
        ys = [next((r["median"] for r in recs if r["size"] == s and r["function"] == fn), 0)
              for s in sizes]
        ax.bar([x + (i - 0.5) * width for x in range(len(sizes))], ys, width, label=fn)
    ax.set_xticks(range(len(sizes)), [size_name(s) for s in sizes])
    ax.set_ylabel("ns to first read of the 5 pages, median")
    ax.set_title("Hint neighbourhood: straight clear vs pc_clear_hint")
    ax.legend()
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(f"{out}/hint.png", dpi=110)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py RESULTS.json OUTDIR")
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or doc.get("format") != "pageclear-results":
        sys.exit(f"plot.py: {sys.argv[1]} is not a pageclear results file")
    if doc.get("schema") != 2:
        sys.exit(f"plot.py: {sys.argv[1]} has results schema {doc.get('schema')}; "
                 "this script reads schema 2")
    recs = doc["records"]
    for chart in (units, latency, fault, hint):
        chart(recs, sys.argv[2])


if __name__ == "__main__":
    main()
