/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * defaults.c - the thresholds' built-in defaults: one rule per row of
 * thresholds.def, from the CPU and the defaults of the rows above it, each
 * with the measurement behind it. The rules read only the CPU description
 * (struct pci_cpu), so tests feed them any machine. A profile
 * (`pageclear tune`) or a PAGECLEAR_* variable overrides them per host.
 */
#include <stddef.h>

#include "pageclear.h"
#include "cpu.h"
#include "libc_memset.h"
#include "tuning.h"

/*
 * The rules below are checked against four machines' measured crossovers
 * (tests/test_rules.c; docs/notes.md, "Selection thresholds"; the parts
 * and sections cited below are the old measurement pages, which
 * docs/notes.md lists, "Where the old pages are"): the Intel
 * Xeon guest (Sapphire/Emerald Rapids class, L2 2 MiB, AVX-512, Part I),
 * the AMD EPYC Zen 4 guest (L2 1 MiB, L3 32 MiB, AVX-512, CLZERO, Part II),
 * the AMD EPYC Zen 3 guest (L2 512 KiB, L3 32 MiB, AVX2, CLZERO, no
 * AVX-512, Part III, section 16) and the AMD EPYC Zen 5 guest (family 26,
 * L2 1 MiB, L3 32 MiB, AVX-512, CLZERO, Part VI).
 */

/* AMD's family 26 (Zen 5) and later: the first AMD cores measured here
 * whose vector stores outrun rep stosb in the L1 and L2 and whose
 * rep stosb keeps allocating lines up to the whole L3 (Part VI). A later
 * family is taken to be like the latest one measured. */
#define AMD_FAMILY_ZEN5 26u
static int amd_zen5_on(const struct pci_cpu *c)
{
    return c->vendor == PCI_VENDOR_AMD && c->family >= AMD_FAMILY_ZEN5;
}

/* vector_max: below this length vector stores beat rep stosb, whose
 * start-up costs a few tens of cycles even with FSRM; from about the L1d
 * size on rep stosb keeps up or leads. One value serves the Intel, Zen 3
 * and Zen 4 guests, whose L1d are 32-48 KiB (Zen 5 has its own rule,
 * below): on the Intel guest (`pageclear mem clear -s SIZE -f NAME
 * -n 9`, Part I section 2) avx512
 * led stosb by ~25% at 4 and 16 KiB, tied at 24-40 KiB and trailed by a
 * third at 48 KiB (its L1d); on the Zen 4 guest `pageclear tune` put it
 * anywhere from 4 to 64 KiB, the candidates within the noise of each
 * other (section 10); on the Zen 3 guest avx2 and stosb are within 6% at
 * 64 KiB warm (Part III, section 16). FSRM does not move it: the Intel
 * guest has FSRM. */
#define VECTOR_MAX ((size_t)32 << 10)

/* vector_max on Zen 5: three quarters of the L2. Zen 5 stores 64 bytes a
 * cycle from AVX2 and AVX-512 registers alike, where rep stosb stays at
 * about 170 GB/s from 16 KiB to 1 MiB. Zen 5 guest, warm, interleaved,
 * medians of 9 (Part VI, section 26): avx512 / stosb 267 / 168 GB/s at
 * 32 KiB, 250 / 172 at 256 KiB, 220-268 / 172 at 640 KiB, then level or
 * behind from 768-896 KiB (167-208 / 171, 175-217 / 172) and behind at
 * 1 MiB (145-156 / 170); avx2 within 5% of avx512 throughout. In `use`
 * rep stosb leads from 16 KiB (it writes whole lines of a cold extent
 * without reading them first), by 6-13% in two passes and 11-22% in three
 * later ones (up to 22% at 16 KiB, 16% at 64 KiB): no threshold serves
 * both states, and the rule keeps warm, whose loss (36-37% at 16-640 KiB
 * with the 32 KiB rule) is the larger, as the Zen 3 rule below does.
 * Weighed as `check` and `tune` weigh pc_clear (a loss over its
 * tolerance: 5% in use, 10% in warm) the two sides are level within the
 * runs' spread, 3.6-3.7 against 1.2-4.4: `pageclear tune` there chose
 * 512 KiB (use 13% at 64 KiB) in one run and 16 KiB (use 20% at 16 KiB)
 * in the next. Where cpuid gives no L2, the 1 MiB Zen 5 has. */
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

/* nt_threshold on Intel (and any CPU but AMD's): twice the L2. Past the
 * L2 the next level serves cache-allocating stores no faster than
 * streaming stores reach memory, and the lines a clear leaves are evicted
 * before the caller reads them. On the Intel guest (L2 2 MiB; Part I,
 * interleaved, median of 7, GB/s stosb / avx512-nt): use 9.0 / 8.9 at
 * 1 MiB, 7.2 / 9.3 at 4 MiB, 6.0 / 8.7 at 16 MiB; warm 43 / 24 at 1 MiB,
 * 28 / 24 at 4 MiB, 24 / 24 at 16 MiB, and warm stosb falls from 47 GB/s
 * at 1 MiB to 26 at 4 MiB (section 1) as the extent leaves the L2. So the
 * crossover lies above 1 MiB (warm would lose 44%) and at most 4 MiB (from
 * 16 MiB `use` loses 23% at 4 MiB): 4 MiB, whose worst loss is warm's 14%
 * at 4 MiB. Where cpuid gives no L2, that measured 4 MiB; never above the
 * LLC (a smaller LLC holds less; a tenant-shared one is no reason to raise
 * it). */
#define NT_THRESHOLD_NO_L2 ((size_t)4 << 20)

/* nt_threshold on AMD with ERMS (Zen 3 on; Zen 1 and 2 lack ERMS): half
 * the L3 a core sees. Zen's L3 serves cache-allocating stores at 60-100
 * GB/s, so a warm extent up to about half of it clears faster with
 * rep stosb than with streaming stores, and rep stosb stops allocating
 * lines by itself from about the LLC size (Part II section 9).
 * Zen 4 guest, 32 MiB L3 (sections 9 and 10): warm favours stosb up to
 * 8 MiB (92 / 82 GB/s at 8 MiB against clzero) and streaming from 16 MiB
 * (+40-50%); use favours streaming by 6% at 8 MiB and 20% at 16 MiB: the
 * window is 8-16 MiB. Zen 3 guest, 32 MiB L3 (Part III, section 16):
 * warm at 8 MiB clzero gave 43.7 GB/s against avx2 67.3 and stosb 64.1,
 * so the threshold must lie above 8 MiB; use at 16 MiB streams (clzero
 * 13.0 against glibc 2.36's memset, rep stosb there, 8.7). Half the L3, 16 MiB, lands in both.
 * What no threshold fixes on Zen 3: in `use` streaming leads from ~1 MiB
 * (clzero +29% at 1 MiB, +35% at 4 MiB) while in `warm` it loses 30-50% up
 * to 8 MiB; a threshold below 8 MiB trades one for the other (a profile
 * from tune took the use side: use 0.96, warm 0.74 of the best). The rule
 * keeps warm, whose loss would be the larger. Where cpuid gives no L3,
 * half of the 32 MiB both guests have. */
#define NT_THRESHOLD_AMD_NO_LLC ((size_t)16 << 20)

/* nt_threshold on Zen 5: the whole L3. There rep stosb keeps allocating
 * lines, and a warm extent keeps clearing at 120-135 GB/s, up to 28 MiB of
 * the 32 MiB L3, where streaming stores stay at 94; it falls to 80-106
 * from 29-32 MiB (Zen 5 guest, interleaved, medians of 9, Part VI,
 * section 26). `use` favours streaming by 6-18% from 16 MiB: half the L3,
 * the Zen 3 and 4 rule, would lose 25% warm at 16-28 MiB to gain that.
 * At 32 MiB streaming leads both (warm +15%, use +4%); `pageclear tune`
 * there chose 32 MiB too. Where cpuid gives no L3, the 32 MiB measured. */
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

/* cold_nt_threshold: from one page (the smallest a profile takes),
 * wherever the CPU has streaming stores (non-temporal vector stores or
 * clzero). pc_clear_cold's caller will not read the memory soon, so a line
 * brought into cache is a read of memory for nothing, and streaming stores
 * have no start-up to amortise. Intel guest, extents not in cache
 * (`pageclear mem clear --cache cold -s SIZE -f all -n 9`, section 17):
 * avx512-nt 11.1 / 14.7 / 17.8 GB/s at 4 / 8 / 16 KiB against 7.8 /
 * 6.5 / 8.4 for avx512 (the end of the vector range, the old default,
 * ran avx512 there), and 21-25 against 10-12 for rep stosb from 64 KiB
 * to 256 MiB. Zen 4 guest, `pageclear tune` (section 10): 4-8 KiB in every
 * run, clzero +10% at 4 KiB and +35% at 16 KiB. Zen 3 guest (Part III,
 * section 16): at 4 KiB cold avx2 gave 17.8 GB/s where clzero gave 19.5. Without
 * streaming stores it is "never", said honestly. */
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

/* preload_min: the length from which libpageclear-preload.so sends a
 * program's memset through pc_clear's selection. A memset caller promises
 * nothing about the memory's next use, so the preload must not lose in
 * any cache state to the C library's memset, which for large extents is
 * mostly the string instruction (glibc 2.36 has no streaming memset; the
 * last case below is where it is not). Below
 * nt_threshold pc_clear runs the same kinds of stores as memset: nothing
 * to gain, a call to pay. From nt_threshold streaming wins `use` but can
 * lose `warm`, as long as the cache behind the L2 serves rep stosb faster
 * than streaming stores reach memory:
 * - AMD (nt_threshold half the L3): on the Zen 4 guest rep stosb leads
 *   `warm` by 6-12% up to 8 MiB and streaming by 40-50% from 16 MiB; on
 *   the Zen 3 guest pc_clear gave 49.4 GB/s at 16 MiB warm against glibc
 *   2.36's memset's 36.6 (Part III, section 16). So from
 *   16 MiB.
 *   On Zen 5 nt_threshold is the whole L3 (32 MiB), and so is this: there
 *   `pageclear tune` found clzero level with glibc 2.36's memset at 32 MiB
 *   warm (98.4 / 97.1 GB/s) and 5% ahead in `use` (Part VI).
 * - Intel and the rest (nt_threshold from the L2): on the Xeon guest
 *   memset through the preload against without, `pageclear mem memset -f
 *   glibc -v 0 -s SIZE -n 7 --cache warm`, three interleaved rounds
 *   (docs/notes.md, "The preload's threshold"): 0.89-0.97 at 16 MiB (rep
 *   stosb still
 *   served from the 260 MiB LLC), 1.01-1.22 at 32 MiB. So from 32 MiB,
 *   giving up `use`'s 1.4x at 16 MiB for never losing `warm`.
 * - Where the C library's memset never takes rep stosb on AMD (glibc
 *   2.40 on, libc_memset.h: its vector loop at every size), the premise
 *   above fails: below nt_threshold pc_clear's rep stosb outruns that
 *   loop. Zen 5 guest under glibc 2.41 (`scripts/preload_states.py
 *   --states warm,use,cold --passes 3 --min 8M --glibc
 *   ../shared/tools/newer-glibc.sh 8MB 16MB 24MB`, the preload against
 *   that memset, docs/notes.md, "The preload's threshold"): 16 MiB warm 1.07,
 *   use 1.03,
 *   cold 1.20; 24 MiB 1.67, 1.08, 1.13; but 8 MiB use 0.96. So half the
 *   L3 (16 MiB on every AMD guest measured), never below the 16 MiB
 *   above, never above nt_threshold.
 * "never" where pc_clear never streams; tune measures it per host. */
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
