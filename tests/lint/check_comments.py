#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Comments say why in a few lines and cite only what is in the tree.

Read: the comments of every tracked C and Rust source, header, .def, linker
map, CMake file, shell and Python script (and Python docstrings) under
ROOTS, and the top CMakeLists.txt; not tests/data/ (stored data), data/,
docs/ (docs/notes.md may point into git history; doc_links checks what
docs cite) or the frozen 1.0 header. A comment fails when it
  - cites a page of an older tree by commit (`COMMIT:docs/FILE`) or by the
    old pages' names or numbering ("Part II", "section 9");
  - reads as a run log: a date, a clock time in UTC, a load average;
  - points outside the repository (../shared/, tools/newer-glibc.sh, /work/,
    /home/);
  - carries more than FIG_MAX lines of figures (GB/s, ns, %, ratios like
    0.97, factors like 1.4x): those belong in data a test reads, or in
    docs/notes.md;
  - names a file of the tree (src/..., tests/..., a path from the top)
    that does not exist.
Usage: check_comments.py SOURCE_DIR
"""
import ast
import os
import pathlib
import re
import subprocess
import sys

FIG_MAX = 3  # lines of figures one comment may carry

ROOTS = ("src", "cli", "serve", "preload", "include", "python", "rust", "cmake",
         "examples", "scripts", "tests")
TOP = ("CMakeLists.txt",)
C_LIKE = (".c", ".h", ".def", ".rs")
HASH_LIKE = (".sh", ".py", ".cmake", ".list", ".in")
SKIP = ("tests/data/", "rust/target")
SKIP_FILES = {"tests/abi/pageclear-1.0.h"}  # frozen: the 1.0 header as released
SELF = pathlib.Path(__file__).resolve()  # its own text names every pattern

RULES = [
    ("old page", re.compile(r"\b[0-9a-f]{7,40}:(?:docs|src|cli|preload|tests|scripts|README)")),
    ("old page", re.compile(r"\b(?:measurements(?:-[\w-]+)?|preload-(?:measured|short-calls"
                            r"|below-threshold)[\w-]*)\.md\b")),
    ("old numbering", re.compile(r"\bPart [IVX]+\b|\bsections? \d+")),
    ("run log", re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b|\b\d\d:\d\d UTC\b|\bload average\b")),
    ("outside the tree", re.compile(r"\.\./shared/|\btools/newer-glibc\.sh\b|/work/|/home/")),
]
FIGURE = re.compile(r"\d+(?:\.\d+)?\s*(?:GB/s|GiB/s|MB/s|ns|us|µs|ms)\b|\d(?:\.\d+)?%"
                    r"|\b[01]\.\d\d\b|\b\d+(?:\.\d+)?x\b")
CITED = re.compile(r"(?<![\w./-])((?:src|cli|serve|preload|tests|scripts|include|data|man"
                   r"|python|rust|cmake|examples|debian|abi)/[\w./-]*\w\.(?:c|h|def|py|sh|json"
                   r"|tsv|md|txt|cmake|list|map|rs|in|profile|abi))\b")
PLACEHOLDER = re.compile(r"/[A-Z][A-Z_]*\.")

# C and Rust: a comment, or a literal to step over. Rust's lifetimes ('a)
# are not char literals, so a quote only opens one that closes soon.
C_TOKENS = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n]){1,8}\'', re.S)
HASH_LINE = re.compile(r"^\s*#(?!!)")
CPP_LINE = re.compile(r"^\s*#\s*(?:include|define|undef|if|ifdef|ifndef|elif|else|endif"
                      r"|pragma|error|warning|line)\b")


def tracked(root: pathlib.Path) -> list:
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
        names = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        names = [str((pathlib.Path(d) / f).relative_to(root)) for d, dirs, fs in os.walk(root)
                 for f in fs if not any(p.startswith((".", "build"))
                                        for p in pathlib.Path(d).relative_to(root).parts)]
    out = []
    for name in sorted(names):
        if name in SKIP_FILES or name.startswith(SKIP) or (root / name).resolve() == SELF:
            continue
        if name not in TOP and not name.startswith(tuple(r + "/" for r in ROOTS)):
            continue
        base = name.rsplit("/", 1)[-1]
        if base == "CMakeLists.txt" or base.endswith(C_LIKE + HASH_LIKE + (".map",)):
            if (root / name).is_file():
                out.append(name)
    return out


def c_blocks(text: str) -> list:
    """(first line, text) of each comment; consecutive // lines are one."""
    blocks = []
    for m in C_TOKENS.finditer(text):
        s = m.group(0)
        if s[0] in "\"'":
            continue
        line = text.count("\n", 0, m.start()) + 1
        if (s.startswith("//") and blocks and blocks[-1][2]
                and blocks[-1][0] + blocks[-1][1].count("\n") == line - 1):
            blocks[-1] = (blocks[-1][0], blocks[-1][1] + "\n" + s, True)
        else:
            blocks.append((line, s, s.startswith("//")))
    return [(a, s) for a, s, _ in blocks]


def hash_blocks(text: str, cpp: bool) -> list:
    """(first line, text) of each run of lines that start with #."""
    blocks = []
    for i, line in enumerate(text.split("\n"), 1):
        if not HASH_LINE.match(line) or (cpp and CPP_LINE.match(line)):
            continue
        if blocks and blocks[-1][0] + blocks[-1][1].count("\n") == i - 1:
            blocks[-1] = (blocks[-1][0], blocks[-1][1] + "\n" + line)
        else:
            blocks.append((i, line))
    return blocks


def docstrings(text: str) -> list:
    """(first line, text) of a Python file's docstrings."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                out.append((body[0].lineno, body[0].value.value))
    return out


def comments(name: str, text: str) -> list:
    if name.endswith(C_LIKE):
        return c_blocks(text)
    if name.endswith(".map"):
        return c_blocks(text) + hash_blocks(text, False)
    blocks = hash_blocks(text, False)
    if name.endswith(".py"):
        blocks += docstrings(text)
    return blocks


LEAD = re.compile(r"^\s*(?:/\*+|\*+/?|//[/!]?|#+)?\s?")


def joined(lines: list) -> tuple:
    """The block's words as one line (comment leaders dropped), and where
    each source line starts in it: a phrase split over lines still reads
    as one."""
    text, starts = "", []
    for line in lines:
        starts.append(len(text))
        text += LEAD.sub("", line, count=1).rstrip() + " "
    return text, starts


def exists(root: pathlib.Path, name: str, path: str) -> bool:
    """A path from the top, or from a folder above the file (a crate's
    src/lib.rs, cited from its build.rs)."""
    here = pathlib.Path(name).parent
    return any((root / base / path).exists() for base in [here, *here.parents])


def check(root: pathlib.Path, name: str, failures: list) -> int:
    text = (root / name).read_text(errors="replace")
    blocks = comments(name, text)
    for first, block in blocks:
        lines = block.split("\n")
        words, starts = joined(lines)
        line_of = lambda at: first + max(k for k, s in enumerate(starts) if s <= at)
        for rule, pattern in RULES:
            for m in pattern.finditer(words):
                failures.append(f"{name}:{line_of(m.start())}: {rule}: {m.group(0)}")
        for m in CITED.finditer(words):
            path = m.group(1)
            if "*" in path or PLACEHOLDER.search(path) or path.startswith("include/uapi/"):
                continue
            if not exists(root, name, path):
                failures.append(f"{name}:{line_of(m.start())}: no such file: {path}")
        figures = [k for k, line in enumerate(lines) if FIGURE.search(line)]
        if len(figures) > FIG_MAX:
            failures.append(f"{name}:{first}: figures: {len(figures)} lines of figures"
                            f" (at most {FIG_MAX}; the data in a file a test reads, or"
                            f" docs/notes.md)")
    return len(blocks)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1])
    files = tracked(root)
    failures, blocks = [], 0
    for name in files:
        blocks += check(root, name, failures)
    for f in failures:
        print(f"check_comments: {f}", file=sys.stderr)
    if failures or not files:
        print(f"check_comments: {len(failures)} failures in {len(files)} files", file=sys.stderr)
        return 1
    print(f"check_comments: {len(files)} files, {blocks} comment blocks: no old pages, dates "
          f"or run logs; at most {FIG_MAX} lines of figures a comment; every path cited exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
