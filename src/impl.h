/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * impl.h - the primitive table (impl.c, expanded from impl.def): what each
 * primitive is, what it needs, and whether this CPU can run it.
 */
#ifndef PCI_IMPL_H
#define PCI_IMPL_H

#include "pageclear.h"
#include "cpu.h"
#include "primitive.h"

#pragma GCC visibility push(hidden)

struct pci_impl {
    const char *name;
    const char *arch;
    const char *features;
    const char *description;
    unsigned required; /* arch bit | feature bits */
    enum pc_cache cache;
    pci_clear_fn fn; /* NULL when not compiled for this architecture */
    pci_fill_fn fill; /* NULL also for ZERO_ONLY primitives */
};

extern const struct pci_impl pci_impls[PCI_NIMPL];

/* 1 if primitive id exists here and *c confirms everything it needs. */
int pci_impl_runnable(const struct pci_cpu *c, int id);

/* What stores a non-zero byte in primitive id's place on *c (pc_fill):
 * its own fill twin, or for a zero-only one (clzero, dc zva) the last
 * primitive of the table with its cache behaviour that runs on *c and
 * stores any byte (the table lists each kind narrow to wide). NULL where
 * none does, or where id itself does not run on *c. */
pci_fill_fn pci_impl_fill_for(const struct pci_cpu *c, int id);

#pragma GCC visibility pop

#endif /* PCI_IMPL_H */
