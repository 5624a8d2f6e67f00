/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * preload.c - the preload, libpageclear-preload-impl.so (loaded through
 * the filter users name, libpageclear-preload.so: filter.c): memset,
 * bzero, explicit_bzero and __memset_chk for programs that cannot be
 * rebuilt against pageclear (LD_PRELOAD, or `pageclear exec`). From
 * preload_min on (a threshold of the library: profile key,
 * PAGECLEAR_PRELOAD_MIN) a zero byte goes
 * through pc_clear's selection and any other byte through pc_fill, the
 * same selection storing that byte; below it, the next memset in the lookup
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
 * nothing and uses no stdio: pc_clear and pc_fill read
 * tables the constructor had the library build (its one-time
 * initialisation is done by then), and the counters are lock-free atomics.
 * From 1 MiB on a zero call may be a first touch (first_touch.c), which
 * takes system calls: made only while no seccomp filter can refuse them
 * (seccomp.c).
 *
 * A memset that libpageclear's own code calls (it is not free of memset
 * calls) goes to the real memset: its return address lies in the
 * library's code. A flag set around the library's calls would stay set
 * for good in a thread that left a fault with siglongjmp.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "entry.h"
#include "first_touch.h"
#include "pageclear.h"
#include "preload_env.h"
#include "preload_stats.h"
#include "seccomp.h"
#include "short_stores.h"

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

/* libpageclear's code, [lib_lo, lib_lo + lib_len): a call returning
 * there is the library's own (found by the constructor; empty before). */
static uintptr_t lib_lo, lib_len;

static void *safe_set(void *s, int c, size_t n)
{
    volatile unsigned char *p = s;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)c;
    return s;
}

/* 1 if pageclear's stores set [s, s + n) to c: pc_clear's primitive for
 * n, or for a byte it cannot store (clzero, dc zva) its stand-in; where
 * there is none (-ENOTSUP), the real memset does it. */
static int store(void *s, int c, size_t n)
{
    if ((unsigned char)c == 0)
        return pc_clear(s, n) == 0;
    return pc_fill(s, n, (unsigned char)c) == 0;
}

/* 1 if pageclear set [s, s + n) to c, 0 if the real memset must: a first
 * touch the mode leaves to it, or an extent that wraps the address space,
 * to fail there as it would without the preload (pc_selected is not asked
 * about such a length). */
static int via_pageclear(void *s, int c, size_t n)
{
    if ((uintptr_t)s + n < (uintptr_t)s || n == SIZE_MAX)
        return 0;
    if (n >= PCI_FIRST_TOUCH_MIN && pci_preload_calls_begin()) {
        int first = pci_preload_first_touch(s, c, n);
        pci_preload_calls_end();
        if (first >= 0)
            return first;
    }
    return store(s, c, n);
}

/* Every call the entry passes on, from the caller whose return address
 * is ra. */
static void *set_from(void *s, int c, size_t n, uintptr_t ra)
{
    int st = atomic_load_explicit(&state, memory_order_acquire);
    if (st < ST_PASS)
        return safe_set(s, c, n);
    int own = ra - lib_lo < lib_len;
    if (st == ST_READY && n >= min_len && !own && via_pageclear(s, c, n)) {
        if (pci_preload_stats_on)
            pci_preload_count(PCI_ROUTE_PAGECLEAR, n);
        return s;
    }
    if (pci_preload_stats_on && !own)
        pci_preload_count(PCI_ROUTE_LIBC, n);
    return pci_preload_real(s, c, n);
}

/* The x86-64 entries jump here: the return address is memset's caller. */
void *pci_preload_set(void *s, int c, size_t n)
{
    return set_from(s, c, n, (uintptr_t)__builtin_return_address(0));
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
    return set_from(s, c, n, (uintptr_t)__builtin_return_address(0));
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

static int in_segment(struct dl_phdr_info *info, size_t size, void *fn)
{
    (void)size;
    uintptr_t at = (uintptr_t)fn;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t lo = (uintptr_t)info->dlpi_addr + (uintptr_t)p->p_vaddr;
        if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && at - lo < (uintptr_t)p->p_memsz) {
            lib_lo = lo;
            lib_len = (uintptr_t)p->p_memsz;
            return 1;
        }
    }
    return 0;
}

/* Where libpageclear's code is: the segment holding pc_clear. */
static void find_library(void)
{
    (void)dl_iterate_phdr(in_segment, (void *)(uintptr_t)&pc_clear);
}

/* Have the library initialise itself now (profile, options, plans), from
 * the constructor, and take preload_min. 0, or -1 with pass_why set. */
static int init_pageclear(void)
{
    struct pc_threshold_info ti;
    int rc = pc_threshold_info(PC_THRESHOLD_PRELOAD_MIN, &ti);
    (void)pc_selected(1); /* the plans, if not built yet */
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
    /* PAGECLEAR_PRELOAD_AVX2=1: the AVX2 case even with RTM (short_stores.h). */
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
    pci_preload_stats_on = !pci_env_is("PAGECLEAR_PRELOAD_STATS", NULL) &&
                           !pci_env_is("PAGECLEAR_PRELOAD_STATS", "0") &&
                           !pci_env_is("PAGECLEAR_PRELOAD_STATS", "");
    find_library();
    atomic_store_explicit(&state, ST_PASS, memory_order_release);
    /* Every switch read here, so that a bad value is reported whichever
     * path the process then takes. */
    int on = pci_env_switch("PAGECLEAR_PRELOAD", 1);
    int want_avx512 = pci_env_switch("PAGECLEAR_PRELOAD_AVX512", 1);
    int want_avx2 = pci_env_switch("PAGECLEAR_PRELOAD_AVX2", -1);
    pci_preload_first_touch_init();
    /* A filter installed by a constructor that ran before this one may
     * refuse the library's start (its files): pass everything on. */
    int calls = pci_preload_calls_init();
    if (!on) {
        pass_why = "PAGECLEAR_PRELOAD=0";
    } else if (calls < 0) {
        pass_why = pci_preload_calls_why();
    } else if (init_pageclear() != 0 || min_len == PC_NEVER) {
        min_len = SIZE_MAX;
    } else {
        pass_why = NULL;
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
