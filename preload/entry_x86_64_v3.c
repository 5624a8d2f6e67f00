/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * entry_x86_64_v3.c - memset's entry point in the preload's copy for the
 * AVX2 CPUs without AVX-512 (glibc-hwcaps/x86-64-v3/: Zen 2 and 3, Intel's
 * client cores), the dynamic loader's choice there when the filter users
 * name loads the preload (filter.c).
 *
 * Why a copy: the entry of entry_x86_64.c serves every x86-64 CPU, and its
 * first 64-byte line goes to the tests all of them need, so the AVX2 case
 * (32-64 B) starts three lines in. Against the AVX2 memset Zen 3 runs
 * (emulated on the Intel guest, glibc 2.36) that cost 3-14% a call at
 * 32-64 B over the extent and 17-19% at a page's end: the C library's own
 * case runs inside its first line. Here the first line holds the state
 * test, the size tests and the AVX2 case to its ret, and every shorter
 * case is one taken branch away, as in entry_x86_64.c: level with the C
 * library's at 1-256 B under glibc 2.36 and 2.41 but for two cells
 * (docs/preload-short-calls.md, "An entry for the AVX2 CPUs"). Nothing
 * else is tested there: a load and compare more in the head (the RTM
 * test) measured 25% slower at 32-64 B at a page's end under glibc 2.41
 * (1.25 against 0.99-1.01 without it), so a CPU with RTM, whose
 * transactions vzeroupper aborts, has preload.c send 32-128 B on to the C
 * library instead (pci_preload_own_below 32, pci_preload_long_span 0), as
 * PAGECLEAR_PRELOAD_AVX2=0 does.
 *
 * The contract is memset's, as in entry_x86_64.c: returns s, sets the low
 * byte of c into [s, s + n), nothing outside; no stack, no call, only
 * caller-saved registers (rax, rcx, rdx, r8, xmm0/ymm0), so it is safe in
 * a signal handler and in any state of the preload. Its 16-128 B cases use
 * AVX2's vpbroadcastb, so pci_preload_own_below stays 0 on a CPU without
 * AVX2 (PCI_ENTRY_NEEDS_AVX2: the file can be preloaded by path on any
 * CPU) and every call then takes the path at 2:, which holds no vector
 * instruction.
 */
#include "entry.h"

#if PCI_PRELOAD_ASM_ENTRY
const unsigned pci_preload_entry_kind = PCI_ENTRY_NEEDS_AVX2;

__asm__(
    PCI_ASM_ENTRY_BEGIN
    /* Layout: four 64-byte lines. The head's line is filled out
     * explicitly rather than by .p2align, so that the assembler keeps its
     * jumps 2 bytes long (across an alignment it made some 6, and the
     * first line then ran into the second); each jump's target lies
     * within 127 bytes of it, which decided the order of the cases.
     * objdump -d shows the lines: the head ends at +53, the second line
     * at +116, the third at +186, the fourth at +226. The 65-128 B test
     * sits at 2:, not in the head: a compare and branch more there
     * measured 1.25 at 32-64 B at a page's end under glibc 2.41, as the
     * RTM test did (above). It starts a 128-byte block: the same code at eight
     * addresses 64 bytes apart measured 0.99-1.01 at 32-64 B at a page's
     * end under glibc 2.36 where it started one, 1.00-1.10 where it did
     * not (docs/preload-short-calls.md). */
    "	.p2align 7\n"
    PCI_ASM_HEAD
    "	cmp	$4, %rdx\n"
    "	jb	3f\n"
    "	cmp	$16, %rdx\n"
    "	jb	1f\n"
    "	cmp	$32, %rdx\n"
    "	jb	5f\n"
    /* 32-64 B: 32-byte stores at s and s + n - 32, then vzeroupper (the
     * caller's next SSE code would otherwise pay for ymm0's upper half). */
    "	vmovd	%esi, %xmm0\n"
    "	vpbroadcastb %xmm0, %ymm0\n"
    "	vmovdqu	%ymm0, (%rdi)\n"
    "	vmovdqu	%ymm0, -32(%rdi,%rdx)\n"
    "	vzeroupper\n"
    "	ret\n"
    "	.fill	11, 1, 0xcc\n"
    /* 16-31 B: 16-byte stores at s and s + n - 16. A VEX 128-bit write
     * clears ymm0's upper half, so no vzeroupper is needed. */
    "5:	vmovd	%esi, %xmm0\n"
    "	vpbroadcastb %xmm0, %xmm0\n"
    "	vmovdqu	%xmm0, (%rdi)\n"
    "	vmovdqu	%xmm0, -16(%rdi,%rdx)\n"
    "	ret\n"
    /* Longer, or not READY, or no AVX2: 65-128 B where the AVX2 case is
     * on (n - 65 below pci_preload_long_span, unsigned), else on. */
    "2:	lea	-65(%rdx), %rcx\n"
    PCI_ASM_CMP("pci_preload_long_span", "rcx")
    "	jb	7f\n"
    PCI_ASM_PASS_ON
    /* 0-3 B, then 4-15 B (entry.h), in the third line. */
    "	.p2align 6\n"
    PCI_ASM_0_3
    PCI_ASM_4_15
    /* 65-128 B: 32-byte stores at s, s + 32, s + n - 64 and s + n - 32,
     * then vzeroupper. Passed on, these calls cost 21-25% under the C
     * library's own AVX2 memset (glibc 2.36); stored here they measured
     * 0.94-1.00 under both C libraries (docs/preload-short-calls.md). */
    "	.p2align 6\n"
    "7:	vmovd	%esi, %xmm0\n"
    "	vpbroadcastb %xmm0, %ymm0\n"
    "	vmovdqu	%ymm0, (%rdi)\n"
    "	vmovdqu	%ymm0, 32(%rdi)\n"
    "	vmovdqu	%ymm0, -64(%rdi,%rdx)\n"
    "	vmovdqu	%ymm0, -32(%rdi,%rdx)\n"
    "	vzeroupper\n"
    "	ret\n"
    PCI_ASM_ENTRY_END);

#endif
