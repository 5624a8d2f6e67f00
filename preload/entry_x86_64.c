/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * entry_x86_64.c - memset's entry point on x86-64, in assembly because its
 * cost is in the layout: each taken branch on a short call shows, and C
 * shares one return between the cases, so every case returns where it
 * stores (docs/notes.md, "The default entry"):
 *  - baseline (SSE2): 16-32 B take no taken branch (two overlapping
 *    16-byte stores), 33-64 B four stores, 4-15 B and 0-3 B one branch
 *    each; with AVX2, 32-64 B two 32-byte stores behind one;
 *  - AVX-512 (BW) with BMI2, where 512-bit stores cost no clock speed:
 *    0-64 B one masked 64-byte store behind one taken branch.
 * The stores are on only where the next memset is the C library's own
 * (preload.c, next_is_libc). The AVX2 and AVX-512 CPUs get copies of the
 * preload with entries of their own (entry_x86_64_v3.c and
 * entry_x86_64_v4.c).
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
    /* Layout: the head fills one 64-byte line exactly ({disp32} keeps a
     * jump long for that), and no case crosses a line, which measured
     * slower. The padding follows a ret and never runs; objdump -d shows
     * the lines. */
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
    /* 16-32 B: stores at s and s + n - 16, the byte in all four bytes of
     * ecx (a 32-bit multiply: 8 bytes of code fewer than the 64-bit one).
     * This case starts the line after the head's. */
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
     * n bits of 64, and a masked-off byte is neither written nor faulted
     * on. zmm16 needs no vzeroupper (the SSE/AVX transition involves
     * zmm0-15 only). Masked-off bytes in a page that is not mapped cost a
     * microcode assist, so a call whose 64 bytes from s would reach the
     * next page (s more than 4096 - 64 into its page: x86-64 pages are
     * 4 KiB or multiples of it) stores at 7: instead. The case starts a
     * line, to sit inside one. */
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
     * the caller's. */
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
     * asked (short_stores.h). */
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
