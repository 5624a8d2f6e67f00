/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * range.h - the argument check every entry point taking an extent makes.
 */
#ifndef PCI_RANGE_H
#define PCI_RANGE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* Validate (addr, len) as every entry point does: 0, -EINVAL if addr is
 * NULL with len > 0, -EOVERFLOW if the end wraps (or is exactly 2^64). */
static inline int pci_check_range(const void *addr, size_t len)
{
    if (len == 0)
        return 0;
    if (addr == NULL)
        return -EINVAL;
    if ((uintptr_t)addr + len < (uintptr_t)addr)
        return -EOVERFLOW;
    return 0;
}

#endif /* PCI_RANGE_H */
