/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * entry_x86_64_v4.c - memset's entry point in the preload's copy for the
 * AVX-512 CPUs (glibc-hwcaps/x86-64-v4/), the dynamic loader's choice
 * there when the filter users name loads the preload (filter.c).
 *
 * Why a copy: entry_x86_64.c's first line goes to the tests every x86-64
 * CPU needs, and its AVX-512 store, two lines in, lost to the C library's.
 * Here the first line holds the state test and the whole 0-64 B case: two
 * 32-byte EVEX stores of ymm16 under one mask, which keep the clock on
 * every AVX-512 CPU, those before AVX-VNNI (Skylake-SP to Ice Lake, short_stores.h)
 * too (docs/notes.md, "Two 32-byte stores for every AVX-512 CPU"). It
 * stores 65-128 B as well, and where 512-bit stores keep the clock
 * 64-2048 B in 64-byte ones, since the tests before the jump to the C
 * library cost more than its stores (docs/notes.md, "Calls passed on:
 * 129-320 B"); where the C library takes rep stosb above 2 KiB, so does
 * this entry, to 64 KiB. preload.c turns each span on (entry.h) only where
 * short_stores.h's rules allow; else every call takes the path at 2:, which holds
 * no vector instruction: the copy is correct on any CPU.
 *
 * The contract is memset's, as in entry_x86_64.c: returns s, sets the low
 * byte of c into [s, s + n), nothing outside; no stack, no call, only
 * caller-saved registers (rax, rcx, rdx, rsi, rdi, r8, zmm16, k1; zmm16 needs
 * no vzeroupper), so it is safe in a signal handler and in any state of
 * the preload.
 */
#include "entry.h"

#if PCI_PRELOAD_ASM_ENTRY
const unsigned pci_preload_entry_kind = PCI_ENTRY_NEEDS_AVX512;

/* 2: and its cases write the spans' first length out. */
_Static_assert(PCI_PRELOAD_WIDE_FROM == 64, "entry_x86_64_v4.c writes 64 out");

__asm__(
    PCI_ASM_ENTRY_BEGIN
    /* Layout: 64-byte lines, the second padding (2: starts a line); the
     * block starts at a multiple of 128 bytes, as the AVX2 copy's does, and
     * no case that stores crosses a line but 257-512 B and the loop from
     * 513 B (docs/notes.md, "The AVX-512 copy stores 513-2048 B"). The
     * head's line ends at the 0-64 B case's ret, at +63 exactly: every
     * instruction there is the shortest form found (sbb for the all-ones
     * mask, test on ch for the page bit): each byte more put the ret in the
     * next line. objdump -d shows the lines. */
    "	.p2align 7\n"
    PCI_ASM_HEAD
    /* 0-64 B: k1 holds the low min(n, 32) bits (CF is set here: the
     * head's compare found n below the limit, so sbb gives all ones, and
     * bzhi keeps all 32 from n = 32 on). The stores go to s and to
     * s + max(n, 32) - 32: from 32 B two full 32-byte stores with no
     * masked-off byte, so a call that ends at a page's end stores here, as
     * the C library's 32-64 B case does; below 32 B the same masked store
     * twice at s. Masked-off bytes in a page that is not mapped cost a
     * microcode assist (entry_x86_64.c), so a call whose first 32 bytes
     * would reach the next 4 KiB page (bit 12 of s + 31 differs from s's)
     * stores at 7: instead. */
    "	sbb	%ecx, %ecx\n"
    "	bzhi	%edx, %ecx, %ecx\n"
    "	kmovd	%ecx, %k1\n"
    "	vpbroadcastb %esi, %ymm16\n"
    "	lea	31(%rdi), %ecx\n"
    "	xor	%edi, %ecx\n"
    "	test	$0x10, %ch\n"
    "	jne	7f\n"
    "	mov	$32, %ecx\n"
    "	cmp	%ecx, %edx\n"
    "	cmovae	%edx, %ecx\n"
    "	vmovdqu8 %ymm16, (%rdi){%k1}\n"
    "	vmovdqu8 %ymm16, -32(%rdi,%rcx){%k1}\n"
    "	ret\n"
    /* Longer, or not READY, or the cases off: 64 B on where a span is on
     * (n - 64 below it, unsigned, so the test holds whatever
     * pci_preload_own_below reads at the same moment), then 2049 B on
     * where rep stosb's is (n - 2049 below it), else on. The 64-byte
     * stores' span is tested first and its case falls through, one test
     * and one taken branch after the head (docs/notes.md, "Zen 5: the
     * 64-byte case falls through", "The 32-byte span tested first again").
     * Where the 32-byte stores are on (Skylake-SP to Ice Lake), 65-128 B
     * take a taken branch more: not measured there. */
    "	.p2align 6\n"
    "2:	lea	-64(%rdx), %rcx\n"
    PCI_ASM_CMP("pci_preload_long_span", "rcx")
    "	jae	11f\n"
    /* 64-2048 B with the 64-byte store (rcx holds n - 64): 64-128 B at s
     * and s + n - 64; 129-256 B at s, s + 64, s + n - 128 and s + n - 64;
     * 257-512 B four from s and four ending at s + n; 513-2048 B at 8:
     * (below). Past 128 B glibc 2.36's memset stores the same way on this
     * CPU, and both the order of the stores and which case falls through
     * counted (docs/notes.md, "Calls of 129-512 B stored here", "Which case
     * falls through, 129-512 B"). */
    "	vpbroadcastb %esi, %zmm16\n"
    "	vmovdqu64 %zmm16, (%rdi)\n"
    "	cmp	$64, %rcx\n"
    "	ja	4f\n"
    "	vmovdqu64 %zmm16, -64(%rdi,%rdx)\n"
    "	ret\n"
    /* 129-2048 B: rcx is below pci_preload_long_span here, so ecx holds
     * it whole; its 4-byte compare keeps the first jump 2 bytes long.
     * 513-2048 B are a taken branch away, past the pass-on: placed
     * before it, they made 2:'s jump to the pass-on 6 bytes long. */
    "4:	cmp	$192, %ecx\n"
    "	jbe	6f\n"
    "	cmp	$448, %ecx\n"
    "	ja	8f\n"
    "	vmovdqu64 %zmm16, 64(%rdi)\n"
    "	vmovdqu64 %zmm16, 128(%rdi)\n"
    "	vmovdqu64 %zmm16, 192(%rdi)\n"
    "	vmovdqu64 %zmm16, -256(%rdi,%rdx)\n"
    "	vmovdqu64 %zmm16, -192(%rdi,%rdx)\n"
    "	vmovdqu64 %zmm16, -128(%rdi,%rdx)\n"
    "	vmovdqu64 %zmm16, -64(%rdi,%rdx)\n"
    "	ret\n"
    "	.p2align 6\n"
    "6:	vmovdqu64 %zmm16, 64(%rdi)\n"
    "	vmovdqu64 %zmm16, -128(%rdi,%rdx)\n"
    "	vmovdqu64 %zmm16, -64(%rdi,%rdx)\n"
    "	ret\n"
    /* The other spans, then on. */
    "11:\n"
    PCI_ASM_CMP("pci_preload_evex_span", "rcx")
    "	jb	5f\n"
    "	lea	-2049(%rdx), %rcx\n"
    PCI_ASM_CMP("pci_preload_stosb_span", "rcx")
    "	jb	10f\n"
    PCI_ASM_PASS_ON
    /* 513-2048 B (rcx is free), as glibc 2.36's memset here stores them:
     * 64-byte stores at s to s + 192 (s at 2:), then a loop of four aligned
     * ones from r8 = (s & -64) + 256, in (s + 192, s + 256], while short of
     * rcx = s + n - 256 (so each round's stores end before s + n; the first
     * round runs, as n > 512 puts rcx past s + 256), then the four ending at
     * s + n. Past 2048 B that memset turns to rep stosb
     * (PCI_PRELOAD_STOSB_FROM), and so does this entry where
     * pci_preload_stosb_span is on. */
    "8:	vmovdqu64 %zmm16, 64(%rdi)\n"
    "	vmovdqu64 %zmm16, 128(%rdi)\n"
    "	vmovdqu64 %zmm16, 192(%rdi)\n"
    "	lea	-256(%rdi,%rdx), %rcx\n"
    "	mov	%rdi, %r8\n"
    "	and	$-64, %r8\n"
    "	add	$256, %r8\n"
    "12:	vmovdqa64 %zmm16, (%r8)\n"
    "	vmovdqa64 %zmm16, 64(%r8)\n"
    "	vmovdqa64 %zmm16, 128(%r8)\n"
    "	vmovdqa64 %zmm16, 192(%r8)\n"
    "	add	$256, %r8\n"
    "	cmp	%rcx, %r8\n"
    "	jb	12b\n"
    "	vmovdqu64 %zmm16, (%rcx)\n"
    "	vmovdqu64 %zmm16, 64(%rcx)\n"
    "	vmovdqu64 %zmm16, 128(%rcx)\n"
    "	vmovdqu64 %zmm16, 192(%rcx)\n"
    "	ret\n"
    /* 0-64 B where s's first 32 bytes reach the next page (s more than
     * 4064 bytes into its page), in a line of its own, without a branch:
     * k1 holds the top min(n, 32) bits, and the stores go to s + n - 32
     * and to s + min(n, 32) - 32. From 32 B that is [s + n - 32, s + n)
     * and [s, s + 32), all the caller's; below, the 32 bytes ending at
     * s + n twice, whose masked-off bytes [s + n - 32, s) lie in s's own
     * page. ymm16 holds the byte (the head), so esi is free. */
    "	.p2align 6\n"
    "7:	mov	$32, %ecx\n"
    "	cmp	%ecx, %edx\n"
    "	cmovb	%edx, %ecx\n"
    "	lea	-32(%rdi,%rdx), %rdx\n"
    "	lea	-32(%rdi,%rcx), %r8\n"
    "	sub	$32, %ecx\n"
    "	neg	%ecx\n"
    "	mov	$-1, %esi\n"
    "	bzhi	%ecx, %esi, %ecx\n"
    "	not	%ecx\n"
    "	kmovd	%ecx, %k1\n"
    "	vmovdqu8 %ymm16, (%rdx){%k1}\n"
    "	vmovdqu8 %ymm16, (%r8){%k1}\n"
    "	ret\n"
    /* 65-128 B with 32-byte stores, where a 512-bit one lowers the clock
     * (rcx holds n - 64, and the head stores 64 B there):
     * at s, s + 32, s + n - 64 and s + n - 32. */
    "	.p2align 6\n"
    "5:	vpbroadcastb %esi, %ymm16\n"
    "	vmovdqu64 %ymm16, (%rdi)\n"
    "	vmovdqu64 %ymm16, 32(%rdi)\n"
    "	vmovdqu64 %ymm16, -64(%rdi,%rdx)\n"
    "	vmovdqu64 %ymm16, -32(%rdi,%rdx)\n"
    "	ret\n"
    /* 2049 B to 64 KiB where the C library's memset takes rep stosb too
     * (pci_preload_stosb_span; short_stores.h): the same instruction, without the
     * jump to it (docs/notes.md, "Calls of 2-64 KiB"). The direction flag
     * is clear at any call (the ABI; the kernel clears it for a signal
     * handler). rdx keeps s for the return value while al holds the byte. */
    "	.p2align 6\n"
    "10:	mov	%rdx, %rcx\n"
    "	movzbl	%sil, %eax\n"
    "	mov	%rdi, %rdx\n"
    "	rep stosb\n"
    "	mov	%rdx, %rax\n"
    "	ret\n"
    PCI_ASM_ENTRY_END);

#endif
