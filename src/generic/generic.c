/*
 * generic.c - the portable primitive: the fallback on every architecture
 * without one of its own, and the reference the tests compare others to.
 *
 * The library is built with -fno-builtin (and gcc's
 * -fno-tree-loop-distribute-patterns) so that these loops stay loops and are
 * never turned back into a call to memset.
 */
#include "pci.h"

/* Stores through may_alias types: the caller's memory may hold any type,
 * and a plain uint64_t store into it would break strict aliasing. The
 * unaligned variants (aligned(1)) serve heads and tails at any address. */
typedef uint64_t __attribute__((may_alias)) pci_word;
typedef uint64_t __attribute__((may_alias, aligned(1))) pci_u64;
typedef uint32_t __attribute__((may_alias, aligned(1))) pci_u32;
typedef uint16_t __attribute__((may_alias, aligned(1))) pci_u16;

/* Heads, tails and short extents: 8-byte stores, the last one ending at
 * dst + len (overlap is harmless when every store writes zero); below 8
 * bytes, a pair of 4-, 2- or 1-byte stores meeting in the middle. */
void pci_clear_bytes(void *dst, size_t len)
{
    unsigned char *p = dst;
    if (len >= 8) {
        for (size_t i = 0; i + 8 < len; i += 8)
            *(pci_u64 *)(void *)(p + i) = 0;
        *(pci_u64 *)(void *)(p + len - 8) = 0;
    } else if (len >= 4) {
        *(pci_u32 *)(void *)p = 0;
        *(pci_u32 *)(void *)(p + len - 4) = 0;
    } else if (len >= 2) {
        *(pci_u16 *)(void *)p = 0;
        *(pci_u16 *)(void *)(p + len - 2) = 0;
    } else if (len == 1) {
        *p = 0;
    }
}

void pci_clear_generic(void *dst, size_t len)
{
    char *p = pci_clear_head(dst, &len, sizeof(pci_word));
    pci_word *w = (pci_word *)(void *)p;
    for (size_t i = 0; i < len / sizeof(pci_word); i++)
        w[i] = 0;
    p += len & ~(sizeof(pci_word) - 1);
    pci_clear_bytes(p, len & (sizeof(pci_word) - 1));
}
