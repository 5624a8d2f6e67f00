/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * abi.c - the copies in and out of the callers' structs that let the
 * public structs grow (abi.h, and the top of pageclear.h).
 */
#include <errno.h>
#include <string.h>

#include "abi.h"

/* Each struct fits the bound, with room to grow. */
#define PCI_ABI_FITS(type) \
    _Static_assert(sizeof(struct type) <= PCI_ABI_SIZE_LIMIT / 2, #type " fits the bound");
PCI_ABI_FITS(pc_batch)
PCI_ABI_FITS(pc_impl_info)
PCI_ABI_FITS(pc_pool_opts)
PCI_ABI_FITS(pc_pool_stats)
PCI_ABI_FITS(pc_host)
PCI_ABI_FITS(pc_tuning)
PCI_ABI_FITS(pc_threshold_info)
PCI_ABI_FITS(pc_extent)
PCI_ABI_FITS(pc_present_report)

int pci_abi_check(const void *p, size_t size, size_t min)
{
    return p == NULL || size < min || size > PCI_ABI_SIZE_LIMIT ? -EINVAL : 0;
}

int pci_abi_out(void *dst, size_t size, const void *src, size_t own, size_t min)
{
    int rc = pci_abi_check(dst, size, min);
    if (rc != 0)
        return rc;
    size_t n = size < own ? size : own;
    memcpy(dst, src, n);
#ifdef PCI_ABI_TEST_GROW
    /* A test build only (tests/abi/CMakeLists.txt): every public struct
     * ends with PCI_ABI_TEST_GROW bytes this code knows nothing of. Give
     * them a value as a newer library's field would have, so the tests
     * see it reach exactly the callers whose size covers it. */
    for (size_t k = own - PCI_ABI_TEST_GROW; k < n; k++)
        ((unsigned char *)dst)[k] = 0xA5;
#endif
    /* Fields newer than this library read 0: unknown. */
    if (size > own)
        memset((char *)dst + own, 0, size - own);
    return 0;
}

int pci_abi_in(void *dst, size_t own, const void *src, size_t size, size_t min)
{
    int rc = pci_abi_check(src, size, min);
    if (rc != 0)
        return rc;
    /* A newer caller's fields this library does not know must be zero,
     * "as before": anything else would be a setting silently ignored. */
    for (size_t k = own; k < size; k++)
        if (((const unsigned char *)src)[k] != 0)
            return -E2BIG;
    memcpy(dst, src, size < own ? size : own);
    return 0;
}
