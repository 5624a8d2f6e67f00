#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The tree stays simple to walk: no C file in src/ or cli/ over FILE_MAX
lines, no function there over FUNC_MAX lines (from the line holding its
opening brace at column 0 to its closing brace at column 0, the house
style every function follows).
Usage: check_structure.py SOURCE_DIR
"""
import pathlib
import re
import sys

FILE_MAX = 500  # lines: one concern per file
FUNC_MAX = 80   # lines: a function a reader holds in their head


def functions(lines):
    """Yield (name, first line, length) for each function definition."""
    start = None
    for i, line in enumerate(lines):
        if line.startswith("{") and start is None:
            j = i - 1
            while j >= 0 and "(" not in lines[j]:
                j -= 1
            m = re.search(r"(\w+)\s*\(", lines[j]) if j >= 0 else None
            start = (m.group(1) if m else "?", j + 1)
        elif line.startswith("}") and start is not None:
            if not line.startswith("};"):  # initialisers end with "};"
                yield start[0], start[1], i + 1 - start[1] + 1
            start = None


def main():
    root = pathlib.Path(sys.argv[1])
    bad = []
    for d in ("src", "cli"):
        for p in sorted((root / d).rglob("*.[ch]")):
            text = p.read_text().splitlines()
            rel = p.relative_to(root)
            if len(text) > FILE_MAX:
                bad.append(f"{rel}: {len(text)} lines (at most {FILE_MAX})")
            for name, first, n in functions(text):
                if n > FUNC_MAX:
                    bad.append(f"{rel}:{first}: {name}() is {n} lines (at most {FUNC_MAX})")
    for b in bad:
        print("check_structure:", b)
    if bad:
        return 1
    print("check_structure: files and functions in src/ and cli/ within bounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
