# SPDX-License-Identifier: MIT OR Apache-2.0
"""Shared helpers for the pageclear tests."""

from __future__ import annotations

import ctypes
import errno
import os
import subprocess
import sys
import textwrap
from typing import Tuple

import pytest

#: Byte the tests fill memory with before a clear, so a cleared byte (0)
#: and an untouched one are told apart.
FILL = 0xA5


def address_of(buf: object) -> int:
    """Start address of a writable buffer (through ctypes, no copy)."""
    return ctypes.addressof(ctypes.c_char.from_buffer(buf))  # type: ignore[arg-type]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte)]


def resident_pages(addr: int, n: int) -> Tuple[int, int]:
    """(resident, total) 4 KiB pages of [addr, addr + n), from mincore(2)."""
    page = 4096
    lo = addr - addr % page
    pages = (addr + n - lo + page - 1) // page
    vec = (ctypes.c_ubyte * pages)()
    if _libc.mincore(lo, pages * page, vec) != 0:
        raise OSError(ctypes.get_errno(), "mincore")
    return sum(v & 1 for v in vec), pages


def is_mapped(addr: int) -> bool:
    """Whether the page holding addr is mapped (mincore fails with ENOMEM
    on an unmapped range)."""
    vec = (ctypes.c_ubyte * 1)()
    if _libc.mincore(addr - addr % 4096, 4096, vec) == 0:
        return True
    if ctypes.get_errno() == errno.ENOMEM:
        return False
    raise OSError(ctypes.get_errno(), "mincore")


def run_python(code: str, timeout: float = 300.0) -> subprocess.CompletedProcess[str]:
    """Run code in a fresh interpreter (the one running the tests)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


@pytest.fixture
def np():  # type: ignore[no-untyped-def]
    """numpy, or skip: the package works without it, most tests need it."""
    return pytest.importorskip("numpy")
