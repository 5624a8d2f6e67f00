/*
 * options.h - the PAGECLEAR_* environment tunables, parsed once (options.c).
 */
#ifndef PCI_OPTIONS_H
#define PCI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* PCI_UNSET / -1 mean "not set": the defaults then come from the CPU
 * (dispatch.c). */
#define PCI_UNSET SIZE_MAX
struct pci_options {
    int forced;          /* primitive index from PAGECLEAR_IMPL, or -1 */
    size_t unit;         /* PAGECLEAR_UNIT */
    size_t vector_max;   /* PAGECLEAR_VECTOR_MAX */
    size_t nt_threshold; /* PAGECLEAR_NT_THRESHOLD (see given: SIZE_MAX
                            is also "never") */
    size_t cold_nt_threshold;     /* PAGECLEAR_COLD_NT_THRESHOLD */
    size_t parallel_nt_threshold; /* PAGECLEAR_PARALLEL_NT_THRESHOLD */
    unsigned given; /* PCI_OPT_* bits: which thresholds the environment set
                       (the nt ones accept "never" = SIZE_MAX = PCI_UNSET) */
};
#define PCI_OPT_VECTOR_MAX 0x1u
#define PCI_OPT_NT 0x2u
#define PCI_OPT_COLD_NT 0x4u
#define PCI_OPT_PARALLEL_NT 0x8u
const struct pci_options *pci_options(void);
/* 1 if PAGECLEAR_QUIET=1 silences the library's warnings. */
int pci_quiet(void);

#pragma GCC visibility pop

#endif /* PCI_OPTIONS_H */
