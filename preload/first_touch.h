/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * first_touch.h - a zero memset of memory the kernel has not handed out
 * yet, the first touch of fresh memory (first_touch.c): stored by the C
 * library, faulted in by the kernel (the default), or left alone; and its
 * counts for PAGECLEAR_PRELOAD_STATS.
 */
#ifndef PCI_PRELOAD_FIRST_TOUCH_H
#define PCI_PRELOAD_FIRST_TOUCH_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* PAGECLEAR_PRELOAD_FIRST_TOUCH's values, in the order of its words. */
enum pci_first_touch { PCI_FT_STORE, PCI_FT_POPULATE, PCI_FT_SKIP };

/* From the constructor: the mode (PAGECLEAR_PRELOAD_FIRST_TOUCH, else
 * skip where PAGECLEAR_PRELOAD_SKIP_ABSENT=1, else populate). */
void pci_preload_first_touch_init(void);

/* Whether a call of n bytes is one to ask about: the smallest length
 * from which the calls' cost stays under 1% of the clear. */
#define PCI_FIRST_TOUCH_MIN ((size_t)1 << 20)

/* [s, s + n) set to c, n >= PCI_FIRST_TOUCH_MIN, with the calls allowed
 * (seccomp.h). Returns 1 if it is a first touch now done (populated or
 * skipped, every byte reading c), 0 if it is one for the C library's
 * memset, -1 if it is not one (pageclear's stores then). errno is kept;
 * async-signal-safe: system calls and lock-free counters. */
int pci_preload_first_touch(void *s, int c, size_t n);

/* The stats' lines for first touches and system calls (stats.c). */
void pci_preload_first_touch_print(void);

#pragma GCC visibility pop

#endif
