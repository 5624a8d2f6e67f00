/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * vector_store.h - the one shape of the vector primitives, expanded by
 * avx2.c and avx512.c with their own vector type and intrinsics:
 *   PCI_V            bytes per vector
 *   PCI_VTYPE        the vector type
 *   PCI_VSET1(x)     a vector with the 64-bit x in every lane
 *   PCI_VSTOREU/STORE/STREAM(p, v)  unaligned, aligned, non-temporal store
 *   PCI_VTARGET      the target attribute string
 *   PCI_VNAME(s)     the function name for suffix s
 *   PCI_VFILLNAME(s) the fill twin's name for suffix s
 *
 * Lengths below one vector go to pci_set_bytes. Otherwise an unaligned
 * store covers the head and one ending at dst + len the tail; beyond two
 * vectors an aligned loop covers the body between them. The overlap is
 * harmless (every store writes the same pattern) and nothing reaches
 * outside [dst, dst + len). Non-temporal stores need aligned
 * addresses, so only the body streams; sfence orders the streamed lines
 * before the function returns.
 */
#define PCI_VP(p) ((PCI_VTYPE *)(void *)(p))

/* nt is a constant at every call site below: always_inline makes a
 * specialised copy for each, with no branch left in the loop. */
__attribute__((target(PCI_VTARGET), always_inline)) static inline void
PCI_VNAME(_body)(void *dst, size_t len, uint64_t pattern, const int nt)
{
    if (len < PCI_V) {
        pci_set_bytes(dst, len, pattern);
        return;
    }
    /* For the clears pattern is a constant 0 and this folds to a zeroing
     * idiom. */
    const PCI_VTYPE z = PCI_VSET1((long long)pattern);
    char *p = dst, *end = p + len;
    PCI_VSTOREU(PCI_VP(p), z);
    PCI_VSTOREU(PCI_VP(end - PCI_V), z);
    if (len <= 2 * PCI_V)
        return;
    p = (char *)(((uintptr_t)p + PCI_V) & ~(uintptr_t)(PCI_V - 1));
    for (; p + 4 * PCI_V <= end; p += 4 * PCI_V)
        for (int k = 0; k < 4; k++) {
            if (nt)
                PCI_VSTREAM(PCI_VP(p + k * PCI_V), z);
            else
                PCI_VSTORE(PCI_VP(p + k * PCI_V), z);
        }
    for (; p + PCI_V <= end; p += PCI_V) {
        if (nt)
            PCI_VSTREAM(PCI_VP(p), z);
        else
            PCI_VSTORE(PCI_VP(p), z);
    }
    if (nt)
        _mm_sfence();
}

__attribute__((target(PCI_VTARGET))) void PCI_VNAME()(void *dst, size_t len)
{
    PCI_VNAME(_body)(dst, len, 0, 0);
}

__attribute__((target(PCI_VTARGET))) void PCI_VNAME(_nt)(void *dst, size_t len)
{
    PCI_VNAME(_body)(dst, len, 0, 1);
}

__attribute__((target(PCI_VTARGET))) void PCI_VFILLNAME()(void *dst, size_t len,
                                                         uint64_t pattern)
{
    PCI_VNAME(_body)(dst, len, pattern, 0);
}

__attribute__((target(PCI_VTARGET))) void PCI_VFILLNAME(_nt)(void *dst, size_t len,
                                                            uint64_t pattern)
{
    PCI_VNAME(_body)(dst, len, pattern, 1);
}

#undef PCI_VP
