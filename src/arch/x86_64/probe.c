/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * probe.c - x86-64-probe, an experiment in deciding per call what no
 * static threshold can: whether the extent is in cache. From PROBE_MIN it
 * loads one byte of each of eight lines spread over the extent, all
 * issued together so that their misses overlap, and times the group once
 * (rdtsc, the loads, lfence, rdtsc: the lfence waits for every load to
 * complete). A cached extent answers in tens to a few hundred ns; a
 * cold one costs one miss's latency, not eight. If the group answers
 * within HIT_NS the extent is cached and rep stosb keeps it so; otherwise
 * streaming stores skip the reads for ownership. Below PROBE_MIN there is
 * no probe: rep stosb.
 *
 * The first version timed each of the eight loads between lfences (eight
 * serialised misses); docs/notes.md, "The per-call probe", has what each
 * version showed.
 *
 * The loads only read inside [dst, dst + len) before it is cleared; they
 * bring at most eight lines into cache.
 */
#if defined(__x86_64__)
#include <pthread.h>
#include <time.h>

#include "cpu.h"
#include "primitive.h"
#include "probe.h"

int pci_probe_force;

#define PROBE_LINES 8
/* Below this the extent is cleared without probing: below 64 KiB the probe
 * would cost a tenth and more of a warm clear; from it, streaming stores
 * gain on a cold extent the caller then uses (docs/notes.md, "The per-call
 * probe"). */
#define PROBE_MIN ((size_t)64 << 10)
/* The group's time lies well below this for an extent just written (its
 * lines in L2, the misses the TLB's) and above it for one evicted from
 * every cache and the TLB (docs/notes.md, "The per-call probe"). An extent
 * in L3 only, past the TLB's reach, counts as cold, where streaming stores
 * are what the thresholds choose too. */
#define HIT_NS 600.0

static double ticks_per_ns;
static pthread_once_t calibrated = PTHREAD_ONCE_INIT;

/* rdtsc fenced on both sides: nothing before it still in flight (the
 * loads, for the second read), nothing after it started early. */
static inline uint64_t ticks(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The TSC's rate, once per process (pthread_once: any thread may be the
 * first to clear): 200 us of spinning against the monotonic clock. */
static void calibrate(void)
{
    uint64_t n0 = now_ns(), t0 = ticks(), n1;
    do
        n1 = now_ns();
    while (n1 - n0 < 200000);
    ticks_per_ns = (double)(ticks() - t0) / (double)(n1 - n0);
}

/* The eight loads are volatile, so each is issued, and independent of one
 * another, so the core has all of them in flight at once; the memory
 * clobbers of ticks() keep them between the two reads of the TSC. */
static int cached(const char *p, size_t len)
{
    int force = __atomic_load_n(&pci_probe_force, __ATOMIC_RELAXED);
    if (force != PCI_PROBE_DECIDE)
        return force == PCI_PROBE_CACHED;
    pthread_once(&calibrated, calibrate);
    const volatile char *q = p;
    size_t step = len / PROBE_LINES;
    uint64_t t0 = ticks();
    (void)q[0];
    (void)q[step];
    (void)q[2 * step];
    (void)q[3 * step];
    (void)q[4 * step];
    (void)q[5 * step];
    (void)q[6 * step];
    (void)q[7 * step];
    uint64_t t = ticks() - t0;
    return (double)t < HIT_NS * ticks_per_ns;
}

/* For the clear, pattern is a constant 0 and each branch folds to the
 * plain clear. */
#define PROBE_CALL(name, dst, len, pattern)                                    \
    ((pattern) == 0 ? pci_clear_##name(dst, len) : pci_fill_##name(dst, len, pattern))

/* impl.def requires AVX2 for this primitive, so the streaming branch has
 * AVX2 at least; AVX-512 where the CPU and OS confirm it. */
static inline __attribute__((always_inline)) void probe_body(void *dst, size_t len,
                                                             uint64_t pattern)
{
    unsigned f = pci_cpu()->features;
    if (len >= PROBE_MIN && !cached(dst, len)) {
        if (f & PCI_F_AVX512)
            PROBE_CALL(x86_avx512_nt, dst, len, pattern);
        else
            PROBE_CALL(x86_avx2_nt, dst, len, pattern);
    } else if (f & PCI_F_ERMS) {
        PROBE_CALL(x86_stosb, dst, len, pattern);
    } else {
        PROBE_CALL(x86_stosq, dst, len, pattern);
    }
}

PCI_ZERO_AND_FILL(x86_probe, probe_body)
#endif
