/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * options.h - the PAGECLEAR_* environment tunables, parsed once (options.c).
 */
#ifndef PCI_OPTIONS_H
#define PCI_OPTIONS_H

#include <stddef.h>

#include "tuning.h"

#pragma GCC visibility push(hidden)

struct pci_options {
    int forced;          /* primitive index from PAGECLEAR_IMPL, or -1 */
    size_t unit;         /* PAGECLEAR_UNIT, 0 if not set */
    struct pci_tuning t; /* each threshold's variable (thresholds.def);
                            t.set says which were given */
};
const struct pci_options *pci_options(void);
/* 1 if PAGECLEAR_QUIET=1 silences the library's warnings. */
int pci_quiet(void);

#pragma GCC visibility pop

#endif /* PCI_OPTIONS_H */
