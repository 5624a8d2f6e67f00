#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Validate pageclear's JSON output against docs/results.schema.json.

Uses only the standard library: it interprets the subset of JSON Schema the
schema file uses (type, required, properties, additionalProperties, enum,
minimum, pattern, items), and checks the statistics are consistent with each
other and with the runs each record carries (schema 2), and that the
workloads that fault memory in carry each run's CPU time and the others not.
Usage: check_json.py SCHEMA JSONFILE [--expect WORKLOAD ...]
"""
import json
import re
import statistics
import sys

# The workloads that fault memory in: each run's user and system time;
# and in the headroom table, the fault path's two of its contenders.
CPU_WORKLOADS = {"mmap", "fault", "pool", "parallel", "anon"}
CPU_FUNCTIONS = {"headroom": {"populate", "demand"}}

TYPES = {"array": list, "object": dict, "string": str, "integer": int,
         "number": (int, float), "null": type(None)}


def check(value, schema, path):
    kinds = schema.get("type")
    if kinds is not None:
        kinds = kinds if isinstance(kinds, list) else [kinds]
        ok = any(isinstance(value, TYPES[k]) and not (k in ("integer", "number") and
                                                      isinstance(value, bool))
                 for k in kinds)
        if not ok:
            raise ValueError(f"{path}: {value!r} is not {kinds}")
    if "enum" in schema and value not in schema["enum"]:
        raise ValueError(f"{path}: {value!r} not in {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        raise ValueError(f"{path}: {value!r} does not match {schema['pattern']}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        raise ValueError(f"{path}: {value} < {schema['minimum']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                raise ValueError(f"{path}: missing {key}")
        props = schema.get("properties", {})
        for key, v in value.items():
            if key not in props:
                if schema.get("additionalProperties", True) is False:
                    raise ValueError(f"{path}: unexpected {key}")
                continue
            check(v, props[key], f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            check(v, schema["items"], f"{path}[{i}]")


def check_runs(i, r):
    """The record's statistics are those of its runs."""
    v = r["samples"]
    if v is None:
        if r["workload"] != "tune":
            sys.exit(f"record {i}: no samples: {r}")
        return
    if len(v) != r["runs"]:
        sys.exit(f"record {i}: {len(v)} samples, runs says {r['runs']}")
    tol = 1e-5 * max(1.0, max(abs(x) for x in v))
    for key, want in (("mean", statistics.fmean(v)), ("median", statistics.median(v)),
                      ("min", min(v)), ("max", max(v))):
        if abs(r[key] - want) > tol:
            sys.exit(f"record {i}: {key} {r[key]} is not that of its samples ({want})")
    cpu = r["workload"] in CPU_WORKLOADS or r["function"] in CPU_FUNCTIONS.get(r["workload"], ())
    for key in ("utime_s", "stime_s"):
        if (r[key] is not None) != cpu:
            sys.exit(f"record {i}: {key} {'missing' if cpu else 'unexpected'}: {r}")
        if cpu and len(r[key]) != r["runs"]:
            sys.exit(f"record {i}: {len(r[key])} {key} for {r['runs']} runs")


def main():
    schema = json.load(open(sys.argv[1]))
    data = json.load(open(sys.argv[2]))
    check(data, schema, "$")
    recs = data["records"]
    if not recs:
        sys.exit("no records")
    for i, r in enumerate(recs):
        eps = 1e-6 * max(1.0, abs(r["max"]))
        if not (r["min"] - eps <= r["median"] <= r["max"] + eps and
                r["min"] - eps <= r["mean"] <= r["max"] + eps and
                r["min"] - eps <= r["p99"] <= r["max"] + eps):
            sys.exit(f"record {i}: statistics out of order: {r}")
        # CPU time (prealloc's stime/utime) can be 0: below the clock tick.
        cpu_time = r["unit"] in ("stime s/TiB", "utime s/TiB")
        if r["min"] < 0 or (r["min"] == 0 and not cpu_time):
            sys.exit(f"record {i}: non-positive measurement: {r}")
        check_runs(i, r)
    want = sys.argv[sys.argv.index("--expect") + 1:] if "--expect" in sys.argv else []
    seen = {r["workload"] for r in recs}
    missing = [w for w in want if w not in seen]
    if missing:
        sys.exit(f"workloads missing from the output: {missing}")
    print(f"ok: {len(recs)} records, workloads {sorted(seen)}")


if __name__ == "__main__":
    main()
