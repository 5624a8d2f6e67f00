/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * zero.c - arm64 primitives: dc zva per block and stp pairs.
 * dc zva zeroes one naturally aligned block of the size cpu.c read from
 * DCZID_EL0; it is called only when DZP is clear. The unaligned head and
 * tail go to the stp primitive.
 */
#if defined(__aarch64__)
#include "cpu.h"
#include "primitive.h"

void pci_clear_a64_dczva(void *dst, size_t len)
{
    size_t block = pci_cpu()->zva_block;
    char *p = dst;
    size_t head = (size_t)(-(uintptr_t)p & (block - 1));

    if (len < head + block) { /* no whole block inside */
        pci_clear_a64_stp(p, len);
        return;
    }
    pci_clear_a64_stp(p, head); /* stp, not bytes: the head can be 2 KiB */
    p += head;
    len -= head;
    for (size_t n = len / block; n; n--, p += block)
        __asm__ volatile("dc zva, %0" : : "r"(p) : "memory");
    pci_clear_a64_stp(p, len & (block - 1));
}

/* Four stp pairs per 64 bytes; any remainder through pci_set_bytes. The
 * "rZ" constraint lets the clear (pattern 0) store xzr itself. */
static inline __attribute__((always_inline)) void stp_body(void *dst, size_t len,
                                                           uint64_t pattern)
{
    if (len < 64 + 15) { /* not one whole 64-byte step after aligning */
        pci_set_bytes(dst, len, pattern);
        return;
    }
    char *p = pci_set_head(dst, &len, 16, pattern);
    for (size_t n = len / 64; n; n--, p += 64)
        __asm__ volatile("stp %x1, %x1, [%0]\n\t"
                         "stp %x1, %x1, [%0, #16]\n\t"
                         "stp %x1, %x1, [%0, #32]\n\t"
                         "stp %x1, %x1, [%0, #48]"
                         : : "r"(p), "rZ"(pattern) : "memory");
    pci_set_bytes(p, len & 63, pattern);
}

PCI_ZERO_AND_FILL(a64_stp, stp_body)
#endif
