/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * probe.c - x86-64-probe, an experiment in deciding per call what no
 * static threshold can: whether the extent is in cache. It times a load
 * of eight lines spread over the extent (rdtsc between lfences); if most
 * come back at cache latency the extent is warm and rep stosb keeps it in
 * cache, else it is cold and streaming stores skip the reads for
 * ownership. Measured against the tuned thresholds with `pageclear check`
 * and `pageclear mem --cache`; docs/measurements.md, section 13, says what
 * it showed.
 *
 * The loads only read inside [dst, dst + len) before it is cleared; they
 * bring at most eight lines into cache.
 */
#if defined(__x86_64__)
#include <pthread.h>
#include <time.h>

#include "cpu.h"
#include "primitive.h"

#define PROBE_LINES 8
/* Below this an extent is cleared without probing: eight loads that miss
 * cost ~1 us in a guest (a TLB walk and DRAM each), which is 2% of a
 * 1 MiB clear at 20 GB/s, and small extents are rarely cold when cleared
 * again and again. */
#define PROBE_MIN ((size_t)1 << 20)
/* A cache hit, even in a far slice of a large L3, answers within ~40 ns;
 * DRAM takes 80 ns and more, and in a guest a cold line's TLB walk adds
 * more (measured here, AMD EPYC guest: 20-40 ns hot, 500-1100 ns cold,
 * rdtsc pair included). */
#define HIT_NS 60.0

static double ticks_per_ns;
static pthread_once_t calibrated = PTHREAD_ONCE_INIT;

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

/* The TSC's rate, once: 200 us of spinning against the monotonic clock. */
static void calibrate(void)
{
    uint64_t n0 = now_ns(), t0 = ticks(), n1;
    do
        n1 = now_ns();
    while (n1 - n0 < 200000);
    ticks_per_ns = (double)(ticks() - t0) / (double)(n1 - n0);
}

static int mostly_cached(const char *p, size_t len)
{
    pthread_once(&calibrated, calibrate);
    uint64_t limit = (uint64_t)(HIT_NS * ticks_per_ns);
    size_t step = len / PROBE_LINES;
    unsigned hits = 0;
    for (unsigned i = 0; i < PROBE_LINES; i++) {
        const volatile char *q = p + i * step;
        uint64_t t0 = ticks();
        (void)*q;
        hits += ticks() - t0 < limit;
    }
    return 2 * hits > PROBE_LINES;
}

/* For the clear, pattern is a constant 0 and each branch folds to the
 * plain clear. */
#define PROBE_CALL(name, dst, len, pattern)                                    \
    ((pattern) == 0 ? pci_clear_##name(dst, len) : pci_fill_##name(dst, len, pattern))

static inline __attribute__((always_inline)) void probe_body(void *dst, size_t len,
                                                             uint64_t pattern)
{
    unsigned f = pci_cpu()->features;
    if (len >= PROBE_MIN && !mostly_cached(dst, len)) {
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
