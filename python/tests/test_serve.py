# SPDX-License-Identifier: MIT OR Apache-2.0
"""serve_get: arguments, and each of the daemon's refusals as the errno the
library documents, against a scripted daemon on a socket of its own (the
real daemon, with huge pages, is tests/integration/daemon/serve.sh)."""

from __future__ import annotations

import errno
import os
import pathlib
import socket
import struct
import threading
from typing import Iterator

import pytest

import pageclear

PAGE_2M = 2 << 20


@pytest.fixture
def sock_path(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    path = str(tmp_path / "serve.sock")
    monkeypatch.setenv("PAGECLEAR_SOCKET", path)
    # the scripted daemon is this process: trusted by its uid if not root
    monkeypatch.setenv("PAGECLEAR_SERVE_UID", str(os.getuid()))
    yield path


def fake_daemon(path: str, statuses: list[int], seen: list[bytes]) -> threading.Thread:
    """Answer one connection per status with that status (no descriptor)."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    srv.bind(path)
    srv.listen(8)

    def run() -> None:
        with srv:
            for st in statuses:
                conn, _ = srv.accept()
                with conn:
                    seen.append(conn.recv(64))
                    conn.send(b"pcRP" + struct.pack("=HHQQQ", 1, st, 0, 0, 0))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_no_daemon(sock_path: str) -> None:
    with pytest.raises(OSError) as e:
        pageclear.serve_get(PAGE_2M)
    assert e.value.errno == errno.ENOENT


def test_bad_arguments(sock_path: str) -> None:
    with pytest.raises(ValueError):
        pageclear.serve_get(0)
    with pytest.raises(ValueError):
        pageclear.serve_get(PAGE_2M, 4096)
    with pytest.raises(ValueError):
        pageclear.serve_get(-1)


def test_refusals_are_errnos(sock_path: str) -> None:
    # statuses of docs/serve.md: quota, no memory, busy, no such page size
    want = {4: errno.EDQUOT, 5: errno.ENOMEM, 6: errno.EAGAIN, 7: errno.EOPNOTSUPP}
    seen: list[bytes] = []
    t = fake_daemon(sock_path, list(want), seen)
    for st, e in want.items():
        with pytest.raises(OSError) as info:
            pageclear.serve_get(3 << 20, 1 << 30, reserve_only=True)
        assert info.value.errno == e, st
    t.join(10)
    # the request as the protocol has it: size, page, the reserve-only flag
    assert seen[0] == b"pcRQ" + struct.pack("=HHQQII", 1, 1, 3 << 20, 1 << 30, 1, 0)
