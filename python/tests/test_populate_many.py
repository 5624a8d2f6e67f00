# SPDX-License-Identifier: MIT OR Apache-2.0
"""populate_many: several buffers populated in one call, contents kept;
bad sequences refused before anything is populated."""

from __future__ import annotations

import mmap

import pytest

import pageclear
from conftest import address_of, resident_pages

MIB = 1 << 20


def anon(n: int) -> mmap.mmap:
    return mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)


def test_populate_many_makes_each_resident_and_keeps_contents() -> None:
    zones = [anon(3 * MIB), anon(5 * MIB), anon(MIB)]
    zones[1][7:12] = b"hello"
    pageclear.populate_many(zones + [bytearray()], threads=2)
    for z in zones:
        resident, pages = resident_pages(address_of(z), len(z))
        assert resident == pages
    assert zones[1][7:12] == b"hello"
    assert zones[0][:].count(0) == 3 * MIB


def test_populate_many_parts_of_one_mapping() -> None:
    m = anon(8 * MIB)
    v = memoryview(m)
    pageclear.populate_many([v[:MIB], v[4 * MIB : 5 * MIB]], threads=0)
    addr = address_of(m)
    assert resident_pages(addr, MIB) == (256, 256)
    assert resident_pages(addr + MIB, 3 * MIB) == (0, 768)
    assert resident_pages(addr + 4 * MIB, MIB) == (256, 256)
    assert resident_pages(addr + 5 * MIB, 3 * MIB) == (0, 768)
    v.release()


def test_populate_many_refusals_populate_nothing() -> None:
    m = anon(4 * MIB)
    v = memoryview(m)
    addr = address_of(m)
    with pytest.raises(ValueError):
        pageclear.populate_many([v[:MIB], v[MIB - 1 : 2 * MIB]])  # overlap
    with pytest.raises(BufferError, match="read-only"):
        pageclear.populate_many([v[:MIB], b"read only"])
    with pytest.raises(TypeError):
        pageclear.populate_many([v[:MIB], 3])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        pageclear.populate_many(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        pageclear.populate_many([v[:MIB]], threads=-1)
    assert resident_pages(addr, 4 * MIB) == (0, 1024)
    pageclear.populate_many([])
    v.release()
