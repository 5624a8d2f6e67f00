/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * preload_stats.c - the counts behind PAGECLEAR_PRELOAD_STATS=1: a user runs a
 * program once with it and sees how many calls and bytes reached the
 * threshold, i.e. whether the program would gain, before adopting the
 * preload.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "first_touch.h"
#include "preload_stats.h"

/* The counters are updated from memset, possibly inside a signal handler:
 * only lock-free atomics may be used there. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the counters must be lock-free");

/* Size classes, powers of 16 from 4 KiB: where memset's strategies change
 * (vector stores, string instruction, streaming) spans a few of them. */
#define NCLASS 6
static const char *const class_name[NCLASS] = {"[0, 4K)",   "[4K, 64K)",   "[64K, 1M)",
                                               "[1M, 16M)", "[16M, 256M)", "[256M, ...)"};

int pci_preload_stats_on;
static _Atomic unsigned long long calls[2][NCLASS], bytes[2][NCLASS];

static int class_of(size_t n)
{
    int c = 0;
    for (size_t lim = 4096; c < NCLASS - 1 && n >= lim; lim <<= 4)
        c++;
    return c;
}

void pci_preload_count(enum pci_preload_route r, size_t n)
{
    int c = class_of(n);
    atomic_fetch_add_explicit(&calls[r][c], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes[r][c], n, memory_order_relaxed);
}

/* One line with write(2): the stdio buffers may already be gone at exit. */
static void put(const char *line, int n)
{
    if (n > 0)
        (void)!write(STDERR_FILENO, line, (size_t)n);
}

void pci_preload_stats_print(size_t min, const char *why)
{
    char line[256];
    int n;
    if (min == SIZE_MAX)
        n = snprintf(line, sizeof(line), "pageclear-preload: pid %ld, passing through (%s)\n",
                     (long)getpid(), why);
    else
        n = snprintf(line, sizeof(line), "pageclear-preload: pid %ld, preload_min %zu\n",
                     (long)getpid(), min);
    put(line, n);
    n = snprintf(line, sizeof(line), "pageclear-preload: %-12s %12s %16s %12s %16s\n",
                 "size", "pageclear", "bytes", "C library", "bytes");
    put(line, n);
    for (int c = 0; c < NCLASS; c++) {
        n = snprintf(line, sizeof(line), "pageclear-preload: %-12s %12llu %16llu %12llu %16llu\n",
                     class_name[c], atomic_load(&calls[PCI_ROUTE_PAGECLEAR][c]),
                     atomic_load(&bytes[PCI_ROUTE_PAGECLEAR][c]),
                     atomic_load(&calls[PCI_ROUTE_LIBC][c]),
                     atomic_load(&bytes[PCI_ROUTE_LIBC][c]));
        put(line, n);
    }
    pci_preload_first_touch_print();
}
