/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_select.c - the selector as a pure function: fed synthetic CPUs, it
 * never picks a primitive that CPU cannot run, honours the thresholds and
 * the temporal restriction, and the precomputed plan agrees with it at
 * every boundary. Uses the library's internal headers.
 */
#include "harness.h"
#include "cpu.h"
#include "impl.h"
#include "plan.h"
#include "tuning.h"

/* The C library the defaults are taken under: glibc 2.36, whose memset
 * takes rep stosb above 2048 B with ERMS (src/libc_memset.h). The
 * selection does not depend on it; only preload_min's rule reads it. */
static const struct pci_libc glibc_2_36 = {36, PCI_GLIBC_STOSB_DEFAULT};

/* The thresholds by name. */
#define VEC(t) ((t).v[PC_THRESHOLD_VECTOR_MAX])
#define NT(t) ((t).v[PC_THRESHOLD_NT])
#define COLD(t) ((t).v[PC_THRESHOLD_COLD_NT])
#define PAR(t) ((t).v[PC_THRESHOLD_PARALLEL_NT])

static void check_plan_kind(const struct pci_cpu *c, const struct pci_tuning *t,
                            enum pci_plan_kind kind)
{
    struct pci_plan p;
    pci_plan_build_kind(c, t, -1, kind, &p);
    CHECK(p.n >= 1 && p.n <= PCI_PLAN_MAX);
    CHECK_EQ(p.upto[p.n - 1], SIZE_MAX);
    size_t edges[PC_NTHRESHOLDS + 1];
    for (int i = 0; i < PC_NTHRESHOLDS; i++) /* every threshold, the kind's or not */
        edges[i] = t->v[i];
    edges[PC_NTHRESHOLDS] = 4 * c->zva_block;
    size_t probes[4 + 3 * (PC_NTHRESHOLDS + 1) + 2] = {0, 1, 4095, 4096};
    size_t np = 4;
    for (size_t i = 0; i < PC_NTHRESHOLDS + 1; i++) {
        probes[np++] = edges[i] - 1;
        probes[np++] = edges[i];
        probes[np++] = edges[i] + 1;
    }
    probes[np++] = (size_t)1 << 30;
    probes[np++] = SIZE_MAX - 1;
    for (size_t i = 0; i < np; i++) {
        size_t len = probes[i];
        if (len == SIZE_MAX) /* no extent that long passes the range check */
            continue;
        size_t slot = pci_plan_slot(&p, len);
        CHECK(slot < p.n);
        CHECK_EQ(p.id[slot], pci_select_kind(c, t, kind, len));
        CHECK(p.fn[slot] == pci_impls[p.id[slot]].fn);
    }
    for (size_t i = 1; i < p.n; i++) /* ranges merged: neighbours differ */
        CHECK(p.id[i] != p.id[i - 1] && p.upto[i] > p.upto[i - 1]);
}

static void check_plan_matches(const struct pci_cpu *c, const struct pci_tuning *t,
                               int temporal)
{
    struct pci_plan p, q;
    pci_plan_build(c, t, -1, temporal, &p);
    pci_plan_build_kind(c, t, -1, temporal ? PCI_PLAN_TEMPORAL : PCI_PLAN_CLEAR, &q);
    CHECK_EQ(p.n, q.n);
    for (size_t i = 0; i < p.n; i++)
        CHECK(p.upto[i] == q.upto[i] && p.id[i] == q.id[i] && p.fn[i] == q.fn[i]);
    for (int k = 0; k < PCI_NPLANS; k++)
        check_plan_kind(c, t, (enum pci_plan_kind)k);
    /* CLEAR and TEMPORAL are the plain selector. */
    for (int shift = 0; shift < 40; shift++) {
        size_t len = (size_t)1 << shift;
        CHECK_EQ(pci_select_kind(c, t, PCI_PLAN_CLEAR, len), pci_select(c, t, len, 0));
        CHECK_EQ(pci_select_kind(c, t, PCI_PLAN_TEMPORAL, len), pci_select(c, t, len, 1));
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
            struct pci_tuning t;
            pci_tuning_defaults(&c, &glibc_2_36, &t);
            CHECK_EQ(t.set, PCI_TUNING_ALL); /* a default for every threshold */
            for (int shift = 0; shift < 34; shift++)
                for (int k = 0; k < PCI_NPLANS; k++) {
                    int id = pci_select_kind(&c, &t, (enum pci_plan_kind)k,
                                             (size_t)1 << shift);
                    if (pci_impls[id].fn != NULL) /* compiled here */
                        CHECK(pci_impl_runnable(&c, id));
                    CHECK((pci_impls[id].required & ~c.features) == 0);
                    if (k == PCI_PLAN_TEMPORAL)
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
    struct pci_tuning t = {.v = {[PC_THRESHOLD_VECTOR_MAX] = 1024, [PC_THRESHOLD_NT] = 1 << 20}};
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

    /* Defaults: Intel's NT threshold never exceeds its LLC. */
    struct pci_cpu small = {.features = PCI_F_X86_64, .vendor = PCI_VENDOR_INTEL,
                            .llc_size = (size_t)3 << 20};
    pci_tuning_defaults(&small, &glibc_2_36, &t);
    CHECK_EQ(NT(t), (size_t)3 << 20);
    small.llc_size = (size_t)260 << 20; /* a tenant-shared L3 does not raise it */
    pci_tuning_defaults(&small, &glibc_2_36, &t);
    CHECK_EQ(NT(t), (size_t)4 << 20);
    struct pci_cpu amd = {.features = PCI_F_X86_64 | PCI_F_ERMS | PCI_F_AVX512,
                          .vendor = PCI_VENDOR_AMD, .llc_size = (size_t)32 << 20};
    pci_tuning_defaults(&amd, &glibc_2_36, &t);
    /* AMD streams from half its LLC (16 MiB of Zen 3's and Zen 4's
     * 32 MiB), or 16 MiB where cpuid tells no LLC. */
    CHECK_EQ(NT(t), (size_t)16 << 20);
    CHECK_EQ(pci_select(&amd, &t, ((size_t)16 << 20) - 1, 0), PCI_ID_x86_stosb);
    CHECK_EQ(pci_select(&amd, &t, (size_t)16 << 20, 0), PCI_ID_x86_avx512_nt);
    amd.llc_size = (size_t)96 << 20;
    pci_tuning_defaults(&amd, &glibc_2_36, &t);
    CHECK_EQ(NT(t), (size_t)48 << 20);
    amd.llc_size = 0;
    pci_tuning_defaults(&amd, &glibc_2_36, &t);
    CHECK_EQ(NT(t), (size_t)16 << 20);
    /* With clzero, AMD streams with it; the cache-allocating plan never
     * does. */
    amd.features |= PCI_F_CLZERO;
    CHECK_EQ(pci_select(&amd, &t, (size_t)16 << 20, 0), PCI_ID_x86_clzero);
    CHECK_EQ(pci_select(&amd, &t, (size_t)16 << 20, 1), PCI_ID_x86_stosb);
    CHECK_EQ(pci_select_kind(&amd, &t, PCI_PLAN_COLD, 1 << 20), PCI_ID_x86_clzero);
    /* clzero alone (no vector NT stores) still streams. */
    struct pci_cpu zen_novec = {.features = PCI_F_X86_64 | PCI_F_ERMS | PCI_F_CLZERO,
                                .vendor = PCI_VENDOR_AMD};
    pci_tuning_defaults(&zen_novec, &glibc_2_36, &t);
    CHECK(COLD(t) != SIZE_MAX);
    CHECK_EQ(pci_select_kind(&zen_novec, &t, PCI_PLAN_COLD, 1 << 20), PCI_ID_x86_clzero);
}

/* The defaults of the cold and parallel thresholds: cold streams from the
 * smallest extent a profile takes (4 KiB) where streaming stores exist,
 * never elsewhere;
 * parallel follows pc_clear's NT threshold. */
static void test_cold_parallel_defaults(void)
{
    struct pci_tuning t;
    struct pci_cpu amd = {.features = PCI_F_X86_64 | PCI_F_ERMS | PCI_F_AVX2 | PCI_F_AVX512,
                          .vendor = PCI_VENDOR_AMD, .llc_size = (size_t)32 << 20};
    pci_tuning_defaults(&amd, &glibc_2_36, &t);
    CHECK_EQ(COLD(t), (size_t)4 << 10);
    CHECK(COLD(t) < VEC(t));
    CHECK_EQ(PAR(t), NT(t));
    CHECK_EQ(NT(t), (size_t)16 << 20);
    /* The cold clear streams from one page, inside the vector range, and
     * the parallel one follows pc_clear: rep stosb below 16 MiB,
     * streaming from it. */
    CHECK_EQ(pci_select_kind(&amd, &t, PCI_PLAN_COLD, 100), PCI_ID_x86_avx512);
    CHECK_EQ(pci_select_kind(&amd, &t, PCI_PLAN_COLD, COLD(t) - 1), PCI_ID_x86_avx512);
    CHECK_EQ(pci_select_kind(&amd, &t, PCI_PLAN_COLD, COLD(t)), PCI_ID_x86_avx512_nt);
    CHECK_EQ(pci_select_kind(&amd, &t, PCI_PLAN_COLD, VEC(t)), PCI_ID_x86_avx512_nt);
    CHECK_EQ(pci_select_kind(&amd, &t, PCI_PLAN_COLD, (size_t)1 << 30), PCI_ID_x86_avx512_nt);
    CHECK_EQ(pci_select_kind(&amd, &t, PCI_PLAN_PARALLEL, (size_t)1 << 20), PCI_ID_x86_stosb);
    CHECK_EQ(pci_select_kind(&amd, &t, PCI_PLAN_PARALLEL, (size_t)1 << 30), PCI_ID_x86_avx512_nt);

    struct pci_cpu intel = {.features = PCI_F_X86_64 | PCI_F_ERMS | PCI_F_AVX2,
                            .vendor = PCI_VENDOR_INTEL, .llc_size = (size_t)260 << 20};
    pci_tuning_defaults(&intel, &glibc_2_36, &t);
    CHECK_EQ(COLD(t), (size_t)4 << 10);
    CHECK_EQ(PAR(t), NT(t));
    CHECK(NT(t) != SIZE_MAX);
    CHECK_EQ(pci_select_kind(&intel, &t, PCI_PLAN_COLD, (size_t)1 << 20), PCI_ID_x86_avx2_nt);
    CHECK_EQ(pci_select_kind(&intel, &t, PCI_PLAN_PARALLEL, NT(t)),
             PCI_ID_x86_avx2_nt);
    CHECK_EQ(pci_select_kind(&intel, &t, PCI_PLAN_PARALLEL, NT(t) - 1),
             PCI_ID_x86_stosb);

    /* No vector NT stores: the cold clear never streams. */
    struct pci_cpu old = {.features = PCI_F_X86_64 | PCI_F_ERMS, .vendor = PCI_VENDOR_INTEL};
    pci_tuning_defaults(&old, &glibc_2_36, &t);
    CHECK_EQ(COLD(t), SIZE_MAX);
    struct pci_cpu arm = {.features = PCI_F_AARCH64 | PCI_F_DCZVA, .vendor = PCI_VENDOR_ARM,
                          .zva_block = 64};
    pci_tuning_defaults(&arm, &glibc_2_36, &t);
    CHECK_EQ(COLD(t), SIZE_MAX);
    CHECK_EQ(pci_select_kind(&arm, &t, PCI_PLAN_COLD, 1 << 20), PCI_ID_a64_dczva);
}

/* The cold and parallel selectors: cache-allocating stores below their
 * own threshold, streaming from it, wherever it lies against the others
 * (pc_clear's nt_threshold does not reach them). */
static void test_cold_parallel_policy(void)
{
    struct pci_cpu c = {.features = PCI_F_X86_64 | PCI_F_ERMS | PCI_F_AVX512,
                        .vendor = PCI_VENDOR_INTEL};
    struct pci_tuning t = {.v = {[PC_THRESHOLD_VECTOR_MAX] = 32 << 10,
                                 [PC_THRESHOLD_NT] = 1 << 20,
                                 [PC_THRESHOLD_COLD_NT] = 8 << 20,
                                 [PC_THRESHOLD_PARALLEL_NT] = SIZE_MAX}};
    /* Above pc_clear's NT threshold but below its own: temporal, while
     * pc_clear streams there. */
    CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_COLD, 2 << 20), PCI_ID_x86_stosb);
    CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_CLEAR, 2 << 20), PCI_ID_x86_avx512_nt);
    CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_COLD, 8 << 20), PCI_ID_x86_avx512_nt);
    CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_COLD, 512 << 10), PCI_ID_x86_stosb);
    /* Never: the cache-allocating choice everywhere. */
    for (int shift = 0; shift < 40; shift++)
        CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_PARALLEL, (size_t)1 << shift),
                 pci_select(&c, &t, (size_t)1 << shift, 1));
    /* A threshold inside the vector range streams from there. */
    COLD(t) = 4 << 10;
    CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_COLD, (4 << 10) - 1), PCI_ID_x86_avx512);
    CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_COLD, 4 << 10), PCI_ID_x86_avx512_nt);
    CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_COLD, 16 << 10), PCI_ID_x86_avx512_nt);
    /* The parallel threshold below pc_clear's. */
    NT(t) = SIZE_MAX;
    PAR(t) = 256 << 20;
    CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_PARALLEL, (256 << 20) - 1), PCI_ID_x86_stosb);
    CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_PARALLEL, 256 << 20), PCI_ID_x86_avx512_nt);
    CHECK_EQ(pci_select_kind(&c, &t, PCI_PLAN_CLEAR, 256 << 20), PCI_ID_x86_stosb);

    /* Every order of the four thresholds (and dc zva on arm64) yields a
     * plan that fits and agrees with the selector. */
    const size_t vals[] = {0, 4096, 32 << 10, 1 << 20, 16 << 20, SIZE_MAX};
    const size_t nv = sizeof(vals) / sizeof(vals[0]);
    struct pci_cpu cpus[] = {
        c,
        {.features = PCI_F_X86_64 | PCI_F_AVX2, .vendor = PCI_VENDOR_AMD},
        {.features = PCI_F_AARCH64 | PCI_F_DCZVA, .vendor = PCI_VENDOR_ARM, .zva_block = 64},
        {0},
    };
    for (size_t ci = 0; ci < sizeof(cpus) / sizeof(cpus[0]); ci++)
        for (size_t a = 0; a < nv; a++)
            for (size_t b = 0; b < nv; b++)
                for (size_t d = 0; d < nv; d++)
                    for (size_t e = 0; e < nv; e++) {
                        struct pci_tuning x = {
                            .v = {[PC_THRESHOLD_VECTOR_MAX] = vals[a],
                                  [PC_THRESHOLD_NT] = vals[b],
                                  [PC_THRESHOLD_COLD_NT] = vals[d],
                                  [PC_THRESHOLD_PARALLEL_NT] = vals[e]}};
                        if (VEC(x) == SIZE_MAX || NT(x) == 0 ||
                            COLD(x) == 0 || PAR(x) == 0)
                            continue; /* not values the library accepts */
                        for (int k = 0; k < PCI_NPLANS; k++)
                            check_plan_kind(&cpus[ci], &x, (enum pci_plan_kind)k);
                    }
}

static void test_other_arches(void)
{
    struct pci_tuning t;
    struct pci_cpu arm = {.features = PCI_F_AARCH64 | PCI_F_DCZVA,
                          .vendor = PCI_VENDOR_ARM, .zva_block = 64};
    pci_tuning_defaults(&arm, &glibc_2_36, &t);
    CHECK_EQ(pci_select(&arm, &t, 255, 0), PCI_ID_a64_stp);
    CHECK_EQ(pci_select(&arm, &t, 256, 0), PCI_ID_a64_dczva);
    check_plan_matches(&arm, &t, 0);
    struct pci_cpu dzp = {.features = PCI_F_AARCH64, .vendor = PCI_VENDOR_ARM};
    CHECK_EQ(pci_select(&dzp, &t, (size_t)1 << 30, 0), PCI_ID_a64_stp);
    struct pci_cpu none = {0};
    pci_tuning_defaults(&none, &glibc_2_36, &t);
    CHECK_EQ(pci_select(&none, &t, 1 << 20, 0), PCI_ID_generic);
    check_plan_matches(&none, &t, 0);
}

/* A forced primitive wins everywhere, except that a non-temporal one is
 * not used where cache-allocating stores are required. */
static void test_forced(void)
{
    struct pci_cpu c = {.features = PCI_F_X86_64 | PCI_F_ERMS | PCI_F_AVX2,
                        .vendor = PCI_VENDOR_INTEL, .llc_size = 1 << 20};
    struct pci_tuning t;
    struct pci_plan p;
    pci_tuning_defaults(&c, &glibc_2_36, &t);
    pci_plan_build(&c, &t, PCI_ID_x86_stosq, 0, &p);
    CHECK_EQ(p.n, 1);
    CHECK_EQ(p.id[0], PCI_ID_x86_stosq);
    pci_plan_build(&c, &t, PCI_ID_x86_avx2_nt, 1, &p);
    for (size_t i = 0; i < p.n; i++)
        CHECK(pci_impls[p.id[i]].cache != PC_CACHE_NONTEMPORAL);
    /* The cold and parallel plans are forced as pc_clear's is. */
    for (int k = PCI_PLAN_COLD; k <= PCI_PLAN_PARALLEL; k++) {
        pci_plan_build_kind(&c, &t, PCI_ID_x86_stosq, (enum pci_plan_kind)k, &p);
        CHECK_EQ(p.n, 1);
        CHECK_EQ(p.id[0], PCI_ID_x86_stosq);
    }
}

/* Layering: only the thresholds a layer sets override, and "never" is a
 * value like any other, not "not set". */
static void test_overlay(void)
{
    struct pci_cpu c = {.features = PCI_F_X86_64 | PCI_F_ERMS | PCI_F_AVX512,
                        .vendor = PCI_VENDOR_INTEL, .llc_size = (size_t)32 << 20};
    struct pci_tuning t, d, layer = {.v = {[PC_THRESHOLD_NT] = PC_NEVER,
                                           [PC_THRESHOLD_COLD_NT] = PC_NEVER,
                                           [PC_THRESHOLD_PARALLEL_NT] = 1 << 20},
                                     .set = 1u << PC_THRESHOLD_NT |
                                            1u << PC_THRESHOLD_PARALLEL_NT};
    pci_tuning_defaults(&c, &glibc_2_36, &d);
    t = d;
    pci_tuning_overlay(&t, &layer);
    CHECK_EQ(VEC(t), VEC(d));
    CHECK_EQ(NT(t), PC_NEVER);
    CHECK_EQ(COLD(t), COLD(d)); /* PC_NEVER there, but not set */
    CHECK(COLD(t) != PC_NEVER);
    CHECK_EQ(PAR(t), (size_t)1 << 20);
    CHECK_EQ(t.set, PCI_TUNING_ALL);
    struct pci_tuning none = {.v = {0}, .set = 0};
    pci_tuning_overlay(&t, &none);
    CHECK_EQ(NT(t), PC_NEVER);
    CHECK_EQ(VEC(t), VEC(d));
}

int main(void)
{
    test_x86_subsets();
    test_x86_policy();
    test_cold_parallel_defaults();
    test_cold_parallel_policy();
    test_other_arches();
    test_forced();
    test_overlay();
    /* The live plan agrees with the selector on this host. */
    check_plan_matches(pci_cpu(), pci_tuning(), 0);
    check_plan_matches(pci_cpu(), pci_tuning(), 1);
    puts("ok");
    return 0;
}
