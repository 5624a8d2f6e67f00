/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skip.c - PAGECLEAR_PRELOAD_SKIP_ABSENT (skip.h).
 *
 * Opt-in, because a program may memset fresh memory on purpose: to fault
 * it in ahead of time, or to place it on a NUMA node by first touch. The
 * call it makes is pc_clear_present with PC_PRESENT_NO_FALLBACK: where a
 * page could not be proven to read zero (a file's or shared mapping,
 * hugetlb, userfaultfd, a kernel or filter that does not answer) nothing
 * is written, and the memset goes to the C library as any first touch
 * does without the option (preload.c; docs/notes.md, "The preload's
 * threshold").
 *
 * With the option off and PAGECLEAR_PRELOAD_STATS on, the same calls get a
 * dry run (PC_PRESENT_DRY_RUN), so a user sees what the option would skip
 * before turning it on. Only those calls: zero memsets from preload_min on
 * that look like first touches, which the C library's memset is about to
 * fault in page by page: pc_clear_present over fresh memory costs a
 * small fraction of those faults (docs/skip-absent.md, "Measured").
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "pageclear.h"
#include "skip.h"
#include "stats.h"

int pci_preload_skip_on;

/* Calls, and bytes skipped and cleared, by pc_clear_present (or its dry
 * run); calls it refused. Lock-free: memset's path. */
static _Atomic unsigned long long calls, skipped, cleared, refused;

int pci_preload_skip(void *s, size_t n)
{
    if (!pci_preload_skip_on && !pci_preload_stats_on)
        return 0;
    int flags = PC_PRESENT_NO_FALLBACK | (pci_preload_skip_on ? 0 : PC_PRESENT_DRY_RUN);
    struct pc_present_report r;
    int rc = pc_clear_present(s, n, flags, &r);
    if (pci_preload_stats_on) {
        atomic_fetch_add_explicit(rc == 0 ? &calls : &refused, 1, memory_order_relaxed);
        if (rc == 0) {
            atomic_fetch_add_explicit(&skipped, r.skipped, memory_order_relaxed);
            atomic_fetch_add_explicit(&cleared, r.cleared, memory_order_relaxed);
        }
    }
    return pci_preload_skip_on && rc == 0;
}

void pci_preload_skip_print(void)
{
    char line[256];
    int k = snprintf(line, sizeof(line),
                     "pageclear-preload: skip-absent %s: calls %llu %s %llu %s %llu %s %llu\n",
                     pci_preload_skip_on ? "on" : "off", atomic_load(&calls),
                     pci_preload_skip_on ? "skipped" : "would-skip", atomic_load(&skipped),
                     pci_preload_skip_on ? "cleared" : "would-clear", atomic_load(&cleared),
                     pci_preload_skip_on ? "refused" : "would-refuse", atomic_load(&refused));
    if (k > 0)
        (void)!write(STDERR_FILENO, line, (size_t)k < sizeof(line) ? (size_t)k : sizeof(line) - 1);
}
