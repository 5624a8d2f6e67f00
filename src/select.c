/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * select.c - choosing the primitive: a pure selector from CPU features,
 * thresholds and extent length (one per plan kind: pc_clear, the hint's
 * cache-allocating stores, pc_clear_cold, pc_clear_parallel), and the plan
 * that resolves it once for every length.
 */
#include "pageclear.h"
#include "cpu.h"
#include "impl.h"
#include "plan.h"
#include "tuning.h"

/* The primitive for len: a pure function, so it can be tested by feeding
 * it any CPU. temporal restricts it to cache-allocating stores. */
int pci_select(const struct pci_cpu *c, const struct pci_tuning *t,
               size_t len, int temporal)
{
    unsigned f = c->features;

    if (f & PCI_F_X86_64) {
        if (len < t->v[PC_THRESHOLD_VECTOR_MAX]) {
            if (f & PCI_F_AVX512)
                return PCI_ID_x86_avx512;
            if (f & PCI_F_AVX2)
                return PCI_ID_x86_avx2;
        }
        if (!temporal && len >= t->v[PC_THRESHOLD_NT]) {
            /* AMD's clzero writes a whole line without reading it, like
             * streaming stores, and measured ahead of them cold and in
             * `use` (docs/notes.md, "Selection thresholds"). */
            if (f & PCI_F_CLZERO)
                return PCI_ID_x86_clzero;
            if (f & PCI_F_AVX512)
                return PCI_ID_x86_avx512_nt;
            if (f & PCI_F_AVX2)
                return PCI_ID_x86_avx2_nt;
        }
        /* Without ERMS rep stosb moves a byte at a time on old cores; rep
         * stosq was the kernel's choice there. */
        return (f & PCI_F_ERMS) ? PCI_ID_x86_stosb : PCI_ID_x86_stosq;
    }
    if (f & PCI_F_AARCH64) {
        /* dc zva needs a whole aligned block inside the extent to help;
         * four blocks is where it starts to pay for the head and tail. */
        if ((f & PCI_F_DCZVA) && len >= 4 * c->zva_block)
            return PCI_ID_a64_dczva;
        return PCI_ID_a64_stp;
    }
    return PCI_ID_generic;
}

/* The streaming threshold of a kind, or PC_NEVER for the kinds that
 * have none of their own. */
static size_t kind_threshold(const struct pci_tuning *t, enum pci_plan_kind kind)
{
    if (kind == PCI_PLAN_COLD)
        return t->v[PC_THRESHOLD_COLD_NT];
    if (kind == PCI_PLAN_PARALLEL)
        return t->v[PC_THRESHOLD_PARALLEL_NT];
    return PC_NEVER;
}

int pci_select_kind(const struct pci_cpu *c, const struct pci_tuning *t,
                    enum pci_plan_kind kind, size_t len)
{
    size_t from = kind_threshold(t, kind);
    if (kind == PCI_PLAN_TEMPORAL || kind == PCI_PLAN_CLEAR)
        return pci_select(c, t, len, kind == PCI_PLAN_TEMPORAL);
    /* Below it, cache-allocating stores whatever nt_threshold says: each
     * contract's own threshold governs it alone, so a profile can put
     * pc_clear_cold's or pc_clear_parallel's crossover above pc_clear's. */
    if (from == PC_NEVER || len < from)
        return pci_select(c, t, len, 1);
    /* From the kind's threshold: non-temporal stores, even inside the
     * vector range if the threshold lies there. */
    struct pci_tuning s = *t;
    s.v[PC_THRESHOLD_NT] = from;
    if (s.v[PC_THRESHOLD_VECTOR_MAX] > from)
        s.v[PC_THRESHOLD_VECTOR_MAX] = from;
    return pci_select(c, &s, len, 0);
}

/* The selector's boundaries for a kind: lengths where its answer may
 * change, sorted, without duplicates; at most PCI_PLAN_MAX - 1. */
static size_t select_bounds(const struct pci_cpu *c, const struct pci_tuning *t,
                            enum pci_plan_kind kind, size_t out[PCI_PLAN_MAX - 1])
{
    size_t cand[] = {t->v[PC_THRESHOLD_VECTOR_MAX], t->v[PC_THRESHOLD_NT],
                     kind_threshold(t, kind), 4 * c->zva_block};
    _Static_assert(sizeof(cand) / sizeof(cand[0]) <= PCI_PLAN_MAX - 1,
                   "a plan holds one range more than its boundaries");
    size_t n = 0;
    for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
        size_t b = cand[i];
        if (b == 0 || b == PC_NEVER)
            continue;
        size_t j = n; /* insertion sort, dropping duplicates */
        while (j > 0 && out[j - 1] > b)
            j--;
        if (j > 0 && out[j - 1] == b)
            continue;
        for (size_t k = n; k > j; k--)
            out[k] = out[k - 1];
        out[j] = b;
        n++;
    }
    return n;
}

void pci_plan_build_kind(const struct pci_cpu *c, const struct pci_tuning *t,
                         int forced, enum pci_plan_kind kind, struct pci_plan *p)
{
    size_t bounds[PCI_PLAN_MAX - 1];
    size_t nb = select_bounds(c, t, kind, bounds), from = 0;
    int temporal = kind == PCI_PLAN_TEMPORAL;

    p->n = 0;
    for (size_t i = 0; i <= nb; i++) {
        int id = forced;
        if (id < 0 || (temporal && pci_impls[id].cache == PC_CACHE_NONTEMPORAL))
            id = pci_select_kind(c, t, kind, from);
        size_t upto = i < nb ? bounds[i] : SIZE_MAX;
        if (p->n > 0 && p->id[p->n - 1] == id) {
            p->upto[p->n - 1] = upto; /* same primitive: widen the range */
        } else {
            p->upto[p->n] = upto;
            p->id[p->n] = id;
            p->fn[p->n] = pci_impls[id].fn;
            p->fill[p->n] = pci_impl_fill_for(c, id);
            p->n++;
        }
        from = upto;
    }
}

void pci_plan_build(const struct pci_cpu *c, const struct pci_tuning *t,
                    int forced, int temporal, struct pci_plan *p)
{
    pci_plan_build_kind(c, t, forced, temporal ? PCI_PLAN_TEMPORAL : PCI_PLAN_CLEAR, p);
}
