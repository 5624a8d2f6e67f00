/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * string.c - x86-64 primitives on general-purpose stores: the unrolled
 * movq loop and the two string instructions. All three run on every
 * x86-64 CPU; ERMS/FSRM only decide whether rep stosb is fast, so the
 * selector (select.c), not a feature check, decides when to use them.
 */
#if defined(__x86_64__)
#include "primitive.h"

/* The bodies below store a pattern (pci_pattern); PCI_ZERO_AND_FILL makes
 * the clear (pattern 0) and the fill twin of each. */
#define PCI_STRING_BODY static inline __attribute__((always_inline)) void

/* Eight 8-byte stores per 64-byte line, the kernel's baseline clear_page
 * shape. The head up to 8-byte alignment and the tail go through
 * pci_set_bytes. */
PCI_STRING_BODY unrolled_body(void *dst, size_t len, uint64_t pattern)
{
    char *p = pci_set_head(dst, &len, 8, pattern);

    size_t lines = len / 64;
    if (lines) {
        __asm__ volatile("1:\n\t"
                         "movq %2, 0(%0)\n\t"
                         "movq %2, 8(%0)\n\t"
                         "movq %2, 16(%0)\n\t"
                         "movq %2, 24(%0)\n\t"
                         "movq %2, 32(%0)\n\t"
                         "movq %2, 40(%0)\n\t"
                         "movq %2, 48(%0)\n\t"
                         "movq %2, 56(%0)\n\t"
                         "addq $64, %0\n\t"
                         "decq %1\n\t"
                         "jnz 1b"
                         : "+r"(p), "+r"(lines)
                         : "r"(pattern)
                         : "memory");
    }
    len &= 63;
    size_t words = len / 8;
    if (words) {
        __asm__ volatile("1:\n\t"
                         "movq %2, (%0)\n\t"
                         "addq $8, %0\n\t"
                         "decq %1\n\t"
                         "jnz 1b"
                         : "+r"(p), "+r"(words)
                         : "r"(pattern)
                         : "memory");
    }
    pci_set_bytes(p, len & 7, pattern);
}

/* rep stosq over the 8-byte aligned body; head and tail through
 * pci_set_bytes. */
PCI_STRING_BODY stosq_body(void *dst, size_t len, uint64_t pattern)
{
    char *p = pci_set_head(dst, &len, 8, pattern);

    size_t words = len / 8;
    __asm__ volatile("rep stosq"
                     : "+D"(p), "+c"(words)
                     : "a"(pattern)
                     : "memory");
    pci_set_bytes(p, len & 7, pattern);
}

/* One rep stosb over the whole extent: the CPU sees the full length, which
 * is what lets it stop allocating cache lines for LLC-sized extents. */
PCI_STRING_BODY stosb_body(void *dst, size_t len, uint64_t pattern)
{
    __asm__ volatile("rep stosb"
                     : "+D"(dst), "+c"(len)
                     : "a"((unsigned char)pattern)
                     : "memory");
}

PCI_ZERO_AND_FILL(x86_unrolled, unrolled_body)
PCI_ZERO_AND_FILL(x86_stosq, stosq_body)
PCI_ZERO_AND_FILL(x86_stosb, stosb_body)

/* clzero zeroes the whole 64-byte line holding the address in rax. It is
 * weakly ordered like non-temporal stores (AMD APM vol. 3), hence the
 * sfence. Head and tail outside whole lines go through pci_set_bytes. */
void pci_clear_x86_clzero(void *dst, size_t len)
{
    char *p = pci_set_head(dst, &len, 64, 0);

    for (size_t lines = len / 64; lines; lines--, p += 64)
        __asm__ volatile(".byte 0x0f, 0x01, 0xfc" /* clzero (%rax) */
                         : : "a"(p) : "memory");
    __asm__ volatile("sfence" ::: "memory");
    pci_set_bytes(p, len & 63, 0);
}
#endif
