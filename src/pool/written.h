/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * written.h - which pages of a range were written since a point, as the
 * kernel tracks them (userfaultfd's asynchronous write-protect read back
 * with PAGEMAP_SCAN), for the pool to clear only those (written.c).
 */
#ifndef PCI_WRITTEN_H
#define PCI_WRITTEN_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* 1 if this process can track written pages (probed once, on a small
 * mapping of its own); 0 if not. */
int pci_written_available(void);

/* One line for `pageclear info`: how the pool knows what to clear here,
 * and if it cannot track pages, why. */
const char *pci_written_support(void);

/* A tracked range: its userfaultfd and /proc/self/pagemap. */
struct pci_written {
    int uffd, pagemap;
};

/* Register [addr, addr + len) (anonymous, page aligned, not hugetlb) for
 * asynchronous write-protect, and with arm, arm it whole: from here on the
 * kernel notes every write, from any thread or from the kernel itself.
 * (Unarmed, a page not yet faulted in still counts as unwritten until
 * written.) 0, or a negative errno with nothing left open (the caller
 * tracks nothing). */
int pci_written_open(struct pci_written *w, void *addr, size_t len, int arm);

/* Close what open opened (the registration goes with the memory). */
void pci_written_close(struct pci_written *w);

/* Arm [addr, addr + len) again: pages written so far count as unwritten
 * from now on. Call it only on pages known to be zero. 0 or -errno. */
int pci_written_arm(const struct pci_written *w, void *addr, size_t len);

/* What a scan says of a page: */
#define PCI_WRITTEN_W 1u /* written since it was last armed */
#define PCI_WRITTEN_P 2u /* present (resident) now */

/* Set out[i] to the PCI_WRITTEN_* bits of page i of [addr, addr + len),
 * for len / 4096 pages. 0, or a negative errno (out is then undefined and
 * the caller must treat every page as written). */
int pci_written_scan(const struct pci_written *w, void *addr, size_t len,
                     unsigned char *out);

#pragma GCC visibility pop

#endif /* PCI_WRITTEN_H */
