/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cpu.h - what the CPU and OS can run, as src/arch/<arch>/cpu_<arch>.c detects it
 * and everything else reads it.
 */
#ifndef PCI_CPU_H
#define PCI_CPU_H

#include <stddef.h>

/* Every internal name stays inside the library: no GOT indirection, and
 * nothing internal exported from the .so. */
#pragma GCC visibility push(hidden)

/* CPU/OS features, each confirmed at run time by src/arch/<arch>/cpu_<arch>.c. */
enum pci_feature {
    PCI_F_X86_64 = 1u << 0,
    PCI_F_AARCH64 = 1u << 1,
    PCI_F_ERMS = 1u << 2,   /* enhanced rep movsb/stosb */
    PCI_F_FSRM = 1u << 3,   /* fast short rep mov */
    PCI_F_AVX2 = 1u << 4,   /* cpuid AVX2 and the OS saves YMM state */
    PCI_F_AVX512 = 1u << 5, /* cpuid AVX512F and the OS saves ZMM state */
    PCI_F_CLZERO = 1u << 6,
    PCI_F_DCZVA = 1u << 7   /* DCZID_EL0.DZP clear */
};

enum pci_vendor { PCI_VENDOR_OTHER, PCI_VENDOR_INTEL, PCI_VENDOR_AMD, PCI_VENDOR_ARM };

struct pci_cpu {
    unsigned features; /* enum pci_feature bits */
    enum pci_vendor vendor;
    char vendor_name[16];
    int hypervisor;
    size_t llc_size;  /* bytes, 0 if unknown */
    size_t l2_size;   /* bytes, one core's level-2 data cache; 0 if unknown */
    size_t zva_block; /* bytes, 0 if dc zva is unusable */
    /* x86-64: cpuid leaf 1 display family, model and stepping (what
     * /proc/cpuinfo shows); 0 elsewhere. Part of a profile's identity. */
    unsigned family, model, stepping;
};

/* Fill *c from the hardware. Implemented once per architecture. */
void pci_cpu_detect(struct pci_cpu *c);
/* The detected CPU, computed once (host.c). */
const struct pci_cpu *pci_cpu(void);
/* Write the names of the PCI_F_* bits in features, space-separated, as
 * pc_host.features shows them (host.c). */
void pci_feature_names(unsigned features, char *buf, size_t size);

#pragma GCC visibility pop

#endif /* PCI_CPU_H */
