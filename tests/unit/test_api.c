/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_api.c - the public contracts: bad input returns the documented
 * errno and writes nothing, zero lengths write nothing, introspection
 * matches impl.def, what pc_selected names can run here, and pc_fill sets
 * exactly its range with the selection (each primitive forced in turn, in
 * a child) or its stand-in.
 */
#include <errno.h>

#include "child.h"
#include "harness.h"
#include "impl.h"

static const char *const table_names[] = {
#define PCI_IMPL(id, name, arch, req, feat, cache, stores, desc) name,
#include "impl.def"
#undef PCI_IMPL
};
#define NTABLE (sizeof(table_names) / sizeof(table_names[0]))

static void test_bad_input(void)
{
    struct guarded g;
    guarded_alloc(&g, 4 * TEST_PAGE);
    pat_fill(g.lo, g.len);

    CHECK_EQ(pc_clear(NULL, 1), -EINVAL);
    CHECK_EQ(pc_clear(NULL, 0), 0);
    CHECK_EQ(pc_clear(g.lo, 0), 0);
    CHECK_EQ(pc_clear((void *)(UINTPTR_MAX - 10), 100), -EOVERFLOW);
    CHECK_EQ(pc_clear((void *)(UINTPTR_MAX - 99), 100), -EOVERFLOW); /* ends at 2^64 */
    CHECK_EQ(pc_clear_cold(NULL, 1), -EINVAL);
    CHECK_EQ(pc_clear_cold(NULL, 0), 0);
    CHECK_EQ(pc_clear_cold((void *)(UINTPTR_MAX - 10), 100), -EOVERFLOW);

    CHECK_EQ(pc_clear_pages(NULL, 1), -EINVAL);
    CHECK_EQ(pc_clear_pages(g.lo + 1, 1), -EINVAL);
    CHECK_EQ(pc_clear_pages(g.lo + 2048, 1), -EINVAL);
    CHECK_EQ(pc_clear_pages(g.lo, SIZE_MAX / 4096 + 1), -EOVERFLOW);
    CHECK_EQ(pc_clear_pages(g.lo, SIZE_MAX / 4096), -EOVERFLOW);
    CHECK_EQ(pc_clear_pages(g.lo, 0), 0);

    CHECK_EQ(pc_clear_hint(g.lo, TEST_PAGE, g.lo + TEST_PAGE), -EINVAL); /* one past */
    CHECK_EQ(pc_clear_hint(g.lo + 8, TEST_PAGE, g.lo + 7), -EINVAL);     /* one before */
    CHECK_EQ(pc_clear_hint(g.lo, TEST_PAGE, NULL), -EINVAL);
    CHECK_EQ(pc_clear_hint(NULL, 5, NULL), -EINVAL);
    CHECK_EQ(pc_clear_hint(g.lo, 0, NULL), 0);

    struct pc_batch b;
    pc_batch_init(&b);
    b.model = (enum pc_preempt)7;
    size_t cleared = 99;
    CHECK_EQ(pc_clear_batched(g.lo, TEST_PAGE, &b, &cleared), -EINVAL);
    CHECK_EQ(cleared, 0);
    CHECK_EQ(pc_clear_hint_batched(g.lo, TEST_PAGE, g.lo, &b, &cleared), -EINVAL);
    CHECK_EQ(cleared, 0);
    CHECK_EQ(pc_clear_batched(NULL, 1, NULL, &cleared), -EINVAL);

    CHECK_EQ(pc_fill(NULL, 1, 0x5a), -EINVAL);
    CHECK_EQ(pc_fill(NULL, 0, 0x5a), 0);
    CHECK_EQ(pc_fill(g.lo, 0, 0x5a), 0);
    CHECK_EQ(pc_fill((void *)(UINTPTR_MAX - 10), 100, 0x5a), -EOVERFLOW);
    CHECK_EQ(pc_fill(g.lo, TEST_PAGE, -1), -EINVAL);
    CHECK_EQ(pc_fill(g.lo, TEST_PAGE, 256), -EINVAL);
    CHECK_EQ(pc_fill(NULL, 1, 256), -EINVAL);

    /* None of that wrote a byte. */
    CHECK_EQ(pat_check(g.lo, g.len, 0, 0), SIZE_MAX);

    /* And a good pc_clear_pages writes exactly its pages. */
    CHECK_EQ(pc_clear_pages(g.lo + TEST_PAGE, 2), 0);
    CHECK_EQ(pat_check(g.lo, g.len, TEST_PAGE, 3 * TEST_PAGE), SIZE_MAX);
    guarded_free(&g);
}

static void test_introspection(void)
{
    struct pc_impl_info in;
    size_t supported = 0;

    CHECK_EQ(pc_impl_count(), NTABLE);
    CHECK_EQ(pc_impl_get(0, NULL), -EINVAL);
    CHECK_EQ(pc_impl_get(pc_impl_count(), &in), -ENOENT);
    CHECK_EQ(pc_impl_find(NULL), -EINVAL);
    CHECK_EQ(pc_impl_find("no-such-primitive"), -ENOENT);
    CHECK_EQ(pc_impl_clear(pc_impl_count(), NULL, 0), -ENOENT);

    char buf[64];
    pat_fill(buf, sizeof(buf));
    for (size_t i = 0; i < pc_impl_count(); i++) {
        CHECK_EQ(pc_impl_get(i, &in), 0);
        CHECK(strcmp(in.name, table_names[i]) == 0);
        CHECK_EQ(pc_impl_find(in.name), (long long)i);
        CHECK(in.description != NULL && *in.description != '\0');
        CHECK(in.cache == PC_CACHE_TEMPORAL || in.cache == PC_CACHE_NONTEMPORAL ||
              in.cache == PC_CACHE_ADAPTIVE);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(table_names[j], in.name) != 0);
        if (in.supported) {
            supported++;
            CHECK_EQ(pc_impl_clear(i, NULL, 1), -EINVAL);
        } else {
            /* Refused before anything runs: the buffer keeps its pattern. */
            CHECK_EQ(pc_impl_clear(i, buf, sizeof(buf)), -ENOTSUP);
            CHECK_EQ(pat_check(buf, sizeof(buf), 0, 0), SIZE_MAX);
        }
    }
    CHECK(supported >= 1);
    CHECK_EQ(pc_impl_get((size_t)pc_impl_find("generic"), &in), 0);
    CHECK(in.supported);
}

static void test_selected(void)
{
    for (int shift = 0; shift <= 40; shift++) {
        size_t lens[] = {(size_t)1 << shift, ((size_t)1 << shift) - 1,
                         ((size_t)1 << shift) + 1};
        for (int k = 0; k < 3; k++) {
            struct pc_impl_info in;
            int id = pc_impl_find(pc_selected(lens[k]));
            CHECK(id >= 0);
            CHECK_EQ(pc_impl_get((size_t)id, &in), 0);
            CHECK(in.supported);
            /* Cold: runnable, and from the NT threshold on, pc_clear's own
             * choice (below it, pc_clear may keep data in cache; cold not). */
            id = pc_impl_find(pc_selected_cold(lens[k]));
            CHECK(id >= 0);
            CHECK_EQ(pc_impl_get((size_t)id, &in), 0);
            CHECK(in.supported);
            struct pc_host h;
            pc_host_get(&h);
            if (lens[k] >= h.nt_threshold)
                CHECK(strcmp(pc_selected_cold(lens[k]), pc_selected(lens[k])) == 0);
            id = pc_impl_find(pc_selected_temporal(lens[k]));
            CHECK(id >= 0);
            CHECK_EQ(pc_impl_get((size_t)id, &in), 0);
            CHECK(in.supported);
            CHECK(in.cache != PC_CACHE_NONTEMPORAL);
        }
    }
    /* Any length is a question pc_selected takes: the largest gets the
     * last range's primitive (it once read past the plan's table). */
    CHECK(strcmp(pc_selected(SIZE_MAX), pc_selected(SIZE_MAX - 1)) == 0);
    CHECK(strcmp(pc_selected_cold(SIZE_MAX), pc_selected_cold(SIZE_MAX - 1)) == 0);
    CHECK(strcmp(pc_selected_temporal(SIZE_MAX), pc_selected_temporal(SIZE_MAX - 1)) == 0);
}

/* 1 if a primitive with the cache behaviour of the one called name runs
 * here and stores any byte: then pc_fill must not refuse a length
 * pc_selected names it for. */
static int can_fill_as(const char *name)
{
    struct pc_impl_info sel, in;
    unsigned char none;
    int id = pc_impl_find(name);
    CHECK(id >= 0);
    CHECK_EQ(pc_impl_get((size_t)id, &sel), 0);
    for (size_t j = 0; j < pc_impl_count(); j++)
        if (pc_impl_get(j, &in) == 0 && in.cache == sel.cache &&
            pc_impl_fill(j, &none, 0, 0x5a) == 0)
            return 1;
    return 0;
}

/* pc_fill of len bytes at off into a fenced buffer holding the pattern:
 * byte in every byte of the range and the pattern everywhere else; or,
 * where nothing here can store byte in the selection's place, -ENOTSUP
 * with nothing written. */
static void fill_one(size_t off, size_t len, int byte)
{
    struct guarded g;
    guarded_alloc(&g, off + len);
    pat_fill(g.lo, g.len);
    int rc = pc_fill(g.lo + off, len, byte);
    if (byte != 0 && !can_fill_as(pc_selected(len))) {
        CHECK_EQ(rc, -ENOTSUP);
        CHECK_EQ(pat_check(g.lo, g.len, 0, 0), SIZE_MAX);
    } else {
        CHECK_EQ(rc, 0);
        CHECK_EQ(pat_check_byte(g.lo, g.len, off, off + len, (unsigned char)byte), SIZE_MAX);
    }
    guarded_free(&g);
}

/* pc_fill around the lengths the primitives' heads, tails and loops turn
 * at, misaligned too, for a byte of each kind; with all, also at each
 * boundary of the selection this process has (vector_max, nt_threshold). */
static void test_fill(int all)
{
    struct pc_host h;
    CHECK_EQ(pc_host_get(&h), 0);
    const size_t cap = (size_t)64 << 20;
    size_t lens[] = {1, 7, 31, 32, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097,
                     (size_t)1 << 16, h.vector_max - 1, h.vector_max, h.vector_max + 1,
                     h.nt_threshold - 1, h.nt_threshold, h.nt_threshold + 1};
    const size_t nshort = 14; /* lens[] up to 64 KiB */
    const size_t offs[] = {0, 1, 13};
    const int bytes[] = {0x5a, 0, 1, 0xff};
    for (size_t i = 0; i < (all ? sizeof(lens) / sizeof(lens[0]) : nshort); i++) {
        if (lens[i] == 0 || lens[i] > cap) /* a threshold of 0 or never */
            continue;
        for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++)
            for (size_t b = 0; b < sizeof(bytes) / sizeof(bytes[0]); b++)
                fill_one(offs[o], lens[i], bytes[b]);
    }
}

/* The stand-in for a primitive that stores only zeros, on CPUs this one
 * may not be: the last of its cache behaviour that runs there and stores
 * any byte (pci_impl_fill_for, which each plan carries for pc_fill). */
static void test_fill_stand_in(void)
{
    struct pci_cpu c = {.features = PCI_F_X86_64 | PCI_F_AVX2 | PCI_F_AVX512 | PCI_F_CLZERO};
    CHECK(pci_impl_fill_for(&c, PCI_ID_x86_clzero) == pci_impls[PCI_ID_x86_avx512_nt].fill);
    c.features &= ~PCI_F_AVX512;
    CHECK(pci_impl_fill_for(&c, PCI_ID_x86_clzero) == pci_impls[PCI_ID_x86_avx2_nt].fill);
    c.features &= ~PCI_F_AVX2;
    CHECK(pci_impl_fill_for(&c, PCI_ID_x86_clzero) == NULL);
    c.features &= ~PCI_F_CLZERO;
    CHECK(pci_impl_fill_for(&c, PCI_ID_x86_clzero) == NULL); /* does not run */
    c.features = PCI_F_AARCH64 | PCI_F_DCZVA;
    CHECK(pci_impl_fill_for(&c, PCI_ID_a64_dczva) == pci_impls[PCI_ID_a64_stp].fill);
    /* One that stores any byte is its own, wherever it runs. */
    const struct pci_cpu *here = pci_cpu();
    for (int i = 0; i < PCI_NIMPL; i++)
        if (pci_impl_runnable(here, i) && pci_impls[i].fill != NULL)
            CHECK(pci_impl_fill_for(here, i) == pci_impls[i].fill);
}

/* pc_fill under each primitive this host runs, forced by PAGECLEAR_IMPL
 * in a child: the zero-only ones then go through their stand-in. */
static void test_fill_forced(void)
{
    struct pc_impl_info in;
    for (size_t i = 0; i < pc_impl_count(); i++) {
        CHECK_EQ(pc_impl_get(i, &in), 0);
        if (!in.supported)
            continue;
        char set[96], got[64];
        snprintf(set, sizeof(set), "PAGECLEAR_IMPL=%s", in.name);
        const char *env[] = {set, NULL};
        struct result r;
        child_run(env, &r);
        CHECK(strcmp(child_field(&r, "selected", got, sizeof(got)), in.name) == 0);
    }
}

static void test_parse_size(void)
{
    size_t v = 0;
    CHECK_EQ(pc_parse_size("0", &v), 0);
    CHECK_EQ(v, 0);
    CHECK_EQ(pc_parse_size("4096", &v), 0);
    CHECK_EQ(v, 4096);
    CHECK_EQ(pc_parse_size("4KB", &v), 0);
    CHECK_EQ(v, 4096);
    CHECK_EQ(pc_parse_size("32m", &v), 0);
    CHECK_EQ(v, 32 << 20);
    CHECK_EQ(pc_parse_size("2MiB", &v), 0);
    CHECK_EQ(v, 2 << 20);
    CHECK_EQ(pc_parse_size("1G", &v), 0);
    CHECK_EQ(v, 1 << 30);
    CHECK_EQ(pc_parse_size("3TB", &v), 0);
    CHECK_EQ(v, (size_t)3 << 40);
    CHECK_EQ(pc_parse_size("12B", &v), 0);
    CHECK_EQ(v, 12);
    const char *bad[] = {"", "K", "-1", "+4", "4 KB", "4KBB", "4X", "1.5G", "0x10", "4KB "};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_EQ(pc_parse_size(bad[i], &v), -EINVAL);
    CHECK_EQ(pc_parse_size("99999999999999999999999", &v), -ERANGE);
    CHECK_EQ(pc_parse_size("17179869184G", &v), -ERANGE);
    CHECK_EQ(pc_parse_size(NULL, &v), -EINVAL);
    CHECK_EQ(pc_parse_size("1", NULL), -EINVAL);
}

static void test_host(void)
{
    struct pc_host h;
    CHECK_EQ(pc_host_get(NULL), -EINVAL);
    CHECK_EQ(pc_host_get(&h), 0);
    CHECK(h.vendor[0] != '\0');
    CHECK(h.unit == pc_default_unit());
    CHECK(h.unit >= 1);
    CHECK(strlen(pc_version()) >= 5);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        test_fill(0);
        printf("selected=%s\n", pc_selected(TEST_PAGE));
        return 0;
    }
    test_bad_input();
    test_introspection();
    test_selected();
    test_fill(1);
    test_fill_stand_in();
    test_fill_forced();
    test_parse_size();
    test_host();
    puts("ok");
    return 0;
}
