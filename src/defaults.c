/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * defaults.c - the thresholds' built-in defaults: one rule per row of
 * thresholds.def, from the CPU and the defaults of the rows above it, each
 * with the measurement behind it. A profile (`pageclear tune`) or a
 * PAGECLEAR_* variable overrides them per host.
 */
#include <stddef.h>

#include "pageclear.h"
#include "cpu.h"
#include "tuning.h"

/* vector_max: below this length vector stores beat rep stosb, whose
 * start-up costs a few tens of cycles even with FSRM. Measured with
 * `pageclear mem clear -s SIZE -f NAME -n 9` on the Xeon (Sapphire Rapids
 * class, L1d 48 KiB) guest (docs/measurements.md, section 2): avx512 led
 * stosb by ~25% at 4 and 16 KiB, tied at 24-40 KiB and trailed by a third
 * at 48 KiB, where the extent no longer fits L1d. */
static size_t default_vector_max(const struct pci_cpu *c, const struct pci_tuning *t)
{
    (void)c;
    (void)t;
    return (size_t)32 << 10;
}

/* nt_threshold on Intel: from this length non-temporal stores serve
 * pc_clear's contract (the caller is about to use the memory). Chosen on
 * the `use` state, with `warm` not to lose badly, on the Xeon guest
 * (docs/measurements.md, Part I), interleaved, median of 7, GB/s stosb /
 * avx512-nt: use 9.0 / 8.9 at 1 MiB, 7.2 / 9.3 at 4 MiB, 6.0 / 8.7 at
 * 16 MiB; warm 43 / 24 at 1 MiB, 28 / 24 at 4 MiB, 24 / 24 at 16 MiB.
 * From 4 MiB the worst loss is warm's 14% at 4 MiB; from 16 MiB (the
 * earlier default, set on warm alone, section 2) it was use's 23% at
 * 4 MiB. A smaller LLC lowers it further. */
#define NT_THRESHOLD_INTEL ((size_t)4 << 20)
/* AMD's, where cpuid gives no LLC: a quarter of Zen 4's 32 MiB (below). */
#define NT_THRESHOLD_AMD ((size_t)8 << 20)

/* nt_threshold: AMD Zen 3/4 stop allocating lines for rep stosb once the
 * extent reaches about the LLC size (on the Zen 4 guest, cold extents
 * from the LLC on clear as fast with rep stosb as with streaming stores:
 * docs/measurements.md, section 9), but below that point streaming stores
 * win the states pc_clear serves. Zen 4 guest, 32 MiB L3, `pageclear tune`
 * (15 interleaved runs; section 10 has one run and how the choice moved
 * between runs): `use` favours streaming from 4-8 MiB (+8% at 4 MiB,
 * +19-22% at 8-16 MiB), `warm` favours stosb up to 8 MiB (+6-12%) and
 * streaming from 16 MiB (+40-50%); tune chose 8 MiB, a quarter of the L3.
 * Elsewhere, Intel's measurement above. */
static size_t default_nt_threshold(const struct pci_cpu *c, const struct pci_tuning *t)
{
    (void)t;
    if (c->vendor == PCI_VENDOR_AMD && (c->features & PCI_F_ERMS))
        return c->llc_size != 0 ? c->llc_size / 4 : NT_THRESHOLD_AMD;
    if (c->llc_size != 0 && c->llc_size < NT_THRESHOLD_INTEL)
        return c->llc_size;
    return NT_THRESHOLD_INTEL;
}

/* cold_nt_threshold: pc_clear_cold streams from the end of the vector
 * range, where the CPU has non-temporal vector stores or clzero: its
 * caller will not read the memory soon, so keeping lines in cache buys
 * nothing, and the cold extents such callers clear favour streaming
 * stores from small sizes on. Measured on the Intel guest with extents not
 * in cache, interleaved, median of 7: avx512-nt 21-25 GB/s against 10-12
 * for rep stosb from 64 KiB to 256 MiB. Below the vector range the vector
 * stores' short start-up wins whatever the cache holds. On the Zen 4 guest
 * `pageclear tune` put it at 4-8 KiB in every run (docs/measurements.md,
 * section 10); a profile carries that per host. Without streaming stores
 * it is "never", said honestly. */
static size_t default_cold_nt_threshold(const struct pci_cpu *c, const struct pci_tuning *t)
{
    int has_nt = (c->features & PCI_F_X86_64) &&
                 (c->features & (PCI_F_AVX2 | PCI_F_AVX512 | PCI_F_CLZERO));
    return has_nt ? t->v[PC_THRESHOLD_VECTOR_MAX] : PC_NEVER;
}

/* parallel_nt_threshold: pc_clear_parallel's shares stream where pc_clear
 * does, as before per-thread thresholds existed: no measurement yet says
 * the per-thread share should stream earlier or later by default (tune's
 * per-host choice is in a profile). */
static size_t default_parallel_nt_threshold(const struct pci_cpu *c,
                                            const struct pci_tuning *t)
{
    (void)c;
    return t->v[PC_THRESHOLD_NT];
}

/* preload_min: the length from which libpageclear-preload.so sends a
 * program's memset through pc_clear's selection. A memset caller promises
 * nothing about the memory's next use, so the preload must not lose in
 * any cache state to the C library's memset, which for large extents is
 * the string instruction (glibc 2.36 has no streaming memset). Below
 * nt_threshold pc_clear runs the same kinds of stores as memset: nothing
 * to gain, a call to pay. From nt_threshold streaming wins `use` but can
 * lose `warm`: on the Xeon guest (nt_threshold's figures above) 14% at
 * 4 MiB and a tie (24 / 24 GB/s) at 16 MiB, on the Zen 4 guest stosb
 * leads `warm` by 6-12% up to 8 MiB and streaming by 40-50% from 16 MiB.
 * Hence the larger of nt_threshold and 16 MiB, where neither guest's
 * `warm` loses; "never" where pc_clear never streams. */
#define PRELOAD_MIN_WARM_TIE ((size_t)16 << 20)
static size_t default_preload_min(const struct pci_cpu *c, const struct pci_tuning *t)
{
    (void)c;
    size_t nt = t->v[PC_THRESHOLD_NT];
    if (nt == PC_NEVER)
        return PC_NEVER;
    return nt > PRELOAD_MIN_WARM_TIE ? nt : PRELOAD_MIN_WARM_TIE;
}

void pci_tuning_defaults(const struct pci_cpu *c, struct pci_tuning *t)
{
    *t = (struct pci_tuning){0};
    /* Row by row: each rule sees the defaults of the rows above it. */
#define PCI_THRESHOLD(id, index, env, env_min, min, max, never, host, rule, desc) \
    t->v[index] = rule(c, t);                                                   \
    t->set |= 1u << index;
#include "thresholds.def"
#undef PCI_THRESHOLD
}
