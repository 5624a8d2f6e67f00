/*
 * dispatch.c - the selection in force: the thresholds' defaults with the
 * profile and the PAGECLEAR_* variables on top, the PAGECLEAR_IMPL override
 * over all, resolved once into the plans the entry points read.
 */
#include <errno.h>
#include <pthread.h>

#include "pageclear.h"
#include "cpu.h"
#include "impl.h"
#include "options.h"
#include "plan.h"
#include "profile.h"
#include "range.h"
#include "tuning.h"

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

/* Everything the hot path needs, resolved once; see pci_plans in plan.h. */
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
    pci_plans_init();
    return &thresholds;
}

int pc_clear_cold(void *addr, size_t len)
{
    int rc = pci_check_range(addr, len);
    if (rc != 0 || len == 0)
        return rc;
    pci_clear_cold_for(len)(addr, len);
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
