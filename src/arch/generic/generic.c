/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * generic.c - the portable primitive: the fallback on every architecture
 * without one of its own, and the reference the tests compare others to.
 *
 * The primitives are built with -fno-builtin (and gcc's
 * -fno-tree-loop-distribute-patterns) so that these loops stay loops and are
 * never turned back into a call to memset.
 */
#include "primitive.h"

/* Stores through may_alias types: the caller's memory may hold any type,
 * and a plain uint64_t store into it would break strict aliasing. The
 * unaligned variants (aligned(1)) serve heads and tails at any address. */
typedef uint64_t __attribute__((may_alias)) pci_word;
typedef uint64_t __attribute__((may_alias, aligned(1))) pci_u64;
typedef uint32_t __attribute__((may_alias, aligned(1))) pci_u32;
typedef uint16_t __attribute__((may_alias, aligned(1))) pci_u16;

/* Heads, tails and short extents: 8-byte stores, the last one ending at
 * dst + len (overlap is harmless when every store writes the same byte);
 * below 8 bytes, a pair of 4-, 2- or 1-byte stores meeting in the middle. */
void pci_set_bytes(void *dst, size_t len, uint64_t pattern)
{
    unsigned char *p = dst;
    if (len >= 8) {
        for (size_t i = 0; i + 8 < len; i += 8)
            *(pci_u64 *)(void *)(p + i) = pattern;
        *(pci_u64 *)(void *)(p + len - 8) = pattern;
    } else if (len >= 4) {
        *(pci_u32 *)(void *)p = (uint32_t)pattern;
        *(pci_u32 *)(void *)(p + len - 4) = (uint32_t)pattern;
    } else if (len >= 2) {
        *(pci_u16 *)(void *)p = (uint16_t)pattern;
        *(pci_u16 *)(void *)(p + len - 2) = (uint16_t)pattern;
    } else if (len == 1) {
        *p = (unsigned char)pattern;
    }
}

static inline __attribute__((always_inline)) void generic_body(void *dst, size_t len,
                                                               uint64_t pattern)
{
    char *p = pci_set_head(dst, &len, sizeof(pci_word), pattern);
    pci_word *w = (pci_word *)(void *)p;
    for (size_t i = 0; i < len / sizeof(pci_word); i++)
        w[i] = pattern;
    p += len & ~(sizeof(pci_word) - 1);
    pci_set_bytes(p, len & (sizeof(pci_word) - 1), pattern);
}

PCI_ZERO_AND_FILL(generic, generic_body)
