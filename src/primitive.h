/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * primitive.h - what the primitives share (src/arch/ and the portable one):
 * their signatures, one declaration per primitive compiled here (from
 * impl.def), the fill pattern, and the head and tail helpers.
 */
#ifndef PCI_PRIMITIVE_H
#define PCI_PRIMITIVE_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A primitive: zero [dst, dst + len), any alignment and length. */
typedef void (*pci_clear_fn)(void *dst, size_t len);
/* Its fill twin, for measurement (pc_impl_fill): the same code storing
 * pattern, which holds one byte value in all eight of its bytes. */
typedef void (*pci_fill_fn)(void *dst, size_t len, uint64_t pattern);

/* The fill pattern for byte b. */
static inline uint64_t pci_pattern(unsigned char b)
{
    return 0x0101010101010101ULL * b;
}

/* PC_PORTABLE_ONLY builds what an architecture without primitives of its
 * own gets, on any host: the tests then cover the portable fallback. */
#if !defined(PC_PORTABLE_ONLY) && defined(__x86_64__)
#define PCI_HAVE_X86_64 1
#endif
#if !defined(PC_PORTABLE_ONLY) && defined(__aarch64__)
#define PCI_HAVE_AARCH64 1
#endif

enum pci_impl_id {
#define PCI_IMPL(id, name, arch, req, feat, cache, stores, desc) PCI_ID_##id,
#include "impl.def"
#undef PCI_IMPL
    PCI_NIMPL
};

/* Declare the primitives compiled for this architecture, and the fill
 * twins of those that can store any byte. */
#define PCI_DECL_FILL_ANY_BYTE(id) void pci_fill_##id(void *dst, size_t len, uint64_t pattern);
#define PCI_DECL_FILL_ZERO_ONLY(id)
#define PCI_DECL(id, stores)                                                   \
    void pci_clear_##id(void *dst, size_t len);                                \
    PCI_DECL_FILL_##stores(id)
#define PCI_DECL_ANY(id, stores) PCI_DECL(id, stores)
#if defined(PCI_HAVE_X86_64)
#define PCI_DECL_X86_64(id, stores) PCI_DECL(id, stores)
#else
#define PCI_DECL_X86_64(id, stores)
#endif
#if defined(PCI_HAVE_AARCH64)
#define PCI_DECL_AARCH64(id, stores) PCI_DECL(id, stores)
#else
#define PCI_DECL_AARCH64(id, stores)
#endif
#define PCI_IMPL(id, name, arch, req, feat, cache, stores, desc) PCI_DECL_##arch(id, stores)
#include "impl.def"
#undef PCI_IMPL

/* Small-length helper the primitives share for their head and tail:
 * store pattern (see pci_pattern) over [dst, dst + len). */
void pci_set_bytes(void *dst, size_t len, uint64_t pattern);

/* Store pattern from p up to the next multiple of align (a power of two),
 * or over all len bytes if fewer; return the aligned pointer and take what
 * was stored off *len. Every primitive with an aligned body starts so. */
static inline char *pci_set_head(char *p, size_t *len, size_t align, uint64_t pattern)
{
    size_t head = (size_t)(-(uintptr_t)p & (align - 1));
    if (head > *len)
        head = *len;
    pci_set_bytes(p, head, pattern);
    *len -= head;
    return p + head;
}

/* Each primitive that can store any byte is one always_inline body taking
 * the pattern; PCI_ZERO_AND_FILL(id, body) defines pci_clear_<id> (the
 * body with a constant 0, which the compiler folds: the clear's machine
 * code is what a zero-only version would be) and pci_fill_<id>. */
#define PCI_ZERO_AND_FILL(id, body)                                            \
    void pci_clear_##id(void *dst, size_t len) { body(dst, len, 0); }         \
    void pci_fill_##id(void *dst, size_t len, uint64_t pattern)                \
    {                                                                          \
        body(dst, len, pattern);                                               \
    }

#pragma GCC visibility pop

#endif /* PCI_PRIMITIVE_H */
