/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cpu_words.h (x86-64) - the cpuid and XCR0 words pageclear decides on,
 * read in one place (cpu_words.c). The library's detection
 * (cpu_x86_64.c) reads them, and so does the preload's rule for its
 * short-call stores (preload/short_stores.c): the preload is a binary of its own, which
 * compiles cpu_words.c into itself because the library keeps its
 * internals hidden.
 */
#ifndef PCI_X86_64_CPU_WORDS_H
#define PCI_X86_64_CPU_WORDS_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* The bits read from the words below, one list for the library and the
 * preload. Positions from Intel's SDM vol. 2A and AMD's APM vol. 3,
 * cpuid chapters. */
#define PCI_LEAF1_ECX_OSXSAVE (1u << 27) /* xgetbv enabled by the OS */
#define PCI_LEAF1_ECX_AVX (1u << 28)
#define PCI_LEAF1_ECX_HYPERVISOR (1u << 31)
#define PCI_LEAF7_EBX_AVX2 (1u << 5)
#define PCI_LEAF7_EBX_BMI2 (1u << 8)
#define PCI_LEAF7_EBX_ERMS (1u << 9)
#define PCI_LEAF7_EBX_RTM (1u << 11)
#define PCI_LEAF7_EBX_AVX512F (1u << 16)
#define PCI_LEAF7_EBX_AVX512BW (1u << 30)
#define PCI_LEAF7_EBX_AVX512VL (1u << 31)
#define PCI_LEAF7_EDX_FSRM (1u << 4)
#define PCI_LEAF7_1_EAX_AVX_VNNI (1u << 4)
#define PCI_EXT8_EBX_CLZERO (1u << 0)
/* XCR0 state components: SSE (1) and AVX upper halves (2); AVX-512
 * opmask (5), upper halves of ZMM0-15 (6) and ZMM16-31 (7). */
#define PCI_XCR0_AVX 0x06u
#define PCI_XCR0_AVX512 0xe0u

/* A word the CPU or OS does not report is 0. */
struct pci_cpuid {
    unsigned vendor[3];   /* leaf 0 ebx, edx, ecx: "GenuineIntel", "AuthenticAMD" */
    unsigned max_leaf;    /* leaf 0 eax */
    unsigned leaf1_eax;   /* family, model, stepping */
    unsigned leaf1_ecx;   /* PCI_LEAF1_ECX_* */
    unsigned leaf7_eax;   /* the last subleaf of leaf 7 */
    unsigned leaf7_ebx;   /* PCI_LEAF7_EBX_* */
    unsigned leaf7_edx;   /* PCI_LEAF7_EDX_* */
    unsigned leaf7_1_eax; /* PCI_LEAF7_1_EAX_* */
    unsigned max_ext;     /* leaf 0x80000000 eax */
    unsigned ext8_ebx;    /* leaf 0x80000008 ebx: PCI_EXT8_EBX_* */
    uint64_t xcr0;        /* the state the OS saves (xgetbv 0): PCI_XCR0_* */
};

/* Fill *w from this CPU: each leaf only where the CPU reports it (leaf 7
 * from max_leaf, its subleaf 1 from leaf7_eax, 0x80000008 from max_ext),
 * XCR0 only with OSXSAVE (xgetbv faults without it); every word 0 where
 * the CPU is not x86-64. Calls nothing, so it is safe in the preload
 * before anything is ready. */
void pci_cpuid_read(struct pci_cpuid *w);

#pragma GCC visibility pop

#endif
