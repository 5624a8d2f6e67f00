/*
 * dispatch.c - choosing the primitive: a pure selector from CPU features,
 * thresholds and extent length (one per plan kind: pc_clear, the hint's
 * cache-allocating stores, pc_clear_cold, pc_clear_parallel), the
 * thresholds' defaults with the profile and the PAGECLEAR_* variables on
 * top, and the PAGECLEAR_IMPL override over all.
 */
#include <pthread.h>

#include "pci.h"

/* Below this length vector stores beat rep stosb, whose start-up costs a
 * few tens of cycles even with FSRM. Measured with `pageclear mem clear -s
 * SIZE -f NAME -n 9` on the Xeon (Sapphire Rapids class, L1d 48 KiB) guest:
 * avx512 led stosb by ~25% at 4 and 16 KiB, tied at 24-40 KiB and trailed
 * by a third at 48 KiB, where the extent no longer fits L1d. */
#define VECTOR_MAX_DEFAULT ((size_t)32 << 10)

/* From this length non-temporal stores serve pc_clear's contract (the
 * caller is about to use the memory) on Intel. Chosen on the `use` state,
 * with `warm` not to lose badly (issue 7's measurements on the Xeon guest,
 * interleaved, median of 7, GB/s stosb / avx512-nt): use 9.0 / 8.9 at
 * 1 MiB, 7.2 / 9.3 at 4 MiB, 6.0 / 8.7 at 16 MiB; warm 43 / 24 at 1 MiB,
 * 28 / 24 at 4 MiB, 24 / 24 at 16 MiB. From 4 MiB the worst loss is warm's
 * 14% at 4 MiB; from 16 MiB (the earlier default, set on warm alone) it
 * was use's 23% at 4 MiB. A smaller LLC lowers it further. */
#define NT_THRESHOLD_INTEL ((size_t)4 << 20)
/* AMD's, where cpuid gives no LLC: a quarter of Zen 4's 32 MiB (below). */
#define NT_THRESHOLD_AMD ((size_t)8 << 20)

/* pc_clear_cold streams from the end of the vector range, where the CPU
 * has non-temporal vector stores: its caller will not read the memory
 * soon, so keeping lines in cache buys nothing, and the cold extents such
 * callers clear favour streaming stores from small sizes on. Measured on
 * the Intel guest with extents not in cache (issue 7), interleaved, median
 * of 7: avx512-nt 21-25 GB/s against 10-12 for rep stosb from 64 KiB to
 * 256 MiB. Below the vector range the vector stores' short start-up wins
 * whatever the cache holds. To be retuned from `pageclear tune` runs. */
#define COLD_NT_THRESHOLD_DEFAULT VECTOR_MAX_DEFAULT

void pci_default_thresholds(const struct pci_cpu *c, struct pci_thresholds *t)
{
    t->vector_max = VECTOR_MAX_DEFAULT;
    if (c->vendor == PCI_VENDOR_AMD && (c->features & PCI_F_ERMS)) {
        /* AMD Zen 3/4 stop allocating lines for rep stosb once the extent
         * reaches about the LLC size (SPEC section 1: whole-extent stosb
         * 61-75 GB/s against 58-87 for AVX-512 streaming stores on the
         * project's Zen 4), but below that point streaming stores win the
         * states pc_clear serves. Zen 4 guest, 32 MiB L3, `pageclear
         * tune` (15 interleaved runs): `use` favours streaming from 4-8
         * MiB (+8% at 4 MiB, +19-22% at 8-16 MiB), `warm` favours stosb
         * up to 8 MiB (+6-12%) and streaming from 16 MiB (+40-50%); tune
         * chose 8 MiB, a quarter of the L3. */
        t->nt_threshold = c->llc_size != 0 ? c->llc_size / 4 : NT_THRESHOLD_AMD;
    } else {
        t->nt_threshold = NT_THRESHOLD_INTEL;
        if (c->llc_size != 0 && c->llc_size < t->nt_threshold)
            t->nt_threshold = c->llc_size;
    }
    /* Streaming needs non-temporal vector stores or clzero: without them
     * it is "never", said honestly. */
    int has_nt = (c->features & PCI_F_X86_64) &&
                 (c->features & (PCI_F_AVX2 | PCI_F_AVX512 | PCI_F_CLZERO));
    t->cold_nt_threshold = has_nt ? COLD_NT_THRESHOLD_DEFAULT : PCI_UNSET;
    /* pc_clear_parallel's shares stream where pc_clear does, as before
     * per-thread thresholds existed: no measurement yet says the
     * per-thread share should stream earlier or later. */
    t->parallel_nt_threshold = t->nt_threshold;
}

/* The primitive for len: a pure function, so it can be tested by feeding
 * it any CPU. temporal restricts it to cache-allocating stores. */
int pci_select(const struct pci_cpu *c, const struct pci_thresholds *t,
               size_t len, int temporal)
{
    unsigned f = c->features;

    if (f & PCI_F_X86_64) {
        if (len < t->vector_max) {
            if (f & PCI_F_AVX512)
                return PCI_ID_x86_avx512;
            if (f & PCI_F_AVX2)
                return PCI_ID_x86_avx2;
        }
        if (!temporal && len >= t->nt_threshold) {
            /* AMD's clzero writes a whole line without reading it, like
             * streaming stores, and measured better than them on the Zen 4
             * guest: `pageclear check`, paired ratios of 7 interleaved
             * rounds, cold extents 4 KiB to 1 GiB: +12-20% over
             * avx512-nt in three runs; `use` +7-18% at 16-64 MiB. */
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

/* The streaming threshold of a kind, or PCI_UNSET for the kinds that
 * have none of their own. */
static size_t kind_threshold(const struct pci_thresholds *t, enum pci_plan_kind kind)
{
    if (kind == PCI_PLAN_COLD)
        return t->cold_nt_threshold;
    if (kind == PCI_PLAN_PARALLEL)
        return t->parallel_nt_threshold;
    return PCI_UNSET;
}

int pci_select_kind(const struct pci_cpu *c, const struct pci_thresholds *t,
                    enum pci_plan_kind kind, size_t len)
{
    size_t from = kind_threshold(t, kind);
    if (kind == PCI_PLAN_TEMPORAL || kind == PCI_PLAN_CLEAR)
        return pci_select(c, t, len, kind == PCI_PLAN_TEMPORAL);
    /* Below it, cache-allocating stores whatever nt_threshold says: each
     * contract's own threshold governs it alone, so a profile can put
     * pc_clear_cold's or pc_clear_parallel's crossover above pc_clear's. */
    if (from == PCI_UNSET || len < from)
        return pci_select(c, t, len, 1);
    /* From the kind's threshold: non-temporal stores, even inside the
     * vector range if the threshold lies there. */
    struct pci_thresholds s = *t;
    s.nt_threshold = from;
    if (s.vector_max > from)
        s.vector_max = from;
    return pci_select(c, &s, len, 0);
}

/* The selector's boundaries for a kind: lengths where its answer may
 * change, sorted, without duplicates; at most PCI_PLAN_MAX - 1. */
static size_t select_bounds(const struct pci_cpu *c, const struct pci_thresholds *t,
                            enum pci_plan_kind kind, size_t out[PCI_PLAN_MAX - 1])
{
    size_t cand[] = {t->vector_max, t->nt_threshold, kind_threshold(t, kind),
                     4 * c->zva_block};
    _Static_assert(sizeof(cand) / sizeof(cand[0]) <= PCI_PLAN_MAX - 1,
                   "a plan holds one range more than its boundaries");
    size_t n = 0;
    for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
        size_t b = cand[i];
        if (b == 0 || b == PCI_UNSET)
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

void pci_plan_build_kind(const struct pci_cpu *c, const struct pci_thresholds *t,
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
            p->n++;
        }
        from = upto;
    }
}

void pci_plan_build(const struct pci_cpu *c, const struct pci_thresholds *t,
                    int forced, int temporal, struct pci_plan *p)
{
    pci_plan_build_kind(c, t, forced, temporal ? PCI_PLAN_TEMPORAL : PCI_PLAN_CLEAR, p);
}

/* Everything the hot path needs, resolved once; see pci_plan in pci.h. */
static struct pci_thresholds thresholds;
struct pci_plan pci_plans[PCI_NPLANS];
int pci_plans_ready;
static pthread_once_t state_once = PTHREAD_ONCE_INIT;

/* Precedence: built-in defaults, then the profile as a whole, then each
 * threshold a PAGECLEAR_* variable sets. */
static void init_state(void)
{
    const struct pci_options *o = pci_options();
    const struct pci_cpu *c = pci_cpu();
    const struct pci_profile *pr = pci_profile();
    pci_default_thresholds(c, &thresholds);
    if (pr->applied) {
        thresholds.vector_max = pr->t.vector_max;
        thresholds.nt_threshold = pr->t.nt_threshold;
        thresholds.cold_nt_threshold = pr->t.cold_nt_threshold;
        thresholds.parallel_nt_threshold = pr->t.parallel_nt_threshold;
    }
    if (o->given & PCI_OPT_VECTOR_MAX)
        thresholds.vector_max = o->vector_max;
    if (o->given & PCI_OPT_NT)
        thresholds.nt_threshold = o->nt_threshold;
    if (o->given & PCI_OPT_COLD_NT)
        thresholds.cold_nt_threshold = o->cold_nt_threshold;
    if (o->given & PCI_OPT_PARALLEL_NT)
        thresholds.parallel_nt_threshold = o->parallel_nt_threshold;
    for (int k = 0; k < PCI_NPLANS; k++)
        pci_plan_build_kind(c, &thresholds, o->forced, (enum pci_plan_kind)k, &pci_plans[k]);
    __atomic_store_n(&pci_plans_ready, 1, __ATOMIC_RELEASE);
}

void pci_plans_init(void)
{
    pthread_once(&state_once, init_state);
}

const struct pci_thresholds *pci_thresholds(void)
{
    (void)pci_plan(0);
    return &thresholds;
}

pci_clear_fn pci_clear_cold_for(size_t len)
{
    return pci_clear_cold_inline(len);
}

int pc_clear_cold(void *addr, size_t len)
{
    int rc = pci_check_range(addr, len);
    if (rc != 0 || len == 0)
        return rc;
    pci_clear_cold_inline(len)(addr, len);
    return 0;
}

static const char *plan_name(enum pci_plan_kind kind, size_t len)
{
    const struct pci_plan *p = pci_plan_of(kind);
    return pci_impls[p->id[pci_plan_slot(p, len)]].name;
}

const char *pc_selected_cold(size_t len)
{
    return plan_name(PCI_PLAN_COLD, len);
}

const char *pc_selected(size_t len)
{
    return plan_name(PCI_PLAN_CLEAR, len);
}

const char *pc_selected_temporal(size_t len)
{
    return plan_name(PCI_PLAN_TEMPORAL, len);
}

int pc_tuning_defaults(struct pc_tuning *t)
{
    if (t == NULL)
        return -EINVAL;
    struct pci_thresholds d;
    pci_default_thresholds(pci_cpu(), &d);
    *t = (struct pc_tuning){d.vector_max, d.nt_threshold, d.cold_nt_threshold,
                            d.parallel_nt_threshold};
    return 0;
}
