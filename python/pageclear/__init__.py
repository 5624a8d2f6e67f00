# SPDX-License-Identifier: MIT OR Apache-2.0
"""pageclear: fast, extent-aware memory clearing for Python buffers.

A thin layer over libpageclear (built from the same repository). It clears
any writable buffer (``bytearray``, ``memoryview``, ``mmap.mmap``,
``array.array``, numpy arrays) with the primitive the library selects for
the length, on several cores, in batches with progress and cancellation,
or with the pages around a hint cleared last; it faults memory in on
several cores, makes resident zeroed numpy arrays, and hands out memory
from a zeroed-page pool.

numpy is optional: everything but :func:`zeros` and :meth:`Pool.zeros`
works without it.

>>> import pageclear
>>> buf = bytearray(b"secret" * 1000)
>>> pageclear.clear(buf)
>>> buf.count(0) == len(buf)
True
"""

from __future__ import annotations

import math
import operator
import sys
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, Type, Union

from . import _pageclear

if TYPE_CHECKING:  # pragma: no cover - typing only
    import numpy as np
    import numpy.typing as npt

    if sys.version_info >= (3, 12):
        from collections.abc import Buffer
    else:
        from typing_extensions import Buffer
else:
    Buffer = Any

__all__ = [
    "Pool",
    "__version__",
    "clear",
    "clear_batched",
    "clear_hint",
    "clear_present",
    "host",
    "populate",
    "populate_many",
    "primitives",
    "selected",
    "selected_cold",
    "serve_get",
    "zeros",
]

#: The C library's version (``pc_version()``); the package has the same one.
__version__: str = _pageclear.version()

#: The page unit of the library's hint neighbourhood and pool (bytes).
PAGE_SIZE: int = _pageclear.PAGE_SIZE

Shape = Union[int, Sequence[int]]


def clear(buf: Buffer, *, threads: int = 1, cold: bool = False) -> None:
    """Zero every byte of the writable buffer ``buf``.

    ``buf`` is anything with a writable buffer: ``bytearray``,
    ``memoryview`` (slices too), ``mmap.mmap``, ``array.array``, a numpy
    array. A strided view (``a[:, ::2]``, ``memoryview(b)[::3]``) is cleared
    exactly: its elements and not a byte between them. The GIL is released
    while clearing, so other Python threads run meanwhile; the buffer stays
    exported, so it cannot be resized or closed underneath.

    Args:
        buf: the memory to zero.
        threads: 1 (the default) clears on the calling thread with
            ``pc_clear``; 0 means one thread per CPU and ``n > 1`` up to n
            threads, through ``pc_clear_parallel`` (which uses only as many
            threads as the length is worth).
        cold: clear with ``pc_clear_cold``: non-temporal stores, for memory
            nobody reads soon (scrubbing, zeroing on free). Only with
            ``threads=1``.

    Raises:
        BufferError: ``buf`` is read-only (nothing is written).
        TypeError: ``buf`` has no buffer.
        ValueError: a negative ``threads``, or ``cold`` with ``threads != 1``.

    >>> import array
    >>> a = array.array("d", [1.5, 2.5, 3.5])
    >>> clear(a)
    >>> list(a)
    [0.0, 0.0, 0.0]
    >>> b = bytearray(b"abcdef")
    >>> clear(memoryview(b)[::2])      # every other byte, exactly
    >>> bytes(b)
    b'\\x00b\\x00d\\x00f'
    """
    _pageclear.clear(buf, threads=threads, cold=cold)


def clear_hint(buf: Buffer, offset: int) -> None:
    """Zero the contiguous buffer ``buf``, the pages around ``offset`` last.

    The caller is about to touch ``buf[offset]``: the library clears the
    rest first and the few pages around ``offset`` last, with
    cache-allocating stores, so they are still in cache when the caller
    gets there (the order of the kernel's ``folio_zero_user``).

    Raises:
        ValueError: ``offset`` outside ``[0, len)`` (in bytes), or a view
            with gaps between its elements.
        BufferError: ``buf`` is read-only.

    >>> b = bytearray(b"x" * 100_000)
    >>> clear_hint(b, 50_000)
    >>> b.count(0)
    100000
    """
    _pageclear.clear_hint(buf, offset)


def clear_batched(
    buf: Buffer,
    *,
    unit: Optional[int] = None,
    callback: Optional[Callable[[int, int], Optional[bool]]] = None,
) -> int:
    """Zero the contiguous buffer ``buf`` in units, and return the bytes cleared.

    Before each unit ``callback(done, total)`` is called (with the GIL)
    with the bytes cleared so far and ``len``; returning a true value stops
    the clear there. Pending signals are also checked before each unit, so
    Ctrl-C stops a long batched clear between two units. What is cleared is
    always a prefix of the buffer: ``buf[:returned]``.

    Args:
        buf: the memory to zero.
        unit: bytes per unit; ``None`` takes the library's default
            (``host()["unit"]``, 32 MiB where a fast primitive exists).
        callback: called before each unit; a true result stops the clear.

    Returns:
        The bytes cleared: ``len(buf)`` in bytes, or less if the callback
        stopped the clear.

    Raises:
        KeyboardInterrupt: on Ctrl-C (SIGINT) during the clear, raised
            between units; any other exception a signal handler or the
            callback raises likewise propagates. The bytes cleared before
            are a prefix of the buffer and stay zero; the count is not
            returned then.
        ValueError: ``unit`` below 1, or a view with gaps.
        BufferError: ``buf`` is read-only.

    >>> b = bytearray(b"x" * 10_000)
    >>> seen = []
    >>> def stop_at_third(done, total):
    ...     seen.append(done)
    ...     return len(seen) == 3
    >>> clear_batched(b, unit=1000, callback=stop_at_third)
    2000
    >>> seen
    [0, 1000, 2000]
    >>> b[:2000].count(0), b[2000:].count(0)
    (2000, 0)

    Units of whole pages keep to the page grid: if ``buf`` starts ``m``
    bytes into a page (``m = address % 4096``), the first unit is
    ``unit - m`` bytes and every later one starts on a page boundary (an
    8 KiB unit 16 bytes into a page: callbacks at 0, 8176, 16368, ...).
    Other units are not adjusted.
    """
    return _pageclear.clear_batched(buf, unit=unit, callback=callback)


def populate(buf: Buffer, *, threads: int = 0) -> None:
    """Fault the contiguous buffer ``buf`` in for writing, contents kept.

    The pages ``buf`` spans are made resident on up to ``threads`` threads
    (0, the default: one per CPU), so the first writes afterwards take no
    page faults. With a kernel that has ``MADV_POPULATE_WRITE`` (5.14+) the
    kernel does it; otherwise each page is touched with an atomic add of
    zero.

    Raises:
        ValueError: a negative ``threads``, or a view with gaps.
        BufferError: ``buf`` is read-only.
        OSError: the memory cannot be faulted in (``errno`` says why).

    >>> import mmap
    >>> m = mmap.mmap(-1, 1 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    >>> m[:5] = b"hello"
    >>> populate(m, threads=2)
    >>> m[:5]
    b'hello'
    """
    _pageclear.populate(buf, threads=threads)


def populate_many(bufs: Sequence[Buffer], *, threads: int = 0) -> None:
    """Fault every buffer of ``bufs`` in for writing, together; contents kept.

    As :func:`populate` for each, in one call of the library's
    ``pc_populate_many`` (libpageclear 1.1): one set of up to ``threads``
    threads (0, the default: one per CPU the process may use) shares all
    of them, and on a NUMA machine each buffer's pages are faulted by
    threads on the node its memory is bound to. Empty buffers are skipped.
    Every buffer is checked before any is populated.

    Raises:
        ValueError: a negative ``threads``, a view with gaps, or two
            buffers sharing memory.
        BufferError: a buffer is read-only.
        TypeError: ``bufs`` is not a sequence.
        OSError: the memory cannot be faulted in (``errno`` says why).

    >>> import mmap
    >>> zones = [mmap.mmap(-1, 1 << 20) for _ in range(3)]
    >>> populate_many(zones, threads=2)
    """
    _pageclear.populate_many(bufs, threads=threads)


def clear_present(
    buf: Buffer, *, no_fallback: bool = False, dry_run: bool = False, populate: bool = False
) -> Dict[str, Any]:
    """Zero the contiguous buffer ``buf``, leaving alone the pages that read zero already.

    The library's ``pc_clear_present`` (1.1): the pages of a private
    anonymous mapping that the kernel has not handed out yet (never
    touched, or given back with ``MADV_DONTNEED``) and those mapped to its
    shared zero page are not touched; present and swapped pages are
    cleared. Where it cannot tell what an absent page would read (a
    file's mapping, shared memory, hugetlb, a userfaultfd-registered
    range, a kernel before 6.7 or a seccomp profile refusing the calls),
    it clears that part whole and says why. The skipped pages are not
    faulted in: a buffer zeroed so is not made resident or placed on a
    NUMA node, as writing zeros would. The GIL is released meanwhile.

    Args:
        buf: the memory to zero: writable and contiguous.
        no_fallback: where a part could not be proven, write nothing at
            all and return with ``refused`` true.
        dry_run: write nothing; say what the call would do now.
        populate: fault the pages it would leave alone in instead
            (``MADV_POPULATE_WRITE``, Linux 5.14): resident zeroed pages
            on the calling thread's node, as after writing zeros, without
            the stores. Where the kernel refuses, they are cleared.

    Returns:
        A dict: ``skipped``, ``cleared`` and ``populated`` (bytes; they
        add up to ``len``), ``unproven`` (of ``cleared``, bytes cleared for want of
        proof), ``why`` (``"proven"``, or the reason for the lowest such
        part: ``"file"``, ``"shared"``, ``"hugetlb"``, ``"userfaultfd"``,
        ``"no_scan"``, ``"refused"``, ``"no_maps"``, ``"no_uffd_info"``),
        ``error`` (the errno behind the last four, else 0),
        ``populate_error`` (the errno of a refused populate, whose pages
        were then cleared, else 0), ``used`` (the kernel interfaces used:
        ``"procmap_query"``, ``"maps"``, ``"scan"``, ``"smaps"``,
        ``"populate"``) and ``refused`` (``no_fallback`` refused:
        nothing was written).

    Raises:
        BufferError: ``buf`` is read-only.
        ValueError: a view with gaps.
        OSError: ``EFAULT``, part of the buffer is not mapped writable.

    >>> import mmap
    >>> m = mmap.mmap(-1, 64 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    >>> m[:6] = b"header"
    >>> r = clear_present(m)
    >>> m[:6], r["skipped"] + r["cleared"] == len(m)
    (b'\\x00\\x00\\x00\\x00\\x00\\x00', True)
    >>> r = clear_present(m, populate=True)
    >>> r["skipped"], r["populated"] + r["cleared"] == len(m)
    (0, True)
    """
    return _pageclear.clear_present(buf, no_fallback=no_fallback, dry_run=dry_run, populate=populate)


def selected(n: int) -> str:
    """The name of the primitive :func:`clear` uses for ``n`` bytes.

    >>> selected(4096) in {p["name"] for p in primitives()}
    True
    """
    return _pageclear.selected(n)


def selected_cold(n: int) -> str:
    """The name of the primitive ``clear(..., cold=True)`` uses for ``n`` bytes."""
    return _pageclear.selected_cold(n)


def primitives() -> List[Dict[str, Any]]:
    """The library's primitives, supported on this host or not.

    Each is a dict with ``name``, ``arch``, ``features``, ``description``,
    ``cache`` (``"temporal"``, ``"non-temporal"`` or ``"adaptive"``) and
    ``supported`` (bool).

    >>> any(p["name"] == "generic" and p["supported"] for p in primitives())
    True
    """
    return _pageclear.primitives()


def host() -> Dict[str, Any]:
    """What the library detected and the thresholds in force.

    Keys: ``vendor``, ``features`` (list), ``hypervisor``, ``family``,
    ``model``, ``stepping``, ``llc_size``, ``zva_block``, ``numa_nodes``,
    ``vector_max``, ``nt_threshold``, ``cold_nt_threshold``,
    ``parallel_nt_threshold`` (``None`` means never), ``unit``, ``forced``
    (the ``PAGECLEAR_IMPL`` in force or ``None``), ``profile`` (path of the
    profile in force, ``""`` if none) and ``profile_status``.

    >>> isinstance(host()["vendor"], str)
    True
    """
    return _pageclear.host()


def serve_get(size: int, page_size: int = 0, *, reserve_only: bool = False) -> int:
    """Zeroed huge pages from the ``pageclear serve`` daemon (``pc_serve_get``).

    Returns a memfd the caller owns (close it, or wrap it with
    ``os.fdopen``/``mmap``): ``size`` rounded up to the page long, every
    byte zero, its pages allocated already, sealed against growing and
    shrinking, close-on-exec. Map it with
    ``mmap.mmap(fd, length, mmap.MAP_SHARED)``; it is nobody else's, and its
    pages go back to the kernel when the last reference is closed. The
    daemon's socket is ``$PAGECLEAR_SOCKET``, else
    ``/run/pageclear/serve.sock``, served by root (or by the uid
    ``$PAGECLEAR_SERVE_UID`` names). The GIL is released while waiting.

    Args:
        size: bytes wanted (> 0).
        page_size: 2 MiB or 1 GiB hugetlb pages; 0 means 2 MiB.
        reserve_only: only memory the daemon holds ready; never a fill at
            request time (``ENOMEM`` instead).

    Raises:
        ValueError: ``size`` 0, another ``page_size``.
        OSError: with ``errno`` ``ENOENT`` or ``ECONNREFUSED`` (no daemon),
            ``EACCES`` (not in the socket's group), ``EDQUOT`` (over this
            user's quota or its cgroup's limit), ``ENOMEM`` (no memory),
            ``EAGAIN`` (busy), ``EOPNOTSUPP`` (no pages of that size),
            ``EPERM`` (the socket is served by an untrusted uid), ``EPROTO``.
    """
    return _pageclear.serve_get(size, page_size, reserve_only=reserve_only)


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as e:
        raise ImportError(
            "pageclear.zeros and Pool.zeros need numpy (pip install numpy); "
            "the rest of pageclear works without it"
        ) from e
    return numpy


def _shape_and_dtype(shape: Shape, dtype: "npt.DTypeLike") -> Tuple[Tuple[int, ...], Any, int]:
    """Normalise (shape, dtype) and return them with the element count."""
    np_ = _numpy()
    dims: Tuple[int, ...]
    if isinstance(shape, (list, tuple)):
        dims = tuple(operator.index(d) for d in shape)
    else:
        dims = (operator.index(shape),)  # type: ignore[arg-type]
    if any(d < 0 for d in dims):
        raise ValueError(f"negative dimensions are not allowed: {dims}")
    dt = np_.dtype(dtype)
    if dt.hasobject:
        raise TypeError("zeros cannot make arrays holding Python objects")
    return dims, dt, math.prod(dims)


def zeros(
    shape: Shape,
    dtype: "npt.DTypeLike" = float,
    *,
    threads: int = 0,
    pool: Optional["Pool"] = None,
) -> "np.ndarray[Any, Any]":
    """A numpy array of zeros whose memory is already resident.

    Without ``pool``: ``np.zeros(shape, dtype)`` (numpy's own allocation,
    huge-page advice included), then faulted in for writing by
    :func:`populate` on ``threads`` threads (0: one per CPU), so the first
    write does not pay a page fault per page on one core as it does after a
    plain ``np.zeros``. With ``pool``: drawn from the pool (see
    :meth:`Pool.zeros`); ``threads`` does not apply there, the pool's
    memory was faulted in when the pool was made.

    Raises:
        ImportError: numpy is not installed.
        ValueError: a negative dimension or ``threads``.

    >>> a = zeros((256, 1024), "float32", threads=2)
    >>> a.shape, a.dtype.name, float(a.sum())
    ((256, 1024), 'float32', 0.0)
    """
    if pool is not None:
        return pool.zeros(shape, dtype)
    np_ = _numpy()
    if operator.index(threads) < 0:
        raise ValueError(f"zeros: threads must be >= 0 (0: one per CPU), got {threads}")
    a: "np.ndarray[Any, Any]" = np_.zeros(shape, dtype)
    if a.nbytes:
        _pageclear.populate(a, threads=threads)
    return a


PolicyName = str
BackingName = str


class Pool:
    """A zeroed-page pool: memory that reads as zero on every allocation.

    ``Pool(capacity, *, policy="init_on_alloc", backing="auto",
    populate=True)`` reserves ``capacity`` bytes (an int, or a string such
    as ``"256M"``) up front, backed by hugetlb pages, transparent huge
    pages or base pages (``backing``: ``"auto"`` takes the best available,
    or one of ``"hugetlb-1G"``, ``"hugetlb-2M"``, ``"thp"``, ``"4K"``), and
    faulted in at once unless ``populate=False``. The policy says when
    freed memory is cleared:

    - ``"init_on_alloc"``: at allocation, with cache-friendly stores;
    - ``"init_on_free"``: at free, with non-temporal stores;
    - ``"background"``: by a worker thread ahead of demand.

    Of a freed allocation the pool clears only the pages that were written
    (``tracking="auto"``, where the kernel can tell: Linux 6.7+, ``"thp"``
    and ``"4K"`` backings; ``"off"``: every page; ``"written"``: required,
    ``OSError`` where it cannot be had). ``resident_max`` (bytes, 0 = no
    bound) makes the pool give freed pages back to the kernel rather than
    keep more than that resident.

    Memory from the pool (an array from :meth:`zeros`, a memoryview from
    :meth:`alloc`) returns to it when the last reference is gone. It keeps
    the pool alive: :meth:`close` (or leaving a ``with`` block) refuses new
    allocations at once but unmaps the memory only after the last array or
    memoryview is collected, so nothing outliving the block ever points at
    unmapped memory.

    After ``os.fork()`` the child must not use its parent's pool (the
    library's contract): there, :meth:`alloc`, :meth:`zeros` and
    :meth:`stats` raise ``RuntimeError``, and arrays the child inherited
    stay valid (its copy of the memory stays mapped until it exits).

    Raises (constructor):
        ValueError: bad capacity, policy, backing or tracking name.
        OSError: the memory or the requested backing cannot be had
            (``errno.ENOMEM``).

    >>> with Pool("8M", policy="init_on_free") as pool:
    ...     mv = pool.alloc(10_000)
    ...     mv[:4] = b"data"
    ...     pool.stats()["in_use"]       # whole pages
    12288
    >>> bytes(mv[:4])                    # still valid after the block
    b'data'
    >>> del mv                           # now the pool's memory is unmapped
    """

    def __init__(
        self,
        capacity: Union[int, str],
        *,
        policy: PolicyName = "init_on_alloc",
        backing: BackingName = "auto",
        populate: bool = True,
        tracking: str = "auto",
        resident_max: Union[int, str] = 0,
    ) -> None:
        self._pool = _pageclear._Pool(
            capacity,
            policy=policy,
            backing=backing,
            populate=populate,
            tracking=tracking,
            resident_max=resident_max,
        )

    def alloc(self, n: int) -> memoryview:
        """``n`` bytes from the pool, zero, as a writable memoryview.

        The memory is whole pages, page-aligned; the memoryview shows
        exactly ``n`` bytes. It returns to the pool when the memoryview
        (and anything made from it) is gone.

        Raises:
            MemoryError: no free run of ``n`` bytes (pool exhausted or
                fragmented).
            ValueError: ``n`` below 1, or the pool is closed.
            RuntimeError: called in a child after ``fork()``.
        """
        return memoryview(self._pool.alloc(n))

    def zeros(self, shape: Shape, dtype: "npt.DTypeLike" = float) -> "np.ndarray[Any, Any]":
        """A C-ordered numpy array of zeros drawn from the pool.

        Its memory returns to the pool when the array (and every view of
        it) is collected. An empty shape gives an ordinary ``np.zeros``
        array without touching the pool.

        Raises: as :meth:`alloc`, plus ImportError without numpy.

        >>> with Pool("4M") as pool:
        ...     a = pool.zeros((100, 100), "int32")
        ...     a[5, 5] = 7
        ...     int(a.sum())
        7
        """
        np_ = _numpy()
        dims, dt, count = _shape_and_dtype(shape, dtype)
        nbytes = count * dt.itemsize
        a: "np.ndarray[Any, Any]"
        if nbytes == 0:
            a = np_.zeros(dims, dt)
        else:
            block = self._pool.alloc(nbytes)
            a = np_.frombuffer(block, dtype=dt, count=count).reshape(dims)
        return a

    def stats(self) -> Dict[str, Any]:
        """The C pool's counters as a dict.

        Keys: ``backing``, ``policy``, ``capacity``, ``in_use``, ``clean``,
        ``dirty``, ``allocs``, ``frees``, ``clears``, ``cleared_bytes``,
        ``skipped_bytes`` (freed bytes found unwritten, never cleared),
        ``dropped_bytes`` (given back to keep within ``resident_max``),
        ``resident``, ``tracking`` (``"written"`` or ``"off"``).

        Raises:
            ValueError: the pool is closed.
            RuntimeError: called in a child after ``fork()``.
        """
        return self._pool.stats()

    def close(self) -> None:
        """Refuse new allocations; unmap once the last allocation is gone.

        Calling it again does nothing.
        """
        self._pool.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._pool.closed

    def __enter__(self) -> "Pool":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<pageclear.Pool {state}, {self._pool.live} live allocations>"
