/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * preload_stats.h - PAGECLEAR_PRELOAD_STATS: per size class, the calls
 * and bytes the preload sent to pageclear and to the C library, printed
 * at exit.
 */
#ifndef PCI_PRELOAD_STATS_H
#define PCI_PRELOAD_STATS_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* Where a call went. */
enum pci_preload_route { PCI_ROUTE_LIBC = 0, PCI_ROUTE_PAGECLEAR = 1 };

/* Nonzero once the constructor saw PAGECLEAR_PRELOAD_STATS set (not "0"). */
extern int pci_preload_stats_on;

/* Count one call of n bytes. Lock-free (relaxed atomic adds): it runs on
 * memset's path, which must stay async-signal-safe. */
void pci_preload_count(enum pci_preload_route r, size_t n);

/* Print the counts on stderr, one line per size class; min is the
 * threshold in force (SIZE_MAX: everything went to the C library, why
 * says why), then the first touches' and system calls' lines (first_touch.c). */
void pci_preload_stats_print(size_t min, const char *why);

#pragma GCC visibility pop

#endif
