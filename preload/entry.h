/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * entry.h - what the memset entry point reads, shared by preload.c (which
 * writes it, and holds the generic entry) and the entries written in
 * assembly for short calls (docs/notes.md, "Short calls"): entry_x86_64.c,
 * and for the loader to choose by CPU entry_x86_64_v3.c (the AVX2 CPUs,
 * glibc-hwcaps/x86-64-v3/) and entry_x86_64_v4.c (the AVX-512 ones).
 */
#ifndef PCI_PRELOAD_ENTRY_H
#define PCI_PRELOAD_ENTRY_H

#include <stdatomic.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

/* 1 where the x86-64 entries define memset and pci_preload_memset. */
#if defined(__x86_64__) && !defined(__ILP32__) && defined(__ELF__)
#define PCI_PRELOAD_ASM_ENTRY 1
#else
#define PCI_PRELOAD_ASM_ENTRY 0
#endif

/* What the entry linked in holds and needs (pci_preload_entry_kind): */
/* the AVX-512 store (pci_preload_vec_below is read) */
#define PCI_ENTRY_AVX512 1u
/* AVX2 in its 16-2048 B cases, and no 32-2048 B case but AVX2's:
 * pci_preload_own_below stays 0 without AVX2, and is 32 where the AVX2
 * case is off, with pci_preload_long_span 0 (preload.c) */
#define PCI_ENTRY_NEEDS_AVX2 2u
/* AVX-512 (BW, VL) and BMI2 in its 0-128 B cases, and no other case of
 * its own: its spans stay 0 where the CPU lacks them (preload.c) */
#define PCI_ENTRY_NEEDS_AVX512 4u
extern const unsigned pci_preload_entry_kind;

/* The longest call the x86-64 entry stores itself: four 16-byte stores
 * (the x86-64 baseline's vectors, so every CPU runs them) cover 16-64
 * bytes, and past 64 the C library's wider vectors measured ahead. */
#define PCI_PRELOAD_OWN_MAX 64

/* Calls shorter than this the entry's head stores itself: once READY and
 * not counting, PCI_PRELOAD_OWN_MAX + 1 or what the entry kind allows
 * (above; PCI_PRELOAD_WIDE_FROM where the AVX-512 copy's 64-byte stores
 * take 64 B), or preload_min where that is shorter; else 0 (every call the
 * C library's, or counted, or on the safe path). Atomic because a thread
 * may read it while the constructor sets it; either value is safe. */
extern _Atomic size_t pci_preload_own_below;
/* Calls shorter than this the x86-64 entry stores with one AVX-512 masked
 * store: PCI_PRELOAD_OWN_MAX + 1 when pci_preload_own_below is and the
 * CPU and OS run it at full speed (short_stores.h), else 0. */
extern _Atomic size_t pci_preload_vec_below;
/* Calls from this length up to 64 B the x86-64 entry stores with two AVX2
 * 32-byte stores: 32 where the CPU runs AVX2 and the AVX-512 store is not
 * chosen (short_stores.h), else SIZE_MAX from the start, so that any order of the
 * limits' stores is safe. */
extern _Atomic size_t pci_preload_ymm_from;
/* The longest call a copy's entry stores itself: the last before the C
 * library's memset takes rep stosb, to which each stores as it does. */
#define PCI_PRELOAD_SPAN_MAX (PCI_PRELOAD_STOSB_FROM - 1)

/* The copies' entries store calls from their first span length F to
 * F - 1 + this many bytes themselves, at most to PCI_PRELOAD_SPAN_MAX:
 * the AVX2 copy from 65 B (1984 where its case is on), the AVX-512 one
 * from 64 B in 64-byte stores (1985 where they are on); less where
 * preload_min is shorter; else 0. A span, not a
 * limit, so that the test holds whatever pci_preload_own_below reads at
 * the same moment. */
extern _Atomic size_t pci_preload_long_span;
/* The AVX-512 copy's first span length: 64 B, which it stores with two
 * 64-byte stores where those are on, as the C library's memset does. */
#define PCI_PRELOAD_WIDE_FROM 64
/* The AVX-512 copy stores calls of 64 B to 63 + this many bytes with four
 * 32-byte stores: 65 (to 128 B) where it runs them and not the 64-byte
 * ones, else 0. A span, as that one. */
extern _Atomic size_t pci_preload_evex_span;
/* The AVX-512 copy stores calls of PCI_PRELOAD_STOSB_FROM to that - 1 +
 * this many bytes with rep stosb where the C library's memset there does
 * (short_stores.h, pci_preload_stosb_as_libc): up to PCI_PRELOAD_STOSB_MAX (less
 * where preload_min is shorter), else 0. A span, as the two above. */
extern _Atomic size_t pci_preload_stosb_span;
/* The first length the C library stores with rep stosb: one more than
 * its x86_rep_stosb_threshold's default (it takes rep stosb above it). */
#define PCI_PRELOAD_STOSB_FROM 2049
/* The last: where the jump to the C library's memset no longer shows
 * against the time of the call (docs/notes.md, "Calls of 2-64 KiB"). */
#define PCI_PRELOAD_STOSB_MAX 65536

/* Calls shorter than this (and not stored by the entry) go straight to
 * pci_preload_real; the others to pci_preload_set. preload.c says when
 * each value holds. */
extern _Atomic size_t pci_preload_fast_min;
/* The next memset in the lookup order, once resolved. */
extern void *(*pci_preload_real)(void *, int, size_t);

/* Every call the fast path does not finish: the states, pageclear, the
 * counters (preload.c). */
void *pci_preload_set(void *s, int c, size_t n);

/* The entry behind memset, bzero, explicit_bzero and __memset_chk. */
void *pci_preload_memset(void *s, int c, size_t n);

#if PCI_PRELOAD_ASM_ENTRY
/* The assembler text the x86-64 entries share: the same bytes in each that
 * uses them (each lays its cases out differently). */

/* memset and pci_preload_memset, one function at one address */
#define PCI_ASM_ENTRY_BEGIN                                                                    \
    "	.text\n"                                                                               \
    "	.globl	pci_preload_memset\n"                                                          \
    "	.hidden	pci_preload_memset\n"                                                          \
    "	.type	pci_preload_memset, @function\n"                                               \
    "	.globl	memset\n"                                                                      \
    "	.type	memset, @function\n"
#define PCI_ASM_ENTRY_END                                                                      \
    "	.size	pci_preload_memset, . - pci_preload_memset\n"                                  \
    "	.size	memset, . - memset\n"

/* cmp VAR(%rip), %REG: a compare of a limit, read from its variable on
 * every call (7 bytes). The code is never written at run time: no page of
 * the process becomes writable and executable because of the preload
 * (tests/integration/preload/wx.c holds it to that). */
#define PCI_ASM_CMP(var, reg) "	cmp	" var "(%rip), %" reg "\n"

/* The tail jump to the next memset, through its pointer. */
#define PCI_ASM_JMP_REAL "	jmp	*pci_preload_real(%rip)\n"

/* The head: memset's first instructions, after the entry's own alignment.
 * rax holds the return value from here on; a call not shorter than
 * pci_preload_own_below (every call until READY) goes to the entry's 2:. */
#define PCI_ASM_HEAD                                                                           \
    "pci_preload_memset:\n"                                                                    \
    "memset:\n"                                                                                \
    "	mov	%rdi, %rax\n"                                                                      \
    PCI_ASM_CMP("pci_preload_own_below", "rdx")                                                \
    "	jae	2f\n"

/* Calls the entry does not store (longer, not READY, or its stores off):
 * the C library's memset below the threshold, as a tail jump, and
 * everything else pci_preload_set. No vector instruction, so any CPU
 * runs it. Each entry labels it 2:. */
#define PCI_ASM_PASS_ON                                                                        \
    PCI_ASM_CMP("pci_preload_fast_min", "rdx")                                                 \
    "	jae	pci_preload_set\n" PCI_ASM_JMP_REAL

/* At 3: 0-3 B, the first, middle and last byte. */
#define PCI_ASM_0_3                                                                            \
    "3:	test	%edx, %edx\n"                                                                  \
    "	je	9f\n"                                                                              \
    "	mov	%sil, (%rdi)\n"                                                                    \
    "	mov	%sil, -1(%rdi,%rdx)\n"                                                             \
    "	shr	%edx\n"                                                                            \
    "	mov	%sil, (%rdi,%rdx)\n"                                                               \
    "9:	ret\n"

/* At 1: 4-15 B, four 4-byte stores at s, s + b, s + n - 4 - b and
 * s + n - 4, with b = 4 from 8 B and 0 below: [s, s + 8) and
 * [s + n - 8, s + n) from 8 B, which cover n up to 16, without a branch. */
#define PCI_ASM_4_15                                                                           \
    "1:	movzbl	%sil, %ecx\n"                                                                 \
    "	imul	$0x01010101, %ecx, %ecx\n"                                                      \
    "	mov	%edx, %r8d\n"                                                                      \
    "	shr	$3, %r8d\n"                                                                        \
    "	shl	$2, %r8d\n"                                                                        \
    "	mov	%ecx, (%rdi)\n"                                                                    \
    "	mov	%ecx, -4(%rdi,%rdx)\n"                                                             \
    "	mov	%ecx, (%rdi,%r8)\n"                                                                \
    "	sub	%r8, %rdi\n"                                                                       \
    "	mov	%ecx, -4(%rdi,%rdx)\n"                                                             \
    "	ret\n"
#endif

#pragma GCC visibility pop

#endif
