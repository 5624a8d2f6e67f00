/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * short_stores.h - which stores the x86-64 memset entries may use for
 * short calls (entry_x86_64.c, entry_x86_64_v3.c): the rules, fed the
 * cpuid and XCR0 words (the library's own reader,
 * src/arch/x86_64/cpu_words.c, compiled into the preload), so that a test
 * can feed them the CPUs this machine is not (tests/test_preload_cpu.c).
 */
#ifndef PCI_PRELOAD_SHORT_STORES_H
#define PCI_PRELOAD_SHORT_STORES_H

#include "../src/arch/x86_64/cpu_words.h"

#pragma GCC visibility push(hidden)

/* 1 if the entries' 64-byte stores may run (entry_x86_64.c's masked one
 * for 0-64 B, the AVX-512 copy's two for 65-128 B) on the CPU c
 * describes: AVX512F, AVX512BW and BMI2; the OS saving SSE, AVX, opmask
 * and all ZMM state; and a 512-bit store costing no clock speed there
 * (short_stores.c says which CPUs). Reads nothing else. */
int pci_preload_short_avx512(const struct pci_cpuid *c);

/* 1 if the AVX-512 copy's 256-bit cases (entry_x86_64_v4.c: EVEX stores
 * of ymm16, masked to 64 B) may run on the CPU c describes: AVX512F,
 * AVX512BW, AVX512VL and BMI2, and the OS saving SSE, AVX, opmask and all
 * ZMM state (ymm16 is the low half of zmm16). No clock-speed rule: the C
 * library gives its 256-bit EVEX memset to every AVX-512 CPU
 * (short_stores.c says which take the 64-byte one). */
int pci_preload_short_evex256(const struct pci_cpuid *c);

/* 1 if the entry's AVX2 case (two 32-byte stores for 32-64 B) may run on
 * the CPU c describes: AVX and AVX2, and the OS saving SSE and AVX state. */
int pci_preload_short_avx2(const struct pci_cpuid *c);

/* 1 if the C library's memset stores a call of more than 2 KiB with
 * rep stosb on the CPU c describes, under the tunables string tunables
 * (GLIBC_TUNABLES, or NULL) and the C library of version libc_version
 * (gnu_get_libc_version(), or NULL), so that the AVX-512 copy may store
 * them so too and skip the jump to it (entry_x86_64_v4.c): where
 * src/libc_memset.h's rule (pci_libc_stosb_above) gives 2048 B, as it
 * does with ERMS on Intel from glibc 2.26 and on AMD under 2.26 to 2.38
 * (where glibc 2.40 on streams from, 131 MiB on the Intel guest, is far
 * above 64 KiB; docs/notes.md, "Calls of 2-64 KiB"). Else 0, the C library's
 * version or a tunable unknown to the rule included. */
int pci_preload_stosb_as_libc(const struct pci_cpuid *c, const char *tunables,
                              const char *libc_version);

/* 1 if the CPU c describes reports RTM (leaf 7 ebx bit 11): a vzeroupper
 * inside one of its transactions aborts the transaction, so the AVX2 case
 * (which ends in vzeroupper) is left off there unless asked for. */
int pci_preload_cpu_rtm(const struct pci_cpuid *c);

#pragma GCC visibility pop

#endif
