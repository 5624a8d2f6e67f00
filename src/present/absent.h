/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * absent.h - the pages of a range that read as zero without anyone
 * writing them, as the kernel's page tables say (PAGEMAP_SCAN on
 * /proc/self/pagemap, Linux 6.7; absent.c), for pc_clear_present.
 */
#ifndef PCI_ABSENT_H
#define PCI_ABSENT_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A run of pages [start, end); laid out as the kernel's struct
 * page_region, so a scan writes the runs in place. */
struct pci_run {
    uint64_t start, end, categories;
};

/* Open /proc/self/pagemap: a descriptor or -errno. */
int pci_absent_open(void);

/* The runs of [lo, hi) (page aligned) whose pages are neither present nor
 * swapped (no page table entry: the kernel has handed nothing out there),
 * or mapped to the shared zero page, in address order: at most n into
 * runs[], and stopping once max_pages pages were found (0: no bound).
 * *walked receives where the scan stopped: every such page below it is in
 * the runs, and every other page between them holds a page (present,
 * swapped, migrating, a marker). Returns the number of runs, or -errno:
 * the kernel's (ENOTTY: before 6.7; a seccomp filter's) or EIO for an
 * answer that is not one. */
int pci_absent_scan(int fd, uintptr_t lo, uintptr_t hi, struct pci_run *runs, int n,
                    uint64_t max_pages, uintptr_t *walked);

#pragma GCC visibility pop

#endif /* PCI_ABSENT_H */
