/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_api.c - the public contracts: bad input returns the documented
 * errno and writes nothing, zero lengths write nothing, introspection
 * matches impl.def, and what pc_selected names can run here.
 */
#include <errno.h>

#include "harness.h"

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

int main(void)
{
    test_bad_input();
    test_introspection();
    test_selected();
    test_parse_size();
    test_host();
    puts("ok");
    return 0;
}
