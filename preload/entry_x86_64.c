/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * entry_x86_64.c - memset's entry point on x86-64, in assembly because its
 * cost is in the layout. Measured on the Intel guest in one process,
 * interleaved, calls of 1-512 B (docs/notes.md, "The default entry"):
 * passing every short call on to the C library cost about 1 ns a call
 * (the second indirect jump), C versions that stored the short calls
 * themselves lost it again in taken branches (the compiler shares one
 * return between the cases), and each taken branch on a short call
 * measured at 3-10% of it. So every case returns where it stores, and:
 *  - baseline (SSE2): 16-32 B take no taken branch (two overlapping
 *    16-byte stores), 33-64 B (four), 4-15 B and 0-3 B one each; with
 *    AVX2, 32-64 B one (two 32-byte stores): the SSE2 stores measured up
 *    to 1.31x the C library's evex256 and AVX2 memset there. Four stores
 *    for all of 16-64 B, without a branch (two of them the same up to
 *    32 B), measured 1.14-1.29x at 31 B against glibc 2.41's evex256 and
 *    AVX2 memset (emulated), two 0.86-0.97
 *    (7af8c43:docs/preload-short-calls.md).
 *    Those AVX2 figures are against the C library's AVX2 memset for RTM;
 *    against the plain one Zen 3 runs, 32-64 B lose 5-38% here, and are
 *    level only with the whole path in the entry's first line, which the
 *    AVX-512 and SSE2 cases then lose (docs/notes.md, "An entry for the
 *    AVX2 CPUs");
 *  - AVX-512 (BW) with BMI2, where 512-bit stores cost no clock speed:
 *    0-64 B one masked 64-byte store behind one taken branch (time over
 *    the C library's own, glibc 2.36 / 2.41: 0.97-1.02 / 0.97-1.01 at
 *    1-48 B, 1.08 / 0.98 at 56 B). Two masked 32-byte stores instead (the
 *    second writing nothing up to 32 B) measured 0.98-1.01 / 1.09-1.17 at
 *    1-12 B: the empty store is not free. Laid out first, with no taken
 *    branch, the vector stores measured 0.86-0.97 at 1-32 B but 1.09 at
 *    48 B, and cost a CPU without AVX-512 a taken branch on every short
 *    call (1.10-1.30 at 1-32 B); a branch between 0-32 and 33-64 B
 *    measured 1.35 at 48 B.
 * The stores are on only where the next memset is the C library's own
 * (preload.c, next_is_libc). The AVX2 CPUs without AVX-512 get a copy of
 * the preload with an entry of their own (entry_x86_64_v3.c), whose first
 * line is their 32-64 B case.
 *
 * The contract is memset's: returns s, sets the low byte of c into
 * [s, s + n), nothing outside; no stack, no call, nothing but the
 * caller-saved registers (its arguments', rax, rcx, r8, ymm0, zmm16, k1),
 * so it is safe in a signal handler and in any state of the
 * preload: pci_preload_own_below is 0 until the preload is READY, and
 * every call then takes the path at 2:.
 */
#include "entry.h"

#if PCI_PRELOAD_ASM_ENTRY
const unsigned pci_preload_entry_kind = PCI_ENTRY_AVX512;

__asm__(
    PCI_ASM_ENTRY_BEGIN
    /* Layout. The head fills one 64-byte line exactly ({disp32} keeps a
     * jump long for that), and no case crosses a line: a case reached
     * from a compare past the head's line measured about 0.5 ns a call
     * slower (1.26-1.30 of the C library's time against 1.03-1.14), and
     * before each case was placed to sit inside a line, which case
     * crossed one moved with every edit, the crossing one up to a quarter
     * slower (1-3 B under glibc 2.41: 1.34-1.36 against 1.09-1.10). The
     * padding follows a ret and never runs; objdump -d shows the lines. */
    "	.p2align 6\n"
    PCI_ASM_HEAD
    /* 0 where the CPU lacks AVX-512: never taken there. */
    PCI_ASM_CMP("pci_preload_vec_below", "rdx")
    "	jb	4f\n"
    "	cmp	$4, %rdx\n"
    "	{disp32} jb	3f\n"
    "	cmp	$16, %rdx\n"
    "	jb	1f\n"
    /* SIZE_MAX where the CPU lacks AVX2: never taken there. */
    PCI_ASM_CMP("pci_preload_ymm_from", "rdx")
    "	jae	8f\n"
    "	cmp	$32, %rdx\n"
    "	ja	6f\n"
    /* 16-32 B: stores at s and s + n - 16. The byte in all four bytes of
     * ecx (a 32-bit multiply: 8 bytes of code fewer than the 64-bit one,
     * and 4-byte lanes are all the stores here need). This case starts
     * the line after the head's. */
    "	movzbl	%sil, %ecx\n"
    "	imul	$0x01010101, %ecx, %ecx\n"
    "	movd	%ecx, %xmm0\n"
    "	pshufd	$0, %xmm0, %xmm0\n"
    "	movups	%xmm0, (%rdi)\n"
    "	movups	%xmm0, -16(%rdi,%rdx)\n"
    "	ret\n"
    /* 33-64 B: at s, s + 16, s + n - 32 and s + n - 16. The byte spread
     * by unpack and shuffles: a byte of code fewer than the multiply,
     * which this case needs to end inside the same line. */
    "6:	movd	%esi, %xmm0\n"
    "	punpcklbw %xmm0, %xmm0\n"
    "	pshuflw	$0, %xmm0, %xmm0\n"
    "	pshufd	$0, %xmm0, %xmm0\n"
    "	movups	%xmm0, (%rdi)\n"
    "	movups	%xmm0, 16(%rdi)\n"
    "	movups	%xmm0, -32(%rdi,%rdx)\n"
    "	movups	%xmm0, -16(%rdi,%rdx)\n"
    "	ret\n"
    /* 0-3 B, then 4-15 B (entry.h). */
    "	.p2align 6\n"
    PCI_ASM_0_3
    PCI_ASM_4_15
    /* AVX-512 (BW) and BMI2, 0-64 B: one masked store; k1 holds the low
     * n bits of 64. The store writes the bytes it selects, and a
     * masked-off byte is neither written nor faulted on. zmm16 needs no
     * vzeroupper (the SSE/AVX transition involves zmm0-15 only). But a
     * masked store whose masked-off bytes lie in a page that is not
     * mapped costs a microcode assist: a call of 1-48 B ending at a
     * PROT_NONE page measured 103-140 ns against 2.4-3.3 ns for the C
     * library's own, which checks for this too. So a call whose 64 bytes
     * from s would reach the next page (s more than 4096 - 64 into its
     * page: x86-64 pages are 4 KiB or multiples of it) stores at 7:
     * instead. This case starts a 64-byte line, so that it sits inside
     * one: placed after another 32-byte block instead, it crossed a line
     * and measured 1.12-1.29 of the C library's time at 1-48 B, against
     * 0.97-1.02 inside one. */
    "	.p2align 6\n"
    "4:	mov	%edi, %ecx\n"
    "	and	$4095, %ecx\n"
    "	vpbroadcastb %esi, %zmm16\n"
    "	cmp	$4032, %ecx\n"
    "	ja	7f\n"
    "	mov	$-1, %rcx\n"
    "	bzhi	%rdx, %rcx, %rcx\n"
    "	kmovq	%rcx, %k1\n"
    "	vmovdqu8 %zmm16, (%rdi){%k1}\n"
    "	ret\n"
    /* Near a page's end: the 64 bytes ending at s + n, under the mask of
     * their top n bits. The masked-off bytes, [s + n - 64, s), lie in
     * s's own page (s is more than 64 bytes into it); the stored ones are
     * the caller's. At a page's end before a PROT_NONE page (calls.c,
     * second table) it measured 0.90-1.12 of the C library's time at
     * 1-56 B (2.36) and 0.98-1.03 (2.41); going back to the baseline cases
     * from here measured the same there and moved the other cases' code
     * (7af8c43:docs/preload-short-calls.md, in git). */
    "7:	lea	-64(%rdi,%rdx), %r8\n"
    "	mov	$64, %ecx\n"
    "	sub	%edx, %ecx\n"
    "	mov	$-1, %rdx\n"
    "	bzhi	%rcx, %rdx, %rcx\n"
    "	not	%rcx\n"
    "	kmovq	%rcx, %k1\n"
    "	vmovdqu8 %zmm16, (%r8){%k1}\n"
    "	ret\n"
    /* AVX2, 32-64 B: 32-byte stores at s and s + n - 32, then
     * vzeroupper (ymm0's upper half would otherwise slow the caller's
     * next SSE code), as the C library's AVX2 memset does. vzeroupper
     * aborts an RTM transaction, so a CPU with RTM runs this only when
     * asked (cpu.h). */
    "	.p2align 5\n"
    "8:	vmovd	%esi, %xmm0\n"
    "	vpbroadcastb %xmm0, %ymm0\n"
    "	vmovdqu	%ymm0, (%rdi)\n"
    "	vmovdqu	%ymm0, -32(%rdi,%rdx)\n"
    "	vzeroupper\n"
    "	ret\n"
    /* Longer, or not READY (entry.h). */
    "	.p2align 5\n"
    "2:" PCI_ASM_PASS_ON
    PCI_ASM_ENTRY_END);

#endif
