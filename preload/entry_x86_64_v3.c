/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * entry_x86_64_v3.c - memset's entry point in the preload's copy for the
 * AVX2 CPUs without AVX-512 (glibc-hwcaps/x86-64-v3/: Zen 2 and 3, Intel's
 * client cores), the dynamic loader's choice there when the filter users
 * name loads the preload (filter.c).
 *
 * Why a copy: entry_x86_64.c's first line goes to the tests every x86-64
 * CPU needs, and its AVX2 case (32-64 B), three lines in, lost to the C
 * library's. Here the first line holds the state test, the size tests and
 * the AVX2 case, every shorter case one taken branch away (docs/notes.md,
 * "An entry for the AVX2 CPUs"), and 65-2048 B are stored too. A CPU with
 * RTM, whose transactions vzeroupper aborts, has preload.c send 32-2048 B
 * on instead (no test in the head: one more there shows), as
 * PAGECLEAR_PRELOAD_AVX2=0 does.
 *
 * The contract is memset's, as in entry_x86_64.c: returns s, sets the low
 * byte of c into [s, s + n), nothing outside; no stack, no call, only
 * caller-saved registers (rax, rcx, rdx, r8, xmm0/ymm0), so it is safe in
 * a signal handler and in any state of the preload. Its 16-2048 B cases use
 * AVX2's vpbroadcastb, so pci_preload_own_below stays 0 on a CPU without
 * AVX2 (PCI_ENTRY_NEEDS_AVX2: the file can be preloaded by path on any
 * CPU) and every call then takes the pass-on at 11:, which holds no
 * vector instruction.
 */
#include "entry.h"

#if PCI_PRELOAD_ASM_ENTRY
const unsigned pci_preload_entry_kind = PCI_ENTRY_NEEDS_AVX2;

__asm__(
    PCI_ASM_ENTRY_BEGIN
    /* Layout: 64-byte lines; objdump -d shows them. The head's line holds
     * the state test, the size tests and the 32-64 B case to its ret (at
     * +61), filled out by hand (.fill): across a .p2align the assembler
     * made jb 5f 6 bytes long and the line ran into the next. The 65-128 B
     * test sits at 2:, not in the head, and the block
     * starts at a multiple of 128 bytes: each measured (docs/notes.md, "An
     * entry for the AVX2 CPUs"). */
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
    "	.fill	3, 1, 0xcc\n"
    /* 16-31 B: 16-byte stores at s and s + n - 16. A VEX 128-bit write
     * clears ymm0's upper half, so no vzeroupper is needed. */
    "5:	vmovd	%esi, %xmm0\n"
    "	vpbroadcastb %xmm0, %xmm0\n"
    "	vmovdqu	%xmm0, (%rdi)\n"
    "	vmovdqu	%xmm0, -16(%rdi,%rdx)\n"
    "	ret\n"
    /* Longer than the span, or not READY, or no AVX2 case: on. Reached
     * from 2: by a taken branch, so that 2:'s own case falls through; with
     * the AVX2 case off (RTM) a taken branch more, not measured. */
    "11:\n"
    PCI_ASM_PASS_ON
    /* 65-2048 B where the AVX2 case is on (n - 65 below
     * pci_preload_long_span, unsigned), in glibc 2.36's AVX2 memset's own
     * stores: 32-byte stores at s and s + 32, then 65-128 B at s + n - 64
     * and s + n - 32; 129-256 B at s + 64, s + 96 and the four ending at
     * s + n; from 257 B, after those at s + 64 and s + 96, a loop of four
     * aligned 32-byte stores from s + 128 rounded down to 32, while short
     * of s + n - 128, then the four ending at s + n. Past 2048 B that memset
     * turns to rep stosb (PCI_PRELOAD_STOSB_FROM), and the calls go on.
     * 129-256 B fall through, the others are one taken branch away: each
     * taken branch before the stores counted (docs/notes.md, "The AVX2
     * copy stores 65-2048 B"). */
    "	.p2align 6\n"
    "2:	lea	-65(%rdx), %rcx\n"
    PCI_ASM_CMP("pci_preload_long_span", "rcx")
    "	jae	11b\n"
    "	vmovd	%esi, %xmm0\n"
    "	vpbroadcastb %xmm0, %ymm0\n"
    "	vmovdqu	%ymm0, (%rdi)\n"
    "	vmovdqu	%ymm0, 32(%rdi)\n"
    "	cmp	$63, %rcx\n"
    "	jbe	7f\n"
    "	vmovdqu	%ymm0, 64(%rdi)\n"
    "	vmovdqu	%ymm0, 96(%rdi)\n"
    /* rcx is below pci_preload_long_span here, so ecx holds it whole. */
    "	cmp	$191, %ecx\n"
    "	ja	8f\n"
    "	vmovdqu	%ymm0, -128(%rdi,%rdx)\n"
    "	vmovdqu	%ymm0, -96(%rdi,%rdx)\n"
    "	vmovdqu	%ymm0, -64(%rdi,%rdx)\n"
    "	vmovdqu	%ymm0, -32(%rdi,%rdx)\n"
    "	vzeroupper\n"
    "	ret\n"
    "7:	vmovdqu	%ymm0, -64(%rdi,%rdx)\n"
    "	vmovdqu	%ymm0, -32(%rdi,%rdx)\n"
    "	vzeroupper\n"
    "	ret\n"
    /* From 257 B: rcx = s + n - 128, r8 = (s + 128) & -32, which lies in
     * (s + 96, s + 128] and so below rcx (n > 256): the first round's
     * stores end before s + n, and each round's too (r8 < rcx before
     * it). [s, s + 128) is stored above, [r8, rcx) by the rounds, and
     * [rcx, s + n) after them. */
    "8:	lea	-128(%rdi,%rdx), %rcx\n"
    "	lea	128(%rdi), %r8\n"
    "	and	$-32, %r8\n"
    "12:	vmovdqa	%ymm0, (%r8)\n"
    "	vmovdqa	%ymm0, 32(%r8)\n"
    "	vmovdqa	%ymm0, 64(%r8)\n"
    "	vmovdqa	%ymm0, 96(%r8)\n"
    "	sub	$-128, %r8\n"
    "	cmp	%rcx, %r8\n"
    "	jb	12b\n"
    "	vmovdqu	%ymm0, (%rcx)\n"
    "	vmovdqu	%ymm0, 32(%rcx)\n"
    "	vmovdqu	%ymm0, 64(%rcx)\n"
    "	vmovdqu	%ymm0, 96(%rcx)\n"
    "	vzeroupper\n"
    "	ret\n"
    /* 0-3 B, then 4-15 B (entry.h), in a line of their own. */
    "	.p2align 6\n"
    PCI_ASM_0_3
    PCI_ASM_4_15
    PCI_ASM_ENTRY_END);

#endif
