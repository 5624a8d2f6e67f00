/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * vma.h - what kind of memory maps an address of this process, for
 * pc_clear_present (vma.c): asked of the kernel one mapping at a time with
 * the PROCMAP_QUERY ioctl (Linux 6.11), else read from /proc/self/maps.
 */
#ifndef PCI_VMA_H
#define PCI_VMA_H

#include <stddef.h>
#include <stdint.h>

#include "proc_text.h"

#pragma GCC visibility push(hidden)

/* What a page of the mapping that the kernel has not handed out reads. */
enum pci_vma_kind {
    PCI_VMA_ANON = 0,    /* private, anonymous, writable: zero */
    PCI_VMA_FILE = 1,    /* private, of a file: the file's bytes */
    PCI_VMA_SHARED = 2,  /* shared: what another process may have written */
    PCI_VMA_HUGETLB = 3, /* hugetlb (known only through PROCMAP_QUERY; the
                            text says FILE): the file behind it */
    PCI_VMA_READONLY = 4 /* not writable: a store would fault */
};

struct pci_vma {
    uintptr_t start, end;
    enum pci_vma_kind kind;
};

/* How the mappings were read (bits of pci_vmas.used). */
#define PCI_VMAS_QUERY 1u /* PROCMAP_QUERY answered */
#define PCI_VMAS_TEXT 2u  /* the text was read */

/* A reader of this process's mappings: /proc/self/maps, open. */
struct pci_vmas {
    size_t page;       /* the system's page size */
    int query;         /* 1 until the ioctl fails, then the text */
    unsigned used;     /* PCI_VMAS_* */
    uintptr_t text_end; /* the end of the last mapping the text gave */
    struct pci_lines text;
};

/* Open the reader; page is the system's page size. 0 or -errno. */
int pci_vmas_open(struct pci_vmas *v, size_t page);
void pci_vmas_close(struct pci_vmas *v);

/* The mapping holding at, or else the first one above it, into *out:
 * 1, 0 if there is none, or -errno if the mappings cannot be read. Calls
 * for ascending addresses cost one ioctl each, or read the text once. */
int pci_vmas_find(struct pci_vmas *v, uintptr_t at, struct pci_vma *out);

/* 1 if a mapping overlapping [lo, hi) is registered with a userfaultfd in
 * missing or minor mode (there an absent page reads what the handler
 * supplies), 0 if none is, or -errno if that cannot be read; from
 * /proc/self/smaps (smaps_uffd.c). */
int pci_vmas_uffd(uintptr_t lo, uintptr_t hi);

#pragma GCC visibility pop

#endif /* PCI_VMA_H */
