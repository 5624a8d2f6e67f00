# SPDX-License-Identifier: MIT OR Apache-2.0
"""clear, clear_hint and populate on every kind of buffer: what is zeroed,
what is left alone, what is refused."""

from __future__ import annotations

import array
import ctypes
import mmap
import random

import pytest

import pageclear
from conftest import FILL, address_of, resident_pages

# Lengths around the library's interesting points: tiny, a cache line, not
# a multiple of anything, a page and a bit, many pages.
LENGTHS = [1, 7, 64, 1000, 4097, 70_000, 1 << 20]


def filled(n: int) -> bytearray:
    return bytearray([FILL]) * n


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("head,tail", [(0, 0), (3, 5), (4096, 1)])
def test_memoryview_slice_zeroed_and_neighbours_untouched(n: int, head: int, tail: int) -> None:
    backing = filled(head + n + tail)
    pageclear.clear(memoryview(backing)[head : head + n])
    assert backing[head : head + n] == bytes(n)
    assert backing[:head] == bytes([FILL]) * head
    assert backing[head + n :] == bytes([FILL]) * tail


@pytest.mark.parametrize("n", LENGTHS)
def test_bytearray(n: int) -> None:
    b = filled(n)
    pageclear.clear(b)
    assert b == bytes(n)


def test_empty_buffers_are_fine() -> None:
    pageclear.clear(bytearray())
    pageclear.clear(memoryview(bytearray(10))[5:5])
    pageclear.populate(bytearray())
    assert pageclear.clear_batched(bytearray()) == 0


@pytest.mark.parametrize("typecode", ["b", "H", "i", "q", "f", "d"])
def test_array_array(typecode: str) -> None:
    a = array.array(typecode, [1] * 1001)
    pageclear.clear(a)
    assert list(a) == [0] * 1001


def test_ctypes_array() -> None:
    a = (ctypes.c_double * 333)(*range(1, 334))
    pageclear.clear(a)
    assert list(a) == [0.0] * 333


@pytest.mark.parametrize("shared", [False, True])
def test_anonymous_mmap(shared: bool) -> None:
    flags = (mmap.MAP_SHARED if shared else mmap.MAP_PRIVATE) | mmap.MAP_ANONYMOUS
    m = mmap.mmap(-1, 3 * 4096 + 10, flags=flags)
    m[:] = bytes([FILL]) * len(m)
    pageclear.clear(m)
    assert m[:] == bytes(len(m))


def test_file_mmap_writes_through(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "data"
    path.write_bytes(bytes([FILL]) * 20_000)
    with open(path, "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
        pageclear.clear(memoryview(m)[100:10_100])
        m.flush()
    data = path.read_bytes()
    assert data[100:10_100] == bytes(10_000)
    assert data[:100] == bytes([FILL]) * 100 and data[10_100:] == bytes([FILL]) * 9_900


@pytest.mark.parametrize("step", [2, 3, 4096, -1, -5])
def test_strided_memoryview_exact(step: int) -> None:
    backing = filled(50_000)
    view = memoryview(backing)[1:-1][::step]
    pageclear.clear(view)
    expect = filled(50_000)
    region = expect[1:-1]
    region[::step] = bytes(len(region[::step]))
    expect[1:-1] = region
    assert backing == expect


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64", "complex128", "bool"])
def test_numpy_dtypes(np, dtype: str) -> None:  # type: ignore[no-untyped-def]
    a = np.ones((37, 41), dtype=dtype)
    pageclear.clear(a)
    assert not a.any()


VIEWS = [
    ("whole", lambda a: a),
    ("row slice", lambda a: a[2:5]),
    ("column step", lambda a: a[:, ::2]),
    ("inner step", lambda a: a[..., 1::3]),
    ("reversed", lambda a: a[::-1, :, ::-1]),
    ("transpose", lambda a: a.T),
    ("transpose slice", lambda a: a.T[1:-1, ::2]),
    ("single element", lambda a: a[3, 4, 5:6]),
    ("0-d", lambda a: a[1, 2, 3, ...]),
    ("negative inner", lambda a: a[:, 3, ::-2]),
    ("empty", lambda a: a[:, 4:4]),
]


@pytest.mark.parametrize("name,pick", VIEWS)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("threads", [1, 2])
def test_numpy_views_exact(np, name, pick, order, threads) -> None:  # type: ignore[no-untyped-def]
    base = np.asarray(np.arange(1, 8 * 9 * 10 + 1, dtype=np.int32).reshape(8, 9, 10), order=order)
    expect = base.copy(order="K")
    pick(expect)[...] = 0
    pageclear.clear(pick(base), threads=threads)
    assert np.array_equal(base, expect)


def test_numpy_random_views_exact(np) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(8)
    for _ in range(300):
        shape = tuple(rng.randint(1, 7) for _ in range(rng.randint(1, 4)))
        dtype = rng.choice(["uint8", "int16", "float32", "float64"])
        base = np.full(shape, 9, dtype=dtype)
        index = []
        for n in shape:
            lo, hi = sorted(rng.randint(0, n) for _ in range(2))
            step = rng.choice([1, 2, 3, -1, -2])
            index.append(slice(lo, hi, step) if step > 0 else slice(hi, lo, step))
        order = list(range(len(shape)))
        rng.shuffle(order)
        view = base[tuple(index)].transpose(order)
        expect = base.copy()
        expect[tuple(index)] = 0
        pageclear.clear(view)
        assert np.array_equal(base, expect), (shape, index, order)


def test_numpy_structured_field(np) -> None:  # type: ignore[no-untyped-def]
    a = np.zeros(100, dtype=[("x", "<f8"), ("y", "<i4")])
    a["x"] = 1.5
    a["y"] = 7
    pageclear.clear(a["x"])
    assert (a["x"] == 0).all() and (a["y"] == 7).all()


def test_overlapping_strides_cleared_exactly(np) -> None:  # type: ignore[no-untyped-def]
    base = np.full(64, 0xFF, dtype=np.uint8)
    # 5 windows of 8 bytes, each starting 3 bytes after the last: overlapping.
    view = np.lib.stride_tricks.as_strided(base[4:], shape=(5, 8), strides=(3, 1))
    pageclear.clear(view)
    expect = np.full(64, 0xFF, dtype=np.uint8)
    expect[4 : 4 + 4 * 3 + 8] = 0
    assert np.array_equal(base, expect)


READ_ONLY = [
    ("bytes", lambda: bytes([FILL]) * 100),
    ("readonly memoryview", lambda: memoryview(bytearray([FILL]) * 100).toreadonly()),
]


def read_only_buffers(np=None):  # type: ignore[no-untyped-def]
    out = [make() for _, make in READ_ONLY]
    m = mmap.mmap(-1, 8192, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    m[:] = bytes([FILL]) * 8192
    out.append(m)  # writable: wrapped read-only below
    out[-1] = memoryview(m).toreadonly()
    if np is not None:
        a = np.full(100, FILL, dtype=np.uint8)
        a.flags.writeable = False
        out.append(a)
    return out


CALLS = [
    ("clear", lambda b: pageclear.clear(b)),
    ("clear threads", lambda b: pageclear.clear(b, threads=2)),
    ("clear cold", lambda b: pageclear.clear(b, cold=True)),
    ("clear_hint", lambda b: pageclear.clear_hint(b, 1)),
    ("clear_batched", lambda b: pageclear.clear_batched(b)),
    ("populate", lambda b: pageclear.populate(b)),
]


@pytest.mark.parametrize("name,call", CALLS)
def test_read_only_refused_nothing_written(np, name, call) -> None:  # type: ignore[no-untyped-def]
    for buf in read_only_buffers(np):
        before = bytes(buf)
        with pytest.raises(BufferError, match="read-only"):
            call(buf)
        assert bytes(buf) == before, name


def test_read_only_mmap_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "ro"
    path.write_bytes(bytes([FILL]) * 5000)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        with pytest.raises(BufferError):
            pageclear.clear(m)
        with pytest.raises(BufferError):
            pageclear.populate(m)
    assert path.read_bytes() == bytes([FILL]) * 5000


@pytest.mark.parametrize("obj", [3, 2.5, "text", None, object()])
def test_not_a_buffer(obj: object) -> None:
    with pytest.raises(TypeError):
        pageclear.clear(obj)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"threads": -1}, ValueError),
        ({"threads": -(1 << 70)}, ValueError),
        ({"threads": 1 << 40}, ValueError),
        ({"threads": "2"}, TypeError),
        ({"threads": 1.5}, TypeError),
        ({"cold": True, "threads": 2}, ValueError),
        ({"cold": True, "threads": 0}, ValueError),
    ],
)
def test_clear_bad_arguments_write_nothing(kwargs, error) -> None:  # type: ignore[no-untyped-def]
    b = filled(1000)
    with pytest.raises(error):
        pageclear.clear(b, **kwargs)
    assert b == filled(1000)


@pytest.mark.parametrize("threads", [0, 1, 2, 3, 8])
def test_clear_threads_large(threads: int) -> None:
    # 200 MiB: large enough that pc_clear_parallel gives threads 64 MiB
    # shares, inside a larger buffer to check the edges.
    n = 200 << 20
    backing = filled(n + 8192 + 13)
    pageclear.clear(memoryview(backing)[4099 : 4099 + n], threads=threads)
    assert backing.count(0, 4099, 4099 + n) == n
    assert backing.count(FILL, 0, 4099) == 4099
    assert backing.count(FILL, 4099 + n) == len(backing) - 4099 - n


@pytest.mark.parametrize("n", [1, 100, 4096, 3 * 4096 + 5, 1 << 22])
def test_clear_cold(n: int) -> None:
    backing = filled(n + 2)
    pageclear.clear(memoryview(backing)[1:-1], cold=True)
    assert backing[1:-1] == bytes(n) and backing[0] == FILL and backing[-1] == FILL


@pytest.mark.parametrize("n", [1, 5000, 9 * 4096 + 77, 1 << 21])
def test_clear_hint_every_offset_kind(n: int) -> None:
    for offset in sorted({0, min(1, n - 1), n // 2, n - 1}):
        backing = filled(n + 2)
        pageclear.clear_hint(memoryview(backing)[1:-1], offset)
        assert backing[1:-1] == bytes(n)
        assert backing[0] == FILL and backing[-1] == FILL


@pytest.mark.parametrize("offset", [-1, 1000, 1001, 1 << 70, -(1 << 70)])
def test_clear_hint_bad_offset_writes_nothing(offset: int) -> None:
    b = filled(1000)
    with pytest.raises(ValueError):
        pageclear.clear_hint(b, offset)
    assert b == filled(1000)


def test_clear_hint_offset_type() -> None:
    with pytest.raises(TypeError):
        pageclear.clear_hint(bytearray(10), 1.0)  # type: ignore[arg-type]


def test_clear_hint_empty_buffer_has_no_offset() -> None:
    with pytest.raises(ValueError):
        pageclear.clear_hint(bytearray(), 0)


@pytest.mark.parametrize(
    "call",
    [
        lambda v: pageclear.clear_hint(v, 0),
        lambda v: pageclear.clear_batched(v),
        lambda v: pageclear.populate(v),
    ],
)
def test_single_extent_calls_refuse_gaps(call) -> None:  # type: ignore[no-untyped-def]
    b = filled(1000)
    with pytest.raises(ValueError, match="contiguous"):
        call(memoryview(b)[::2])
    assert b == filled(1000)


def test_single_extent_calls_take_fortran_and_contiguous(np) -> None:  # type: ignore[no-untyped-def]
    a = np.asfortranarray(np.ones((30, 40)))
    pageclear.clear_hint(a, 8 * 7)
    assert not a.any()
    a[...] = 1
    assert pageclear.clear_batched(a.T, unit=4096) == a.nbytes
    assert not a.any()


def test_populate_keeps_contents_and_makes_resident() -> None:
    n = 16 << 20
    m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    marks = {0: b"first", 5 * 4096 + 7: b"middle", n - 4: b"last"}
    for off, data in marks.items():
        m[off : off + len(data)] = data
    addr = address_of(m)
    resident, pages = resident_pages(addr, n)
    assert resident <= len(marks)  # only the marked pages were touched
    pageclear.populate(m, threads=2)
    assert resident_pages(addr, n) == (pages, pages)
    for off, data in marks.items():
        assert m[off : off + len(data)] == data
    assert m[:].count(0) == n - sum(len(d) for d in marks.values())


def test_populate_file_mapping_keeps_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "f"
    payload = bytes(range(256)) * 400
    path.write_bytes(payload)
    with open(path, "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
        pageclear.populate(m, threads=0)
        assert m[:] == payload
    assert path.read_bytes() == payload


@pytest.mark.parametrize("threads", [-1, "x"])
def test_populate_bad_threads(threads: object) -> None:
    with pytest.raises((ValueError, TypeError)):
        pageclear.populate(bytearray(10), threads=threads)  # type: ignore[arg-type]


def test_export_held_during_clear_batched() -> None:
    # The callback runs mid-clear: the buffer must not be resizable then.
    b = filled(3 * 4096)
    errors = []

    def grow(done: int, total: int) -> None:
        try:
            b.extend(b"xyz")
        except BufferError as e:
            errors.append(e)

    assert pageclear.clear_batched(b, unit=4096, callback=grow) == 3 * 4096
    assert len(errors) >= 3 and len(b) == 3 * 4096 and b == bytes(3 * 4096)


def test_mmap_cannot_close_during_clear_batched() -> None:
    m = mmap.mmap(-1, 4 * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)

    def close(done: int, total: int) -> None:
        m.close()

    with pytest.raises(BufferError):
        pageclear.clear_batched(m, unit=4096, callback=close)
    assert not m.closed
