/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * skip.h - PAGECLEAR_PRELOAD_SKIP_ABSENT (skip.c): a zero memset that
 * looks like the first touch of fresh memory goes through
 * pc_clear_present, which leaves alone the pages the kernel has not
 * handed out yet; and its counts for PAGECLEAR_PRELOAD_STATS, which with
 * the option off say what it would skip.
 */
#ifndef PCI_PRELOAD_SKIP_H
#define PCI_PRELOAD_SKIP_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* 1 once the constructor saw PAGECLEAR_PRELOAD_SKIP_ABSENT=1. */
extern int pci_preload_skip_on;

/* [s, s + n), a zero memset from preload_min on whose middle page is not
 * resident (preload.c's first touch), called with the thread's recursion
 * flag set. With the option on: 1 if pc_clear_present made it read zero,
 * 0 if the caller must (the call could not prove every page it would
 * skip, PC_PRESENT_NO_FALLBACK: nothing was written). With it off: 0,
 * after a dry run counted for the stats when they are on. Async-signal-
 * safe: a system call or a few, lock-free counters. */
int pci_preload_skip(void *s, size_t n);

/* The stats' line for the option (stats.c's report calls it). */
void pci_preload_skip_print(void);

#pragma GCC visibility pop

#endif
