/*
 * tuning.h - the selection's thresholds: the defaults for a CPU and the
 * values in force.
 */
#ifndef PCI_TUNING_H
#define PCI_TUNING_H

#include <stddef.h>

#include "cpu.h"

#pragma GCC visibility push(hidden)

/* Selection thresholds in force. */
struct pci_thresholds {
    size_t vector_max;   /* len < vector_max: vector stores */
    size_t nt_threshold; /* len >= nt_threshold: non-temporal stores */
    size_t cold_nt_threshold;     /* pc_clear_cold: from here, streaming */
    size_t parallel_nt_threshold; /* pc_clear_parallel on >1 thread: from
                                     here, streaming */
};
void pci_default_thresholds(const struct pci_cpu *c, struct pci_thresholds *t);
const struct pci_thresholds *pci_thresholds(void);

#pragma GCC visibility pop

#endif /* PCI_TUNING_H */
