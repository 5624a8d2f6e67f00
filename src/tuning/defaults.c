/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * defaults.c - the thresholds' built-in defaults: one rule per row of
 * thresholds.def, from the CPU and the defaults of the rows above it, each
 * with its reason. The rules read only the CPU description (struct
 * pci_cpu), so tests feed them any machine: tests/unit/test_rules.c checks each
 * against the machines measured, tests/data/thresholds/machines.json
 * (docs/notes.md, "Selection thresholds"). A profile (`pageclear tune`) or
 * a PAGECLEAR_* variable overrides them per host.
 */
#include <stddef.h>

#include "pageclear.h"
#include "cpu.h"
#include "libc_memset.h"
#include "tuning.h"

/* AMD family 26 (Zen 5) on: vector stores outrun rep stosb in the L1 and
 * L2, and rep stosb keeps allocating lines up to the whole L3. A later
 * family is taken to be like the latest one measured. */
#define AMD_FAMILY_ZEN5 26u
static int amd_zen5_on(const struct pci_cpu *c)
{
    return c->vendor == PCI_VENDOR_AMD && c->family >= AMD_FAMILY_ZEN5;
}

/* vector_max: below it vector stores beat rep stosb's start-up; from about
 * the L1d (32-48 KiB on the machines measured) rep stosb keeps up or
 * leads, FSRM or not. Checked against the Intel, Zen 3 and Zen 4 windows. */
#define VECTOR_MAX ((size_t)32 << 10)

/* vector_max on Zen 5: three quarters of the L2, where its vector stores
 * still lead warm. In `use` rep stosb leads there: no threshold serves both
 * and the rule keeps warm, the larger loss. Where cpuid gives no L2, the
 * 1 MiB Zen 5 has. Checked against the Zen 5 window and its conflicts. */
#define VECTOR_MAX_ZEN5_NO_L2 ((size_t)768 << 10)

static size_t default_vector_max(const struct pci_cpu *c, const struct pci_libc *l,
                                 const struct pci_tuning *t)
{
    (void)l;
    (void)t;
    if (amd_zen5_on(c) && (c->features & (PCI_F_AVX2 | PCI_F_AVX512)))
        return c->l2_size != 0 ? c->l2_size / 4 * 3 : VECTOR_MAX_ZEN5_NO_L2;
    return VECTOR_MAX;
}

/* nt_threshold on Intel and the rest: twice the L2. Past it the next level
 * serves cache-allocating stores no faster than streaming stores reach
 * memory. Where cpuid gives no L2, the 4 MiB measured; never above the LLC
 * (a smaller LLC holds less). Checked against the Intel window. */
#define NT_THRESHOLD_NO_L2 ((size_t)4 << 20)

/* nt_threshold on AMD with ERMS (Zen 3 on; Zen 1 and 2 lack it): half the
 * L3. Up to there rep stosb outruns streaming on a warm extent, and past
 * the LLC it stops allocating lines by itself. Zen 3's `use` wants
 * streaming earlier; the rule keeps warm. Where cpuid gives no L3, half of
 * 32 MiB. Checked against the Zen 3 and Zen 4 windows and conflicts. */
#define NT_THRESHOLD_AMD_NO_LLC ((size_t)16 << 20)

/* nt_threshold on Zen 5: the whole L3, to which rep stosb keeps
 * allocating; half of it would lose warm for less gained in `use`. Where
 * cpuid gives no L3, the 32 MiB measured. Checked against the Zen 5 window. */
#define NT_THRESHOLD_ZEN5_NO_LLC ((size_t)32 << 20)

static size_t default_nt_threshold(const struct pci_cpu *c, const struct pci_libc *l,
                                   const struct pci_tuning *t)
{
    (void)l;
    (void)t;
    if (amd_zen5_on(c) && (c->features & PCI_F_ERMS))
        return c->llc_size != 0 ? c->llc_size : NT_THRESHOLD_ZEN5_NO_LLC;
    if (c->vendor == PCI_VENDOR_AMD && (c->features & PCI_F_ERMS))
        return c->llc_size != 0 ? c->llc_size / 2 : NT_THRESHOLD_AMD_NO_LLC;
    size_t nt = c->l2_size != 0 ? 2 * c->l2_size : NT_THRESHOLD_NO_L2;
    if (c->llc_size != 0 && c->llc_size < nt)
        nt = c->llc_size;
    return nt;
}

/* cold_nt_threshold: one page (the smallest a profile takes) wherever the
 * CPU streams. pc_clear_cold's caller will not read the memory soon, and
 * streaming stores have no start-up to amortise. "never" without them.
 * Checked against every machine's cold window and cold picks. */
#define COLD_NT ((size_t)4 << 10)

static size_t default_cold_nt_threshold(const struct pci_cpu *c, const struct pci_libc *l,
                                        const struct pci_tuning *t)
{
    (void)l;
    (void)t;
    int has_nt = (c->features & PCI_F_X86_64) &&
                 (c->features & (PCI_F_AVX2 | PCI_F_AVX512 | PCI_F_CLZERO));
    return has_nt ? COLD_NT : PC_NEVER;
}

/* parallel_nt_threshold: pc_clear_parallel's shares stream where pc_clear
 * does, as before per-thread thresholds existed: no measurement yet says
 * the per-thread share should stream earlier or later by default (tune's
 * per-host choice is in a profile). */
static size_t default_parallel_nt_threshold(const struct pci_cpu *c,
                                            const struct pci_libc *l,
                                            const struct pci_tuning *t)
{
    (void)c;
    (void)l;
    return t->v[PC_THRESHOLD_NT];
}

/* preload_min: memset goes through pc_clear from here. A memset caller
 * promises nothing about the next use, so the preload must not lose in any
 * cache state to the C library's memset. Below nt_threshold both run the
 * same kind of stores; from it streaming wins `use` but loses warm while
 * the cache behind the L2 serves rep stosb: so the larger of nt_threshold
 * and 16 MiB (AMD) or 32 MiB (the rest). Where glibc's memset never takes
 * rep stosb (AMD, 2.40 on: libc_memset.h), pc_clear's rep stosb already
 * wins below nt_threshold: half the L3, from 16 MiB, up to nt_threshold.
 * "never" where pc_clear never streams. Checked against every machine's
 * preload window and test_rules' glibc 2.41 cases (docs/notes.md, "The
 * preload's threshold"). */
#define PRELOAD_MIN_AMD ((size_t)16 << 20)
#define PRELOAD_MIN_OTHER ((size_t)32 << 20)
static size_t default_preload_min(const struct pci_cpu *c, const struct pci_libc *l,
                                  const struct pci_tuning *t)
{
    size_t nt = t->v[PC_THRESHOLD_NT];
    if (nt == PC_NEVER)
        return PC_NEVER;
    size_t floor = c->vendor == PCI_VENDOR_AMD ? PRELOAD_MIN_AMD : PRELOAD_MIN_OTHER;
    if (c->vendor == PCI_VENDOR_AMD && l->stosb_above == PC_NEVER) {
        size_t half_l3 = c->llc_size / 2 > floor ? c->llc_size / 2 : floor;
        return half_l3 < nt ? half_l3 : nt;
    }
    return nt > floor ? nt : floor;
}

void pci_tuning_defaults(const struct pci_cpu *c, const struct pci_libc *l,
                         struct pci_tuning *t)
{
    *t = (struct pci_tuning){0};
    /* Row by row: each rule sees the defaults of the rows above it. */
#define PCI_THRESHOLD(id, index, env, env_min, min, max, never, host, rule, desc) \
    t->v[index] = rule(c, l, t);                                                \
    t->set |= 1u << index;
#include "thresholds.def"
#undef PCI_THRESHOLD
}
