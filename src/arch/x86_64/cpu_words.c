/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cpu_words.c (x86-64) - the cpuid and XCR0 words (cpu_words.h), for the
 * library and the preload alike. The preload is built on every CPU and
 * compiles this file there too: elsewhere every word is 0.
 */
#include "cpu_words.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

void pci_cpuid_read(struct pci_cpuid *w)
{
    /* Field by field: the preload compiles this file, and there a zeroed
     * aggregate could become a call to memset, the preload's own. */
    w->vendor[0] = w->vendor[1] = w->vendor[2] = 0;
    w->max_leaf = w->leaf1_eax = w->leaf1_ecx = 0;
    w->leaf7_eax = w->leaf7_ebx = w->leaf7_edx = w->leaf7_1_eax = 0;
    w->max_ext = w->ext8_ebx = 0;
    w->xcr0 = 0;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    __cpuid(0, w->max_leaf, w->vendor[0], w->vendor[2], w->vendor[1]);
    if (w->max_leaf >= 1)
        __cpuid(1, w->leaf1_eax, b, w->leaf1_ecx, d);
    if (w->max_leaf >= 7) {
        __cpuid_count(7, 0, w->leaf7_eax, w->leaf7_ebx, c, w->leaf7_edx);
        if (w->leaf7_eax >= 1)
            __cpuid_count(7, 1, w->leaf7_1_eax, b, c, d);
    }
    __cpuid(0x80000000u, w->max_ext, b, c, d);
    if (w->max_ext >= 0x80000008u)
        __cpuid(0x80000008u, a, w->ext8_ebx, c, d);
    if (w->leaf1_ecx & PCI_LEAF1_ECX_OSXSAVE) {
        unsigned lo, hi;
        /* xgetbv with ecx = 0, emitted as bytes so that no -mxsave is
         * needed; OSXSAVE says the OS has enabled it. */
        __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
        w->xcr0 = ((uint64_t)hi << 32) | lo;
    }
#endif
}
