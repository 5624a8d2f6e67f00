/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * sys.h - the one seam between the parallel workers and the system: the
 * NUMA topology, memory policies, the affinity mask, pinning, a mapping's
 * page size and the populate itself (sys.c holds the real ones). Tests
 * point it at an injected machine and watch what the workers do through
 * it, so placement, chunking and the start barrier are checked anywhere.
 */
#ifndef PCI_SYS_H
#define PCI_SYS_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "numa.h"

#pragma GCC visibility push(hidden)

/* What a memory policy means for placement. */
enum pci_policy {
    PCI_POLICY_SPREAD = 0, /* default, local or interleaved: spread the
                              workers over the nodes, as the memory is */
    PCI_POLICY_BOUND = 1   /* bind or preferred: the workers go to the
                              nodes of the mask */
};

struct pci_sys {
    /* The NUMA nodes with CPUs. */
    const struct pci_numa *(*topology)(void);
    /* The policy governing the memory at addr (the mapping's own, else the
     * process's): 0 with *kind and, for PCI_POLICY_BOUND, *nodes (bit i:
     * node id i), or -errno (treated as SPREAD). */
    int (*policy)(const void *addr, enum pci_policy *kind, uint64_t *nodes);
    /* The CPUs this thread may run on: 0 or -errno. */
    int (*affinity)(cpu_set_t *set);
    /* Move the calling worker, participant `slot` of its call, to set. */
    int (*pin)(int slot, const cpu_set_t *set);
    /* The largest page size backing [addr, addr + len) (PC_PAGE_SIZE if
     * unknown). */
    size_t (*page_size)(const void *addr, size_t len);
    /* Fault [addr, addr + len) in for writing (pc_populate's flags). */
    int (*populate)(int slot, void *addr, size_t len, int flags);
    /* Participant slot is on its CPUs and about to wait at the start
     * barrier. */
    void (*started)(int slot);
};

/* The seam in force: the real system unless a test set another. */
const struct pci_sys *pci_sys(void);
/* Use s (NULL: the real system again). For tests: not while a parallel
 * call is running. */
void pci_sys_use(const struct pci_sys *s);

#pragma GCC visibility pop

#endif /* PCI_SYS_H */
