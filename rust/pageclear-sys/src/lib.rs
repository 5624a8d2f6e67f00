// SPDX-License-Identifier: MIT OR Apache-2.0
//! Raw declarations of libpageclear's C API (`include/pageclear.h`).
//!
//! libpageclear zeroes memory with the primitive that is fastest for the
//! extent on the CPU it runs on (rep stosb/stosq, AVX2/AVX-512 stores,
//! non-temporal stores, clzero, arm64 `dc zva`), with batching, hint-last
//! zeroing, a pool of zeroed pages and parallel clear/populate.
//!
//! This crate only declares the C functions, structs and constants; every
//! contract (arguments, return values, thread safety) is the one written in
//! `pageclear.h`, which the crate carries in `c/include/`. The safe API is
//! the `pageclear` crate.
//!
//! By default the build script compiles the library from the C sources the
//! crate carries, as the project's `src/sources.list` says (the list its
//! CMake build reads too); only a C compiler is needed. With the feature
//! `pkg-config` it links an installed libpageclear instead.
//!
//! Each function taking a pointer to a struct also takes, right after it,
//! the size of that struct as the caller knows it: pass
//! `size_of::<pc_...>()`. This is the C header's ABI; its macros pass
//! `sizeof` for C callers. It lets the structs grow at their end: see
//! the top of `pageclear.h` (a smaller size is refused; on output the
//! library zero-fills what it does not know, and on input it refuses
//! non-zero bytes past what it knows with `-E2BIG`, so start input structs
//! zeroed, padding included).
//!
//! The tests check every declaration here against the header, as the C
//! compiler sees it: each `PC_API` function's signature, each struct's
//! size, alignment, fields and their types and offsets, each constant's
//! value.
//!
//! ```
//! let mut buf = vec![0xAAu8; 4096];
//! let rc = unsafe { pageclear_sys::pc_clear(buf.as_mut_ptr().cast(), buf.len()) };
//! assert_eq!(rc, 0);
//! assert!(buf.iter().all(|&b| b == 0));
//! ```
#![no_std]
#![allow(non_camel_case_types)]
#![deny(missing_docs)]

use core::ffi::{c_char, c_int, c_uint, c_void};
use core::marker::{PhantomData, PhantomPinned};

/// Major version of the library these declarations describe.
pub const PC_VERSION_MAJOR: c_uint = 1;
/// Minor version of the library these declarations describe.
pub const PC_VERSION_MINOR: c_uint = 1;
/// Patch version of the library these declarations describe.
pub const PC_VERSION_PATCH: c_uint = 0;

/// The page unit of `pc_clear_pages` and of the hint neighbourhood.
pub const PC_PAGE_SIZE: usize = 4096;

/// `pc_populate` flag: touch each page instead of `MADV_POPULATE_WRITE`.
pub const PC_POPULATE_TOUCH: c_int = 0x1;

/// `pc_serve_get` flag (since 1.1): only memory the daemon holds ready.
pub const PC_SERVE_RESERVE_ONLY: c_int = 0x1;

/// `enum pc_preempt`: preemption models, after the kernel's.
pub type pc_preempt = c_uint;
/// Units with a resched point before each.
pub const PC_PREEMPT_NONE: pc_preempt = 0;
/// Units with a resched point before each.
pub const PC_PREEMPT_VOLUNTARY: pc_preempt = 1;
/// One unit; the callback is never called.
pub const PC_PREEMPT_FULL: pc_preempt = 2;
/// One unit; the callback is never called.
pub const PC_PREEMPT_LAZY: pc_preempt = 3;

/// Called before each unit with the bytes cleared so far and the total;
/// a non-zero return stops the clear.
pub type pc_resched_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, done: usize, total: usize) -> c_int>;

/// `struct pc_batch`: how `pc_clear_batched` splits its work.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct pc_batch {
    /// Bytes per unit; 0 means `pc_default_unit()`.
    pub unit: usize,
    /// A `PC_PREEMPT_*` value.
    pub model: pc_preempt,
    /// Called before each unit; may be `None`.
    pub resched: pc_resched_fn,
    /// Passed to `resched`.
    pub ctx: *mut c_void,
}

/// `enum pc_cache`: how a primitive's stores treat the cache.
pub type pc_cache = c_uint;
/// Stores allocate lines in cache.
pub const PC_CACHE_TEMPORAL: pc_cache = 0;
/// Streaming stores bypass the cache.
pub const PC_CACHE_NONTEMPORAL: pc_cache = 1;
/// Temporal for small extents; the CPU may stop allocating for large ones.
pub const PC_CACHE_ADAPTIVE: pc_cache = 2;

/// `struct pc_impl_info`: one primitive of the table.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct pc_impl_info {
    /// e.g. "x86-64-stosb" (static string).
    pub name: *const c_char,
    /// "x86-64", "aarch64" or "any" (static string).
    pub arch: *const c_char,
    /// Required CPU features, "" for none (static string).
    pub features: *const c_char,
    /// One line (static string).
    pub description: *const c_char,
    /// A `PC_CACHE_*` value.
    pub cache: pc_cache,
    /// 1 if this host can run it, else 0.
    pub supported: c_int,
}

/// `enum pc_backing`: how the pool's memory is backed.
pub type pc_backing = c_uint;
/// (Options only) the best that can be had.
pub const PC_BACKING_AUTO: pc_backing = 0;
/// Reserved 1 GiB hugetlb pages.
pub const PC_BACKING_HUGETLB_1G: pc_backing = 1;
/// Reserved 2 MiB hugetlb pages.
pub const PC_BACKING_HUGETLB_2M: pc_backing = 2;
/// Transparent huge pages through madvise.
pub const PC_BACKING_THP: pc_backing = 3;
/// Base pages.
pub const PC_BACKING_4K: pc_backing = 4;

/// `enum pc_pool_policy`: when the pool clears memory.
pub type pc_pool_policy = c_uint;
/// Clear at allocation.
pub const PC_POOL_INIT_ON_ALLOC: pc_pool_policy = 0;
/// Clear at free, non-temporal where possible.
pub const PC_POOL_INIT_ON_FREE: pc_pool_policy = 1;
/// A worker thread clears freed runs ahead of demand.
pub const PC_POOL_BACKGROUND: pc_pool_policy = 2;

/// `enum pc_pool_tracking`: what a pool clears of a freed allocation.
pub type pc_pool_tracking = c_uint;
/// (opts) Written pages where the kernel can tell, else whole runs; (stats)
/// unknown.
pub const PC_POOL_TRACK_AUTO: pc_pool_tracking = 0;
/// Every page: whole runs.
pub const PC_POOL_TRACK_OFF: pc_pool_tracking = 1;
/// Only the written pages (in opts: required).
pub const PC_POOL_TRACK_WRITTEN: pc_pool_tracking = 2;

/// `struct pc_pool_opts`: options of `pc_pool_create`.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct pc_pool_opts {
    /// Bytes; 0 = 256 MiB.
    pub capacity: usize,
    /// A `PC_BACKING_*` value.
    pub backing: pc_backing,
    /// A `PC_POOL_*` value.
    pub policy: pc_pool_policy,
    /// 1: fault the memory in at create; 0: lazily.
    pub populate: c_int,
    /// (1.1) Bytes the pool may keep resident; past it freed pages are
    /// given back to the kernel. 0: no bound.
    pub resident_max: usize,
    /// (1.1) A `PC_POOL_TRACK_*` value.
    pub tracking: pc_pool_tracking,
}

/// `struct pc_pool`: an opaque pool, used through pointers only.
#[repr(C)]
pub struct pc_pool {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `struct pc_pool_stats`: a pool's counters.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct pc_pool_stats {
    /// What the pool got (`PC_BACKING_*`).
    pub backing: pc_backing,
    /// Its policy (`PC_POOL_*`).
    pub policy: pc_pool_policy,
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
    /// (1.1) Freed bytes found unwritten (known zero), never cleared.
    pub skipped_bytes: usize,
    /// (1.1) Freed bytes given back to the kernel to keep within
    /// `resident_max`.
    pub dropped_bytes: usize,
    /// (1.1) Bytes of the pool known resident.
    pub resident: usize,
    /// (1.1) `PC_POOL_TRACK_OFF` or `_WRITTEN` (0 from a 1.0 library).
    pub tracking: pc_pool_tracking,
}

/// `struct pc_host`: what the library detected and the thresholds in force.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct pc_host {
    /// "GenuineIntel", "AuthenticAMD", "arm64", ... (NUL-terminated).
    pub vendor: [c_char; 16],
    /// Features detected and usable, space-separated (NUL-terminated).
    pub features: [c_char; 256],
    /// 1 if running under a hypervisor.
    pub hypervisor: c_int,
    /// Last-level cache bytes, 0 if unknown.
    pub llc_size: usize,
    /// arm64 `dc zva` block bytes, 0 if unusable.
    pub zva_block: usize,
    /// Selection threshold: below, vector stores.
    pub vector_max: usize,
    /// Selection threshold: from here, non-temporal (`usize::MAX`: never).
    pub nt_threshold: usize,
    /// `pc_default_unit()`.
    pub unit: usize,
    /// Name forced by PAGECLEAR_IMPL, or NULL.
    pub forced: *const c_char,
    /// NUMA nodes with CPUs (1 if unknown).
    pub numa_nodes: c_int,
    /// `pc_clear_cold`: from this length, non-temporal (`usize::MAX`: never).
    pub cold_nt_threshold: usize,
    /// `pc_clear_parallel` on more than one thread: from this length,
    /// non-temporal (`usize::MAX`: never).
    pub parallel_nt_threshold: usize,
    /// x86-64 cpuid display family, else 0.
    pub family: c_uint,
    /// x86-64 cpuid display model, else 0.
    pub model: c_uint,
    /// x86-64 cpuid stepping, else 0.
    pub stepping: c_uint,
    /// The profile file in force, "" if none (NUL-terminated).
    pub profile: [c_char; 256],
    /// "in force", "none found", or why the profile was refused.
    pub profile_status: [c_char; 256],
    /// (1.1) What a pool clears of a freed allocation here, one line
    /// (NULL from a 1.0 library).
    pub pool_tracking: *const c_char,
}

/// `struct pc_tuning`: the thresholds a profile sets.
#[repr(C)]
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub struct pc_tuning {
    /// `pc_clear`: below, vector stores.
    pub vector_max: usize,
    /// `pc_clear`: from here, non-temporal (`usize::MAX`: never).
    pub nt_threshold: usize,
    /// `pc_clear_cold`: from here, non-temporal (`usize::MAX`: never).
    pub cold_nt_threshold: usize,
    /// `pc_clear_parallel`, more than one thread: from here, non-temporal.
    pub parallel_nt_threshold: usize,
    /// `libpageclear-preload.so`: from here, `memset` goes through
    /// pageclear (`usize::MAX`: never). Since 1.1.
    pub preload_min: usize,
}

/// `enum pc_threshold`: the thresholds by index.
pub type pc_threshold = c_uint;
/// `vector_max`.
pub const PC_THRESHOLD_VECTOR_MAX: pc_threshold = 0;
/// `nt_threshold`.
pub const PC_THRESHOLD_NT: pc_threshold = 1;
/// `cold_nt_threshold`.
pub const PC_THRESHOLD_COLD_NT: pc_threshold = 2;
/// `parallel_nt_threshold`.
pub const PC_THRESHOLD_PARALLEL_NT: pc_threshold = 3;
/// `preload_min` (since 1.1).
pub const PC_THRESHOLD_PRELOAD_MIN: pc_threshold = 4;
/// How many thresholds there are (4 in 1.0).
pub const PC_NTHRESHOLDS: c_int = 5;
/// "never": a streaming threshold that never streams.
pub const PC_NEVER: usize = usize::MAX;

/// `struct pc_threshold_info`: what one threshold is.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct pc_threshold_info {
    /// Profile key and `pc_tuning` field (static string).
    pub key: *const c_char,
    /// The `PAGECLEAR_*` variable that overrides it (static string).
    pub env: *const c_char,
    /// One line (static string).
    pub description: *const c_char,
    /// Smallest size a profile accepts.
    pub min: usize,
    /// Largest size a profile accepts.
    pub max: usize,
    /// 1 if `PC_NEVER` is accepted too.
    pub never: c_int,
    /// The built-in default on this host.
    pub dflt: usize,
    /// The value in force.
    pub value: usize,
}

/// `struct pc_extent`: one extent for `pc_populate_many` (since 1.1).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct pc_extent {
    /// Start of the extent.
    pub addr: *mut c_void,
    /// Its length in bytes.
    pub len: usize,
}

/// `pc_clear_present` flag: where a part cannot be proven, write nothing
/// and return `-ENOTSUP` (since 1.1).
pub const PC_PRESENT_NO_FALLBACK: c_int = 0x1;
/// `pc_clear_present` flag: write nothing; report what the call would do.
pub const PC_PRESENT_DRY_RUN: c_int = 0x2;
/// `pc_clear_present` flag: fault the absent pages in rather than leave
/// them alone (`MADV_POPULATE_WRITE`).
pub const PC_PRESENT_POPULATE: c_int = 0x4;

/// `enum pc_present_why`: why `pc_clear_present` cleared a part whole.
pub type pc_present_why = c_uint;
/// It could tell everywhere.
pub const PC_PRESENT_PROVEN: pc_present_why = 0;
/// The kernel has no PAGEMAP_SCAN (before Linux 6.7).
pub const PC_PRESENT_NO_SCAN: pc_present_why = 1;
/// The scan failed otherwise (seccomp, no /proc, no descriptor).
pub const PC_PRESENT_REFUSED: pc_present_why = 2;
/// The mappings could not be read.
pub const PC_PRESENT_NO_MAPS: pc_present_why = 3;
/// A private mapping of a file.
pub const PC_PRESENT_FILE: pc_present_why = 4;
/// A shared mapping.
pub const PC_PRESENT_SHARED: pc_present_why = 5;
/// hugetlb.
pub const PC_PRESENT_HUGETLB: pc_present_why = 6;
/// Registered with a userfaultfd in missing or minor mode.
pub const PC_PRESENT_USERFAULTFD: pc_present_why = 7;
/// The userfaultfd registration could not be read.
pub const PC_PRESENT_NO_UFFD_INFO: pc_present_why = 8;

/// `pc_present_report.used`: the mappings read with PROCMAP_QUERY.
pub const PC_PRESENT_USED_PROCMAP_QUERY: c_int = 0x1;
/// `pc_present_report.used`: the mappings read from /proc/self/maps.
pub const PC_PRESENT_USED_MAPS: c_int = 0x2;
/// `pc_present_report.used`: the pages scanned with PAGEMAP_SCAN.
pub const PC_PRESENT_USED_SCAN: c_int = 0x4;
/// `pc_present_report.used`: /proc/self/smaps read for userfaultfd.
pub const PC_PRESENT_USED_SMAPS: c_int = 0x8;
/// `pc_present_report.used`: `madvise(MADV_POPULATE_WRITE)` called.
pub const PC_PRESENT_USED_POPULATE: c_int = 0x10;

/// `struct pc_present_report`: what `pc_clear_present` did (since 1.1).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct pc_present_report {
    /// Bytes left alone: their pages read zero already.
    pub skipped: usize,
    /// Bytes stored to (`skipped + cleared == len`).
    pub cleared: usize,
    /// Of `cleared`, bytes in parts cleared whole for want of proof.
    pub unproven: usize,
    /// A `PC_PRESENT_*` reason; `PC_PRESENT_PROVEN` if `unproven` is 0.
    pub why: pc_present_why,
    /// The errno behind `NO_SCAN`, `REFUSED`, `NO_MAPS`, `NO_UFFD_INFO`.
    pub error: c_int,
    /// `PC_PRESENT_USED_*` bits.
    pub used: c_int,
    /// `PC_PRESENT_POPULATE`: bytes of absent pages the kernel faulted in
    /// (`skipped + cleared + populated == len`).
    pub populated: usize,
    /// The errno of the first `MADV_POPULATE_WRITE` that failed (its pages
    /// were then cleared), else 0.
    pub populate_error: c_int,
}

unsafe extern "C" {
    /// Library version as "MAJOR.MINOR.PATCH".
    pub fn pc_version() -> *const c_char;

    /// Zero `[addr, addr + len)`; see pageclear.h.
    pub fn pc_clear(addr: *mut c_void, len: usize) -> c_int;
    /// Zero `[addr, addr + len)` for memory nobody will read soon.
    pub fn pc_clear_cold(addr: *mut c_void, len: usize) -> c_int;
    /// Zero `npages` pages of `PC_PAGE_SIZE` bytes at a page-aligned `addr`.
    pub fn pc_clear_pages(addr: *mut c_void, npages: usize) -> c_int;
    /// Set `[addr, addr + len)` to `byte` with the primitive `pc_clear`
    /// uses for `len`, or its stand-in where that one stores only zeros
    /// (since 1.1).
    pub fn pc_fill(addr: *mut c_void, len: usize, byte: c_int) -> c_int;
    /// Zero `[addr, addr + len)`, skipping the pages of private anonymous
    /// memory the kernel has not handed out; `*r` (of `size` bytes, may be
    /// NULL) gets what was done (since 1.1, `PAGECLEAR_1.1`).
    pub fn pc_clear_present(
        addr: *mut c_void,
        len: usize,
        flags: c_int,
        r: *mut pc_present_report,
        size: usize,
    ) -> c_int;

    /// The default batching unit in bytes.
    pub fn pc_default_unit() -> usize;
    /// Fill `*b` (of `size` bytes) with the batching defaults.
    pub fn pc_batch_init(b: *mut pc_batch, size: usize);
    /// Zero in units as `*b` (of `size` bytes) says, with resched points;
    /// `*cleared` gets the bytes zeroed (a prefix).
    pub fn pc_clear_batched(
        addr: *mut c_void,
        len: usize,
        b: *const pc_batch,
        size: usize,
        cleared: *mut usize,
    ) -> c_int;

    /// Zero so that the pages around `hint` are cleared last.
    pub fn pc_clear_hint(addr: *mut c_void, len: usize, hint: *const c_void) -> c_int;
    /// `pc_clear_hint` with batching (`*b` of `size` bytes).
    pub fn pc_clear_hint_batched(
        addr: *mut c_void,
        len: usize,
        hint: *const c_void,
        b: *const pc_batch,
        size: usize,
        cleared: *mut usize,
    ) -> c_int;

    /// Number of primitives in the table.
    pub fn pc_impl_count() -> usize;
    /// Fill `*out` (of `size` bytes) for primitive `i`.
    pub fn pc_impl_get(i: usize, out: *mut pc_impl_info, size: usize) -> c_int;
    /// Index of the primitive called `name`, or a negative errno.
    pub fn pc_impl_find(name: *const c_char) -> c_int;
    /// Zero with primitive `i` alone.
    pub fn pc_impl_clear(i: usize, addr: *mut c_void, len: usize) -> c_int;
    /// Fill with `byte` using primitive `i` (measurement only).
    pub fn pc_impl_fill(i: usize, addr: *mut c_void, len: usize, byte: c_int) -> c_int;
    /// Name of the primitive `pc_clear` uses for `len` bytes.
    pub fn pc_selected(len: usize) -> *const c_char;
    /// Name of the temporal primitive of `pc_clear_hint`'s neighbourhood.
    pub fn pc_selected_temporal(len: usize) -> *const c_char;
    /// Name of the primitive `pc_clear_cold` uses for `len` bytes.
    pub fn pc_selected_cold(len: usize) -> *const c_char;

    /// Fill `*o` (of `size` bytes) with the pool defaults.
    pub fn pc_pool_opts_init(o: *mut pc_pool_opts, size: usize);
    /// Create a pool from `*opts` (of `size` bytes); NULL with errno on
    /// failure.
    pub fn pc_pool_create(opts: *const pc_pool_opts, size: usize) -> *mut pc_pool;
    /// Allocate `len` zeroed bytes (NULL with errno on failure).
    pub fn pc_pool_alloc(pool: *mut pc_pool, len: usize) -> *mut c_void;
    /// Give back an allocation.
    pub fn pc_pool_free(pool: *mut pc_pool, ptr: *mut c_void) -> c_int;
    /// Stop the worker and unmap everything.
    pub fn pc_pool_destroy(pool: *mut pc_pool);
    /// Fill `*st` (of `size` bytes) with the pool's counters.
    pub fn pc_pool_stats(pool: *mut pc_pool, st: *mut pc_pool_stats, size: usize) -> c_int;
    /// Name of a backing (static string).
    pub fn pc_backing_name(b: pc_backing) -> *const c_char;

    /// Zero on up to `nthreads` threads (<= 0: one per online CPU).
    pub fn pc_clear_parallel(addr: *mut c_void, len: usize, nthreads: c_int) -> c_int;
    /// Fault in for writing without changing the contents.
    pub fn pc_populate(addr: *mut c_void, len: usize, nthreads: c_int, flags: c_int) -> c_int;
    /// Fault in `count` extents together; `size` is `size_of::<pc_extent>()`
    /// (since 1.1, symbol version `PAGECLEAR_1.1`).
    pub fn pc_populate_many(
        ext: *const pc_extent,
        size: usize,
        count: usize,
        nthreads: c_int,
        flags: c_int,
    ) -> c_int;

    /// Fill `*h` (of `size` bytes) with the host facts and thresholds in
    /// force.
    pub fn pc_host_get(h: *mut pc_host, size: usize) -> c_int;

    /// Fill `*t` (of `tsize` bytes) with the built-in thresholds for this
    /// host.
    pub fn pc_tuning_defaults(t: *mut pc_tuning, tsize: usize) -> c_int;
    /// Write a profile for this host carrying `*t` (of `tsize` bytes) into
    /// `buf` (of `size` bytes).
    pub fn pc_profile_format(
        t: *const pc_tuning,
        tsize: usize,
        comment: *const c_char,
        buf: *mut c_char,
        size: usize,
    ) -> c_int;
    /// Parse a profile's text into `*t` (of `tsize` bytes).
    pub fn pc_profile_parse(
        text: *const c_char,
        len: usize,
        t: *mut pc_tuning,
        tsize: usize,
        why: *mut c_char,
        whylen: usize,
    ) -> c_int;

    /// Describe threshold `i` in `*out` (of `size` bytes).
    pub fn pc_threshold_info(i: c_int, out: *mut pc_threshold_info, size: usize) -> c_int;
    /// Read threshold `i` of `*t` (of `tsize` bytes).
    pub fn pc_tuning_get(t: *const pc_tuning, tsize: usize, i: c_int, v: *mut usize) -> c_int;
    /// Set threshold `i` of `*t` (of `tsize` bytes); -ERANGE if a profile
    /// would refuse it.
    pub fn pc_tuning_set(t: *mut pc_tuning, tsize: usize, i: c_int, v: usize) -> c_int;

    /// Parse a size with an optional K/M/G/T suffix (powers of 1024).
    pub fn pc_parse_size(s: *const c_char, out: *mut usize) -> c_int;

    /// Zeroed huge pages from the `pageclear serve` daemon: a sealed
    /// hugetlb memfd in `*fd` (since 1.1); see pageclear.h.
    pub fn pc_serve_get(size: usize, page_size: usize, flags: c_int, fd: *mut c_int) -> c_int;
}
