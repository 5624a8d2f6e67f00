# SPDX-License-Identifier: MIT OR Apache-2.0
"""Pool: allocations read as zero under every policy, errors, and lifetime:
memory outliving the pool object or the with block, close with allocations
out, threads, fork."""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import threading
import time
from typing import Any, List

import pytest

import pageclear
from conftest import FILL, address_of, is_mapped

POLICIES = ["init_on_alloc", "init_on_free", "background"]
PAGE = 4096


@pytest.mark.parametrize("policy", POLICIES)
def test_reused_memory_reads_zero(policy: str) -> None:
    with pageclear.Pool("1M", policy=policy, backing="4K") as pool:
        # Fill the whole pool with data, give it back, take it again: every
        # allocation must read as zero whoever had it before.
        for _ in range(3):
            views = [pool.alloc(64 * 1024) for _ in range(16)]
            for v in views:
                assert v.tobytes() == bytes(len(v))
                v[:] = bytes([FILL]) * len(v)
            del views, v
        st = pool.stats()
        assert st["policy"] == policy and st["backing"] == "4K"
        assert st["allocs"] == 48 and st["frees"] == 48 and st["in_use"] == 0


def test_alloc_is_exact_length_page_rounded_in_pool() -> None:
    with pageclear.Pool("4M") as pool:
        mv = pool.alloc(10_000)
        assert len(mv) == 10_000 and not mv.readonly
        assert address_of(mv) % PAGE == 0
        assert pool.stats()["in_use"] == 3 * PAGE
        mv[-1] = 7
        assert mv[-1] == 7


def test_stats_keys_and_counters() -> None:
    with pageclear.Pool(1 << 20, policy="init_on_free") as pool:
        st = pool.stats()
        assert set(st) == {
            "backing", "policy", "capacity", "in_use", "clean", "dirty",
            "allocs", "frees", "clears", "cleared_bytes",
            "skipped_bytes", "dropped_bytes", "resident", "tracking",
        }
        assert st["capacity"] >= 1 << 20 and st["in_use"] == 0
        a = pool.alloc(PAGE)
        assert pool.stats()["in_use"] == PAGE and pool.stats()["allocs"] == 1
        a[:] = b"x" * PAGE
        del a
        st = pool.stats()
        assert st["frees"] == 1 and st["in_use"] == 0
        assert st["cleared_bytes"] >= PAGE  # init_on_free cleared it


def test_zeros_from_pool(np) -> None:  # type: ignore[no-untyped-def]
    with pageclear.Pool("8M") as pool:
        a = pool.zeros((100, 200), "float32")
        assert a.shape == (100, 200) and a.dtype == np.float32
        assert a.flags.c_contiguous and a.flags.writeable and not a.any()
        a += 2
        assert pool.stats()["in_use"] >= a.nbytes
        b = pageclear.zeros(50, "int64", pool=pool)
        assert b.shape == (50,) and not b.any()
        assert pool._pool.live == 2
        del a, b
        gc.collect()
        assert pool._pool.live == 0 and pool.stats()["in_use"] == 0


def test_pool_zeros_views_keep_memory(np) -> None:  # type: ignore[no-untyped-def]
    with pageclear.Pool("4M") as pool:
        a = pool.zeros(1000)
        view = a[10:20]
        del a
        gc.collect()
        assert pool.stats()["in_use"] > 0  # the view still holds it
        view[:] = 5
        assert (view == 5).all()
        del view
        gc.collect()
        assert pool.stats()["in_use"] == 0


def test_pool_zeros_empty_and_object(np) -> None:  # type: ignore[no-untyped-def]
    with pageclear.Pool("4M") as pool:
        e = pool.zeros((0, 5))
        assert e.shape == (0, 5) and pool.stats()["allocs"] == 0
        with pytest.raises(TypeError):
            pool.zeros(3, object)
        with pytest.raises(ValueError):
            pool.zeros((-1, 3))


@pytest.mark.parametrize(
    "args,kwargs,error",
    [
        ((0,), {}, ValueError),
        ((-1,), {}, ValueError),
        (("12 parsecs",), {}, ValueError),
        ((1 << 20,), {"policy": "lazy"}, ValueError),
        ((1 << 20,), {"backing": "2M"}, ValueError),
        ((1.5,), {}, TypeError),
        ((1 << 62,), {}, (OSError, OverflowError)),
    ],
)
def test_bad_pool_arguments(args: Any, kwargs: Any, error: Any) -> None:
    with pytest.raises(error):
        pageclear.Pool(*args, **kwargs)


def test_alloc_errors() -> None:
    with pageclear.Pool("1M", backing="4K") as pool:
        with pytest.raises(ValueError):
            pool.alloc(0)
        with pytest.raises(ValueError):
            pool.alloc(-5)
        with pytest.raises(MemoryError):
            pool.alloc(2 << 20)
        whole = pool.alloc(1 << 20)
        with pytest.raises(MemoryError):
            pool.alloc(1)
        del whole
        assert len(pool.alloc(1 << 20)) == 1 << 20  # all back


def test_closed_pool_refuses_and_close_is_idempotent() -> None:
    pool = pageclear.Pool("1M")
    pool.close()
    pool.close()
    assert pool.closed
    with pytest.raises(ValueError, match="closed"):
        pool.alloc(10)
    with pytest.raises(ValueError, match="closed"):
        pool.stats()
    assert pool._pool.destroyed


def test_array_outlives_with_block(np) -> None:  # type: ignore[no-untyped-def]
    with pageclear.Pool("8M", policy="background") as pool:
        a = pool.zeros((512, 512))
        a[:] = 3.0
        addr = a.ctypes.data
    assert pool.closed and not pool._pool.destroyed
    # Still mapped and usable after the with block.
    assert is_mapped(addr)
    a += 1.0
    assert float(a.sum()) == 4.0 * 512 * 512
    del a
    gc.collect()
    assert pool._pool.destroyed
    assert not is_mapped(addr)  # the pool's memory is unmapped at last


def test_memory_outlives_pool_object() -> None:
    mv = pageclear.Pool("2M", policy="init_on_free").alloc(100_000)
    gc.collect()  # the Pool wrapper is gone; the C pool must not be
    addr = address_of(mv)
    mv[:] = b"\x01" * len(mv)
    assert mv.tobytes() == b"\x01" * 100_000 and is_mapped(addr)
    mv.release()
    gc.collect()
    assert not is_mapped(addr)


def test_threads_alloc_free_and_close_race() -> None:
    pool = pageclear.Pool("16M", policy="background")
    errors: List[BaseException] = []
    kept: List[memoryview] = []

    def worker(seed: int) -> None:
        try:
            for i in range(200):
                try:
                    mv = pool.alloc(PAGE * (1 + (seed + i) % 7))
                except (MemoryError, ValueError):
                    continue  # exhausted, or closed by the main thread
                if mv.tobytes() != bytes(len(mv)):
                    raise AssertionError("allocation not zero")
                mv[:1] = b"\xff"
                if i % 50 == 0:
                    kept.append(mv)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    while not kept and any(t.is_alive() for t in threads):
        time.sleep(0.0001)
    pool.close()  # while the workers allocate
    for t in threads:
        t.join()
    assert not errors
    assert all(mv[0] == 0xFF for mv in kept)  # still mapped
    kept.clear()
    gc.collect()
    assert pool._pool.destroyed


@pytest.mark.parametrize("policy", POLICIES)
def test_fork_child_cannot_use_parent_pool(np, policy: str) -> None:  # type: ignore[no-untyped-def]
    pool = pageclear.Pool("8M", policy=policy)
    a = pool.zeros(1000, "int64")
    a[:] = 42
    in_use = pool.stats()["in_use"]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, never return into pytest
        out: dict = {}
        try:
            out["inherited"] = int(a.sum())
            a[:] = 7  # its own copy, still mapped
            out["written"] = int(a.sum())
            for name, call in [
                ("alloc", lambda: pool.alloc(10)),
                ("zeros", lambda: pool.zeros(10)),
                ("stats", lambda: pool.stats()),
            ]:
                try:
                    call()
                    out[name] = "allowed"
                except RuntimeError as e:
                    out[name] = "refused" if "fork" in str(e) else str(e)
            b = a[:10]
            del a
            gc.collect()
            out["view_after_free"] = int(b.sum())  # free was a no-op
            del b
            pool.close()  # must not touch the parent's worker or mapping
            gc.collect()
            out["closed"] = pool.closed
        except BaseException as e:
            out["error"] = repr(e)
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    os.close(w)
    # A child stuck on the parent's pool (its mutex, its missing worker)
    # would hang: give it ample time, then kill it and fail.
    ready, _, _ = select.select([r], [], [], 120.0)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(r)
        pytest.fail("the forked child hung")
    with os.fdopen(r) as f:
        report = json.loads(f.read())
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert report == {
        "inherited": 42 * 1000,
        "written": 7 * 1000,
        "alloc": "refused",
        "zeros": "refused",
        "stats": "refused",
        "view_after_free": 70,
        "closed": True,
    }
    # The parent's pool and array are untouched by all that.
    assert int(a.sum()) == 42 * 1000
    assert pool.stats()["in_use"] == in_use
    del a
    gc.collect()
    b = pool.zeros(1000, "int64")
    assert not b.any()
    del b
    pool.close()
    assert pool._pool.destroyed


def test_tracking_clears_only_written_pages() -> None:
    for tracking in ("auto", "off"):
        with pageclear.Pool(64 * PAGE, backing="4K", tracking=tracking) as pool:
            tracked = pool.stats()["tracking"] == "written"
            assert tracking == "auto" or not tracked
            mv = pool.alloc(64 * PAGE)
            mv[5 * PAGE] = 1
            del mv
            st = pool.stats()
            assert st["dirty"] == (PAGE if tracked else 64 * PAGE)
            assert st["skipped_bytes"] == (63 * PAGE if tracked else 0)
            mv = pool.alloc(64 * PAGE)
            assert bytes(mv) == bytes(64 * PAGE)
            del mv
    with pytest.raises(ValueError):
        pageclear.Pool(PAGE, tracking="sometimes")


def test_resident_max_drops_freed_pages() -> None:
    with pageclear.Pool(64 * PAGE, backing="4K", resident_max=16 * PAGE) as pool:
        mv = pool.alloc(64 * PAGE)
        mv[:] = b"y" * (64 * PAGE)
        del mv
        st = pool.stats()
        assert st["dropped_bytes"] >= 48 * PAGE and st["resident"] <= 16 * PAGE
        mv = pool.alloc(64 * PAGE)
        assert bytes(mv) == bytes(64 * PAGE)
        del mv
