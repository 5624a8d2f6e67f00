#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every doc the tree cites exists, and so does every section it names.

Read: README.md, docs/ (the results pages too), the man pages and every
source file's comments (all tracked text but CHANGELOG.md, which names
files as they were at each release). Checked:
  - each path under docs/ written out (`docs/tuning.md`), and its
    `#anchor`: the file exists, the anchor is one of its headings;
  - each Markdown link to a file of the tree, relative to the page
    (`[x](../src/tuning/defaults.c)`, `[x](notes.md#anchor)`, `[x](#anchor)`);
  - each section named in quotes after a doc (`docs/notes.md, "Zen 5: the
    loads of the limits"`, across comment lines): a heading of that doc
    begins with it;
  - each file of an older tree cited as `COMMIT:docs/FILE`: git has it.
Paths with a placeholder (`docs/results/data/NAME.json`) or a glob are
templates, not citations. PENDING names docs other branches are adding:
a link to one passes while it is missing and fails once it exists (take
it out of PENDING then).
Usage: check_doc_links.py SOURCE_DIR
"""

import os
import pathlib
import re
import subprocess
import sys

PENDING = {
}
SKIP = {"CHANGELOG.md"}
SKIP_SUFFIXES = (".json", ".abi", ".png", ".gz")
DOC_PATH = re.compile(r"(?<![\w./-])(?:([0-9a-f]{7,40}):)?((?:\.\./)*docs/[\w./*-]*)(#[\w-]+)?")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
QUOTED = re.compile(r"(docs/[\w./-]+\.md)(?:'s)?,? (?:section |sections )?[\"\u201c]")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*$")
COMMENT_LEAD = re.compile(r"^\s*(?:\*|//[/!]?|#|--|;)?\s*")


def slug(heading: str, seen: dict) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped,
    spaces to hyphens, -1, -2 ... for repeats."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
    n = seen.get(s, 0)
    seen[s] = n + 1
    return s if n == 0 else f"{s}-{n}"


def headings(path: pathlib.Path, cache: dict) -> list:
    if path not in cache:
        out, seen, fence = [], {}, False
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("```"):
                fence = not fence
            elif not fence and re.match(r"^#{1,6} ", line):
                text = line.lstrip("#").strip()
                out.append((text, slug(text, seen)))
        cache[path] = out
    return cache[path]


def tracked(root: pathlib.Path) -> list:
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
        files = [root / f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = [pathlib.Path(d) / f for d, dirs, fs in os.walk(root) for f in fs
                 if not any(p.startswith((".", "build")) for p in pathlib.Path(d).relative_to(root).parts)]
    return [f for f in files if f.name not in SKIP and not f.name.endswith(SKIP_SUFFIXES)
            and f.is_file() and not f.is_symlink()]


class Checker:
    def __init__(self, root: pathlib.Path):
        self.root, self.cache, self.failures, self.checked = root, {}, [], 0
        self.git, self.commits = (root / ".git").exists(), {}

    def fail(self, where: str, what: str) -> None:
        self.failures.append(f"{where}: {what}")

    def target(self, where: str, rel: str, anchor: str, shown: str) -> None:
        """rel: a path from the root; anchor: '' or '#...'."""
        self.checked += 1
        path = self.root / rel
        if rel in PENDING:
            if path.exists():
                self.fail(where, f"{rel} exists now: take it out of PENDING in "
                                 "tests/lint/check_doc_links.py")
            return
        if not path.exists():
            parts = pathlib.PurePosixPath(rel).parts
            if "*" not in rel and not any(PLACEHOLDER.match(pathlib.PurePosixPath(p).stem)
                                          for p in parts):
                self.fail(where, f"{shown}: no such file")
            return
        if anchor and path.suffix == ".md":
            if anchor[1:] not in {s for _, s in headings(path, self.cache)}:
                self.fail(where, f"{shown}: {rel} has no heading '{anchor}'")

    def has(self, obj: str) -> bool:
        return self.git and subprocess.run(["git", "-C", str(self.root), "cat-file", "-e", obj],
                                           capture_output=True).returncode == 0

    def old_tree(self, where: str, commit: str, rel: str) -> None:
        """A shallow clone or a tarball lacks the commit: nothing to check."""
        if commit not in self.commits:
            self.commits[commit] = self.has(f"{commit}^{{commit}}")
        if self.commits[commit]:
            self.checked += 1
            if not self.has(f"{commit}:{rel}"):
                self.fail(where, f"{commit}:{rel}: not in git")

    def doc_paths(self, f: pathlib.Path, n: int, line: str) -> None:
        for m in DOC_PATH.finditer(line):
            commit, path, anchor = m.group(1), m.group(2).rstrip("."), m.group(3) or ""
            if path.startswith("../"):
                continue  # a Markdown link: md_links resolves it
            where = f"{f.relative_to(self.root)}:{n}"
            if commit:
                self.old_tree(where, commit, path)
            else:
                self.target(where, path, anchor, m.group(0))

    def md_links(self, f: pathlib.Path, n: int, line: str) -> None:
        for m in MD_LINK.finditer(line):
            link = m.group(1)
            if re.match(r"^[a-z]+:", link):
                continue  # https:, mailto:
            path, _, anchor = link.partition("#")
            full = (f.parent / path).resolve() if path else f.resolve()
            try:
                rel = full.relative_to(self.root.resolve()).as_posix()
            except ValueError:
                self.fail(f"{f.relative_to(self.root)}:{n}", f"{link}: outside the tree")
                continue
            self.target(f"{f.relative_to(self.root)}:{n}", rel, "#" + anchor if anchor else "",
                        link)

    def sections(self, f: pathlib.Path, text: str) -> None:
        """A section named in quotes after a doc: a heading begins with it."""
        for m in QUOTED.finditer(text):
            end = re.search(r"[\"\u201d]", text[m.end():])
            if end is None:
                continue
            quoted = text[m.end():m.end() + end.start()].split("\n")
            name = " ".join(COMMENT_LEAD.sub("", q) if i else q for i, q in enumerate(quoted))
            name = " ".join(name.replace("`", "").split()).lower()
            doc = self.root / m.group(1)
            n = text.count("\n", 0, m.start()) + 1
            self.checked += 1
            if not doc.exists():
                continue  # reported as a path
            if not any(" ".join(h.replace("`", "").split()).lower().startswith(name)
                       for h, _ in headings(doc, self.cache)):
                self.fail(f"{f.relative_to(self.root)}:{n}",
                          f"{m.group(1)} has no section \"{name}\"")

    def file(self, f: pathlib.Path) -> None:
        try:
            text = f.read_text()
        except (UnicodeDecodeError, OSError):
            return
        for n, line in enumerate(text.splitlines(), 1):
            self.doc_paths(f, n, line)
            if f.suffix == ".md":
                self.md_links(f, n, line)
        self.sections(f, text)


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    ck = Checker(root)
    for f in tracked(root):
        ck.file(f)
    for msg in ck.failures:
        print(f"FAIL {msg}")
    print(f"doc links: {ck.checked} checked, {len(ck.failures)} failure(s)")
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
