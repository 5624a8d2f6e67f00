/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * entry_x86_64.c - memset's entry point on x86-64, in assembly because its
 * cost is in the layout. Measured on the Intel guest in one process,
 * interleaved, calls of 1-512 B (docs/preload.md, "Below the threshold"):
 * passing every short call on to the C library cost about 1 ns a call
 * (the second indirect jump), and C versions that stored the short calls
 * themselves lost it again in taken branches (the compiler shares one
 * return between the cases). Here 16-64 B take no taken branch (four
 * overlapping 16-byte stores), 4-15 B and 0-3 B one each, and each case
 * returns where it stores. The stores are on only where the next memset
 * is the C library's own (preload.c, next_is_libc).
 *
 * The contract is memset's: returns s, sets the low byte of c into
 * [s, s + n), nothing outside; no stack, no call, nothing but the
 * caller-saved registers (rax, rcx, r8, xmm0), so it is safe in a signal
 * handler and in any state of the preload: pci_preload_own_below is 0
 * until the preload is READY, and every call then takes the path at 2:.
 */
#include "entry.h"

#if PCI_PRELOAD_ASM_ENTRY
__asm__(
    "	.text\n"
    "	.globl	pci_preload_memset\n"
    "	.hidden	pci_preload_memset\n"
    "	.type	pci_preload_memset, @function\n"
    "	.globl	memset\n"
    "	.type	memset, @function\n"
    /* A 64-byte line: the whole short path is one fetch block. */
    "	.p2align 6\n"
    "pci_preload_memset:\n"
    "memset:\n"
    "	mov	%rdi, %rax\n"
    "	cmp	pci_preload_own_below(%rip), %rdx\n"
    "	jae	2f\n"
    "	cmp	$4, %rdx\n"
    "	jb	3f\n"
    /* The byte in all eight bytes of rcx. */
    "	movzbl	%sil, %ecx\n"
    "	movabs	$0x0101010101010101, %r8\n"
    "	imul	%r8, %rcx\n"
    "	cmp	$16, %rdx\n"
    "	jb	1f\n"
    /* 16-64 B: stores at s, s + a, s + n - 16 - a, s + n - 16, with a = 16
     * past 32 B and 0 up to it; they cover [s, s + n) and stay inside. */
    "	movq	%rcx, %xmm0\n"
    "	punpcklqdq %xmm0, %xmm0\n"
    "	xor	%r8d, %r8d\n"
    "	cmp	$32, %rdx\n"
    "	seta	%r8b\n"
    "	shl	$4, %r8\n"
    "	movups	%xmm0, (%rdi)\n"
    "	movups	%xmm0, -16(%rdi,%rdx)\n"
    "	movups	%xmm0, (%rdi,%r8)\n"
    "	sub	%r8, %rdi\n"
    "	movups	%xmm0, -16(%rdi,%rdx)\n"
    "	ret\n"
    /* 4-15 B: four 4-byte stores at s, s + b, s + n - 4 - b, s + n - 4,
     * with b = 4 from 8 B and 0 below: [s, s + 8) and [s + n - 8, s + n)
     * from 8 B, which cover n up to 16, without a branch. */
    "1:	mov	%edx, %r8d\n"
    "	shr	$3, %r8d\n"
    "	shl	$2, %r8d\n"
    "	mov	%ecx, (%rdi)\n"
    "	mov	%ecx, -4(%rdi,%rdx)\n"
    "	mov	%ecx, (%rdi,%r8)\n"
    "	sub	%r8, %rdi\n"
    "	mov	%ecx, -4(%rdi,%rdx)\n"
    "	ret\n"
    /* 0-3 B: the first, middle and last byte. */
    "3:	test	%edx, %edx\n"
    "	je	5f\n"
    "	mov	%sil, (%rdi)\n"
    "	mov	%sil, -1(%rdi,%rdx)\n"
    "	shr	%edx\n"
    "	mov	%sil, (%rdi,%rdx)\n"
    "5:	ret\n"
    /* Longer, or not READY: the C library's memset below the threshold
     * (a tail jump), everything else to pci_preload_set. */
    "2:	cmp	pci_preload_fast_min(%rip), %rdx\n"
    "	jae	pci_preload_set\n"
    "	jmp	*pci_preload_real(%rip)\n"
    "	.size	pci_preload_memset, . - pci_preload_memset\n"
    "	.size	memset, . - memset\n");
#else
/* ISO C wants a declaration in every translation unit. */
typedef int pci_preload_no_asm_entry;
#endif
