#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The tree stays simple to walk: no C file in src/ or cli/ over FILE_MAX
lines, no function there over FUNC_MAX lines (from the line holding its
opening brace at column 0 to its closing brace at column 0, the house
style every function follows); and no instruction or CPU-feature test in
a C file outside src/arch/ but for the preload's memset entries
(ARCH_FILES), which docs/design.md names.
Usage: check_structure.py SOURCE_DIR
"""
import pathlib
import re
import subprocess
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


def main():
    root = pathlib.Path(sys.argv[1])
    bad = list(arch_code_outside(root))
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
    print("check_structure: files and functions in src/ and cli/ within bounds, "
          "instructions and CPU tests in src/arch/ and the preload's memset entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
