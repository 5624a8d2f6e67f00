#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every code block of README.md, docs/*.md and docs/results/*.md (made by
scripts/results_pages.py, which writes the markers too) is checked as its
marker says.

The line just before each fence must be an HTML comment (invisible on
GitHub) naming how the block is checked; a block without one fails:

  <!-- snippet: c -->              compiled against include/ (a whole file)
  <!-- snippet: header-excerpt --> quoted from include/pageclear.h: each
                                   line is there, as written
  <!-- snippet: c-run [FILE] -->   compiled, linked to BUILD's library and
                                   run; saved as FILE for install blocks
  <!-- snippet: install -->        the file's install blocks, in order, run
                                   by bash in a scratch directory with
                                   /usr/local replaced by a scratch prefix
                                   and ./build the given build tree
  <!-- snippet: cmake-install -->  a CMakeLists.txt fragment, after a
                                   project() line, built against that prefix
                                   (after the install blocks)
  <!-- snippet: pageclear -->      `pageclear` command lines: each command
                                   exists and takes each option written
                                   (checked against `pageclear CMD --help`,
                                   perf's `bench mem` lines against theirs;
                                   nothing is measured)
  <!-- snippet: python -->         run (--python: with an extension built
                                   from this tree) or else compiled only
  <!-- snippet: rust -->           built and run as a program against
                                   rust/pageclear (--rust), a block without
                                   `fn main` inside one returning Result
  <!-- snippet: rust-doctest -->   run by `cargo test` as the crate's docs:
                                   checked that rust/pageclear/src/lib.rs
                                   includes this file
  <!-- snippet: toml -->           parsed as TOML
  <!-- snippet: illustrative -->   not run: output, layouts, or what takes
                                   the machine (benchmarks, the test suite,
                                   installing system-wide)

Usage: scripts/snippets.py --build BUILD [--python] [--rust] [FILE...]
       scripts/snippets.py --markers-only [FILE...]   (ctest snippet_markers)
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from typing import Dict, List, Optional

SRC = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- snippet: ([a-z-]+)(?: (\S+))? -->$")
KINDS = {"c", "c-run", "header-excerpt", "install", "cmake-install", "pageclear", "python", "rust",
         "rust-doctest", "toml", "illustrative"}
SLOW = 600  # seconds: the install blocks build against the prefix


@dataclass
class Block:
    path: pathlib.Path
    line: int  # of the opening fence, 1-based
    kind: str
    arg: Optional[str]
    text: str

    def where(self) -> str:
        return f"{shown(self.path)}:{self.line}"


def shown(path: pathlib.Path) -> str:
    return str(path.relative_to(SRC)) if path.is_relative_to(SRC) else str(path)


def blocks(path: pathlib.Path, errors: List[str]) -> List[Block]:
    lines = path.read_text().split("\n")
    out: List[Block] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            errors.append(f"{shown(path)}:{i + 1}: unclosed code block")
            break
        m = MARKER.match(lines[i - 1]) if i > 0 else None
        where = f"{shown(path)}:{i + 1}"
        if m is None:
            errors.append(f"{where}: no <!-- snippet: KIND --> line before the block")
        elif m.group(1) not in KINDS:
            errors.append(f"{where}: unknown snippet kind '{m.group(1)}'")
        else:
            out.append(Block(path, i + 1, m.group(1), m.group(2), "\n".join(lines[i + 1:end]) + "\n"))
        i = end + 1
    return out


def run(cmd: List[str], cwd: pathlib.Path, timeout: int = 120,
        env: Optional[Dict[str, str]] = None) -> Optional[str]:
    """None if cmd succeeded, else what it said."""
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                           env=env)
    except subprocess.TimeoutExpired:
        return f"{cmd[0]}: timed out after {timeout} s"
    if r.returncode == 0:
        return None
    return f"{shlex.join(cmd)}: exit {r.returncode}\n{(r.stdout + r.stderr)[-3000:]}"


class Checker:
    def __init__(self, build: pathlib.Path, tmp: pathlib.Path, python: bool, rust: bool):
        self.build, self.tmp, self.python, self.rust = build, tmp, python, rust
        self.pageclear = build / "cli" / "pageclear"
        self.libdir = build  # libpageclear.so.* is at the top of the build tree
        self.pypath: Optional[pathlib.Path] = None
        self.help: Dict[str, Optional[str]] = {}

    def c(self, b: Block, link: bool) -> Optional[str]:
        d = self.tmp / f"c{b.line}"
        d.mkdir()
        (d / "snippet.c").write_text(b.text)
        cc = [os.environ.get("CC", "cc"), "-std=c11", "-Wall", "-Wextra", "-Werror",
              "-I", str(SRC / "include"), "snippet.c"]
        if not link:
            return run(cc + ["-c", "-o", "snippet.o"], d)
        err = run(cc + ["-o", "snippet", "-L", str(self.libdir), "-lpageclear",
                        f"-Wl,-rpath,{self.libdir}"], d)
        return err or run(["./snippet"], d)

    def command(self, name: str) -> Optional[str]:
        if name not in self.help:
            r = subprocess.run([str(self.pageclear), *name.split(), "--help"], capture_output=True,
                               text=True, timeout=30)
            if name.startswith("bench ") and " mem" in name:
                # perf's command line (docs/perf.md): its usage on stderr, exit 129
                self.help[name] = r.stderr if r.returncode == 129 and "Usage:" in r.stderr else None
            else:
                self.help[name] = r.stdout if r.returncode == 0 and not r.stderr else None
        return self.help[name]

    @staticmethod
    def perf_parts(args: List[str]):
        """`bench [opts] mem BENCH [opts]`: perf bench's options, checked
        against its usage, and the benchmark's, against the benchmark's."""
        i = args.index("mem")
        bench = args[i + 1] if i + 1 < len(args) else ""
        return [("bench -h mem", args[1:i]), (f"bench mem {bench}", args[i + 2:])]

    def pageclear_lines(self, b: Block) -> Optional[str]:
        for line in b.text.splitlines():
            for part in re.split(r";|&&", line.split("#", 1)[0]):
                words = shlex.split(part)
                if not words:
                    continue
                if words[0] != "pageclear":
                    return f"'{part.strip()}' is not a pageclear command"
                args = words[1:]
                cmd = args[0] if args and not args[0].startswith("-") else "bench"
                parts = [(cmd, args)]
                if cmd == "bench" and "mem" in args:
                    parts = self.perf_parts(args)
                for cmd, opts in parts:
                    usage = self.command(cmd)
                    if usage is None:
                        return f"'pageclear {cmd} --help' fails: no such command?"
                    for a in opts:
                        opt = a.split("=", 1)[0]
                        if a.startswith("-") and not re.search(rf"(^|[\s\[|,(]){re.escape(opt)}\b", usage):
                            return f"'{part.strip()}': pageclear {cmd} has no option {opt}"
        return None

    def python_block(self, b: Block) -> Optional[str]:
        try:
            code = compile(b.text, b.where(), "exec")
        except SyntaxError as e:
            return f"does not compile: {e}"
        if not self.python:
            print(f"note {b.where()}: python compiled only (no --python)")
            return None
        del code
        if self.pypath is None:
            err = self.build_python()
            if err:
                return err
        env = dict(os.environ, PYTHONPATH=str(self.pypath))
        return run([sys.executable, "-c", b.text], self.tmp, timeout=300, env=env)

    def build_python(self) -> Optional[str]:
        """The extension from this tree, beside a copy of the package."""
        bdir = self.tmp / "py-build"
        err = run(["cmake", "-S", str(SRC), "-B", str(bdir), "-DCMAKE_BUILD_TYPE=Release",
                   "-DPC_PYTHON=ON", "-DPC_TESTS=OFF"], self.tmp, SLOW)
        err = err or run(["cmake", "--build", str(bdir), "-j2", "--target", "_pageclear"],
                         self.tmp, SLOW)
        if err:
            return err
        self.pypath = self.tmp / "py"
        shutil.copytree(SRC / "python" / "pageclear", self.pypath / "pageclear")
        for so in (bdir / "python").glob("_pageclear*.so"):
            shutil.copy(so, self.pypath / "pageclear")
        return None

    def rust_blocks(self, bs: List[Block]) -> Dict[str, Optional[str]]:
        """Each block a program of one scratch crate: one build, then runs."""
        crate = self.tmp / "rs"
        (crate / "src" / "bin").mkdir(parents=True)
        (crate / "Cargo.toml").write_text(
            '[package]\nname = "snippets"\nversion = "0.0.0"\nedition = "2021"\n'
            f'[dependencies]\npageclear = {{ path = "{SRC / "rust" / "pageclear"}" }}\n'
            "[workspace]\n")
        names = {}
        for b in bs:
            name = f"s{b.line}_{b.path.stem.replace('-', '_').lower()}"
            body = b.text if "fn main" in b.text else (
                "fn main() -> Result<(), Box<dyn std::error::Error>> {\n"
                + b.text + "    Ok(())\n}\n")
            (crate / "src" / "bin" / f"{name}.rs").write_text(body)
            names[b.where()] = name
        env = dict(os.environ, CARGO_TARGET_DIR=str(self.tmp / "rs-target"))
        err = run(["cargo", "build", "--release", "--bins", "--quiet"], crate, SLOW, env)
        out: Dict[str, Optional[str]] = {}
        for where, name in names.items():
            out[where] = err or run([str(self.tmp / "rs-target" / "release" / name)], crate)
        return out

    def install(self, bs: List[Block], files: Dict[str, str]) -> Optional[str]:
        d = self.tmp / "install"
        d.mkdir()
        prefix = self.tmp / "prefix"
        (d / "build").symlink_to(self.build)
        for name, text in files.items():
            (d / name).write_text(text)
        script = "".join(b.text for b in bs if b.kind == "install")
        script = script.replace("/usr/local", str(prefix))
        err = run(["bash", "-euo", "pipefail", "-c", script], d, SLOW)
        cm = [b for b in bs if b.kind == "cmake-install"]
        if err is None and cm:
            (d / "CMakeLists.txt").write_text(
                "cmake_minimum_required(VERSION 3.16)\nproject(app C)\nadd_executable(app app.c)\n"
                + "".join(b.text for b in cm))
            err = run(["cmake", "-S", ".", "-B", "cm", f"-DCMAKE_PREFIX_PATH={prefix}"], d, SLOW)
            err = err or run(["cmake", "--build", "cm"], d, SLOW)
        return err


def check_file(ck: Checker, path: pathlib.Path, errors: List[str]) -> None:
    bs = blocks(path, errors)
    files: Dict[str, str] = {}
    results: Dict[str, Optional[str]] = {}
    for b in bs:
        if b.kind in ("c", "c-run"):
            results[b.where()] = ck.c(b, link=b.kind == "c-run")
            if b.arg:
                files[b.arg] = b.text
        elif b.kind == "header-excerpt":
            header = {" ".join(ln.split()) for ln in (SRC / "include" / "pageclear.h").open()}
            gone = [ln for ln in b.text.splitlines() if ln.strip() and " ".join(ln.split()) not in header]
            results[b.where()] = f"not in include/pageclear.h: {gone}" if gone else None
        elif b.kind == "pageclear":
            results[b.where()] = ck.pageclear_lines(b)
        elif b.kind == "python":
            results[b.where()] = ck.python_block(b)
        elif b.kind == "toml":
            try:
                tomllib.loads(b.text)
                results[b.where()] = None
            except tomllib.TOMLDecodeError as e:
                results[b.where()] = f"not TOML: {e}"
        elif b.kind == "rust-doctest":
            lib = (SRC / "rust" / "pageclear" / "src" / "lib.rs").read_text()
            rel = os.path.relpath(path, SRC / "rust" / "pageclear" / "src")
            results[b.where()] = (None if f'include_str!("{rel}")' in lib
                                  else f"rust/pageclear/src/lib.rs does not include {rel}")
    rust = [b for b in bs if b.kind == "rust"]
    if rust and ck.rust:
        results.update(ck.rust_blocks(rust))
    elif rust:
        for b in rust:
            print(f"note {b.where()}: rust not built (no --rust)")
    inst = [b for b in bs if b.kind in ("install", "cmake-install")]
    if inst:
        err = ck.install(inst, files)
        for b in inst:
            results[b.where()] = err
    for b in bs:
        if b.where() not in results:
            continue  # illustrative, or noted above
        err = results[b.where()]
        print(f"{'ok  ' if err is None else 'FAIL'} {b.where()} {b.kind}")
        if err is not None:
            errors.append(f"{b.where()} ({b.kind}): {err}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", type=pathlib.Path, help="a CMake build of this tree")
    p.add_argument("--markers-only", action="store_true",
                   help="only check that every block has a known marker")
    p.add_argument("--python", action="store_true", help="run the Python blocks")
    p.add_argument("--rust", action="store_true", help="build and run the Rust blocks")
    p.add_argument("files", nargs="*", type=pathlib.Path)
    a = p.parse_args()
    files = a.files or [SRC / "README.md", *sorted((SRC / "docs").glob("*.md")),
                        *sorted((SRC / "docs" / "results").glob("*.md"))]
    errors: List[str] = []
    if a.markers_only:
        n = sum(len(blocks(f.resolve(), errors)) for f in files)
        for e in errors:
            print(f"FAIL {e}")
        print(f"snippets: {n} blocks marked, {len(errors)} failure(s)")
        return 1 if errors else 0
    if a.build is None:
        p.error("--build BUILD is needed to check the blocks")
    with tempfile.TemporaryDirectory(prefix="pageclear-snippets-") as t:
        ck = Checker(a.build.resolve(), pathlib.Path(t), a.python, a.rust)
        for f in files:
            check_file(ck, f.resolve(), errors)
    for e in errors:
        print(f"FAIL {e}", file=sys.stderr)
    print(f"snippets: {'FAILED' if errors else 'all checked'} ({len(errors)} failure(s))")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
