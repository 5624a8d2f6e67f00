/*
 * generic_cpu.c - CPU detection for architectures without primitives of
 * their own: nothing to detect, so only the portable primitive runs.
 */
#include <string.h>

#include "cpu.h"

void pci_cpu_detect(struct pci_cpu *cpu)
{
    *cpu = (struct pci_cpu){0};
    strcpy(cpu->vendor_name, "unknown");
}
