/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * numa.h - the NUMA nodes with CPUs, from sysfs (numa.c), for placing the
 * parallel workers.
 */
#ifndef PCI_NUMA_H
#define PCI_NUMA_H

#include <sched.h>

#pragma GCC visibility push(hidden)

/* Nodes beyond this many are not used for placement. */
#define PCI_NUMA_MAX 64
struct pci_numa {
    int nodes;
    int id[PCI_NUMA_MAX]; /* the kernel's node number (nodeN) of each */
    cpu_set_t cpus[PCI_NUMA_MAX];
};
/* Read root (normally /sys/devices/system/node); returns nodes found. */
int pci_numa_read(const char *root, struct pci_numa *out);
/* Parse "0-3,8" into *set; returns CPUs, or -1 if malformed. */
int pci_parse_cpulist(const char *s, cpu_set_t *set);
/* The machine's nodes, read once. */
const struct pci_numa *pci_numa(void);

#pragma GCC visibility pop

#endif /* PCI_NUMA_H */
