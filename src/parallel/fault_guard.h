/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fault_guard.h - touching pages with faults turned into error codes
 * (fault_guard.c), pc_populate's fallback.
 */
#ifndef PCI_FAULT_GUARD_H
#define PCI_FAULT_GUARD_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* Touch each page of [addr, addr + len) (page-aligned) for writing without
 * changing it; SIGBUS and SIGSEGV become -EFAULT / -ENOMEM. */
int pci_touch_pages(char *addr, size_t len);

#pragma GCC visibility pop

#endif /* PCI_FAULT_GUARD_H */
