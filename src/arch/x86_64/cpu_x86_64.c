/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cpu_x86_64.c - what this CPU and OS can run, from the cpuid and XCR0
 * words (cpu_words.c) and the cache leaves. A vector feature counts only
 * if cpuid reports it AND the OS has enabled saving its register state in
 * XCR0; otherwise executing it would fault.
 */
#if defined(__x86_64__)
#include <cpuid.h>
#include <string.h>

#include "cpu.h"
#include "cpu_words.h"

/* The largest data cache and the level-2 data cache from a deterministic
 * cache parameters leaf (Intel leaf 4, AMD leaf 0x8000001d share the
 * layout: eax bits 4:0 the type, 7:5 the level). */
static void cache_leaf_sizes(unsigned leaf, struct pci_cpu *cpu)
{
    for (unsigned i = 0; i < 16; i++) {
        unsigned a, b, c, d;
        __cpuid_count(leaf, i, a, b, c, d);
        if ((a & 0x1f) == 0) /* no more caches */
            break;
        if ((a & 0x1f) == 2) /* instruction cache */
            continue;
        size_t ways = ((b >> 22) & 0x3ff) + 1, parts = ((b >> 12) & 0x3ff) + 1;
        size_t line = (b & 0xfff) + 1, sets = (size_t)c + 1;
        size_t size = ways * parts * line * sets;
        if (size > cpu->llc_size)
            cpu->llc_size = size;
        if (((a >> 5) & 0x7) == 2)
            cpu->l2_size = size;
    }
}

/* Display family, model and stepping from leaf 1 eax (SDM vol. 2A,
 * CPUID, "Version Information"): the extended family is added only when
 * the base family is 0xF, and the extended model is prefixed when the
 * family is 6 or 0xF; other families use the base fields alone. */
static void identify(unsigned eax, struct pci_cpu *cpu)
{
    unsigned stepping = eax & 0xf, model = (eax >> 4) & 0xf, family = (eax >> 8) & 0xf;
    unsigned ext_model = (eax >> 16) & 0xf, ext_family = (eax >> 20) & 0xff;
    cpu->stepping = stepping;
    cpu->family = family == 0xf ? family + ext_family : family;
    cpu->model = (family == 6 || family == 0xf) ? (ext_model << 4) + model : model;
}

void pci_cpu_detect(struct pci_cpu *cpu)
{
    struct pci_cpuid w;

    pci_cpuid_read(&w);
    *cpu = (struct pci_cpu){0};
    cpu->features = PCI_F_X86_64;
    memcpy(cpu->vendor_name, w.vendor, 12);
    if (strcmp(cpu->vendor_name, "GenuineIntel") == 0)
        cpu->vendor = PCI_VENDOR_INTEL;
    else if (strcmp(cpu->vendor_name, "AuthenticAMD") == 0 ||
             strcmp(cpu->vendor_name, "HygonGenuine") == 0)
        cpu->vendor = PCI_VENDOR_AMD;

    if (w.max_leaf >= 1) {
        cpu->hypervisor = (w.leaf1_ecx & PCI_LEAF1_ECX_HYPERVISOR) != 0;
        identify(w.leaf1_eax, cpu);
    }
    int os_avx = (w.leaf1_ecx & PCI_LEAF1_ECX_AVX) && (w.xcr0 & PCI_XCR0_AVX) == PCI_XCR0_AVX;
    int os_avx512 = os_avx && (w.xcr0 & PCI_XCR0_AVX512) == PCI_XCR0_AVX512;

    if (w.leaf7_ebx & PCI_LEAF7_EBX_ERMS)
        cpu->features |= PCI_F_ERMS;
    if (w.leaf7_edx & PCI_LEAF7_EDX_FSRM)
        cpu->features |= PCI_F_FSRM;
    if ((w.leaf7_ebx & PCI_LEAF7_EBX_AVX2) && os_avx)
        cpu->features |= PCI_F_AVX2;
    if ((w.leaf7_ebx & PCI_LEAF7_EBX_AVX512F) && os_avx512)
        cpu->features |= PCI_F_AVX512;
    if (w.ext8_ebx & PCI_EXT8_EBX_CLZERO)
        cpu->features |= PCI_F_CLZERO;

    if (cpu->vendor == PCI_VENDOR_AMD && w.max_ext >= 0x8000001du)
        cache_leaf_sizes(0x8000001du, cpu);
    else if (w.max_leaf >= 4)
        cache_leaf_sizes(4, cpu);
}
#endif
