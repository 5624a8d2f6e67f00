/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cpu_words.h (x86-64) - the cpuid and XCR0 words pageclear decides on,
 * read in one place (cpu_words.c). The library's detection (cpu.c) reads
 * them, and so does the preload's rule for its short-call stores
 * (preload/cpu_x86_64.c): the preload is a binary of its own, which
 * compiles cpu_words.c into itself because the library keeps its
 * internals hidden.
 */
#ifndef PCI_X86_64_CPU_WORDS_H
#define PCI_X86_64_CPU_WORDS_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A word the CPU or OS does not report is 0. Bit positions from Intel's
 * SDM vol. 2A and AMD's APM vol. 3, cpuid chapters. */
struct pci_cpuid {
    unsigned vendor[3];   /* leaf 0 ebx, edx, ecx: "GenuineIntel", "AuthenticAMD" */
    unsigned max_leaf;    /* leaf 0 eax */
    unsigned leaf1_eax;   /* family, model, stepping */
    unsigned leaf1_ecx;   /* OSXSAVE (27), AVX (28), hypervisor (31) */
    unsigned leaf7_eax;   /* the last subleaf of leaf 7 */
    unsigned leaf7_ebx;   /* AVX2 (5), BMI2 (8), ERMS (9), RTM (11), AVX512F (16), AVX512BW (30) */
    unsigned leaf7_edx;   /* FSRM (4) */
    unsigned leaf7_1_eax; /* AVX-VNNI (4) */
    unsigned max_ext;     /* leaf 0x80000000 eax */
    unsigned ext8_ebx;    /* leaf 0x80000008 ebx: CLZERO (0) */
    uint64_t xcr0;        /* the state the OS saves (xgetbv 0) */
};

/* Fill *w from this CPU: each leaf only where the CPU reports it (leaf 7
 * from max_leaf, its subleaf 1 from leaf7_eax, 0x80000008 from max_ext),
 * XCR0 only with OSXSAVE (xgetbv faults without it); every word 0 where
 * the CPU is not x86-64. Calls nothing, so it is safe in the preload
 * before anything is ready. */
void pci_cpuid_read(struct pci_cpuid *w);

#pragma GCC visibility pop

#endif
