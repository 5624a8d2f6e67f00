# SPDX-License-Identifier: MIT OR Apache-2.0
"""clear_batched's callback, cancellation and Ctrl-C; the GIL released
during every long call."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, Callable, List, Tuple

import pytest

import pageclear
from conftest import FILL, address_of, run_python

PAGE = 4096


def filled(n: int) -> bytearray:
    return bytearray([FILL]) * n


def assert_prefix_cleared(buf: bytearray, k: int) -> None:
    assert buf.count(0, 0, k) == k
    assert buf.count(FILL, k) == len(buf) - k


def test_first_unit_keeps_to_the_page_grid() -> None:
    # The documented rule: 16 bytes into a page, 8 KiB units are first
    # 8192 - 16 bytes, then page-aligned; 5 pages take 3 units.
    buf = filled(8 * PAGE)
    skip = (16 - address_of(buf)) % PAGE
    view = memoryview(buf)[skip : skip + 5 * PAGE]
    seen: List[int] = []

    def record(done: int, total: int) -> None:
        seen.append(done)

    assert pageclear.clear_batched(view, unit=2 * PAGE, callback=record) == 5 * PAGE
    view.release()
    assert seen == [0, 8176, 16368]
    assert buf.count(0, skip, skip + 5 * PAGE) == 5 * PAGE
    assert buf.count(FILL) == len(buf) - 5 * PAGE


def test_callback_sees_progress_before_each_unit() -> None:
    n = 10 * PAGE + 123
    buf = filled(n)
    calls: List[Tuple[int, int]] = []

    def record(done: int, total: int) -> None:
        # Units run in order: everything before `done` is zero already,
        # nothing after it yet.
        assert_prefix_cleared(buf, done)
        calls.append((done, total))

    assert pageclear.clear_batched(buf, unit=PAGE, callback=record) == n
    assert buf == bytes(n)
    dones = [d for d, _ in calls]
    assert all(t == n for _, t in calls)
    assert dones[0] == 0 and dones == sorted(set(dones)) and dones[-1] < n
    # Page units keep to the page grid: one unit per page the buffer touches.
    start = address_of(buf)
    assert len(calls) == (start + n - 1) // PAGE - start // PAGE + 1


@pytest.mark.parametrize("stop_value", [True, 1, "yes", [0]])
def test_callback_true_stops_and_returns_prefix(stop_value: object) -> None:
    buf = filled(20 * PAGE)
    seen: List[int] = []

    def stop_at_third(done: int, total: int) -> object:
        seen.append(done)
        return stop_value if len(seen) == 3 else None

    cleared = pageclear.clear_batched(buf, unit=PAGE, callback=stop_at_third)
    assert cleared == seen[-1] and 0 < cleared < len(buf)
    assert_prefix_cleared(buf, cleared)


def test_callback_stop_before_first_unit_writes_nothing() -> None:
    buf = filled(5 * PAGE)
    assert pageclear.clear_batched(buf, unit=PAGE, callback=lambda d, t: True) == 0
    assert buf == filled(5 * PAGE)


@pytest.mark.parametrize("exc", [ValueError("boom"), KeyboardInterrupt()])
def test_callback_exception_propagates_prefix_kept(exc: BaseException) -> None:
    buf = filled(12 * PAGE)
    at: List[int] = []

    def fail_on_fourth(done: int, total: int) -> None:
        at.append(done)
        if len(at) == 4:
            raise exc

    with pytest.raises(type(exc)):
        pageclear.clear_batched(buf, unit=PAGE, callback=fail_on_fourth)
    assert len(at) == 4
    assert_prefix_cleared(buf, at[-1])


def test_callback_truth_error_propagates() -> None:
    class NoTruth:
        def __bool__(self) -> bool:
            raise RuntimeError("no truth")

    buf = filled(4 * PAGE)
    with pytest.raises(RuntimeError, match="no truth"):
        pageclear.clear_batched(buf, unit=PAGE, callback=lambda d, t: NoTruth())
    assert buf == filled(4 * PAGE)


def test_default_unit_and_no_callback() -> None:
    n = (3 << 20) + 5
    buf = filled(n)
    assert pageclear.clear_batched(buf) == n
    assert buf == bytes(n)


def test_unit_smaller_than_a_page() -> None:
    buf = filled(1000)
    calls: List[int] = []
    assert pageclear.clear_batched(buf, unit=100, callback=lambda d, t: calls.append(d)) == 1000
    assert buf == bytes(1000) and calls == list(range(0, 1000, 100))


@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"unit": 0}, ValueError),
        ({"unit": -4096}, ValueError),
        ({"unit": 1 << 80}, ValueError),
        ({"unit": "4K"}, TypeError),
        ({"callback": 3}, TypeError),
    ],
)
def test_bad_arguments_write_nothing(kwargs: Any, error: type) -> None:
    buf = filled(3 * PAGE)
    with pytest.raises(error):
        pageclear.clear_batched(buf, **kwargs)
    assert buf == filled(3 * PAGE)


SIGINT_CHILD = r"""
import signal, sys
import pageclear

N = 256 << 20
UNIT = 1024  # a quarter million units: a long clear with a signal check before each
buf = bytearray(b"\xa5") * N

# What Ctrl-C does: the kernel interrupts the process at a moment of its own
# choosing and Python's SIGINT handler raises KeyboardInterrupt. Here an
# interval timer delivers the signal while the clear runs with the GIL
# released, and its handler is the very one SIGINT has (default_int_handler):
# no other thread has to win the GIL to send it.
signal.signal(signal.SIGALRM, signal.default_int_handler)
for delay in (0.002, 0.001, 0.0005, 0.0002, 0.0001):
    buf[:] = b"\xa5" * N
    signal.setitimer(signal.ITIMER_REAL, delay)
    try:
        n = pageclear.clear_batched(buf, unit=UNIT)
    except KeyboardInterrupt:
        k = buf.find(b"\xa5")
        ok = 0 < k < N and buf.count(0, 0, k) == k and buf.count(0xA5, k) == N - k
        print("interrupted", k, "prefix ok" if ok else "PREFIX BAD")
        sys.exit(0 if ok else 1)
    signal.setitimer(signal.ITIMER_REAL, 0)
    print("delay", delay, "completed before the signal:", n)
sys.exit(3)
"""


def test_sigint_stops_a_long_batched_clear_between_units() -> None:
    r = run_python(SIGINT_CHILD)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "interrupted" in r.stdout and "prefix ok" in r.stdout


# --- the GIL ----------------------------------------------------------------
#
# How the test proves the GIL is released without timing thresholds: with the
# switch interval set huge, a thread holding the GIL is never asked to give
# it up, so a second Python thread can only run while the main thread has
# released it on its own. The helper counts ticks (each tick needs the GIL);
# if the tick count moves across a call, the helper ran during that call.
# Were the GIL held, the count could not move, whatever the machine's load;
# with it released, the helper only has to be scheduled once during one of
# many calls.

GIL_ATTEMPTS = 2000


def gil_released_during(call: Callable[[], object]) -> bool:
    ticks = 0
    stop = threading.Event()
    started = threading.Event()

    def helper() -> None:
        nonlocal ticks
        started.set()
        while not stop.is_set():
            ticks += 1
            # Off the GIL between ticks long enough for the main thread to
            # take it back without a race.
            time.sleep(0.0001)

    old = sys.getswitchinterval()
    t = threading.Thread(target=helper)
    t.start()
    started.wait()
    sys.setswitchinterval(1000.0)
    try:
        for _ in range(GIL_ATTEMPTS):
            before = ticks
            call()
            if ticks != before:
                return True
        return False
    finally:
        sys.setswitchinterval(old)
        stop.set()
        t.join()


BIG = 64 << 20


@pytest.fixture(scope="module")
def big() -> bytearray:
    return bytearray(BIG)


@pytest.mark.parametrize(
    "name,call",
    [
        ("clear", lambda b: pageclear.clear(b)),
        ("clear cold", lambda b: pageclear.clear(b, cold=True)),
        ("clear threads", lambda b: pageclear.clear(b, threads=2)),
        ("clear strided", lambda b: pageclear.clear(memoryview(b)[::4096])),
        ("clear_hint", lambda b: pageclear.clear_hint(b, BIG // 2)),
        ("clear_batched", lambda b: pageclear.clear_batched(b)),
        ("populate", lambda b: pageclear.populate(b, threads=1)),
    ],
)
def test_gil_released(big: bytearray, name: str, call: Callable[[bytearray], object]) -> None:
    assert gil_released_during(lambda: call(big)), f"{name}: no other thread ran during the call"


def test_gil_test_detects_a_held_gil() -> None:
    # The method itself must be able to fail: a C call that holds the GIL
    # (bytes(n) allocates and zeroes n bytes with it) shows no tick.
    assert not gil_released_during(lambda: bytes(1 << 20))
