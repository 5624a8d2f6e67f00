#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Validate pageclear's JSON output against docs/results.schema.json.

Uses only the standard library: it interprets the subset of JSON Schema the
schema file uses (type, required, properties, additionalProperties, enum,
minimum, pattern, items), and checks the statistics are consistent with each other.
Usage: check_json.py SCHEMA JSONFILE [--expect WORKLOAD ...]
"""
import json
import re
import sys

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


def main():
    schema = json.load(open(sys.argv[1]))
    data = json.load(open(sys.argv[2]))
    check(data, schema, "$")
    if not data:
        sys.exit("no records")
    for i, r in enumerate(data):
        eps = 1e-6 * max(1.0, abs(r["max"]))
        if not (r["min"] - eps <= r["median"] <= r["max"] + eps and
                r["min"] - eps <= r["mean"] <= r["max"] + eps and
                r["min"] - eps <= r["p99"] <= r["max"] + eps):
            sys.exit(f"record {i}: statistics out of order: {r}")
        # CPU time (prealloc's stime/utime) can be 0: below the clock tick.
        cpu_time = r["unit"] in ("stime s/TiB", "utime s/TiB")
        if r["min"] < 0 or (r["min"] == 0 and not cpu_time):
            sys.exit(f"record {i}: non-positive measurement: {r}")
    want = sys.argv[sys.argv.index("--expect") + 1:] if "--expect" in sys.argv else []
    seen = {r["workload"] for r in data}
    missing = [w for w in want if w not in seen]
    if missing:
        sys.exit(f"workloads missing from the output: {missing}")
    print(f"ok: {len(data)} records, workloads {sorted(seen)}")


if __name__ == "__main__":
    main()
