#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The durations the docs quote are cli/tune/durations.h's: every "about N s" (or
"~N s", "N minutes", ...) on a line about tune, tune --quick or check in
README.md, docs/tuning.md and pageclear(1) is the string defined there, so a
new measurement changes one line and the test names every quote left behind.
(The command's help prints the defines themselves.)
Usage: check_durations.py SOURCE_DIR"""

import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1])
defines = dict(re.findall(r'^#define (CLI_\w+_TIME) "([^"]+)"',
                          (src / "cli" / "tune" / "durations.h").read_text(), re.M))
want = {k: defines.get(f"CLI_{k.upper()}_TIME") for k in ("tune", "tune_quick", "check")}
assert all(want.values()), f"cli/tune/durations.h lacks a define: {want}"
DURATION = re.compile(r"(~|about |\b)\d+(\.\d+)?(-\d+)? ?(s|sec|seconds|min|minutes)\b")
failures = []


def expect(where, line, key):
    if DURATION.search(line) and want[key] not in line:
        failures.append(f"{where}: quotes a duration for {key.replace('_', ' --')}, "
                        f"not cli/tune/durations.h's '{want[key]}': {line.strip()}")


# (Lines starting with "#" are output quoted, such as a profile's header.)
for name in ("README.md", "docs/tuning.md"):
    for n, line in enumerate((src / name).read_text().splitlines(), 1):
        m = None if line.startswith("#") else re.search(r"pageclear (tune|check)( --quick)?\b", line)
        if m is None:
            continue
        key = m.group(1) + ("_quick" if m.group(2) and m.group(1) == "tune" else "")
        if m.group(1) == "check" and m.group(2):
            continue  # check --quick quotes no duration
        expect(f"{name}:{n}", line, key)

# pageclear(1): tune's section quotes --quick's duration.
man = (src / "man" / "pageclear.1").read_text()
tune = re.search(r"^\.SS tune\n(.*?)^\.SS ", man, re.S | re.M)
assert tune, "pageclear(1) has no tune section"
quoted = [ln for ln in tune.group(1).splitlines() if DURATION.search(ln)]
if not quoted:
    failures.append("pageclear(1): tune --quick's duration is not quoted")
for ln in quoted:
    expect("pageclear(1) tune", ln, "tune_quick")

for f in failures:
    print(f"FAIL {f}")
sys.exit(1 if failures else 0)
