/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * small.h - the preload's own stores for the shortest calls. Passing a
 * call of a few dozen bytes on to the C library costs a second indirect
 * jump after the PLT's, which measured about a third of such a call
 * (docs/preload.md, "Below the threshold"); these stores cost none.
 *
 * Overlapping unaligned stores, two per power-of-two class: n in [8, 16)
 * is an 8-byte store at the start and one ending at the end, and so on.
 * The 16-byte stores are GCC/Clang vector types, which every target
 * lowers (SSE2 on x86-64, the baseline; NEON on arm64; pairs of words
 * elsewhere): no CPU feature beyond the architecture's baseline, so no
 * feature test outside src/arch/. Every type is may_alias and aligned(1),
 * so any byte address is a valid target under any effective type. No
 * loop: nothing a compiler could turn back into a memset call (the file
 * is built with -fno-builtin anyway).
 */
#ifndef PCI_PRELOAD_SMALL_H
#define PCI_PRELOAD_SMALL_H

#include <stddef.h>
#include <stdint.h>

/* The longest call the preload stores itself: four 16-byte stores from
 * each end. The bound is measured (docs/preload.md, "Below the
 * threshold"): from 128 B on the C library's memset and these stores
 * cost the same through the preload. */
#define PCI_SMALL_MAX 128

typedef uint16_t pci_u16 __attribute__((may_alias, aligned(1)));
typedef uint32_t pci_u32 __attribute__((may_alias, aligned(1)));
typedef uint64_t pci_u64 __attribute__((may_alias, aligned(1)));
typedef uint64_t pci_v16 __attribute__((vector_size(16), may_alias, aligned(1)));

/* Set n <= PCI_SMALL_MAX bytes at s to c; returns s. */
static inline void *pci_small_set(void *s, int c, size_t n)
{
    unsigned char *p = s;
    uint64_t w = (uint64_t)(unsigned char)c * 0x0101010101010101ull;
    if (n >= 16) {
        pci_v16 v = {w, w};
        *(pci_v16 *)p = v;
        *(pci_v16 *)(p + n - 16) = v;
        if (n > 32) {
            *(pci_v16 *)(p + 16) = v;
            *(pci_v16 *)(p + n - 32) = v;
        }
        if (n > 64) {
            *(pci_v16 *)(p + 32) = v;
            *(pci_v16 *)(p + 48) = v;
            *(pci_v16 *)(p + n - 48) = v;
            *(pci_v16 *)(p + n - 64) = v;
        }
    } else if (n >= 8) {
        *(pci_u64 *)p = w;
        *(pci_u64 *)(p + n - 8) = w;
    } else if (n >= 4) {
        *(pci_u32 *)p = (uint32_t)w;
        *(pci_u32 *)(p + n - 4) = (uint32_t)w;
    } else if (n >= 2) {
        *(pci_u16 *)p = (uint16_t)w;
        *(pci_u16 *)(p + n - 2) = (uint16_t)w;
    } else if (n == 1) {
        *p = (unsigned char)c;
    }
    return s;
}

#endif
