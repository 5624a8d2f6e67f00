/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cpu_generic.c - CPU detection for architectures without primitives of
 * their own, and for the portable-only build: nothing to detect, so only
 * the portable primitive (generic.c) runs.
 */
#include <string.h>

#include "cpu.h"

void pci_cpu_detect(struct pci_cpu *cpu)
{
    *cpu = (struct pci_cpu){0};
    strcpy(cpu->vendor_name, "unknown");
}
