// SPDX-License-Identifier: MIT OR Apache-2.0
//! The zeroed-page pool: init_on_alloc / init_on_free in user space.

use std::ffi::CStr;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use pageclear_sys as sys;

use crate::Error;

/// When the pool clears memory. Whatever the policy, every allocation
/// reads as all zeros and no owner ever sees a previous owner's data.
///
/// ```
/// assert_eq!(pageclear::PoolOptions::default().policy, pageclear::Policy::InitOnAlloc);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Policy {
    /// Clear at allocation, with [`clear`](crate::clear)'s cache-friendly
    /// choice: the new owner finds the memory in cache.
    InitOnAlloc,
    /// Clear at free, non-temporal where the CPU can: allocation is instant
    /// and freed data never lingers.
    InitOnFree,
    /// A worker thread clears freed memory ahead of demand; allocation
    /// clears only what it has not reached.
    Background,
}

impl Policy {
    fn to_raw(self) -> sys::pc_pool_policy {
        match self {
            Policy::InitOnAlloc => sys::PC_POOL_INIT_ON_ALLOC,
            Policy::InitOnFree => sys::PC_POOL_INIT_ON_FREE,
            Policy::Background => sys::PC_POOL_BACKGROUND,
        }
    }

    fn from_raw(v: sys::pc_pool_policy) -> Policy {
        [Policy::InitOnAlloc, Policy::InitOnFree, Policy::Background]
            .into_iter()
            .find(|p| p.to_raw() == v)
            .unwrap_or_else(|| panic!("libpageclear returned unknown pool policy {v}"))
    }
}

/// How the pool's memory is backed, best first.
///
/// ```
/// assert_eq!(pageclear::Backing::Hugetlb2M.name(), "hugetlb-2M");
/// assert_eq!(pageclear::Backing::Base.to_string(), "4K");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backing {
    /// (Options only) the best that can be had: 1 GiB hugetlb pages, then
    /// 2 MiB, then transparent huge pages, then base pages.
    Auto,
    /// Reserved 1 GiB hugetlb pages.
    Hugetlb1G,
    /// Reserved 2 MiB hugetlb pages.
    Hugetlb2M,
    /// Transparent huge pages (through madvise).
    Thp,
    /// Base (4 KiB) pages.
    Base,
}

impl Backing {
    fn to_raw(self) -> sys::pc_backing {
        match self {
            Backing::Auto => sys::PC_BACKING_AUTO,
            Backing::Hugetlb1G => sys::PC_BACKING_HUGETLB_1G,
            Backing::Hugetlb2M => sys::PC_BACKING_HUGETLB_2M,
            Backing::Thp => sys::PC_BACKING_THP,
            Backing::Base => sys::PC_BACKING_4K,
        }
    }

    fn from_raw(v: sys::pc_backing) -> Backing {
        [
            Backing::Auto,
            Backing::Hugetlb1G,
            Backing::Hugetlb2M,
            Backing::Thp,
            Backing::Base,
        ]
        .into_iter()
        .find(|b| b.to_raw() == v)
        .unwrap_or_else(|| panic!("libpageclear returned unknown backing {v}"))
    }

    /// The library's name for the backing: "hugetlb-1G", "hugetlb-2M",
    /// "thp", "4K" or "auto".
    ///
    /// ```
    /// assert_eq!(pageclear::Backing::Thp.name(), "thp");
    /// ```
    pub fn name(self) -> &'static str {
        // SAFETY: pc_backing_name returns a static NUL-terminated string.
        let p = unsafe { sys::pc_backing_name(self.to_raw()) };
        assert!(!p.is_null(), "pc_backing_name returned NULL");
        // SAFETY: non-NULL, static, NUL-terminated, ASCII.
        unsafe { CStr::from_ptr(p) }
            .to_str()
            .expect("backing names are ASCII")
    }
}

impl fmt::Display for Backing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Options of [`Pool::new`]. `Default` is the library's
/// (`pc_pool_opts_init`): 256 MiB, [`Backing::Auto`],
/// [`Policy::InitOnAlloc`], populated.
///
/// ```
/// use pageclear::{Backing, Policy, PoolOptions};
/// let opts = PoolOptions { capacity: 8 << 20, policy: Policy::InitOnFree, ..Default::default() };
/// assert_eq!(opts.backing, Backing::Auto);
/// assert!(opts.populate);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PoolOptions {
    /// Bytes, rounded up to the backing's page size; 0 means the library's
    /// default (256 MiB).
    pub capacity: usize,
    /// When the pool clears.
    pub policy: Policy,
    /// What backs the memory: `Auto`, or that backing or failure.
    pub backing: Backing,
    /// Fault the memory in at creation, so allocations never fault
    /// (`false`: lazily).
    pub populate: bool,
}

impl Default for PoolOptions {
    fn default() -> PoolOptions {
        let mut raw = std::mem::MaybeUninit::<sys::pc_pool_opts>::uninit();
        // SAFETY: pc_pool_opts_init fills every field (its size is passed).
        let raw = unsafe {
            sys::pc_pool_opts_init(raw.as_mut_ptr(), size_of::<sys::pc_pool_opts>());
            raw.assume_init()
        };
        PoolOptions {
            capacity: raw.capacity,
            policy: Policy::from_raw(raw.policy),
            backing: Backing::from_raw(raw.backing),
            populate: raw.populate != 0,
        }
    }
}

/// A pool's counters ([`Pool::stats`]).
///
/// ```
/// let pool = pageclear::Pool::new(pageclear::PoolOptions { capacity: 4 << 20, ..Default::default() })?;
/// let s = pool.stats();
/// assert_eq!(s.in_use, 0);
/// assert!(s.capacity >= 4 << 20);
/// # Ok::<(), pageclear::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct PoolStats {
    /// What the pool got.
    pub backing: Backing,
    /// Its policy.
    pub policy: Policy,
    /// Bytes.
    pub capacity: usize,
    /// Bytes allocated now.
    pub in_use: usize,
    /// Free bytes known to be zero.
    pub clean: usize,
    /// Free bytes waiting to be cleared.
    pub dirty: usize,
    /// Allocations that succeeded.
    pub allocs: usize,
    /// Frees that succeeded.
    pub frees: usize,
    /// Batched clear calls made.
    pub clears: usize,
    /// Bytes those clears covered.
    pub cleared_bytes: usize,
}

/// A pool of zeroed pages: one contiguous mapping reserved up front, handed
/// out in page-aligned runs that always read as zeros; the library clears
/// freed memory by the pool's [`Policy`].
///
/// Allocations are [`PoolBox`]es, which borrow the pool: the compiler
/// refuses a box that would outlive its pool.
///
/// A pool is not carried across `fork()`: a child process must create its
/// own (with [`Policy::Background`] the parent's worker thread does not
/// exist in the child).
///
/// ```
/// use pageclear::{Pool, PoolOptions, Policy};
/// let pool = Pool::new(PoolOptions { capacity: 16 << 20, policy: Policy::InitOnFree, ..Default::default() })?;
/// {
///     let mut page = pool.alloc(4096)?;
///     assert!(page.iter().all(|&b| b == 0));
///     page.fill(0xFF); // a secret
/// } // freed: cleared by the library before anyone else gets it
/// let again = pool.alloc(4096)?;
/// assert!(again.iter().all(|&b| b == 0));
/// # Ok::<(), pageclear::Error>(())
/// ```
///
/// A box cannot outlive its pool:
///
/// ```compile_fail
/// let b = {
///     let pool = pageclear::Pool::new(Default::default()).unwrap();
///     pool.alloc(4096).unwrap()
/// }; // error: `pool` does not live long enough
/// ```
pub struct Pool {
    raw: NonNull<sys::pc_pool>,
}

// SAFETY: the C pool is thread-safe: pc_pool_alloc, pc_pool_free and
// pc_pool_stats may be called from any thread concurrently (they take the
// pool's lock; pageclear.h: "Thread-safe to use from any thread"), and
// pc_pool_destroy runs from Drop, when no other reference exists. The
// pointer is owned by this value alone.
unsafe impl Send for Pool {}
// SAFETY: see Send: every method takes &self and the C functions behind
// them are safe to call concurrently.
unsafe impl Sync for Pool {}

impl Pool {
    /// Create a pool. With `populate`, the whole capacity is faulted in now.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) for bad
    /// options, [`ErrorKind::OutOfMemory`](crate::ErrorKind::OutOfMemory)
    /// if the memory or the requested backing cannot be had,
    /// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) for a capacity
    /// too large.
    ///
    /// ```
    /// use pageclear::{Backing, Pool, PoolOptions};
    /// let pool = Pool::new(PoolOptions { capacity: 2 << 20, backing: Backing::Base, ..Default::default() })?;
    /// assert_eq!(pool.stats().backing, Backing::Base);
    /// # Ok::<(), pageclear::Error>(())
    /// ```
    pub fn new(opts: PoolOptions) -> Result<Pool, Error> {
        // Zeroed whole, padding too: an older library refuses non-zero
        // bytes past the struct it knows (the size contract, pageclear.h).
        // SAFETY: all zeros is a valid pc_pool_opts.
        let mut raw: sys::pc_pool_opts = unsafe { std::mem::zeroed() };
        raw.capacity = opts.capacity;
        raw.backing = opts.backing.to_raw();
        raw.policy = opts.policy.to_raw();
        raw.populate = opts.populate as i32;
        // SAFETY: raw is a valid pc_pool_opts of the size passed.
        let p = unsafe { sys::pc_pool_create(&raw, size_of::<sys::pc_pool_opts>()) };
        NonNull::new(p)
            .map(|raw| Pool { raw })
            .ok_or_else(Error::last_os_error)
    }

    /// Allocate `len` bytes (rounded up to whole 4 KiB pages inside the
    /// pool), page-aligned and reading as all zeros. The box gives the
    /// memory back when dropped.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) for
    /// `len == 0`, [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) if
    /// `len` rounds past the address space, [`ErrorKind::OutOfMemory`](crate::ErrorKind::OutOfMemory)
    /// if the pool has no free run that long.
    ///
    /// ```
    /// let pool = pageclear::Pool::new(pageclear::PoolOptions { capacity: 4 << 20, ..Default::default() })?;
    /// let mut a = pool.alloc(10_000)?;
    /// a[9_999] = 1;
    /// assert_eq!(a.len(), 10_000);
    /// assert!(pool.alloc(64 << 20).is_err()); // larger than the pool
    /// # Ok::<(), pageclear::Error>(())
    /// ```
    pub fn alloc(&self, len: usize) -> Result<PoolBox<'_>, Error> {
        // SAFETY: self.raw is a live pool (destroyed only in Drop).
        let p = unsafe { sys::pc_pool_alloc(self.raw.as_ptr(), len) };
        match NonNull::new(p.cast::<u8>()) {
            Some(ptr) => Ok(PoolBox {
                pool: self,
                ptr,
                len,
            }),
            None => Err(Error::last_os_error()),
        }
    }

    /// The pool's counters now.
    ///
    /// ```
    /// let pool = pageclear::Pool::new(pageclear::PoolOptions { capacity: 4 << 20, ..Default::default() })?;
    /// drop(pool.alloc(8192)?);
    /// let s = pool.stats();
    /// assert_eq!((s.allocs, s.frees, s.in_use), (1, 1, 0));
    /// # Ok::<(), pageclear::Error>(())
    /// ```
    pub fn stats(&self) -> PoolStats {
        let mut st = std::mem::MaybeUninit::<sys::pc_pool_stats>::uninit();
        // SAFETY: a live pool and a writable struct.
        let rc = unsafe {
            sys::pc_pool_stats(
                self.raw.as_ptr(),
                st.as_mut_ptr(),
                size_of::<sys::pc_pool_stats>(),
            )
        };
        crate::clear::expect_ok("pc_pool_stats", rc);
        // SAFETY: pc_pool_stats filled it (rc == 0).
        let st = unsafe { st.assume_init() };
        PoolStats {
            backing: Backing::from_raw(st.backing),
            policy: Policy::from_raw(st.policy),
            capacity: st.capacity,
            in_use: st.in_use,
            clean: st.clean,
            dirty: st.dirty,
            allocs: st.allocs,
            frees: st.frees,
            clears: st.clears,
            cleared_bytes: st.cleared_bytes,
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // SAFETY: no PoolBox is alive (each borrows the pool), so nothing
        // points into the mapping any more.
        unsafe { sys::pc_pool_destroy(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("stats", &self.stats())
            .finish()
    }
}

/// Zeroed memory from a [`Pool`]: derefs to `[u8]` (mutably) and gives the
/// memory back to the pool when dropped.
///
/// ```
/// let pool = pageclear::Pool::new(pageclear::PoolOptions { capacity: 4 << 20, ..Default::default() })?;
/// let mut buf = pool.alloc(100)?;
/// buf.copy_from_slice(&[1u8; 100]);
/// assert_eq!(buf[99], 1);
/// assert_eq!(buf.as_ptr() as usize % 4096, 0); // page-aligned
/// # Ok::<(), pageclear::Error>(())
/// ```
pub struct PoolBox<'pool> {
    pool: &'pool Pool,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: a PoolBox owns its run exclusively (like a Box<[u8]>); freeing it
// from another thread is allowed (the pool is thread-safe), and &Pool is
// Send because Pool is Sync.
unsafe impl Send for PoolBox<'_> {}
// SAFETY: &PoolBox gives only &[u8].
unsafe impl Sync for PoolBox<'_> {}

impl PoolBox<'_> {
    /// The pool this memory came from.
    ///
    /// ```
    /// let pool = pageclear::Pool::new(pageclear::PoolOptions { capacity: 4 << 20, ..Default::default() })?;
    /// let b = pool.alloc(4096)?;
    /// assert!(std::ptr::eq(b.pool(), &pool));
    /// # Ok::<(), pageclear::Error>(())
    /// ```
    pub fn pool(&self) -> &Pool {
        self.pool
    }
}

impl Deref for PoolBox<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: the pool handed out at least len bytes at ptr, zeroed
        // (initialised), owned by this box until Drop.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for PoolBox<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref, and &mut self makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for PoolBox<'_> {
    fn drop(&mut self) {
        // SAFETY: ptr is the start of a live allocation from this pool,
        // freed exactly once, here.
        let rc = unsafe { sys::pc_pool_free(self.pool.raw.as_ptr(), self.ptr.as_ptr().cast()) };
        debug_assert_eq!(rc, 0, "pc_pool_free refused a live allocation");
    }
}

impl fmt::Debug for PoolBox<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolBox")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}
