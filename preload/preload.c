/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * preload.c - the preload, libpageclear-preload-impl.so (loaded through
 * the filter users name, libpageclear-preload.so: filter.c): memset,
 * bzero, explicit_bzero and __memset_chk for programs that cannot be
 * rebuilt against pageclear (LD_PRELOAD, or `pageclear exec`). From
 * preload_min on (a threshold of the library: profile key,
 * PAGECLEAR_PRELOAD_MIN) a zero byte goes
 * through pc_clear's selection and any other byte through the fill of the
 * primitive that selection picks; below it, the next memset in the lookup
 * order (the C library's, or another preload's), resolved once. On
 * x86-64 the entry stores calls of up to 64 bytes itself, which measured
 * faster than passing them on (entry_x86_64.c; entry_x86_64_v3.c in the
 * copy for the AVX2 CPUs).
 *
 * The states, in order; each call reads the state once:
 *   EARLY      before this library's constructor: other libraries'
 *              constructors run first (the preload is initialised after
 *              the objects loaded with it), and resolving the real memset
 *              (dlsym) may itself call memset or calloc. The safe path:
 *              a loop of volatile stores that no compiler turns back into
 *              a memset call, so never a recursion.
 *   RESOLVING  the constructor is in dlsym: the safe path too.
 *   PASS       the real memset is known: everything goes to it (also the
 *              state for PAGECLEAR_PRELOAD=0, or when the library cannot
 *              give preload_min).
 *   READY      pageclear is initialised: lengths from preload_min to it.
 * Only the constructor moves the state, so initialisation never starts
 * from a signal handler. Once READY the path holds no lock, allocates
 * nothing and uses no stdio: pc_clear, pc_selected and pc_impl_fill read
 * tables the constructor had the library build (its one-time
 * initialisation is done by then), and the counters are lock-free atomics.
 *
 * A memset that pageclear's own code calls while it clears (the library
 * is not free of memset calls) would come back here: a thread-local flag,
 * in the initial-exec TLS model (no allocation on first touch, usable in a
 * signal handler), sends such nested calls to the real memset.
 */
#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu.h"
#include "entry.h"
#include "pageclear.h"
#include "skip.h"
#include "stats.h"

/* The entry points, declared here rather than through <string.h>, whose
 * fortified inline versions (_FORTIFY_SOURCE) could not be defined over. */
#define PCI_EXPORT __attribute__((visibility("default")))
PCI_EXPORT void *memset(void *s, int c, size_t n);
PCI_EXPORT void bzero(void *s, size_t n);
PCI_EXPORT void explicit_bzero(void *s, size_t n);
PCI_EXPORT void *__memset_chk(void *s, int c, size_t n, size_t destlen);
/* Its presence tells libpageclear-preload.so, the filter that loads this
 * file, that it was found (filter.c). */
PCI_EXPORT extern const int pci_preload_loaded;
const int pci_preload_loaded = 1;
/* The C library's report of a fortified call overflowing its destination:
 * "*** buffer overflow detected ***" and abort, as its own __memset_chk. */
extern void __chk_fail(void) __attribute__((noreturn));

enum { ST_EARLY, ST_RESOLVING, ST_PASS, ST_READY };
static _Atomic int state = ST_EARLY;
/* Written by the constructor before it publishes PASS or READY (release),
 * read after the state (acquire). */
void *(*pci_preload_real)(void *, int, size_t);
static size_t min_len = SIZE_MAX;
static const char *pass_why = "not initialised";
/* The fast path's test (entry.h): a length below it goes straight to the
 * real memset. 0 until the real memset is known (everything to
 * pci_preload_set), then min_len when READY, SIZE_MAX when passing
 * through, and 0 again while PAGECLEAR_PRELOAD_STATS counts every call.
 * Published with release after pci_preload_real; the cost of a call below
 * the threshold is one load, one compare and the jump (docs/preload.md). */
_Atomic size_t pci_preload_fast_min;
/* Set last, and only when READY and not counting (entry.h); the second
 * after the first, and only where the CPU runs the AVX-512 store; the
 * third (AVX2 from 32 B) only where it runs AVX2, so its order does not
 * matter; the copies' spans are tested so that any order is safe
 * (entry_x86_64_v3.c, _v4.c). */
_Atomic size_t pci_preload_own_below;
_Atomic size_t pci_preload_vec_below;
_Atomic size_t pci_preload_ymm_from = SIZE_MAX;
_Atomic size_t pci_preload_long_span;
_Atomic size_t pci_preload_evex_span;
_Atomic size_t pci_preload_stosb_span;

/* From this length a call about to go through pageclear first asks the
 * kernel whether the page of its middle byte is resident (mincore, one
 * system call, measured at 0.41 us here: under 1% of a 1 MiB clear at
 * 20 GB/s; docs/notes.md, "The preload's threshold"). */
#define FIRST_CHECK_MIN ((size_t)1 << 20)
static size_t page_size = 4096; /* sysconf's, from the constructor */

/* Set while this thread is inside pageclear, for the memset calls the
 * library makes itself. */
static _Thread_local int busy __attribute__((tls_model("initial-exec")));

/* The primitives' names as pc_selected returns them (pointers into the
 * library's table), so that the fill's index is found by comparing
 * pointers: no strcmp, no lock on the path. */
#define MAX_IMPLS 64
static const char *impl_names[MAX_IMPLS];
static size_t nimpl;
/* For each primitive, the one that stores a non-zero byte in its place:
 * itself where it can, else the widest the host runs with the same cache
 * behaviour (clzero: AVX-512 or AVX2 streaming stores; dc zva: stp); -1
 * where there is none, and the call goes to the real memset. */
static int fill_for[MAX_IMPLS];

static void *safe_set(void *s, int c, size_t n)
{
    volatile unsigned char *p = s;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)c;
    return s;
}

static int fill_index(const char *name)
{
    for (size_t i = 0; i < nimpl; i++)
        if (impl_names[i] == name)
            return (int)i;
    return -1;
}

/* 1 if pageclear set [s, s + n) to c. An extent that wraps the address
 * space is left to the real memset, to fail there as it would without the
 * preload (pc_selected is not asked about such a length). */
static int via_pageclear(void *s, int c, size_t n)
{
    int rc;
    if ((uintptr_t)s + n < (uintptr_t)s || n == SIZE_MAX)
        return 0;
    busy = 1;
    if ((unsigned char)c == 0) {
        rc = pc_clear(s, n);
    } else {
        int i = fill_index(pc_selected(n));
        int f = i < 0 ? -1 : fill_for[i];
        rc = f < 0 ? -1 : pc_impl_fill((size_t)f, s, n, (unsigned char)c);
    }
    busy = 0;
    return rc == 0;
}

/* 1 if [s, s + n) looks like memory never touched: the page of its middle
 * byte is not resident (a fresh mapping), or mincore cannot tell (ENOMEM:
 * not mapped; the real memset then faults as it would without the
 * preload). The middle, not an end: an allocator's header may have
 * touched the first page, and the caller the last (CPython writes a
 * bytearray's terminating NUL before its memset). The kernel zeroes each
 * page of such memory into the cache as the call faults it in: the C
 * library's memset then overwrites cached lines where pageclear's
 * streaming stores would push them out to memory, which measured slower
 * (docs/notes.md, "The preload's threshold"). errno is kept: memset does
 * not change it. A system call and errno: async-signal-safe. */
static int first_touch(const void *s, size_t n)
{
    if (n < FIRST_CHECK_MIN)
        return 0;
    uintptr_t mid = ((uintptr_t)s + n / 2) & ~(uintptr_t)(page_size - 1);
    unsigned char vec = 0;
    int saved = errno;
    int rc = mincore((void *)mid, 1, &vec);
    errno = saved;
    return rc != 0 || (vec & 1) == 0;
}

/* A zero first touch through pc_clear_present (skip.c): 1 if done. */
static int skip_absent(void *s, size_t n)
{
    busy = 1;
    int done = pci_preload_skip(s, n);
    busy = 0;
    return done;
}

void *pci_preload_set(void *s, int c, size_t n)
{
    int st = atomic_load_explicit(&state, memory_order_acquire);
    if (st < ST_PASS)
        return safe_set(s, c, n);
    if (st == ST_READY && n >= min_len && !busy) {
        int first = first_touch(s, n);
        if ((first && (unsigned char)c == 0 && skip_absent(s, n)) ||
            (!first && via_pageclear(s, c, n))) {
            if (pci_preload_stats_on)
                pci_preload_count(PCI_ROUTE_PAGECLEAR, n);
            return s;
        }
    }
    if (pci_preload_stats_on && !busy)
        pci_preload_count(PCI_ROUTE_LIBC, n);
    return pci_preload_real(s, c, n);
}

#if !PCI_PRELOAD_ASM_ENTRY
const unsigned pci_preload_entry_kind = 0;

/* The generic entry: below the threshold straight on to the real memset
 * (a tail call), else pci_preload_set. x86-64 has its own, which also
 * stores the calls of a few bytes itself (entry_x86_64.c). */
void *pci_preload_memset(void *s, int c, size_t n)
{
    if (n < atomic_load_explicit(&pci_preload_fast_min, memory_order_acquire))
        return pci_preload_real(s, c, n);
    return pci_preload_set(s, c, n);
}

void *memset(void *s, int c, size_t n) __attribute__((alias("pci_preload_memset")));
#endif

void bzero(void *s, size_t n)
{
    (void)pci_preload_memset(s, 0, n);
}

/* Never elided: the stores reach the caller's memory through a call the
 * caller's compiler cannot see into (this library), and nothing here
 * knows the memory dead. */
void explicit_bzero(void *s, size_t n)
{
    (void)pci_preload_memset(s, 0, n);
}

void *__memset_chk(void *s, int c, size_t n, size_t destlen)
{
    if (destlen < n)
        __chk_fail();
    return pci_preload_memset(s, c, n);
}

static int env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    if (v == NULL)
        return value == NULL;
    if (value == NULL)
        return 0;
    size_t i = 0;
    while (v[i] != '\0' && v[i] == value[i])
        i++;
    return v[i] == value[i];
}

/* The value of the switch name: 0 or 1 where it is "0" or "1", dflt where
 * it is unset or empty (`NAME= cmd` unsets it for one command, as for
 * PAGECLEAR_PRELOAD_STATS). Any other value is reported on stderr, as
 * the library reports its own variables (src/tuning/options.c; silenced by
 * PAGECLEAR_QUIET=1), and gives dflt: PAGECLEAR_PRELOAD=off would
 * otherwise leave the preload on without a word. Called from the
 * constructor only. */
static int env_switch(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (v == NULL || v[0] == '\0')
        return dflt;
    if ((v[0] == '0' || v[0] == '1') && v[1] == '\0')
        return v[0] - '0';
    if (!env_is("PAGECLEAR_QUIET", "1")) {
        char msg[256];
        int k = snprintf(msg, sizeof(msg),
                         "pageclear-preload: ignoring %s=\"%.64s\": want 0 or 1; keeping "
                         "the default\n",
                         name, v);
        size_t len = k < 0 ? 0 : (size_t)k < sizeof(msg) ? (size_t)k : sizeof(msg) - 1;
        (void)!write(STDERR_FILENO, msg, len);
    }
    return dflt;
}

/* 1 if primitive i runs here and stores any byte: pc_impl_fill of no
 * bytes says so without storing one. */
static int can_fill(size_t i)
{
    unsigned char none;
    return pc_impl_fill(i, &none, 0, 0x5a) == 0;
}

/* fill_for[] for the nimpl primitives described in info[]: a zero-only
 * one (clzero, dc zva) stands aside for the last one in the library's
 * table that has its cache behaviour and fills here, the table listing
 * each kind narrow to wide. */
static void find_fills(const struct pc_impl_info *info)
{
    int fills[MAX_IMPLS];
    for (size_t i = 0; i < nimpl; i++)
        fills[i] = info[i].supported && can_fill(i);
    for (size_t i = 0; i < nimpl; i++) {
        fill_for[i] = fills[i] ? (int)i : -1;
        for (size_t j = 0; !fills[i] && info[i].supported && j < nimpl; j++)
            if (fills[j] && info[j].cache == info[i].cache)
                fill_for[i] = (int)j;
    }
}

/* Have the library initialise itself now (profile, options, plans), from
 * the constructor, and take preload_min and the primitives' names. 0, or
 * -1 with pass_why set. */
static int init_pageclear(void)
{
    struct pc_threshold_info ti;
    struct pc_impl_info info[MAX_IMPLS];
    busy = 1; /* the library's own memset calls go to the real one */
    int rc = pc_threshold_info(PC_THRESHOLD_PRELOAD_MIN, &ti);
    size_t count = pc_impl_count();
    nimpl = count < MAX_IMPLS ? count : MAX_IMPLS;
    for (size_t i = 0; rc == 0 && i < nimpl; i++) {
        if (pc_impl_get(i, &info[i]) != 0)
            info[i].name = NULL, info[i].supported = 0;
        impl_names[i] = info[i].name;
    }
    if (rc == 0)
        find_fills(info);
    (void)pc_selected(1); /* the plans, if not built yet */
    busy = 0;
    if (rc != 0) {
        pass_why = "libpageclear older than 1.1: no preload_min";
        return -1;
    }
    min_len = ti.value;
    if (min_len == PC_NEVER)
        pass_why = "preload_min = never";
    return 0;
}

/* 1 if f is the C library's own memset. Only then does the entry store
 * short calls itself: a memset preload after this one in LD_PRELOAD (one
 * the user chose, and `pageclear exec` keeps) serves every call below
 * preload_min. Asked of libc.so.6 by name, already loaded (RTLD_NOLOAD);
 * anything else, or no answer, counts as another preload. */
static int next_is_libc(void *f)
{
    void *h = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
    if (h == NULL)
        return 0;
    void *own = dlsym(h, "memset");
    dlclose(h);
    return own != NULL && own == f;
}

/* Set a limit of the entry's own stores, short of below: calls from
 * below on are pageclear's (preload_min), not the entry's. from is the
 * first length it covers (0 for pci_preload_own_below, 64 or 65 for a span)
 * and n how many. */
static void own_limit(_Atomic size_t *v, size_t from, size_t n, size_t below)
{
    size_t room = below > from ? below - from : 0;
    atomic_store_explicit(v, n < room ? n : room, memory_order_relaxed);
}

/* Turn on the entry's own stores for short calls, as far as this CPU and
 * the entry linked in (pci_preload_entry_kind) allow, the switches
 * PAGECLEAR_PRELOAD_AVX512 (0 or 1) and PAGECLEAR_PRELOAD_AVX2 (0, 1, or
 * -1 where unset) say, and below calls shorter than preload_min. */
static void own_stores(int want_avx512, int want_avx2, size_t below)
{
    const size_t span_from = PCI_PRELOAD_OWN_MAX + 1;
    struct pci_cpuid cpu; /* read once: cpuid exits to the hypervisor in a VM */
    pci_cpuid_read(&cpu);
    int avx2 = pci_preload_short_avx2(&cpu);
    int avx512 = pci_preload_short_avx512(&cpu) && want_avx512;
    if (pci_preload_entry_kind & PCI_ENTRY_NEEDS_AVX512) {
        if (!pci_preload_short_evex256(&cpu))
            return; /* its cases would fault: every call goes on */
        /* 64-512 B in 64-byte stores where they keep the clock (and are
         * not turned off), and 0-63 B in 256-bit ones; else 0-64 B and
         * 65-128 B in 256-bit ones (entry_x86_64_v4.c). */
        if (avx512) {
            own_limit(&pci_preload_own_below, 0, PCI_PRELOAD_WIDE_FROM, below);
            own_limit(&pci_preload_long_span, PCI_PRELOAD_WIDE_FROM,
                      PCI_PRELOAD_SPAN_MAX - PCI_PRELOAD_WIDE_FROM + 1, below);
        } else {
            own_limit(&pci_preload_own_below, 0, PCI_PRELOAD_OWN_MAX + 1, below);
            own_limit(&pci_preload_evex_span, PCI_PRELOAD_WIDE_FROM,
                      2 * PCI_PRELOAD_OWN_MAX - PCI_PRELOAD_WIDE_FROM + 1, below);
        }
        if (pci_preload_stosb_as_libc(&cpu, getenv("GLIBC_TUNABLES"), gnu_get_libc_version()))
            own_limit(&pci_preload_stosb_span, PCI_PRELOAD_STOSB_FROM,
                      PCI_PRELOAD_STOSB_MAX - PCI_PRELOAD_STOSB_FROM + 1, below);
        return;
    }
    int v3 = (pci_preload_entry_kind & PCI_ENTRY_NEEDS_AVX2) != 0;
    if (v3 && !avx2)
        return; /* its cases would fault: every call goes on */
    int wide = (pci_preload_entry_kind & PCI_ENTRY_AVX512) && avx512;
    /* PAGECLEAR_PRELOAD_AVX2=1: the AVX2 case even with RTM (cpu.h). */
    int ymm = !wide && want_avx2 != 0 && avx2 && (!pci_preload_cpu_rtm(&cpu) || want_avx2 == 1);
    if (ymm)
        atomic_store_explicit(&pci_preload_ymm_from, 32, memory_order_relaxed);
    /* The AVX2 CPUs' entry has no other 32-2048 B case: those calls go
     * on. With it, it stores to 2048 B, where the C library's AVX2
     * memset turns to rep stosb (entry_x86_64_v3.c). */
    own_limit(&pci_preload_own_below, 0, v3 && !ymm ? 32 : PCI_PRELOAD_OWN_MAX + 1, below);
    if (v3 && ymm)
        own_limit(&pci_preload_long_span, span_from, PCI_PRELOAD_SPAN_MAX - span_from + 1, below);
    if (wide)
        atomic_store_explicit(&pci_preload_vec_below, PCI_PRELOAD_OWN_MAX + 1,
                              memory_order_relaxed);
}

__attribute__((constructor)) static void preload_init(void)
{
    int expect = ST_EARLY;
    if (!atomic_compare_exchange_strong(&state, &expect, ST_RESOLVING))
        return;
    void *f = dlsym(RTLD_NEXT, "memset");
    if (f == NULL || f == (void *)memset) {
        static const char msg[] = "pageclear-preload: no memset after this library; "
                                  "using a plain loop\n";
        (void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
        return; /* the safe path for good */
    }
    pci_preload_real = (void *(*)(void *, int, size_t))f;
    pci_preload_stats_on = !env_is("PAGECLEAR_PRELOAD_STATS", NULL) &&
                           !env_is("PAGECLEAR_PRELOAD_STATS", "0") &&
                           !env_is("PAGECLEAR_PRELOAD_STATS", "");
    atomic_store_explicit(&state, ST_PASS, memory_order_release);
    /* Every switch read here, so that a bad value is reported whichever
     * path the process then takes. */
    int on = env_switch("PAGECLEAR_PRELOAD", 1);
    int want_avx512 = env_switch("PAGECLEAR_PRELOAD_AVX512", 1);
    int want_avx2 = env_switch("PAGECLEAR_PRELOAD_AVX2", -1);
    pci_preload_skip_on = env_switch("PAGECLEAR_PRELOAD_SKIP_ABSENT", 0);
    if (!on) {
        pass_why = "PAGECLEAR_PRELOAD=0";
    } else if (init_pageclear() != 0 || min_len == PC_NEVER) {
        min_len = SIZE_MAX;
    } else {
        pass_why = NULL;
        long pg = sysconf(_SC_PAGESIZE);
        page_size = pg > 0 ? (size_t)pg : page_size;
        atomic_store_explicit(&state, ST_READY, memory_order_release);
    }
    size_t fast = pass_why == NULL ? min_len : SIZE_MAX;

    atomic_store_explicit(&pci_preload_fast_min, pci_preload_stats_on ? 0 : fast,
                          memory_order_release);
    if (pass_why == NULL && !pci_preload_stats_on && next_is_libc(f))
        own_stores(want_avx512, want_avx2, min_len);
}

__attribute__((destructor)) static void preload_fini(void)
{
    if (pci_preload_stats_on)
        pci_preload_stats_print(pass_why == NULL ? min_len : SIZE_MAX, pass_why);
}
