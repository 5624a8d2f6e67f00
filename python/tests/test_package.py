# SPDX-License-Identifier: MIT OR Apache-2.0
"""The package as a whole: version, introspection, zeros, numpy being
optional, the documented examples, the stubs, and the bench command."""

from __future__ import annotations

import ast
import doctest
import importlib.metadata
import json
import pathlib
import re
import subprocess
import sys

import pytest

import pageclear
import pageclear.bench
from pageclear import _pageclear
from conftest import resident_pages, run_python

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_version_is_the_libraries_and_the_distributions() -> None:
    assert pageclear.__version__ == _pageclear.version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", pageclear.__version__)
    assert importlib.metadata.version("pageclear") == pageclear.__version__


def test_version_matches_the_version_file() -> None:
    version = REPO / "VERSION"
    if not version.exists():
        pytest.skip("not run from the source tree")
    m = re.fullmatch(r"([0-9]+\.[0-9]+\.[0-9]+)\n?", version.read_text())
    assert m and m.group(1) == pageclear.__version__


def test_primitives_and_selection() -> None:
    prims = pageclear.primitives()
    names = {p["name"] for p in prims}
    assert "generic" in names
    for p in prims:
        assert set(p) == {"name", "arch", "features", "description", "cache", "supported"}
        assert p["cache"] in {"temporal", "non-temporal", "adaptive"}
        assert isinstance(p["supported"], bool)
    supported = {p["name"] for p in prims if p["supported"]}
    for n in (0, 1, 4096, 1 << 20, 1 << 30):
        assert pageclear.selected(n) in supported
        assert pageclear.selected_cold(n) in supported
    with pytest.raises(ValueError):
        pageclear.selected(-1)


def test_host() -> None:
    h = pageclear.host()
    for key in ("vendor", "features", "hypervisor", "llc_size", "vector_max",
                "nt_threshold", "cold_nt_threshold", "parallel_nt_threshold",
                "unit", "forced", "numa_nodes", "family", "model", "stepping",
                "profile", "profile_status"):
        assert key in h, key
    assert isinstance(h["vendor"], str) and h["vendor"]
    assert isinstance(h["features"], list)
    assert h["unit"] >= 1 and h["numa_nodes"] >= 1
    assert h["nt_threshold"] is None or h["nt_threshold"] > 0


def test_forced_primitive_is_reported() -> None:
    r = run_python("""
        import pageclear
        h = pageclear.host()
        print(h["forced"], pageclear.selected(1 << 30))
        b = bytearray(b"x") * 100000
        pageclear.clear(b)
        assert b == bytes(100000)
    """)
    assert r.returncode == 0, r.stderr
    env_run = subprocess.run(
        [sys.executable, "-c", "import pageclear; print(pageclear.host()['forced'], pageclear.selected(1 << 30))"],
        capture_output=True, text=True, env={"PAGECLEAR_IMPL": "generic", "PATH": "/usr/bin:/bin"},
    )
    assert env_run.returncode == 0, env_run.stderr
    assert env_run.stdout.split() == ["generic", "generic"]


def test_zeros_resident_and_zero(np) -> None:  # type: ignore[no-untyped-def]
    a = pageclear.zeros((1024, 1024), np.float64, threads=2)
    assert a.shape == (1024, 1024) and a.dtype == np.float64 and not a.any()
    assert a.flags.c_contiguous and a.flags.writeable
    resident, total = resident_pages(a.ctypes.data, a.nbytes)
    assert resident == total  # faulted in before anyone wrote it
    assert pageclear.zeros(7).shape == (7,)
    assert pageclear.zeros((0, 3)).shape == (0, 3)
    assert pageclear.zeros(3, object).tolist() == [0, 0, 0]


@pytest.mark.parametrize("bad,error", [({"threads": -1}, ValueError), ({"shape": (-1,)}, ValueError)])
def test_zeros_bad_arguments(np, bad, error) -> None:  # type: ignore[no-untyped-def]
    kwargs = {"shape": 10, **bad}
    with pytest.raises(error):
        pageclear.zeros(**kwargs)


def test_works_without_numpy() -> None:
    r = run_python("""
        import sys
        sys.modules["numpy"] = None  # import numpy now raises ImportError
        import array, mmap, pageclear
        b = bytearray(b"x") * 100000
        pageclear.clear(b); assert b == bytes(100000)
        b[:] = b"y" * 100000
        pageclear.clear(memoryview(b)[::2], threads=2); assert b[:4] == b"\\0y\\0y"
        assert pageclear.clear_batched(b, unit=4096) == 100000
        pageclear.clear_hint(b, 5)
        a = array.array("d", [1.0] * 10); pageclear.populate(a); pageclear.clear(a)
        assert list(a) == [0.0] * 10
        with pageclear.Pool("1M") as p:
            mv = p.alloc(5000); assert mv.tobytes() == bytes(5000)
            assert p.stats()["in_use"] == 8192
            try:
                p.zeros(10)
            except ImportError as e:
                assert "numpy" in str(e)
            else:
                raise AssertionError("Pool.zeros without numpy")
        try:
            pageclear.zeros(10)
        except ImportError as e:
            assert "numpy" in str(e)
        else:
            raise AssertionError("zeros without numpy")
        assert pageclear.host()["vendor"] and pageclear.primitives()
        print("ok")
    """)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_docstring_examples(np) -> None:  # type: ignore[no-untyped-def]
    for module in (pageclear, pageclear.bench):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, f"{module.__name__}: {result}"
    assert doctest.testmod(pageclear).attempted >= 10


def test_every_public_function_documented() -> None:
    for name in pageclear.__all__:
        obj = getattr(pageclear, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 40, name


def test_stub_matches_extension() -> None:
    stub = pathlib.Path(_pageclear.__file__).with_name("_pageclear.pyi")
    if not stub.exists():
        stub = REPO / "python" / "pageclear" / "_pageclear.pyi"
    tree = ast.parse(stub.read_text())
    declared = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
    actual = {n for n in dir(_pageclear) if not (n.startswith("__") and n != "__version__")}
    assert declared == actual
    assert pathlib.Path(pageclear.__file__).with_name("py.typed").exists()


def test_bench_runs_small() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "pageclear", "bench", "--size", "2M", "--zeros-size", "2M",
         "--repeats", "2", "--threads", "2", "--json"],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    names = [row["name"] for row in out["rows"]]
    for want in ("a.fill(0)", "clear(a)", "clear(a, threads=2)", "np.zeros + write",
                 "zeros(threads=0) + write", "zeros(pool=background) + write"):
        assert want in names
    assert len(names) == len(set(names)), names  # one row per candidate
    for row in out["rows"]:
        assert row["median_s"] > 0 and row["ratio"] > 0 and row["state"]
        assert "target" not in row  # targets are set for 1 GiB / 256 MiB
        # GB/s is 10^9 bytes per second, as everywhere else in pageclear.
        assert row["gb_per_s"] == pytest.approx(row["bytes"] / row["median_s"] / 1e9)
    threads2 = next(r for r in out["rows"] if r["name"] == "clear(a, threads=2)")
    assert threads2["baseline"] == "clear(a)" and threads2["fill_ratio"] > 0
    assert out["info"]["pageclear"] == pageclear.__version__


def test_bench_table_and_errors() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "pageclear", "bench", "--size", "1M", "--zeros-size", "1M",
         "--repeats", "1", "--no-pool"],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "median of 1 interleaved repeats" in r.stdout
    assert " GB/s " in r.stdout and "GiB/s" not in r.stdout
    lines = [ln[2:34].strip() for ln in r.stdout.splitlines() if ln.startswith("  clear(a")]
    assert len(lines) == len(set(lines)), r.stdout  # no candidate printed twice
    assert "cache state of a.fill(0), clear(a)" in r.stdout
    # Sizes in the unit they fill, times that do not round to zero.
    assert "clear a 1 MiB float64 array" in r.stdout and "zero array of 1 MiB +" in r.stdout
    for ln in r.stdout.splitlines():
        if ln.startswith("  clear(a") or ln.startswith("  a.fill(0)"):
            assert float(ln[34:45]) > 0, ln
    bad = subprocess.run([sys.executable, "-m", "pageclear", "bench", "--size", "lots"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "not a size" in bad.stderr
