#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The tree stays simple to walk:
- every C file of the sources lives in a folder of LAYOUT, the one list
  of folders and their concerns (docs/design.md draws it as the map), and
  no such folder holds more than DIR_MAX C files;
- no C file there over FILE_MAX lines, no function over FUNC_MAX lines
  (from the line holding its opening brace at column 0 to its closing
  brace at column 0, the house style every function follows);
- the daemon (serve/) includes nothing of the command (cli/): the command
  starts the daemon, never the other way;
- no two C files in different folders share a name (x.c beside its x.h
  is one name): a header is included by its name alone, and one target
  sees several components' folders (the library's and the command's);
- no instruction or CPU-feature test in a C file outside src/arch/ but for
  the preload's memset entries (ARCH_FILES), which docs/design.md names;
- every file of tests/ but its CMakeLists.txt lies in a folder of
  TEST_LAYOUT, the tests by kind.
Usage: check_structure.py SOURCE_DIR
"""
import pathlib
import re
import subprocess
import sys

FILE_MAX = 500  # lines: one concern per file
FUNC_MAX = 80   # lines: a function a reader holds in their head
DIR_MAX = 20    # C files (.c and .h): a folder a reader can list at a glance

# The folders of sources and what each holds: a C file anywhere else under
# SOURCE_ROOTS fails, so a new folder comes with its line here (and on the
# map in docs/design.md).
LAYOUT = {
    "cli": "the command's frame: main, the command table, arguments, output, JSON, "
           "statistics, list and info",
    "cli/host": "what a run depends on: the environment block, the kernel, the C library, "
                "the counters",
    "cli/measure": "the measurement core: buffers, cache states, timed clears, grids, faults",
    "cli/bench": "the workloads and the default suite with its tables",
    "cli/perf": "perf bench mem's command line and output: `pageclear bench mem`",
    "cli/startup": "start-up memory: prealloc, pool, parallel populate, get, serve",
    "cli/tune": "tune: the crossovers measured, the profile written",
    "cli/check": "check: the selection in force held to its contracts",
    "cli/compare": "compare: results files side by side, the U test",
    "cli/exec": "exec: a program run under the preload",
    "serve": "the daemon and its program: protocol, configuration, quotas, reserve, "
             "tenants' cgroups, connections, log",
    "src": "the library: primitives table, selection, dispatch, batching, hint",
    "src/tuning": "the library's thresholds: built-in, profile, environment",
    "src/pool": "the library's zeroed-page pool and its known-zero tracking",
    "src/parallel": "the library's parallel clear and populate",
    "src/present": "pc_clear_present: the kernel's view of a range, what it has not handed out",
    "src/arch/x86_64": "x86-64 primitives and CPU features",
    "src/arch/aarch64": "arm64 primitives and CPU features",
    "src/arch/generic": "the portable primitive and CPU stub",
    "preload": "the preload for unmodified programs",
    "python/src": "the Python extension",
}
SOURCE_ROOTS = ("cli", "serve", "src", "preload", "python/src")
# The tests by kind (docs/design.md's map has a line for each): a file of
# tests/ elsewhere fails, so a new kind comes with its line here.
TEST_LAYOUT = {
    "unit": "a program per concern, against references, sentinels and guard pages",
    "integration/command": "the command run for real: outputs, errors, golden files, perf",
    "integration/daemon": "the daemon's parsers, the daemon, huge pages for real",
    "integration/preload": "programs built without pageclear, under the preload",
    "stress": "long and heavy runs: the soak, a hostile tenant, the timed loads",
    "fuzz": "fuzz targets: seeded drivers, libFuzzer with PC_FUZZ",
    "lint": "the tree's own checks",
    "helpers": "what the tests share",
    "data": "golden outputs, stored results, recorded answers",
    "abi": "the size contract against the frozen 1.0 header",
}


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


# Inline assembly with an instruction in it (an empty string is a compiler
# barrier), cpuid, and the compilers' CPU builtins and intrinsics headers.
ARCH_CODE = re.compile(r'\b(__asm__|asm)\b(\s+(volatile|__volatile__|goto))?\s*\(\s*"[^"]'
                       r'|\bcpuid\.h\b|\b__cpuid\w*|\b__builtin_cpu_\w+|\b__builtin_ia32_\w+'
                       r'|\b\w*intrin\.h\b|\barm_(neon|sve|acle)\.h\b')
# The preload's memset entries, written in assembly (the preload reads the
# CPU through src/arch/x86_64/cpu_words.c, compiled into it).
ARCH_FILES = {"preload/entry_x86_64.c", "preload/entry_x86_64_v3.c",
              "preload/entry_x86_64_v4.c"}
SKIP_DIRS = {".git", "target", "c"}  # rust/*/c links into src/


def c_files(root):
    """The tree's C files: git's list where root is a checkout (nothing a
    build or a package left beside the sources), else every one but those
    under SKIP_DIRS and build or hidden directories (a release tarball)."""
    def git(*args):
        return subprocess.run(["git", "-C", str(root), *args],
                              capture_output=True, check=True).stdout
    try:
        if pathlib.Path(git("rev-parse", "--show-toplevel").decode().strip()) == root.resolve():
            out = git("ls-files", "-z", "*.c", "*.h").decode()
            return sorted(root / f for f in out.split("\0") if f)
    except (OSError, subprocess.CalledProcessError):
        pass
    return sorted(p for p in root.rglob("*.[ch]")
                  if not any(d in SKIP_DIRS or d.startswith(("build", "."))
                             for d in p.relative_to(root).parts[:-1]))


def test_files(root):
    """tests/'s files, relative to it: git's list where root is a checkout,
    else every file but caches and hidden ones (a release tarball)."""
    tests = root / "tests"
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "tests"],
                             capture_output=True, check=True).stdout.decode()
        if out:
            return sorted(pathlib.PurePosixPath(f).relative_to("tests")
                          for f in out.split("\0") if f)
    except (OSError, subprocess.CalledProcessError):
        pass
    return sorted(pathlib.PurePosixPath(p.relative_to(tests).as_posix())
                  for p in tests.rglob("*") if p.is_file()
                  and not any(d == "__pycache__" or d.startswith(".")
                              for d in p.relative_to(tests).parts))


def tests_outside(root):
    """Yield a line for each file of tests/ outside TEST_LAYOUT."""
    for rel in test_files(root):
        if rel.as_posix() == "CMakeLists.txt":
            continue
        if not any(rel.as_posix().startswith(k + "/") for k in TEST_LAYOUT):
            yield f"tests/{rel}: not in a folder of TEST_LAYOUT (tests/ by kind)"


def arch_code_outside(root):
    """Yield 'file:line' for each instruction or CPU test outside its place."""
    for p in c_files(root):
        rel = p.relative_to(root)
        parts = rel.parts
        if not p.is_file():  # listed by git, deleted in the work tree
            continue
        if parts[:2] == ("src", "arch") or rel.as_posix() in ARCH_FILES:
            continue
        # Whole text, line comments out: an asm statement may open its
        # string on the next line.
        text = "\n".join(line.split("//")[0] for line in p.read_text(errors="replace").splitlines())
        for m in ARCH_CODE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            yield f"{rel}:{line}: an instruction or CPU test outside src/arch/"


def layout_problems(root):
    """Yield a line for each C file outside LAYOUT, each folder over
    DIR_MAX, and each include of the command's headers by the daemon."""
    counts = {}
    for r in SOURCE_ROOTS:
        for p in sorted((root / r).rglob("*.[ch]")):
            folder = p.parent.relative_to(root).as_posix()
            if folder not in LAYOUT:
                yield f"{p.relative_to(root)}: in {folder}/, not a folder of LAYOUT"
            counts[folder] = counts.get(folder, 0) + 1
    for folder, n in sorted(counts.items()):
        if n > DIR_MAX:
            yield f"{folder}/: {n} C files (at most {DIR_MAX})"
    cli_headers = {p.name for p in (root / "cli").rglob("*.h")}
    for p in sorted((root / "serve").rglob("*.[ch]")):
        for n, line in enumerate(p.read_text().splitlines(), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m and ("cli/" in m.group(1) or pathlib.Path(m.group(1)).name in cli_headers):
                yield f"{p.relative_to(root)}:{n}: the daemon includes the command's {m.group(1)}"


def shared_names(root):
    """Yield a line for each name (x of x.c, x.h) used in two folders."""
    where = {}
    for r in SOURCE_ROOTS:
        for p in sorted((root / r).rglob("*.[ch]")):
            where.setdefault(p.stem, set()).add(p.parent.relative_to(root).as_posix())
    for name, folders in sorted(where.items()):
        if len(folders) > 1:
            yield f"{name}: in {' and '.join(f + '/' for f in sorted(folders))} (one name per file)"


def main():
    root = pathlib.Path(sys.argv[1])
    bad = (list(arch_code_outside(root)) + list(layout_problems(root))
           + list(shared_names(root)) + list(tests_outside(root)))
    for d in SOURCE_ROOTS:
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
    print(f"check_structure: {len(LAYOUT)} folders as LAYOUT says, none over {DIR_MAX} C files; "
          "files and functions within bounds; one name per file; "
          "the daemon apart from the command; "
          "instructions and CPU tests in src/arch/ and the preload's memset entries; "
          f"tests/ in its {len(TEST_LAYOUT)} folders by kind")
    return 0


if __name__ == "__main__":
    sys.exit(main())
