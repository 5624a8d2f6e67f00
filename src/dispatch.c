/*
 * dispatch.c - choosing the primitive: a pure selector from CPU features,
 * thresholds and extent length, the thresholds' defaults, and the
 * PAGECLEAR_IMPL override on top.
 */
#include <pthread.h>

#include "pci.h"

/* Below this length vector stores beat rep stosb: a string instruction pays
 * a start-up cost of a few tens of cycles even with FSRM, while one to a
 * few dozen 64-byte stores finish sooner. Measured with
 * `pageclear mem clear` (README, "Selection"): on the Xeon (Sapphire Rapids
 * class) guest avx512 led stosb up to 2 KiB and trailed it from 4 KiB. */
#define VECTOR_MAX_DEFAULT ((size_t)2048)

/* From this length non-temporal stores win on Intel: the extent no longer
 * fits the LLC, so allocating its lines only evicts useful data and costs
 * a read for ownership per line. Below it, temporal stores leave the
 * zeroed memory in cache for the caller who is about to use it. Set to
 * the LLC size (measured crossover on the Xeon guest: README, "Selection"),
 * and 32 MiB when the LLC size is unknown (a common server LLC). */
#define NT_THRESHOLD_UNKNOWN_LLC ((size_t)32 << 20)

void pci_default_thresholds(const struct pci_cpu *c, struct pci_thresholds *t)
{
    t->vector_max = VECTOR_MAX_DEFAULT;
    if (c->vendor == PCI_VENDOR_AMD && (c->features & PCI_F_ERMS)) {
        /* AMD Zen 3/4 stop allocating lines for rep stosb once the extent
         * reaches about the LLC size: whole-extent stosb measured 61-75
         * GB/s against 58-87 for AVX-512 non-temporal stores on the
         * project's Zen 4 (SPEC section 1), so stosb serves every large
         * size there and keeps smaller extents in cache. */
        t->nt_threshold = PCI_UNSET;
    } else {
        t->nt_threshold = c->llc_size ? c->llc_size : NT_THRESHOLD_UNKNOWN_LLC;
    }
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

static struct pci_thresholds thresholds;
static pthread_once_t thresholds_once = PTHREAD_ONCE_INIT;

static void init_thresholds(void)
{
    const struct pci_options *o = pci_options();
    pci_default_thresholds(pci_cpu(), &thresholds);
    if (o->vector_max != PCI_UNSET)
        thresholds.vector_max = o->vector_max;
    if (o->nt_threshold != PCI_UNSET)
        thresholds.nt_threshold = o->nt_threshold;
}

const struct pci_thresholds *pci_thresholds(void)
{
    pthread_once(&thresholds_once, init_thresholds);
    return &thresholds;
}

static int id_for(size_t len)
{
    int forced = pci_options()->forced;
    return forced >= 0 ? forced : pci_select(pci_cpu(), pci_thresholds(), len, 0);
}

static int temporal_id_for(size_t len)
{
    int forced = pci_options()->forced;
    if (forced >= 0 && pci_impls[forced].cache != PC_CACHE_NONTEMPORAL)
        return forced;
    return pci_select(pci_cpu(), pci_thresholds(), len, 1);
}

pci_clear_fn pci_clear_for(size_t len)
{
    return pci_impls[id_for(len)].fn;
}

pci_clear_fn pci_clear_temporal_for(size_t len)
{
    return pci_impls[temporal_id_for(len)].fn;
}

const char *pc_selected(size_t len)
{
    return pci_impls[id_for(len)].name;
}

const char *pc_selected_temporal(size_t len)
{
    return pci_impls[temporal_id_for(len)].name;
}
