/*
 * test_select.c - the selector as a pure function: fed synthetic CPUs, it
 * never picks a primitive that CPU cannot run, honours the thresholds and
 * the temporal restriction, and the precomputed plan agrees with it at
 * every boundary. Uses the library's internal header.
 */
#include "harness.h"
#include "pci.h"

static void check_plan_matches(const struct pci_cpu *c, const struct pci_thresholds *t,
                               int temporal)
{
    struct pci_plan p;
    pci_plan_build(c, t, -1, temporal, &p);
    CHECK(p.n >= 1 && p.n <= PCI_PLAN_MAX);
    CHECK_EQ(p.upto[p.n - 1], SIZE_MAX);
    size_t probes[] = {0, 1, 63, 64, 255, 256, 4095, 4096, t->vector_max - 1,
                       t->vector_max, t->vector_max + 1, t->nt_threshold - 1,
                       t->nt_threshold, t->nt_threshold + 1, (size_t)1 << 30,
                       SIZE_MAX - 1};
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        size_t len = probes[i];
        if (len == SIZE_MAX) /* no extent that long passes the range check */
            continue;
        size_t slot = pci_plan_slot(&p, len);
        CHECK(slot < p.n);
        CHECK_EQ(p.id[slot], pci_select(c, t, len, temporal));
        CHECK(p.fn[slot] == pci_impls[p.id[slot]].fn);
    }
}

/* Every x86 feature combination: the choice must be runnable there. */
static void test_x86_subsets(void)
{
    const unsigned bits[] = {PCI_F_ERMS, PCI_F_FSRM, PCI_F_AVX2, PCI_F_AVX512,
                             PCI_F_CLZERO};
    const size_t nb = sizeof(bits) / sizeof(bits[0]);
    for (unsigned mask = 0; mask < (1u << nb); mask++) {
        for (int vendor = PCI_VENDOR_OTHER; vendor <= PCI_VENDOR_AMD; vendor++) {
            struct pci_cpu c = {.features = PCI_F_X86_64, .vendor = vendor};
            for (size_t b = 0; b < nb; b++)
                if (mask & (1u << b))
                    c.features |= bits[b];
            c.llc_size = (size_t)32 << 20;
            struct pci_thresholds t;
            pci_default_thresholds(&c, &t);
            for (int shift = 0; shift < 34; shift++)
                for (int temporal = 0; temporal < 2; temporal++) {
                    int id = pci_select(&c, &t, (size_t)1 << shift, temporal);
                    if (pci_impls[id].fn != NULL) /* compiled here */
                        CHECK(pci_impl_runnable(&c, id));
                    CHECK((pci_impls[id].required & ~c.features) == 0);
                    if (temporal)
                        CHECK(pci_impls[id].cache != PC_CACHE_NONTEMPORAL);
                }
            check_plan_matches(&c, &t, 0);
            check_plan_matches(&c, &t, 1);
        }
    }
}

static void test_x86_policy(void)
{
    struct pci_cpu intel = {.features = PCI_F_X86_64 | PCI_F_ERMS | PCI_F_FSRM |
                                        PCI_F_AVX2 | PCI_F_AVX512,
                            .vendor = PCI_VENDOR_INTEL,
                            .llc_size = (size_t)260 << 20};
    struct pci_thresholds t = {.vector_max = 1024, .nt_threshold = 1 << 20};
    CHECK_EQ(pci_select(&intel, &t, 100, 0), PCI_ID_x86_avx512);
    CHECK_EQ(pci_select(&intel, &t, 1024, 0), PCI_ID_x86_stosb);
    CHECK_EQ(pci_select(&intel, &t, (1 << 20) - 1, 0), PCI_ID_x86_stosb);
    CHECK_EQ(pci_select(&intel, &t, 1 << 20, 0), PCI_ID_x86_avx512_nt);
    CHECK_EQ(pci_select(&intel, &t, 1 << 20, 1), PCI_ID_x86_stosb);
    intel.features &= ~(unsigned)PCI_F_AVX512;
    CHECK_EQ(pci_select(&intel, &t, 100, 0), PCI_ID_x86_avx2);
    CHECK_EQ(pci_select(&intel, &t, 1 << 20, 0), PCI_ID_x86_avx2_nt);
    intel.features &= ~(unsigned)(PCI_F_AVX2 | PCI_F_ERMS);
    CHECK_EQ(pci_select(&intel, &t, 100, 0), PCI_ID_x86_stosq);
    CHECK_EQ(pci_select(&intel, &t, 1 << 30, 0), PCI_ID_x86_stosq);

    /* Defaults: Intel's NT threshold never exceeds its LLC; AMD with ERMS
     * leaves large extents to rep stosb. */
    struct pci_cpu small = {.features = PCI_F_X86_64, .vendor = PCI_VENDOR_INTEL,
                            .llc_size = (size_t)6 << 20};
    pci_default_thresholds(&small, &t);
    CHECK_EQ(t.nt_threshold, (size_t)6 << 20);
    struct pci_cpu amd = {.features = PCI_F_X86_64 | PCI_F_ERMS | PCI_F_AVX512,
                          .vendor = PCI_VENDOR_AMD, .llc_size = (size_t)32 << 20};
    pci_default_thresholds(&amd, &t);
    CHECK_EQ(pci_select(&amd, &t, (size_t)1 << 32, 0), PCI_ID_x86_stosb);
}

static void test_other_arches(void)
{
    struct pci_thresholds t;
    struct pci_cpu arm = {.features = PCI_F_AARCH64 | PCI_F_DCZVA,
                          .vendor = PCI_VENDOR_ARM, .zva_block = 64};
    pci_default_thresholds(&arm, &t);
    CHECK_EQ(pci_select(&arm, &t, 255, 0), PCI_ID_a64_stp);
    CHECK_EQ(pci_select(&arm, &t, 256, 0), PCI_ID_a64_dczva);
    check_plan_matches(&arm, &t, 0);
    struct pci_cpu dzp = {.features = PCI_F_AARCH64, .vendor = PCI_VENDOR_ARM};
    CHECK_EQ(pci_select(&dzp, &t, (size_t)1 << 30, 0), PCI_ID_a64_stp);
    struct pci_cpu none = {0};
    pci_default_thresholds(&none, &t);
    CHECK_EQ(pci_select(&none, &t, 1 << 20, 0), PCI_ID_generic);
    check_plan_matches(&none, &t, 0);
}

/* A forced primitive wins everywhere, except that a non-temporal one is
 * not used where cache-allocating stores are required. */
static void test_forced(void)
{
    struct pci_cpu c = {.features = PCI_F_X86_64 | PCI_F_ERMS | PCI_F_AVX2,
                        .vendor = PCI_VENDOR_INTEL, .llc_size = 1 << 20};
    struct pci_thresholds t;
    struct pci_plan p;
    pci_default_thresholds(&c, &t);
    pci_plan_build(&c, &t, PCI_ID_x86_stosq, 0, &p);
    CHECK_EQ(p.n, 1);
    CHECK_EQ(p.id[0], PCI_ID_x86_stosq);
    pci_plan_build(&c, &t, PCI_ID_x86_avx2_nt, 1, &p);
    for (size_t i = 0; i < p.n; i++)
        CHECK(pci_impls[p.id[i]].cache != PC_CACHE_NONTEMPORAL);
}

int main(void)
{
    test_x86_subsets();
    test_x86_policy();
    test_other_arches();
    test_forced();
    /* The live plan agrees with the selector on this host. */
    check_plan_matches(pci_cpu(), pci_thresholds(), 0);
    check_plan_matches(pci_cpu(), pci_thresholds(), 1);
    puts("ok");
    return 0;
}
