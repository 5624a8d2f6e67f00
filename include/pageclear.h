/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * pageclear.h - extent-aware memory clearing for user space.
 *
 * The one public header of libpageclear. Every entry point carries its
 * contract here. Conventions shared by all functions:
 *   - Functions returning int return 0 on success or a negative errno value.
 *   - On an error nothing is written.
 *   - No function ever writes a byte outside [addr, addr + len).
 *   - All functions are thread-safe; environment options (PAGECLEAR_*) are
 *     read once, on the first call that needs them.
 *
 * Structs that cross the boundary grow without breaking programs built
 * against an older header (docs/abi.md has the whole policy):
 *   - Each function taking a pointer to a public struct also takes, in the
 *     ABI, the size of that struct as the caller knows it, right after the
 *     pointer. A macro of the function's own name, defined after its
 *     declaration, passes sizeof(struct ...), so source code calls it as
 *     written here without the size. (Its address is the sized function:
 *     write (pc_host_get) in parentheses and pass the size yourself.)
 *   - The size must cover every field the struct had in 1.0; a smaller one
 *     is refused with -EINVAL (pc_pool_create: NULL, errno EINVAL; the void
 *     init functions then do nothing). With a NULL struct pointer the size
 *     is not looked at.
 *   - A struct the library fills: it writes min(size, its own size) bytes
 *     and zeroes the caller's bytes past its own size, so a field newer
 *     than the library reads 0, "unknown".
 *   - A struct the library reads: fields past size keep their defaults;
 *     bytes past the library's own size must be zero, else -E2BIG (a
 *     setting this library does not know is refused, never ignored). So
 *     start such a struct from its init function (pc_batch_init,
 *     pc_pool_opts_init, pc_tuning_defaults) or zero it whole, then set
 *     fields.
 *   - Structs only grow at their end, enums only gain constants at their
 *     end, and no field or constant ever changes meaning; a field added
 *     later reads 0 as "as before".
 */
#ifndef PAGECLEAR_H
#define PAGECLEAR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the library's exported entry points; everything else is hidden. */
#if defined(__GNUC__)
#define PC_API __attribute__((visibility("default")))
#else
#define PC_API
#endif

#define PC_VERSION_MAJOR 1
#define PC_VERSION_MINOR 1
#define PC_VERSION_PATCH 0

/* The page unit of pc_clear_pages and of the hint neighbourhood. It is the
 * x86-64 and default arm64 base page; the API keeps it fixed so that a page
 * count means the same number of bytes everywhere. */
#define PC_PAGE_SIZE ((size_t)4096)

/* Library version as "MAJOR.MINOR.PATCH". */
PC_API const char *pc_version(void);

/* ------------------------------------------------------------------------ */
/* Clearing                                                                  */

/* Zero [addr, addr + len). Any alignment, any length. The primitive is
 * chosen from the CPU's features and from len (see pc_selected), unless
 * PAGECLEAR_IMPL forces one. One call covers the whole extent: there are no
 * rescheduling points (see pc_clear_batched for that).
 * Returns 0; -EINVAL if addr is NULL and len > 0; -EOVERFLOW if addr + len
 * wraps around the address space. len == 0 returns 0 and writes nothing. */
PC_API int pc_clear(void *addr, size_t len);

/* Zero [addr, addr + len) as pc_clear, for memory nobody will read soon
 * and that is not in cache (zeroing on free, scrubbing before reuse, a VMM
 * clearing guest memory): non-temporal stores from cold_nt_threshold (by
 * default the end of the vector range, on CPUs that have them), so the
 * clear neither waits on the cache nor evicts what is in it;
 * cache-allocating stores below it. The price: the first touch afterwards
 * misses the cache. Same bad-input contract as pc_clear. */
PC_API int pc_clear_cold(void *addr, size_t len);

/* Zero npages pages of PC_PAGE_SIZE bytes starting at addr, as pc_clear.
 * Returns -EINVAL if addr is NULL (with npages > 0) or not PC_PAGE_SIZE
 * aligned; -EOVERFLOW if npages * PC_PAGE_SIZE or the end address overflows. */
PC_API int pc_clear_pages(void *addr, size_t npages);

/* Set [addr, addr + len) to byte with the primitive pc_clear uses for len
 * (pc_selected(len) names it; PAGECLEAR_IMPL forces one), storing byte
 * where it stores zeros: a memset through the selection, for a caller that
 * takes every memset (the preload). Where that primitive stores only zeros
 * (clzero, dc zva) and byte is not 0, the last primitive of the table
 * (pc_impl_get) with its cache behaviour that runs here and stores any
 * byte does the work instead. A byte of 0 is pc_clear.
 * Returns 0; -EINVAL if byte is outside 0..255; bad input as pc_clear;
 * -ENOTSUP if no primitive here can store byte in that one's place
 * (nothing is written). Since 1.1. */
PC_API int pc_fill(void *addr, size_t len, int byte);

/* ------------------------------------------------------------------------ */
/* Clearing only what the kernel has handed out (since 1.1)                  */

/* pc_clear_present flags. */
#define PC_PRESENT_NO_FALLBACK 0x1 /* write nothing rather than clear a part
                                      without proof: -ENOTSUP */
#define PC_PRESENT_DRY_RUN 0x2     /* write nothing; report what the call
                                      would do now */
#define PC_PRESENT_POPULATE 0x4    /* fault the absent pages in rather than
                                      leave them alone (since 1.1) */

/* Why pc_clear_present cleared a part whole, unable to tell what its
 * absent pages read. */
enum pc_present_why {
    PC_PRESENT_PROVEN = 0,     /* it could tell everywhere */
    PC_PRESENT_NO_SCAN = 1,    /* the kernel has no PAGEMAP_SCAN (before
                                  Linux 6.7): error ENOTTY or EINVAL */
    PC_PRESENT_REFUSED = 2,    /* /proc/self/pagemap or its scan failed
                                  otherwise: a seccomp filter or security
                                  module (EPERM, EACCES, ENOSYS, ...), no
                                  /proc (ENOENT), no free descriptor
                                  (EMFILE); error says which */
    PC_PRESENT_NO_MAPS = 3,    /* the mappings could be read neither with
                                  PROCMAP_QUERY nor from /proc/self/maps */
    PC_PRESENT_FILE = 4,       /* a private mapping of a file (a memfd's
                                  too): an absent page reads the file */
    PC_PRESENT_SHARED = 5,     /* a shared mapping (shmem, a memfd,
                                  MAP_SHARED | MAP_ANONYMOUS, a file): its
                                  pages may hold what another process or
                                  write(2) put there */
    PC_PRESENT_HUGETLB = 6,    /* hugetlb: an absent page of a private
                                  mapping reads the file behind it, and no
                                  kernel interface tells an anonymous one
                                  from a file's */
    PC_PRESENT_USERFAULTFD = 7,/* registered with a userfaultfd in missing
                                  or minor mode: an absent page reads what
                                  the handler supplies */
    PC_PRESENT_NO_UFFD_INFO = 8/* the registration could not be read
                                  (/proc/self/smaps): error says why */
};

/* pc_present_report.used: the kernel interfaces a call read. */
#define PC_PRESENT_USED_PROCMAP_QUERY 0x1 /* the mappings, PROCMAP_QUERY
                                             (Linux 6.11) */
#define PC_PRESENT_USED_MAPS 0x2          /* the mappings, /proc/self/maps */
#define PC_PRESENT_USED_SCAN 0x4          /* the pages, PAGEMAP_SCAN */
#define PC_PRESENT_USED_SMAPS 0x8         /* userfaultfd, /proc/self/smaps */
#define PC_PRESENT_USED_POPULATE 0x10     /* madvise(MADV_POPULATE_WRITE) */

/* What pc_clear_present did (with PC_PRESENT_DRY_RUN: would do). */
struct pc_present_report {
    size_t skipped;  /* bytes left alone: their pages read zero already */
    size_t cleared;  /* bytes stored to (skipped + cleared == len) */
    size_t unproven; /* of cleared: bytes in parts cleared whole for want
                        of proof (why says why, for the lowest of them) */
    enum pc_present_why why; /* PC_PRESENT_PROVEN if unproven is 0 */
    int error;       /* the errno behind NO_SCAN, REFUSED, NO_MAPS and
                        NO_UFFD_INFO; else 0 */
    int used;        /* PC_PRESENT_USED_* */
    size_t populated; /* PC_PRESENT_POPULATE: bytes of absent pages the
                         kernel faulted in (skipped + cleared + populated
                         == len); 0 without the flag */
    int populate_error; /* the errno of the first MADV_POPULATE_WRITE that
                           failed (its pages were then cleared), else 0 */
};

/* Make [addr, addr + len) read as zero, doing no work for the pages that
 * read zero already: those of a private anonymous mapping that the kernel
 * has not handed out (neither present nor swapped: a first touch gets a
 * fresh zeroed page) and those mapped to its shared zero page are left
 * alone; present and swapped pages are cleared with pc_clear's primitive
 * for len (pc_selected(len) names it). A page partly in the range is left
 * alone or cleared only within it. Where it cannot tell what an absent
 * page would read, it clears the part whole and says why (enum
 * pc_present_why): mappings of files, shared and hugetlb ones, a range
 * registered with a userfaultfd in missing or minor mode, and wherever
 * the kernel does not answer (before Linux 6.7, a seccomp filter refusing
 * with an errno; one that kills or traps does that). The skipped pages
 * are not faulted in, so they are neither placed on a NUMA node by this
 * call nor made resident, as a memset of them would do (pc_populate does).
 *
 * How it tells: the kind of each mapping from the PROCMAP_QUERY ioctl
 * (Linux 6.11), else /proc/self/maps; the pages from PAGEMAP_SCAN on
 * /proc/self/pagemap; and, only when it would skip a page, the
 * userfaultfd registration from /proc/self/smaps, whose cost grows with
 * the pages resident in the range's mappings and in those below it.
 *
 * What is promised: on return every byte of the range reads zero with
 * respect to every write that happened before the call, by any thread or
 * process. A write during the call races with it as with pc_clear (its
 * bytes may stay); a page that was absent when the call looked and that
 * another thread faults in meanwhile holds zeros or what that thread
 * wrote. The mappings of the range (mmap, munmap, mremap, mprotect,
 * userfaultfd registration) must not change during the call.
 *
 * flags: 0, or any of PC_PRESENT_NO_FALLBACK (where the call would clear
 * a part without proof it writes nothing and returns -ENOTSUP, *r saying
 * why; decided before any store: it reads the userfaultfd registration
 * whenever the range has an absent page; should the scan fail after that,
 * the rest is cleared and said as without the flag), PC_PRESENT_DRY_RUN
 * (nothing of the range is written; *r says what the call would do) and
 * PC_PRESENT_POPULATE: the pages it would leave alone are instead faulted
 * in by the calling thread with madvise(MADV_POPULATE_WRITE) (Linux 5.14),
 * each then a resident zeroed page placed by the thread's memory policy,
 * as a memset's first touch makes it, without a store from user space;
 * where the kernel refuses (an older kernel: EINVAL; out of memory:
 * ENOMEM; a filter; any error) those pages are cleared with stores
 * instead, which fault as a memset's would, and populate_error says why.
 *
 * r, if not NULL, receives what was done (the size contract at the top of
 * this file), also with -ENOTSUP. No memory but under 3 KiB of stack, at
 * most three descriptors, all closed before it returns, nothing kept
 * between calls (safe across fork); errno is left as it was. Thread-safe,
 * and async-signal-safe once the library is initialised (after any call
 * of pc_clear or pc_selected), as pc_clear.
 *
 * Returns 0, or: -EINVAL (addr NULL with len > 0, an unknown flag, a size
 * below the struct's first version or past a page); -EOVERFLOW (addr +
 * len wraps); -EFAULT (part of the range is not mapped or not writable, as
 * the mappings read at the start of the call say: nothing is written);
 * -ENOTSUP (refused under PC_PRESENT_NO_FALLBACK: nothing of the range
 * written). len == 0 returns 0 and a zero report. Where the mappings
 * cannot be read at all the range is cleared as pc_clear does, and a hole
 * then faults as it would there. Since 1.1. */
PC_API int pc_clear_present(void *addr, size_t len, int flags,
                            struct pc_present_report *r, size_t size);
#define pc_clear_present(addr, len, flags, r)                        \
    (pc_clear_present)((addr), (len), (flags), (r),                  \
                       sizeof(struct pc_present_report))

/* ------------------------------------------------------------------------ */
/* Batching: units between rescheduling points                              */

/* Preemption models, after the kernel's. Under NONE and VOLUNTARY the clear
 * proceeds in units with a resched point before each; under FULL and LAZY
 * the scheduler can preempt at any time, so the whole extent is one unit and
 * the resched callback is never called. */
enum pc_preempt {
    PC_PREEMPT_NONE = 0,
    PC_PREEMPT_VOLUNTARY = 1,
    PC_PREEMPT_FULL = 2,
    PC_PREEMPT_LAZY = 3
};

/* Called before each unit with the bytes cleared so far and the total.
 * Return 0 to go on; any other value stops the clear before that unit. */
typedef int (*pc_resched_fn)(void *ctx, size_t done, size_t total);

struct pc_batch {
    /* Bytes per unit; 0 means pc_default_unit(). Any value >= 1 is allowed;
     * page multiples are what the kernel uses and what performs well. Units
     * of whole pages keep to the page grid: if addr is m = addr %
     * PC_PAGE_SIZE bytes into a page, the first unit is unit - m bytes and
     * every later one starts on a page boundary (an 8 KiB unit 16 bytes into
     * a page: units at offsets 0, 8176, 16368, ...). Other units are not
     * adjusted. */
    size_t unit;
    enum pc_preempt model;
    pc_resched_fn resched; /* may be NULL: units still split the work */
    void *ctx;             /* passed to resched */
};

/* The default unit in bytes: PAGECLEAR_UNIT if set, else 32 MiB where the
 * host has a fast multi-page primitive (an architecture-specific one on
 * x86-64 or arm64), else one page. 32 MiB is large enough for the CPU to see
 * an LLC-sized extent and small enough that a unit takes ~3 ms even at a
 * poor 10 GB/s, far below a 100 ms scheduling-latency budget. */
PC_API size_t pc_default_unit(void);

/* Fill *b with the defaults: unit 0 (= pc_default_unit()), PC_PREEMPT_NONE,
 * no callback (and every byte past them zero). b NULL, or a size below
 * 1.0's (see the top of this file), does nothing. */
PC_API void pc_batch_init(struct pc_batch *b, size_t size);
#define pc_batch_init(b) (pc_batch_init)((b), sizeof(struct pc_batch))

/* Zero [addr, addr + len) in units as *b says (b == NULL: defaults). The
 * primitive is the one pc_clear would use for the whole extent (len), not
 * for one unit: units only place the resched points. Before
 * each unit (under NONE/VOLUNTARY) resched(ctx, done, len) runs; a non-zero
 * return stops the clear, which then returns -ECANCELED. *cleared (if not
 * NULL) receives the number of bytes zeroed, always a prefix of the extent,
 * on success and on cancellation alike. Bad input as pc_clear, plus -EINVAL
 * for a model outside enum pc_preempt, and -EINVAL or -E2BIG for a struct
 * size the library cannot take (see the top of this file). */
PC_API int pc_clear_batched(void *addr, size_t len, const struct pc_batch *b,
                            size_t size, size_t *cleared);
#define pc_clear_batched(addr, len, b, cleared) \
    (pc_clear_batched)((addr), (len), (b), sizeof(struct pc_batch), (cleared))

/* ------------------------------------------------------------------------ */
/* Zeroing around a hint (the kernel's folio_zero_user order)                */

/* Zero [addr, addr + len) so that the pages around hint, which the caller is
 * about to touch, are cleared last and stay in cache. Pages are the
 * PC_PAGE_SIZE-aligned pages the extent spans (the first and last may be
 * partial). With f the page holding hint and n pages in all:
 *   neighbourhood = [f - 2, f + 2] clamped into [0, n - 1] (at most 5 pages)
 *   right = pages after the neighbourhood, left = pages before it.
 * Order: right, then left, then the neighbourhood; empty ranges are skipped.
 * The neighbourhood is cleared with cache-allocating (temporal) stores, even
 * if PAGECLEAR_IMPL forces a non-temporal primitive; right and left use the
 * pc_clear selection. Returns -EINVAL if hint is outside [addr, addr + len)
 * (len == 0 returns 0 whatever hint is), and bad input as pc_clear. */
PC_API int pc_clear_hint(void *addr, size_t len, const void *hint);

/* pc_clear_hint with each of its ranges going through the batching of *b
 * (b == NULL: defaults). The callback sees done/total over the whole extent;
 * *cleared receives the bytes zeroed (not a prefix: the ranges' order). */
PC_API int pc_clear_hint_batched(void *addr, size_t len, const void *hint,
                                 const struct pc_batch *b, size_t size,
                                 size_t *cleared);
#define pc_clear_hint_batched(addr, len, hint, b, cleared)              \
    (pc_clear_hint_batched)((addr), (len), (hint), (b),                \
                            sizeof(struct pc_batch), (cleared))

/* ------------------------------------------------------------------------ */
/* Primitives: introspection and direct calls                                */

enum pc_cache {
    PC_CACHE_TEMPORAL = 0,    /* stores allocate lines in cache */
    PC_CACHE_NONTEMPORAL = 1, /* streaming stores bypass the cache */
    PC_CACHE_ADAPTIVE = 2     /* temporal for small extents; the CPU may stop
                                 allocating for LLC-sized ones (rep stos) */
};

struct pc_impl_info {
    const char *name;        /* e.g. "x86-64-stosb": PAGECLEAR_IMPL, -f */
    const char *arch;        /* "x86-64", "aarch64" or "any" */
    const char *features;    /* required CPU features, "" for none */
    const char *description; /* one line */
    enum pc_cache cache;
    int supported; /* 1 if this host can run it, else 0 */
};

/* Number of primitives in the table (all architectures, supported or not). */
PC_API size_t pc_impl_count(void);

/* Fill *out for primitive i. Returns -EINVAL if out is NULL, -ENOENT if
 * i >= pc_impl_count(). */
PC_API int pc_impl_get(size_t i, struct pc_impl_info *out, size_t size);
#define pc_impl_get(i, out) (pc_impl_get)((i), (out), sizeof(struct pc_impl_info))

/* Index of the primitive called name, or -ENOENT (-EINVAL for NULL). */
PC_API int pc_impl_find(const char *name);

/* Zero [addr, addr + len) with primitive i alone: no selection, no batching.
 * Returns -ENOENT for an unknown index, -ENOTSUP if this CPU/OS cannot run
 * it (nothing is executed), and bad input as pc_clear. */
PC_API int pc_impl_clear(size_t i, void *addr, size_t len);

/* Fill [addr, addr + len) with the byte value byte using primitive i, for
 * measurement: perf bench's memset workload stores a non-zero byte, and
 * some CPUs have fast paths for zero alone, so `pageclear mem memset`
 * compares both (pc_fill fills through the selection). Returns as
 * pc_impl_clear, plus -EINVAL if byte is outside 0..255 and -ENOTSUP for a
 * primitive that can only store zeros (clzero, dc zva) with byte != 0. */
PC_API int pc_impl_fill(size_t i, void *addr, size_t len, int byte);

/* Name of the primitive pc_clear uses for an extent of len bytes: the one
 * forced by PAGECLEAR_IMPL if that was honoured, else the selection's. */
PC_API const char *pc_selected(size_t len);

/* Name of the cache-allocating primitive pc_clear_hint uses for its
 * neighbourhood of len bytes. */
PC_API const char *pc_selected_temporal(size_t len);

/* Name of the primitive pc_clear_cold uses for len bytes. */
PC_API const char *pc_selected_cold(size_t len);

/* ------------------------------------------------------------------------ */
/* Zeroed-page pool (init_on_alloc / init_on_free in user space)             */

/* How the pool's memory is backed, best first. */
enum pc_backing {
    PC_BACKING_AUTO = 0,      /* (opts only) the best that can be had */
    PC_BACKING_HUGETLB_1G = 1,/* reserved 1 GiB hugetlb pages */
    PC_BACKING_HUGETLB_2M = 2,/* reserved 2 MiB hugetlb pages */
    PC_BACKING_THP = 3,       /* transparent huge pages through madvise */
    PC_BACKING_4K = 4         /* base pages */
};

/* When the pool clears memory. Whatever the policy, every allocation reads
 * as all zeros and no owner ever sees a previous owner's data. */
enum pc_pool_policy {
    PC_POOL_INIT_ON_ALLOC = 0, /* clear at allocation: one batched clear per
                                  contiguous dirty run, as the kernel does,
                                  with pc_clear's (cache-friendly) choice */
    PC_POOL_INIT_ON_FREE = 1,  /* clear at free, with non-temporal stores
                                  where the CPU has them: allocation is
                                  instant and freed data never lingers */
    PC_POOL_BACKGROUND = 2     /* a worker thread clears freed runs ahead of
                                  demand (non-temporal, as at free);
                                  allocation clears only what the worker has
                                  not reached */
};

/* What the pool clears of a freed allocation. */
enum pc_pool_tracking {
    PC_POOL_TRACK_AUTO = 0,   /* (opts) WRITTEN where the kernel can tell
                                 (Linux 6.7+, 4K and THP backings), else
                                 OFF; `pageclear info` says which. In
                                 stats: unknown (a 1.0 library) */
    PC_POOL_TRACK_OFF = 1,    /* every page of it: whole runs */
    PC_POOL_TRACK_WRITTEN = 2 /* only the pages written while it was
                                 allocated (by any thread, or by the kernel
                                 on its behalf, e.g. read(2) into it); the
                                 others are known zero and never cleared.
                                 In opts: required (pc_pool_create fails
                                 with ENOTSUP where it cannot be had) */
};

struct pc_pool_opts {
    size_t capacity;          /* bytes; rounded up to the backing page size;
                                 0 = 256 MiB */
    enum pc_backing backing;  /* AUTO tries 1G, 2M, THP, 4K in that order;
                                 anything else is that backing or failure */
    enum pc_pool_policy policy;
    int populate;             /* 1 (default): fault the memory in at create,
                                 so allocations never fault; 0: lazily */
    /* since 1.1 (0 in a 1.0 program: the defaults) */
    size_t resident_max;      /* bytes of the pool's memory it may keep
                                 resident: past it, freed pages are given
                                 back to the kernel (MADV_DONTNEED: zero
                                 again, refaulted when touched) instead of
                                 kept; 4K and THP backings (a hugetlb page
                                 given back could not be had again).
                                 0 (default): no bound, freed pages are
                                 kept and cleared, the cheaper choice for
                                 memory that is used again */
    enum pc_pool_tracking tracking; /* AUTO (default), OFF or WRITTEN */
};

/* Fill *o with the defaults: 256 MiB, AUTO, INIT_ON_ALLOC, populate (and
 * every byte past them zero). o NULL, or a size below 1.0's, does
 * nothing. */
PC_API void pc_pool_opts_init(struct pc_pool_opts *o, size_t size);
#define pc_pool_opts_init(o) \
    (pc_pool_opts_init)((o), sizeof(struct pc_pool_opts))

struct pc_pool;

/* Create a pool (opts NULL = defaults). One contiguous mapping of the
 * capacity is reserved up front. Returns NULL with errno set: EINVAL (bad
 * options, or a size below 1.0's), E2BIG (options this library does not
 * know are set), ENOMEM (the memory or the requested backing cannot be
 * had), EOVERFLOW (capacity too large), ENOTSUP (since 1.1: tracking
 * PC_POOL_TRACK_WRITTEN cannot be had here). Thread-safe to use from any
 * thread. */
PC_API struct pc_pool *pc_pool_create(const struct pc_pool_opts *opts,
                                      size_t size);
#define pc_pool_create(opts) (pc_pool_create)((opts), sizeof(struct pc_pool_opts))

/* Allocate len bytes, rounded up to whole PC_PAGE_SIZE pages, contiguous
 * and PC_PAGE_SIZE aligned, reading as all zeros. Returns NULL with errno:
 * EINVAL (pool NULL or len 0), EOVERFLOW (len rounds past SIZE_MAX),
 * ENOMEM (no free run that long: the pool is exhausted or fragmented). */
PC_API void *pc_pool_alloc(struct pc_pool *pool, size_t len);

/* Give back an allocation. Returns 0, or -EINVAL if pool is NULL or ptr is
 * not the start of a live allocation from this pool (a foreign pointer, an
 * interior pointer, or a double free); nothing is changed then. ptr NULL is
 * a no-op returning 0, as free(NULL). */
PC_API int pc_pool_free(struct pc_pool *pool, void *ptr);

/* Stop the worker and unmap everything; outstanding allocations become
 * invalid. NULL is a no-op. A pool is not carried across fork(): a child
 * must not use its parent's pool (with PC_POOL_BACKGROUND its worker thread
 * does not exist there); create a new one. */
PC_API void pc_pool_destroy(struct pc_pool *pool);

struct pc_pool_stats {
    enum pc_backing backing;   /* what the pool got */
    enum pc_pool_policy policy;
    size_t capacity;           /* bytes */
    size_t in_use;             /* bytes allocated now */
    size_t clean;              /* free bytes known to be zero */
    size_t dirty;              /* free bytes waiting to be cleared */
    size_t allocs, frees;      /* calls that succeeded */
    size_t clears;             /* batched clear calls made */
    size_t cleared_bytes;      /* bytes those clears covered */
    /* since 1.1 (0 from a 1.0 library: unknown) */
    size_t skipped_bytes;      /* freed bytes found unwritten (known zero),
                                  so never cleared */
    size_t dropped_bytes;      /* freed bytes given back to the kernel to
                                  keep within resident_max */
    size_t resident;           /* bytes of the pool known resident: as of
                                  its last look at each page (allocations
                                  count as last seen; with tracking OFF, a
                                  freed page counts as touched) */
    enum pc_pool_tracking tracking; /* OFF or WRITTEN */
};

/* Fill *st. Returns 0, or -EINVAL for NULL arguments. */
PC_API int pc_pool_stats(struct pc_pool *pool, struct pc_pool_stats *st,
                         size_t size);
#define pc_pool_stats(pool, st) \
    (pc_pool_stats)((pool), (st), sizeof(struct pc_pool_stats))

/* Name of a backing: "hugetlb-1G", "hugetlb-2M", "thp", "4K", "auto". */
PC_API const char *pc_backing_name(enum pc_backing b);

/* ------------------------------------------------------------------------ */
/* Parallel clear and populate                                               */

/* Zero [addr, addr + len) on up to nthreads threads (nthreads <= 0: one per
 * CPU the calling thread may run on, its affinity mask; no other bound).
 * Threads are sized to the work: each gets at least 64 MiB (below that a
 * thread costs more to wake than it saves), so short extents run on the
 * calling thread alone. The threads come from a persistent worker pool;
 * on machines with several NUMA nodes they run on the CPUs of the node(s)
 * the memory is bound to (its memory policy, see pc_populate), else are
 * spread over the nodes. They take the work in 4 MiB chunks from a shared
 * cursor, so a slow thread does not hold up the rest. Each chunk is
 * cleared with the primitive chosen for the whole extent: on one thread
 * pc_clear's; on several, non-temporal stores from parallel_nt_threshold
 * (see struct pc_host), cache-allocating ones below it. Returns 0 or as
 * pc_clear. */
PC_API int pc_clear_parallel(void *addr, size_t len, int nthreads);
/* (The worker pool is rebuilt on demand in a child after fork().) */

/* Flags for pc_populate. */
#define PC_POPULATE_TOUCH 0x1 /* skip MADV_POPULATE_WRITE: touch each page
                                 (the path for kernels before 5.14) */

/* Fault [addr, addr + len) in for writing, on up to nthreads threads
 * (sized as pc_clear_parallel), without changing its contents: with
 * MADV_POPULATE_WRITE where the kernel has it, else by touching each page
 * with an atomic add of zero under a SIGBUS/SIGSEGV guard. addr is rounded
 * down and the end up to PC_PAGE_SIZE. Where the memory goes: if the
 * mapping's memory policy (else the process's, as numactl --membind sets
 * it) binds or prefers nodes, the threads run on those nodes' CPUs within
 * the affinity mask (all of the mask if none of them is in it); with a
 * default, local or interleaved policy they are spread over the nodes.
 * The work is handed out in chunks of 4 MiB, or one page where the
 * mapping's pages are larger (a hugetlb page is never split between two
 * threads; no more threads run than there are chunks), and every thread is
 * started and placed before any of them faults a page. Returns 0, or a
 * negative errno: -EINVAL (bad flags or addr NULL), -EOVERFLOW, -ENOMEM
 * (not mapped, or out of memory), -EFAULT (a page would raise SIGBUS,
 * e.g. the hugetlb pool ran dry, or is not writable). Pages before the
 * failure may stay populated. */
PC_API int pc_populate(void *addr, size_t len, int nthreads, int flags);

/* One extent for pc_populate_many (since 1.1). */
struct pc_extent {
    void *addr;
    size_t len;
};

/* Fault the count extents ext[0 .. count) in as pc_populate does each,
 * together: one set of up to nthreads threads (sized to the total bytes)
 * shares all of them, each extent's chunks going to threads on its own
 * memory's nodes first (a VM's memory zones, a heap's per-node arenas, all
 * at once rather than one after another). size is the size of one array
 * element as the caller knows struct pc_extent (the macro passes it; the
 * size contract at the top of this file applies to every element, and the
 * elements are size bytes apart). Extents of length 0 are skipped (their
 * addr is not looked at); count == 0 returns 0. All extents are checked
 * before anything is populated; then nothing is done and the result is:
 * -EINVAL (bad flags, ext NULL with count > 0, an extent with addr NULL
 * and len > 0, two extents sharing a byte, or a size below the struct's
 * as 1.1 has it: addr and len), -E2BIG (bytes of an element past
 * this library's struct are not zero), -EOVERFLOW (an extent wraps, or
 * count * size does), -ENOMEM (no memory for the plan). Errors while
 * populating are pc_populate's, for the first failing extent in array
 * order; pages may stay populated then. Since 1.1. */
PC_API int pc_populate_many(const struct pc_extent *ext, size_t size, size_t count,
                            int nthreads, int flags);
#define pc_populate_many(ext, count, nthreads, flags) \
    (pc_populate_many)((ext), sizeof(struct pc_extent), (count), (nthreads), (flags))

/* ------------------------------------------------------------------------ */
/* Host facts and tunables                                                   */

struct pc_host {
    char vendor[16];       /* "GenuineIntel", "AuthenticAMD", "arm64", ... */
    char features[256];    /* the features detected and usable, space-separated */
    int hypervisor;        /* 1 if running under a hypervisor */
    size_t llc_size;       /* last-level cache bytes, 0 if unknown */
    size_t zva_block;      /* arm64 dc zva block bytes, 0 if unusable */
    size_t vector_max;     /* selection threshold: below, vector stores */
    size_t nt_threshold;   /* selection threshold: from here, non-temporal;
                              SIZE_MAX: never (e.g. a CPU without
                              non-temporal vector stores) */
    size_t unit;           /* pc_default_unit() */
    const char *forced;    /* name forced by PAGECLEAR_IMPL, or NULL */
    int numa_nodes;        /* NUMA nodes with CPUs (1 if unknown) */
    size_t cold_nt_threshold;     /* pc_clear_cold: from this length,
                                     non-temporal (SIZE_MAX: never) */
    size_t parallel_nt_threshold; /* pc_clear_parallel on more than one
                                     thread: from this extent length,
                                     non-temporal (SIZE_MAX: never) */
    unsigned family, model, stepping; /* x86-64: cpuid display family,
                                         model, stepping; else 0 */
    char profile[256];        /* the profile file in force, "" if none */
    char profile_status[256]; /* one line: "in force, " and where it
                                 comes from, "none found (...)", or why
                                 the profile was refused */
    /* since 1.1 (NULL from a 1.0 library: unknown) */
    const char *pool_tracking; /* one line: what a pool clears of a freed
                                  allocation here, "written pages (...)"
                                  or "whole runs (why)"; 4K and THP
                                  backings, hugetlb is always whole runs */
};

/* Fill *h with what the library detected and the thresholds in force.
 * Returns -EINVAL for NULL. */
PC_API int pc_host_get(struct pc_host *h, size_t size);
#define pc_host_get(h) (pc_host_get)((h), sizeof(struct pc_host))

/* ------------------------------------------------------------------------ */
/* Profiles: thresholds measured on this host (`pageclear tune`)              */

/* The thresholds a profile sets. SIZE_MAX means "never" (for the
 * non-temporal thresholds). */
struct pc_tuning {
    size_t vector_max;            /* pc_clear: below, vector stores */
    size_t nt_threshold;          /* pc_clear: from here, non-temporal */
    size_t cold_nt_threshold;     /* pc_clear_cold: from here, non-temporal;
                                     below, cache-allocating stores */
    size_t parallel_nt_threshold; /* pc_clear_parallel, >1 thread: from here,
                                     non-temporal; below, cache-allocating
                                     stores (each contract's threshold
                                     governs it alone) */
    size_t preload_min;           /* libpageclear-preload.so: from this
                                     length, memset and bzero go through
                                     pc_clear's selection; below, the C
                                     library's (SIZE_MAX: never); since 1.1 */
};

/* Fill *t with the library's built-in defaults for this host (what applies
 * with no profile and no PAGECLEAR_* variable): its CPU and, for
 * preload_min, what its C library's memset does (the version and
 * GLIBC_TUNABLES, read once, at the first call that needs them). Returns
 * -EINVAL for NULL. */
PC_API int pc_tuning_defaults(struct pc_tuning *t, size_t tsize);
#define pc_tuning_defaults(t) (pc_tuning_defaults)((t), sizeof(struct pc_tuning))

/* The thresholds by index, for code that treats them alike (a tuner, a
 * report, a binding): each is a field of struct pc_tuning, a profile key
 * and a PAGECLEAR_* variable. */
enum pc_threshold {
    PC_THRESHOLD_VECTOR_MAX = 0,  /* vector_max */
    PC_THRESHOLD_NT = 1,          /* nt_threshold */
    PC_THRESHOLD_COLD_NT = 2,     /* cold_nt_threshold */
    PC_THRESHOLD_PARALLEL_NT = 3, /* parallel_nt_threshold */
    PC_THRESHOLD_PRELOAD_MIN = 4  /* preload_min; since 1.1 */
};
/* 5 since 1.1 (4 in 1.0): a program built against 1.0 passes a struct
 * pc_tuning without preload_min, which then keeps its default. */
#define PC_NTHRESHOLDS 5

/* "never": the value of a streaming threshold that never streams. */
#define PC_NEVER ((size_t)-1)

struct pc_threshold_info {
    const char *key;         /* profile key and pc_tuning field, e.g.
                                "nt_threshold" */
    const char *env;         /* the variable that overrides it, e.g.
                                "PAGECLEAR_NT_THRESHOLD" */
    const char *description; /* one line */
    size_t min, max;         /* the sizes a profile accepts */
    int never;               /* 1 if PC_NEVER is accepted too */
    size_t dflt;             /* the built-in default on this host */
    size_t value;            /* in force: the variable, else the profile,
                                else the default */
};

/* Fill *out for threshold i. Returns -EINVAL if out is NULL, -ENOENT if i
 * is not in [0, PC_NTHRESHOLDS). */
PC_API int pc_threshold_info(int i, struct pc_threshold_info *out, size_t size);
#define pc_threshold_info(i, out) \
    (pc_threshold_info)((i), (out), sizeof(struct pc_threshold_info))

/* Read threshold i of *t into *v. Returns 0, -EINVAL for NULL arguments,
 * -ENOENT for an unknown i or one whose field lies past tsize. These two
 * touch that one field only: bytes past it are neither read nor checked. */
PC_API int pc_tuning_get(const struct pc_tuning *t, size_t tsize, int i,
                         size_t *v);
#define pc_tuning_get(t, i, v) \
    (pc_tuning_get)((t), sizeof(struct pc_tuning), (i), (v))

/* Set threshold i of *t to v. Returns 0, -EINVAL for a NULL t, -ENOENT for
 * an unknown i (as pc_tuning_get), -ERANGE if a profile would not accept v
 * (see pc_threshold_info's min, max and never); *t is unchanged on
 * error. */
PC_API int pc_tuning_set(struct pc_tuning *t, size_t tsize, int i, size_t v);
#define pc_tuning_set(t, i, v) \
    (pc_tuning_set)((t), sizeof(struct pc_tuning), (i), (v))

/* Write a profile for this host carrying *t into buf (at most size bytes,
 * always NUL-terminated when size > 0): the identity lines (library version,
 * CPU vendor, family/model/stepping, the features the selection uses, LLC
 * size, hypervisor), then one `key = value` line per threshold. comment, if
 * not NULL, is written first, each of its lines prefixed with "# ".
 * Returns the length of the whole profile (as snprintf: a result >= size
 * means it was cut), or -EINVAL for a NULL t or buf with size > 0, or
 * -ERANGE for a value pc_profile_parse would refuse (or -EINVAL / -E2BIG for
 * a tsize the library cannot take). Thresholds past tsize are the built-in
 * defaults. */
PC_API int pc_profile_format(const struct pc_tuning *t, size_t tsize,
                             const char *comment, char *buf, size_t size);
#define pc_profile_format(t, comment, buf, size) \
    (pc_profile_format)((t), sizeof(struct pc_tuning), (comment), (buf), (size))

/* Parse the profile text[0, len) (it need not be NUL-terminated). Lines
 * are `key = value` or comments (`#` to the end of the line); blank lines
 * are allowed. The identity keys must match this host and a library of the
 * same MAJOR version; threshold keys not given keep the built-in
 * defaults. On success fills *t and returns 0. On any error *t is left
 * untouched, a one-line reason goes to why (if not NULL and whylen > 0),
 * and the result is -EINVAL (malformed: unknown key, duplicate key, bad
 * syntax, missing identity), -ERANGE (a value out of range), -ENODEV (made
 * on another CPU) or -EPROTO (an incompatible library version).
 *
 * The library reads its profile once, on first use: PAGECLEAR_PROFILE if
 * set (a missing file is then an error; set and empty: no profile, the
 * built-in thresholds), else
 * $XDG_CONFIG_HOME/pageclear/profile (~/.config/pageclear/profile), else
 * /etc/pageclear/profile, else the profile shipped with pageclear for this
 * CPU (see pc_profile_parse(3)). A profile that cannot be read or is
 * refused is ignored as a whole, with one warning line on stderr
 * (PAGECLEAR_QUIET=1 silences it); pc_host_get says which profile is in
 * force and where it comes from, or why none is.
 * Precedence: a PAGECLEAR_* variable for a single threshold, then the
 * profile, then the built-in defaults. */
PC_API int pc_profile_parse(const char *text, size_t len, struct pc_tuning *t,
                            size_t tsize, char *why, size_t whylen);
#define pc_profile_parse(text, len, t, why, whylen) \
    (pc_profile_parse)((text), (len), (t), sizeof(struct pc_tuning), (why), \
                       (whylen))

/* Parse a size with an optional suffix: B, K/KB/KiB, M/MB/MiB, G/GB/GiB,
 * T/TB/TiB (all powers of 1024, as perf bench). Case-insensitive. Returns 0
 * and sets *out, -EINVAL for a malformed string, -ERANGE if it overflows. */
PC_API int pc_parse_size(const char *s, size_t *out);

/* ------------------------------------------------------------------------ */
/* Zeroed huge pages from the `pageclear serve` daemon                       */

/* pc_serve_get flag (since 1.1): only memory the daemon holds ready in its
 * reserve; never a fill at request time (the request fails with -ENOMEM
 * instead). */
#define PC_SERVE_RESERVE_ONLY 0x1

/* Ask the `pageclear serve` daemon for size bytes of zeroed hugetlb memory
 * in pages of page_size bytes (2 MiB or 1 GiB; 0 means 2 MiB). The daemon
 * keeps a reserve filled ahead (the kernel zeroes pages as they are
 * allocated into its memfds), so memory from the reserve needs only page
 * tables to be usable; a request the reserve cannot serve is filled at
 * request time, which takes as long as a fresh mapping would (unless
 * flags has PC_SERVE_RESERVE_ONLY or the daemon is configured so).
 *
 * The socket is $PAGECLEAR_SOCKET (ignored by set-user-ID and
 * set-group-ID programs), else /run/pageclear/serve.sock; the variable is
 * read at every call. The process listening there must run as root, or as
 * the uid $PAGECLEAR_SERVE_UID names (a decimal uid, read and ignored as
 * PAGECLEAR_SOCKET is): the call checks it (SO_PEERCRED)
 * before it sends anything. The call blocks until the daemon answers.
 *
 * On success returns 0 and sets *fd to a memfd, close-on-exec, that is
 * the caller's alone: size rounded up to page_size bytes long, every byte
 * zero, its pages allocated already, sealed against growing, shrinking and
 * further seals (F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL). Map it with
 * mmap(MAP_SHARED) (MAP_POPULATE then costs only page tables) or pass it
 * on, e.g. as /proc/self/fd/N; its pages go back to the kernel when the
 * last reference to it is closed. The daemon keeps none, and never hands
 * the same memory to anyone else.
 *
 * On error *fd is untouched and the result is: -EINVAL (size 0, page_size
 * not 0, 2 MiB or 1 GiB, an unknown flag, fd NULL), -EOVERFLOW (size
 * rounded up overflows), -ENOENT (no socket at the path), -ECONNREFUSED
 * (no daemon serving on it), -EACCES (not allowed to connect: the socket
 * is for its group), -ENAMETOOLONG (the path), -EDQUOT (over the calling
 * user's quota at the daemon, or its cgroup's limit on huge pages),
 * -ENOMEM (neither the reserve nor the kernel's free huge pages hold that
 * much), -EAGAIN (the daemon has too many connections or tenants now),
 * -EOPNOTSUPP (the kernel has no pages of that
 * size), -EPERM (the socket is served by a process of another uid: an
 * impostor, or a daemon PAGECLEAR_SERVE_UID does not name),
 * -ECONNRESET (the daemon closed the connection without an answer,
 * e.g. it is stopping), -EPROTO (an answer that is not the protocol, or a
 * descriptor that is not what it promises), or another negative errno of
 * the socket calls (e.g. -EMFILE). Thread-safe; no library state.
 * Since 1.1 (symbol version PAGECLEAR_1.1). */
PC_API int pc_serve_get(size_t size, size_t page_size, int flags, int *fd);

#ifdef __cplusplus
}
#endif

#endif /* PAGECLEAR_H */
