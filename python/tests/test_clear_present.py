# SPDX-License-Identifier: MIT OR Apache-2.0
"""clear_present: what is skipped, what is cleared, and the report, against
the classic /proc/self/pagemap as the reference; the fallbacks the binding
passes on (a file, shared memory); the flags; what is refused."""

from __future__ import annotations

import mmap
import os
import struct
import tempfile

import pytest

import pageclear
from conftest import FILL, address_of

PAGE = mmap.PAGESIZE
PAGES = 64


def absent_bytes(buf: mmap.mmap) -> int:
    """Bytes of buf (page aligned) in pages neither present nor swapped."""
    addr = address_of(buf)
    n = len(buf) // PAGE
    with open("/proc/self/pagemap", "rb") as f:
        f.seek(addr // PAGE * 8)
        entries = struct.unpack(f"{n}Q", f.read(n * 8))
    return sum(PAGE for e in entries if not (e >> 63 & 1 or e >> 62 & 1))


def anon(pages: int = PAGES) -> mmap.mmap:
    m = mmap.mmap(-1, pages * PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        m.madvise(mmap.MADV_NOHUGEPAGE)  # exact page counts: no khugepaged
    return m


def scan_works() -> bool:
    """Whether the kernel can say which pages are absent: not before Linux
    6.7, under qemu-user or a seccomp filter refusing the scan (the library
    then clears everything and says why; the C tests check that)."""
    m = anon(2)
    m[:1] = b"x"
    return pageclear.clear_present(m, dry_run=True)["why"] not in ("no_scan", "refused", "no_maps")


needs_scan = pytest.mark.skipif(not scan_works(),
                                reason="the kernel cannot say which pages are absent here")


@needs_scan
def test_skips_absent_pages_and_clears_the_rest() -> None:
    m = anon()
    for p in (0, 3, 4, 40):
        m[p * PAGE : (p + 1) * PAGE] = bytes([FILL]) * PAGE
    want = absent_bytes(m)
    assert want == (PAGES - 4) * PAGE
    r = pageclear.clear_present(m)
    assert r["skipped"] == want
    assert r["cleared"] == 4 * PAGE
    assert r["skipped"] + r["cleared"] == len(m)
    assert (r["why"], r["unproven"], r["error"], r["refused"]) == ("proven", 0, 0, False)
    assert "scan" in r["used"] and "smaps" in r["used"]
    assert absent_bytes(m) == want  # nothing faulted in (reading maps the zero page)
    assert m[:] == bytes(len(m))


@needs_scan
def test_populate_faults_absent_pages_in() -> None:
    m = anon()
    for p in (0, 3, 40):
        m[p * PAGE : (p + 1) * PAGE] = bytes([FILL]) * PAGE
    want = absent_bytes(m)
    r = pageclear.clear_present(m, populate=True)
    assert absent_bytes(m) == 0  # asked before a byte is read: a read maps the zero page
    assert (r["populated"], r["cleared"], r["skipped"]) == (want, 3 * PAGE, 0)
    assert (r["why"], r["populate_error"], r["refused"]) == ("proven", 0, False)
    assert "populate" in r["used"]
    assert m[:] == bytes(len(m))


@needs_scan
def test_populate_dry_run_faults_nothing() -> None:
    m = anon()
    m[:1] = b"x"
    want = absent_bytes(m)
    r = pageclear.clear_present(m, populate=True, dry_run=True)
    assert (r["populated"], absent_bytes(m), m[:1]) == (want, want, b"x")


def test_a_slice_keeps_its_neighbours() -> None:
    m = anon()
    m[:] = bytes([FILL]) * len(m)
    view = memoryview(m)[100 : len(m) - 100]
    r = pageclear.clear_present(view)
    assert r["cleared"] == len(view) and r["skipped"] == 0
    assert m[:100] == bytes([FILL]) * 100 and m[-100:] == bytes([FILL]) * 100
    assert m[100:-100] == bytes(len(m) - 200)
    view.release()


def test_dry_run_writes_nothing() -> None:
    m = anon()
    m[5 * PAGE : 6 * PAGE] = bytes([FILL]) * PAGE
    dry = pageclear.clear_present(m, dry_run=True, no_fallback=True)
    assert m[5 * PAGE : 6 * PAGE] == bytes([FILL]) * PAGE
    real = pageclear.clear_present(m)
    assert dry == real
    assert m[:] == bytes(len(m))


@needs_scan
def test_a_files_private_mapping_is_cleared_whole() -> None:
    with tempfile.TemporaryFile() as f:
        f.write(bytes([FILL]) * (PAGES * PAGE))
        f.flush()
        m = mmap.mmap(f.fileno(), PAGES * PAGE, flags=mmap.MAP_PRIVATE)
        refused = pageclear.clear_present(m, no_fallback=True)
        assert refused["refused"] and refused["why"] == "file"
        assert refused["cleared"] == 0 and m[:1] == bytes([FILL])
        r = pageclear.clear_present(m)
        assert (r["why"], r["unproven"], r["skipped"]) == ("file", len(m), 0)
        assert m[:] == bytes(len(m))
        f.seek(0)
        assert f.read(PAGE) == bytes([FILL]) * PAGE  # the file kept its bytes


@needs_scan
def test_shared_memory_written_by_a_child_is_cleared_whole() -> None:
    m = mmap.mmap(-1, PAGES * PAGE, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        m[:] = bytes([FILL]) * len(m)
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    r = pageclear.clear_present(m)
    assert (r["why"], r["unproven"], r["skipped"]) == ("shared", len(m), 0)
    assert m[:] == bytes(len(m))


def test_bytearray_and_empty() -> None:
    b = bytearray([FILL]) * 100_000
    r = pageclear.clear_present(b)
    assert b == bytes(len(b)) and r["skipped"] + r["cleared"] == len(b)
    empty = pageclear.clear_present(bytearray())
    assert empty["skipped"] == empty["cleared"] == 0 and empty["used"] == ()


def test_refused_buffers() -> None:
    with pytest.raises(BufferError):
        pageclear.clear_present(b"read-only")
    with pytest.raises(ValueError):
        pageclear.clear_present(memoryview(bytearray(100))[::2])
    with pytest.raises(TypeError):
        pageclear.clear_present(object())  # type: ignore[arg-type]
