/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cpu.h - which stores the x86-64 memset entry may use for short calls
 * (entry_x86_64.c): the rule, fed the cpuid and XCR0 words, apart from
 * reading them, so that a test can feed it the CPUs this machine is not
 * (tests/test_preload_cpu.c).
 */
#ifndef PCI_PRELOAD_CPU_H
#define PCI_PRELOAD_CPU_H

#pragma GCC visibility push(hidden)

/* The words the rule reads; a word the CPU or OS does not report is 0. */
struct pci_preload_cpu {
    unsigned vendor[3];   /* leaf 0 ebx, edx, ecx: "GenuineIntel", "AuthenticAMD" */
    unsigned max_leaf;    /* leaf 0 eax */
    unsigned leaf1_ecx;   /* OSXSAVE (27), AVX (28) */
    unsigned leaf7_eax;   /* the last subleaf of leaf 7 */
    unsigned leaf7_ebx;   /* AVX2 (5), BMI2 (8), RTM (11), AVX512F (16), AVX512BW (30) */
    unsigned leaf7_1_eax; /* AVX-VNNI (4) */
    unsigned xcr0;        /* the state the OS saves (xgetbv 0), low word */
};

/* 1 if the entry's AVX-512 short path (one masked 64-byte store) may run
 * on the CPU c describes: AVX512F, AVX512BW and BMI2; the OS saving SSE,
 * AVX, opmask and all ZMM state; and a 512-bit store costing no clock
 * speed there (cpu_x86_64.c says which CPUs). Reads nothing else. */
int pci_preload_short_avx512(const struct pci_preload_cpu *c);

/* 1 if the entry's AVX2 case (two 32-byte stores for 32-64 B) may run on
 * the CPU c describes: AVX and AVX2, and the OS saving SSE and AVX state. */
int pci_preload_short_avx2(const struct pci_preload_cpu *c);

/* 1 if the CPU c describes reports RTM (leaf 7 ebx bit 11): a vzeroupper
 * inside one of its transactions aborts the transaction, so the AVX2 case
 * (which ends in vzeroupper) is left off there unless asked for. */
int pci_preload_cpu_rtm(const struct pci_preload_cpu *c);

/* The words of this CPU, each read only where the CPU reports it (leaf 7
 * from max_leaf, subleaf 1 from leaf7_eax, XCR0 with OSXSAVE); all 0
 * where the entry is not the x86-64 one. */
void pci_preload_cpu_read(struct pci_preload_cpu *c);

#pragma GCC visibility pop

#endif
