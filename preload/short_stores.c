/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * short_stores.c - the rules for the x86-64 entry's short-call stores
 * (short_stores.h), on the words src/arch/x86_64/cpu_words.c reads, and
 * what the C library's memset does as src/libc_memset.c says it.
 */
#include "short_stores.h"
#include "../src/libc_memset.h"

#define LEAF1_ECX_OSXSAVE_AVX (PCI_LEAF1_ECX_OSXSAVE | PCI_LEAF1_ECX_AVX)
/* BMI2 (bzhi), AVX512F, AVX512BW (byte masks, kmovq, vpbroadcastb). */
#define LEAF7_EBX_SHORT (PCI_LEAF7_EBX_BMI2 | PCI_LEAF7_EBX_AVX512F | PCI_LEAF7_EBX_AVX512BW)
/* All of the SSE, AVX and AVX-512 state: the entry uses zmm16 and k1. */
#define XCR0_SHORT (PCI_XCR0_AVX | PCI_XCR0_AVX512)
/* "AuthenticAMD" and "GenuineIntel" as leaf 0 returns them in ebx, edx,
 * ecx. */
static const unsigned amd[3] = {0x68747541u, 0x69746e65u, 0x444d4163u};
static const unsigned intel[3] = {0x756e6547u, 0x49656e69u, 0x6c65746eu};

/* 1 if c's vendor string is v (one of the two above). */
static int vendor_is(const struct pci_cpuid *c, const unsigned v[3])
{
    return c->vendor[0] == v[0] && c->vendor[1] == v[1] && c->vendor[2] == v[2];
}

/* Where a 512-bit store costs no clock speed (256-bit ones cost none on any
 * of these CPUs). Intel's AVX-512 CPUs before
 * those with AVX-VNNI (Skylake-SP to Ice Lake) lower the core's frequency
 * for a while after 512-bit instructions, so the C library here leaves its
 * 64-byte memset to them only with AVX-VNNI alongside (glibc 2.36 and
 * 2.41, x86 cpu_features: "Prefer_No_AVX512" unless AVX_VNNI); on AMD it
 * sets no such preference (Zen 4 and later run 512-bit operations without
 * a frequency offset). Every other CPU takes the baseline stores. */
static int wide_stores_full_speed(const struct pci_cpuid *c)
{
    if (vendor_is(c, amd))
        return 1;
    return c->leaf7_eax >= 1 && (c->leaf7_1_eax & PCI_LEAF7_1_EAX_AVX_VNNI) != 0;
}

/* Leaf 7 reports every bit of need in ebx, and the OS saves all of the
 * SSE, AVX and AVX-512 state (XCR0 readable: OSXSAVE). */
static int avx512_usable(const struct pci_cpuid *c, unsigned need)
{
    return c->max_leaf >= 7 && (c->leaf1_ecx & PCI_LEAF1_ECX_OSXSAVE) != 0 &&
           (c->leaf7_ebx & need) == need && (c->xcr0 & XCR0_SHORT) == XCR0_SHORT;
}

int pci_preload_short_avx512(const struct pci_cpuid *c)
{
    return avx512_usable(c, LEAF7_EBX_SHORT) && wide_stores_full_speed(c);
}

int pci_preload_short_evex256(const struct pci_cpuid *c)
{
    return avx512_usable(c, LEAF7_EBX_SHORT | PCI_LEAF7_EBX_AVX512VL);
}

int pci_preload_short_avx2(const struct pci_cpuid *c)
{
    return c->max_leaf >= 7 && (c->leaf1_ecx & LEAF1_ECX_OSXSAVE_AVX) == LEAF1_ECX_OSXSAVE_AVX &&
           (c->leaf7_ebx & PCI_LEAF7_EBX_AVX2) != 0 && (c->xcr0 & PCI_XCR0_AVX) == PCI_XCR0_AVX;
}

int pci_preload_cpu_rtm(const struct pci_cpuid *c)
{
    return c->max_leaf >= 7 && (c->leaf7_ebx & PCI_LEAF7_EBX_RTM) != 0;
}

int pci_preload_stosb_as_libc(const struct pci_cpuid *c, const char *tunables,
                              const char *libc_version)
{
    enum pci_vendor v = vendor_is(c, intel) ? PCI_VENDOR_INTEL
                        : vendor_is(c, amd) ? PCI_VENDOR_AMD
                                            : PCI_VENDOR_OTHER;
    int erms = c->max_leaf >= 7 && (c->leaf7_ebx & PCI_LEAF7_EBX_ERMS) != 0;
    return pci_libc_stosb_above(v, erms, libc_version, tunables) == PCI_GLIBC_STOSB_DEFAULT;
}
