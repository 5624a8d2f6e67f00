/*
 * zero.c - arm64 primitives: dc zva per block and stp pairs.
 * dc zva zeroes one naturally aligned block of the size cpu.c read from
 * DCZID_EL0; it is called only when DZP is clear. The unaligned head and
 * tail use stp/str stores through pci_clear_bytes.
 */
#if defined(__aarch64__)
#include "pci.h"

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

/* Four stp xzr, xzr per 64 bytes; any remainder through pci_clear_bytes. */
void pci_clear_a64_stp(void *dst, size_t len)
{
    if (len < 64 + 15) { /* not one whole 64-byte step after aligning */
        pci_clear_bytes(dst, len);
        return;
    }
    char *p = pci_clear_head(dst, &len, 16);
    for (size_t n = len / 64; n; n--, p += 64)
        __asm__ volatile("stp xzr, xzr, [%0]\n\t"
                         "stp xzr, xzr, [%0, #16]\n\t"
                         "stp xzr, xzr, [%0, #32]\n\t"
                         "stp xzr, xzr, [%0, #48]"
                         : : "r"(p) : "memory");
    pci_clear_bytes(p, len & 63);
}
#endif
