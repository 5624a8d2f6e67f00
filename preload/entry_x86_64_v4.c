/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * entry_x86_64_v4.c - memset's entry point in the preload's copy for the
 * AVX-512 CPUs (glibc-hwcaps/x86-64-v4/), the dynamic loader's choice for
 * a library named without a path and `pageclear exec`'s (cli/exec.c).
 *
 * Why a copy: the entry of entry_x86_64.c serves every x86-64 CPU, so its
 * first 64-byte line goes to the tests all of them need and the AVX-512
 * store sits two lines in, behind a taken branch (two at a page's end).
 * Against the C library's own 64-byte memset on the Intel guest that cost
 * up to 16% at 1 B and 17-25% at 64 B at a page's end. Here the first
 * line holds the state test and the whole 0-64 B case to its ret, as the
 * copy for the AVX2 CPUs does for theirs (entry_x86_64_v3.c), and 65-128
 * B, which entry_x86_64.c passes on, are two 64-byte stores: level with
 * the C library's own or ahead at 1-256 B under glibc 2.36 and 2.41 but
 * for 56 B under 2.36 (docs/preload-short-calls.md, "An entry for the
 * AVX-512 CPUs"), where the same store measures 1.06 of the C library's
 * time as the code's place moves it (padding and a constant in place of
 * the state test's load did not remove it).
 *
 * Where the 512-bit store runs at full speed (cpu.h: Intel with AVX-VNNI,
 * AMD Zen 4 and later) preload.c turns these cases on
 * (pci_preload_own_below 65, pci_preload_long_span 64). On the AVX-512
 * CPUs before AVX-VNNI it turns on 256-bit EVEX stores of ymm16 at 2:
 * instead (pci_preload_evex_below 129), which keep the clock and need no
 * vzeroupper (so no transaction is aborted either): every call there
 * takes one taken branch more than on the others, and passing them all on
 * measured 1.12-2.02 of the C library's time at 1-32 B. Where the CPU lacks
 * AVX512F, BW, VL or BMI2 all stay 0 and every call takes the path at 2:
 * and 9:, which holds no vector instruction: the copy is correct on any
 * CPU.
 *
 * The contract is memset's, as in entry_x86_64.c: returns s, sets the low
 * byte of c into [s, s + n), nothing outside; no stack, no call, only
 * caller-saved registers (rax, rcx, rdx, r8, zmm16, k1; zmm16 needs no
 * vzeroupper), so it is safe in a signal handler and in any state of the
 * preload.
 */
#include "entry.h"

#if PCI_PRELOAD_ASM_ENTRY
const unsigned pci_preload_entry_kind = PCI_ENTRY_NEEDS_AVX512;

__asm__(
    PCI_ASM_ENTRY_BEGIN
    /* Layout: the head's line ends at the 0-64 B case's ret (+58), the
     * block starts at a multiple of 128 bytes, as the AVX2 copy's does
     * (entry_x86_64_v3.c says what that measured), and no case that
     * stores crosses a line (the pass-on at 9: runs into the next);
     * objdump -d shows the lines. */
    "	.p2align 7\n"
    PCI_ASM_HEAD
    /* 0-64 B, one masked store (entry.h). */
    PCI_ASM_AVX512_0_64
    /* Near a page's end (entry.h), in a line of its own: a case that
     * crosses one measured up to a quarter slower (entry_x86_64.c). */
    "	.p2align 6\n"
    PCI_ASM_AVX512_END
    /* Longer, or not READY, or the 64-byte store off. In its own line:
     * where the 256-bit cases are on (pci_preload_evex_below, 129), their
     * 32-64 B case to its ret; then 65-128 B where the 64-byte store is
     * on (n - 65 below pci_preload_long_span, unsigned, so the test holds
     * whatever pci_preload_own_below reads at the same moment); else on.
     * The 256-bit cases are for the AVX-512 CPUs where a 512-bit store
     * lowers the clock (Skylake-SP to Ice Lake), laid out as the C
     * library's 256-bit EVEX memset they run lays out its own: 32-64 B two
     * stores, at s and s + n - 32; 65-128 B four; 0-31 B one masked store.
     * Tested after 65-128 B instead, they cost those CPUs' calls of 1-64 B
     * a taken branch more (1 B at a page's end under glibc 2.41: 1.51 of
     * the C library's time against 1.32; docs/preload-short-calls.md, "An
     * entry for the AVX-512 CPUs"). */
    "	.p2align 6\n"
    "2:	cmp	pci_preload_evex_below(%rip), %rdx\n"
    "	jae	9f\n"
    "	vpbroadcastb %esi, %ymm16\n"
    "	cmp	$32, %rdx\n"
    "	jb	6f\n"
    "	cmp	$64, %rdx\n"
    "	ja	5f\n"
    "	vmovdqu64 %ymm16, (%rdi)\n"
    "	vmovdqu64 %ymm16, -32(%rdi,%rdx)\n"
    "	ret\n"
    "9:	lea	-65(%rdx), %rcx\n"
    "	cmp	pci_preload_long_span(%rip), %rcx\n"
    "	jb	8f\n"
    PCI_ASM_PASS_ON
    /* 65-128 B with the 64-byte store: at s and s + n - 64. Four 32-byte
     * stores instead measured 1.06-1.15 of the C library's time at 80-112 B
     * under glibc 2.36, against 0.92-0.96 for these two. */
    "	.p2align 6\n"
    "8:	vpbroadcastb %esi, %zmm16\n"
    "	vmovdqu64 %zmm16, (%rdi)\n"
    "	vmovdqu64 %zmm16, -64(%rdi,%rdx)\n"
    "	ret\n"
    /* 65-128 B with the 256-bit stores: at s, s + 32, s + n - 64 and
     * s + n - 32. */
    "5:	vmovdqu64 %ymm16, (%rdi)\n"
    "	vmovdqu64 %ymm16, 32(%rdi)\n"
    "	vmovdqu64 %ymm16, -64(%rdi,%rdx)\n"
    "	vmovdqu64 %ymm16, -32(%rdi,%rdx)\n"
    "	ret\n"
    /* 0-31 B with the 256-bit stores: k1 holds the low n bits of 32; near
     * a page's end, as in the head, the 32 bytes ending at s + n under the
     * mask of their top n bits (at 4:, in a line of its own). */
    "	.p2align 6\n"
    "6:	mov	%edi, %ecx\n"
    "	and	$4095, %ecx\n"
    "	cmp	$4064, %ecx\n"
    "	ja	4f\n"
    "	mov	$-1, %ecx\n"
    "	bzhi	%edx, %ecx, %ecx\n"
    "	kmovd	%ecx, %k1\n"
    "	vmovdqu8 %ymm16, (%rdi){%k1}\n"
    "	ret\n"
    "	.p2align 6\n"
    "4:	lea	-32(%rdi,%rdx), %r8\n"
    "	mov	$32, %ecx\n"
    "	sub	%edx, %ecx\n"
    "	mov	$-1, %edx\n"
    "	bzhi	%ecx, %edx, %ecx\n"
    "	not	%ecx\n"
    "	kmovd	%ecx, %k1\n"
    "	vmovdqu8 %ymm16, (%r8){%k1}\n"
    "	ret\n"
    PCI_ASM_ENTRY_END);

#endif
