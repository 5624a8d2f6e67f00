/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cpu_aarch64.c - dc zva usability and block size from DCZID_EL0, which
 * EL0 may always read (Arm ARM D23.2). Bit 4 (DZP) set means dc zva is
 * prohibited and would trap; bits 3:0 give log2 of the block in 4-byte words.
 */
#if defined(__aarch64__)
#include <stdint.h>
#include <string.h>

#include "cpu.h"

#define DCZID_DZP (1u << 4)
#define DCZID_BS_MASK 0xfu
/* Blocks larger than this are not worth the head/tail handling they need
 * (the architecture allows up to 2 KiB; real cores use 64 bytes). */
#define ZVA_BLOCK_MAX 2048u

void pci_cpu_detect(struct pci_cpu *cpu)
{
    uint64_t dczid;

    *cpu = (struct pci_cpu){0};
    cpu->features = PCI_F_AARCH64;
    cpu->vendor = PCI_VENDOR_ARM;
    strcpy(cpu->vendor_name, "arm64");
    __asm__ volatile("mrs %0, dczid_el0" : "=r"(dczid));
    if (!(dczid & DCZID_DZP)) {
        size_t block = (size_t)4 << (dczid & DCZID_BS_MASK);
        if (block <= ZVA_BLOCK_MAX) {
            cpu->zva_block = block;
            cpu->features |= PCI_F_DCZVA;
        }
    }
}
#endif
