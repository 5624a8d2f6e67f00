// SPDX-License-Identifier: MIT OR Apache-2.0
//! Clearing slices: one call, cold, typed, uninitialised, around a hint, in
//! parallel, and populating.

use std::ffi::c_void;
use std::mem::MaybeUninit;

use pageclear_sys as sys;

use crate::Error;

/// A C function refused a valid slice: a slice is never NULL with a
/// length and never wraps the address space, so the library's contract
/// leaves it no error to return. That is a library bug; say so loudly.
#[track_caller]
pub(crate) fn expect_ok(what: &str, rc: i32) {
    if rc != 0 {
        panic!(
            "{what} failed on a valid slice: {} (a libpageclear bug)",
            Error::from_errno(rc)
        );
    }
}

/// Zero the slice with the primitive the library selects for its length on
/// this CPU (see [`selected`](crate::selected)).
///
/// One call covers the whole slice, with no rescheduling points; see
/// [`clear_batched`](crate::clear_batched) for those.
///
/// # Panics
/// Only if the library breaks its contract (it has no error for a slice).
///
/// ```
/// let mut buf = vec![0xA5u8; 1 << 20];
/// pageclear::clear(&mut buf[3..]);
/// assert_eq!(buf[..3], [0xA5; 3]);
/// assert!(buf[3..].iter().all(|&b| b == 0));
/// ```
pub fn clear(buf: &mut [u8]) {
    // SAFETY: buf is valid for writes of buf.len() bytes and exclusively
    // borrowed; the library writes nothing outside [ptr, ptr + len).
    let rc = unsafe { sys::pc_clear(buf.as_mut_ptr().cast(), buf.len()) };
    expect_ok("pc_clear", rc);
}

/// Zero the slice for memory nobody will read soon (zeroing on free,
/// scrubbing before reuse, a VMM clearing guest memory): non-temporal
/// stores where the CPU has them, so the clear neither waits on the cache
/// nor evicts what is in it. The first touch afterwards misses the cache.
///
/// # Panics
/// Only if the library breaks its contract.
///
/// ```
/// let mut freed = vec![0x5Au8; 256 << 10];
/// pageclear::clear_cold(&mut freed);
/// assert!(freed.iter().all(|&b| b == 0));
/// ```
pub fn clear_cold(buf: &mut [u8]) {
    // SAFETY: as in clear().
    let rc = unsafe { sys::pc_clear_cold(buf.as_mut_ptr().cast(), buf.len()) };
    expect_ok("pc_clear_cold", rc);
}

/// Set every byte of the slice to `byte` with the primitive [`clear`]
/// uses for its length (for one that stores only zeros, clzero or dc zva,
/// the library's stand-in with its cache behaviour): a `fill` through the
/// selection.
///
/// # Errors
/// [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) where no
/// primitive this CPU runs can store `byte` in the selected one's place;
/// nothing is written, and `slice::fill` does it.
///
/// ```
/// let mut buf = vec![0u8; 1 << 20];
/// if pageclear::fill(&mut buf[5..], 0xA5).is_err() {
///     buf[5..].fill(0xA5);
/// }
/// assert_eq!(buf[..5], [0; 5]);
/// assert!(buf[5..].iter().all(|&b| b == 0xA5));
/// ```
pub fn fill(buf: &mut [u8], byte: u8) -> Result<(), Error> {
    // SAFETY: as in clear().
    let rc = unsafe { sys::pc_fill(buf.as_mut_ptr().cast(), buf.len(), i32::from(byte)) };
    Error::check(rc)
}

/// Zero a slice of any type for which all-zero bytes are a valid value
/// (`bytemuck::Zeroable`: integers, floats, arrays and `#[repr(C)]` structs
/// of them, ...). Padding bytes are zeroed too.
///
/// # Panics
/// Only if the library breaks its contract.
///
/// ```
/// let mut pixels = vec![[255u8, 128, 7, 1]; 1000];
/// let mut weights = vec![1.5f64; 1000];
/// pageclear::clear_zeroable(&mut pixels);
/// pageclear::clear_zeroable(&mut weights);
/// assert!(pixels.iter().all(|p| *p == [0; 4]));
/// assert!(weights.iter().all(|&w| w == 0.0));
/// ```
pub fn clear_zeroable<T: bytemuck::Zeroable>(buf: &mut [T]) {
    let len = std::mem::size_of_val(buf);
    // SAFETY: the slice covers len bytes, valid for writes and exclusively
    // borrowed; T: Zeroable makes all-zero bytes a valid T, so the values
    // stay valid.
    let rc = unsafe { sys::pc_clear(buf.as_mut_ptr().cast(), len) };
    expect_ok("pc_clear", rc);
}

/// Zero uninitialised memory and return it as initialised bytes: the
/// buffer need not be written first (no `vec![0; n]` and then a second
/// pass).
///
/// # Panics
/// Only if the library breaks its contract.
///
/// ```
/// use std::mem::MaybeUninit;
/// let mut storage: Vec<MaybeUninit<u8>> = Vec::with_capacity(8192);
/// // SAFETY (of the example): MaybeUninit needs no initialisation.
/// unsafe { storage.set_len(8192) };
/// let bytes: &mut [u8] = pageclear::clear_uninit(&mut storage);
/// assert!(bytes.iter().all(|&b| b == 0));
/// ```
pub fn clear_uninit(buf: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    let len = buf.len();
    let ptr = buf.as_mut_ptr().cast::<u8>();
    // SAFETY: as in clear(); MaybeUninit<u8> has u8's layout.
    let rc = unsafe { sys::pc_clear(ptr.cast(), len) };
    expect_ok("pc_clear", rc);
    // SAFETY: every byte of [ptr, ptr + len) was written (zeroed) above, so
    // the memory is initialised; the borrow of buf carries over.
    unsafe { std::slice::from_raw_parts_mut(ptr, len) }
}

/// Zero the slice so that the pages around `buf[hint]`, which the caller is
/// about to touch, are cleared last and stay in cache (the kernel's order
/// for a faulting huge page: pages after the neighbourhood, pages before
/// it, then the neighbourhood of up to 5 pages with cache-allocating
/// stores).
///
/// # Errors
/// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) if `hint`
/// is not an index into a non-empty slice; nothing is written then. An
/// empty slice has nothing to write and returns `Ok` whatever the hint.
///
/// ```
/// let mut huge = vec![1u8; 2 << 20];
/// pageclear::clear_hint(&mut huge, 123_456)?; // the faulting address
/// assert!(huge.iter().all(|&b| b == 0));
///
/// let mut small = [7u8; 100];
/// assert!(pageclear::clear_hint(&mut small, 100).is_err());
/// assert_eq!(small, [7u8; 100]);
/// # Ok::<(), pageclear::Error>(())
/// ```
pub fn clear_hint(buf: &mut [u8], hint: usize) -> Result<(), Error> {
    let hint_ptr = buf.as_mut_ptr().wrapping_add(hint);
    // SAFETY: as in clear(); the hint pointer is only compared with the
    // range by the library, never dereferenced, so an out-of-range one
    // (computed with wrapping arithmetic) is fine: the library refuses it.
    let rc = unsafe {
        sys::pc_clear_hint(
            buf.as_mut_ptr().cast(),
            buf.len(),
            hint_ptr.cast::<c_void>(),
        )
    };
    Error::check(rc)
}

/// The C API's thread count: 0 (one per online CPU) or a positive `int`.
/// Counts above `int`'s range ask for "as many as it will use" just the
/// same, since the library caps threads by the work anyway.
fn c_threads(threads: usize) -> i32 {
    i32::try_from(threads).unwrap_or(i32::MAX)
}

/// Zero the slice on up to `threads` threads (0: one per online CPU).
///
/// The library sizes the threads to the work: each gets at least 64 MiB, so
/// short slices are cleared on the calling thread alone. The threads come
/// from a persistent worker pool and are spread over NUMA nodes.
///
/// # Panics
/// Only if the library breaks its contract.
///
/// ```
/// let mut guest = vec![3u8; 128 << 20];
/// pageclear::clear_parallel(&mut guest, 2);
/// assert!(guest.iter().all(|&b| b == 0));
/// ```
pub fn clear_parallel(buf: &mut [u8], threads: usize) {
    // SAFETY: as in clear(); the library's threads write only inside the
    // slice and have all finished when pc_clear_parallel returns.
    let rc =
        unsafe { sys::pc_clear_parallel(buf.as_mut_ptr().cast(), buf.len(), c_threads(threads)) };
    expect_ok("pc_clear_parallel", rc);
}

/// Fault the slice's pages in for writing on up to `threads` threads (0:
/// one per online CPU), without changing the contents: with
/// `MADV_POPULATE_WRITE` where the kernel has it, else by touching each
/// page atomically. Later first writes then take no page faults.
///
/// The pages are the whole pages the slice spans: the library rounds the
/// start down and the end up to 4 KiB, and their contents are kept too.
///
/// # Errors
/// [`ErrorKind::OutOfMemory`](crate::ErrorKind::OutOfMemory) (out of
/// memory) or [`ErrorKind::Fault`](crate::ErrorKind::Fault) (a page cannot
/// be written, e.g. the hugetlb pool ran dry). Pages before the failure
/// may stay populated.
///
/// ```
/// let mut ring = vec![9u8; 16 << 20];
/// pageclear::populate(&mut ring, 0)?;
/// assert!(ring.iter().all(|&b| b == 9)); // contents kept
/// # Ok::<(), pageclear::Error>(())
/// ```
pub fn populate(buf: &mut [u8], threads: usize) -> Result<(), Error> {
    // SAFETY: the slice is valid and exclusively borrowed. The library
    // changes no byte's value (it may touch the bytes of the slice's first
    // and last pages outside the slice, with an atomic read-modify-write
    // that stores back the value it read, or not write at all).
    let rc = unsafe { sys::pc_populate(buf.as_mut_ptr().cast(), buf.len(), c_threads(threads), 0) };
    Error::check(rc)
}

/// Fault every slice of `bufs` in for writing, together, on up to `threads`
/// threads (0: one per CPU the process may use), contents kept: as
/// [`populate`] for each, in one call (libpageclear 1.1's
/// `pc_populate_many`). On a NUMA machine each slice's pages are faulted
/// by threads on the node its memory is bound to, all slices at once.
/// Empty slices are skipped.
///
/// # Errors
/// As [`populate`]; every slice is checked before any is populated.
///
/// ```
/// let mut a = vec![1u8; 8 << 20];
/// let mut b = vec![2u8; 4 << 20];
/// pageclear::populate_many(&mut [&mut a[..], &mut b[..]], 2)?;
/// assert!(a.iter().all(|&x| x == 1) && b.iter().all(|&x| x == 2));
/// # Ok::<(), pageclear::Error>(())
/// ```
pub fn populate_many(bufs: &mut [&mut [u8]], threads: usize) -> Result<(), Error> {
    let ext: Vec<sys::pc_extent> = bufs
        .iter_mut()
        .map(|b| sys::pc_extent {
            addr: b.as_mut_ptr().cast(),
            len: b.len(),
        })
        .collect();
    // SAFETY: every slice is valid and exclusively borrowed (so no two
    // overlap); the library changes no byte's value, as for populate. The
    // array's element size is ours, as the size contract asks.
    let rc = unsafe {
        sys::pc_populate_many(
            ext.as_ptr(),
            core::mem::size_of::<sys::pc_extent>(),
            ext.len(),
            c_threads(threads),
            0,
        )
    };
    Error::check(rc)
}
