/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * probe.h - the test hook of x86-64-probe (probe.c). The probe's decision
 * depends on timing, so the tests cannot choose a branch by choosing an
 * extent; they set this instead to run each branch on purpose and check
 * that both clear exactly [dst, dst + len).
 */
#ifndef PCI_PROBE_H
#define PCI_PROBE_H

#pragma GCC visibility push(hidden)

enum pci_probe_force {
    PCI_PROBE_DECIDE = 0, /* time the loads (the default) */
    PCI_PROBE_CACHED = 1, /* take the cached branch (rep stosb) always */
    PCI_PROBE_COLD = 2    /* take the streaming branch always */
};
/* For the tests only; relaxed atomic reads, so a test may set it while
 * nothing else clears. */
extern int pci_probe_force;

#pragma GCC visibility pop

#endif /* PCI_PROBE_H */
