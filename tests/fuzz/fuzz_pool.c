/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fuzz_pool.c - fuzz target over sequences of pool operations: allocate,
 * free (valid, interior, foreign, double), write, for each policy. A
 * shadow of page ownership checks that allocations never overlap, always
 * read zero, keep what their owner wrote, and that bad frees change
 * nothing. libFuzzer with clang (-DPC_FUZZ=ON); otherwise a seeded driver.
 */
#include <errno.h>

#include "harness.h"

#define FP_PAGES 64
#define FP_SLOTS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct pc_pool_opts o;
    pc_pool_opts_init(&o);
    o.capacity = FP_PAGES * TEST_PAGE;
    o.backing = PC_BACKING_4K;
    o.policy = (enum pc_pool_policy)(data[0] % 3);
    struct pc_pool *p = pc_pool_create(&o);
    CHECK(p != NULL);
    struct { char *a; size_t n; unsigned char mark; } slot[FP_SLOTS] = {{0}};
    unsigned char mark = 0;

    for (size_t i = 1; i + 1 < size; i += 2) {
        unsigned op = data[i] % 5, s = data[i] / 5 % FP_SLOTS, arg = data[i + 1];
        if (op == 0 && slot[s].a == NULL) { /* allocate 1..32 pages */
            size_t len = (size_t)(arg % 32 + 1) * TEST_PAGE - (arg % 7);
            char *a = pc_pool_alloc(p, len);
            if (a == NULL) {
                CHECK_EQ(errno, ENOMEM);
                continue;
            }
            size_t n = (len + TEST_PAGE - 1) / TEST_PAGE;
            for (size_t k = 0; k < n * TEST_PAGE; k++)
                CHECK(a[k] == 0);
            for (int j = 0; j < FP_SLOTS; j++) /* no overlap */
                if (slot[j].a != NULL)
                    CHECK(a + n * TEST_PAGE <= slot[j].a ||
                          slot[j].a + slot[j].n * TEST_PAGE <= a);
            mark = (unsigned char)(mark % 250 + 1);
            memset(a, mark, n * TEST_PAGE);
            slot[s].a = a;
            slot[s].n = n;
            slot[s].mark = mark;
        } else if (op == 1 && slot[s].a != NULL) { /* free, then double free */
            for (size_t k = 0; k < slot[s].n * TEST_PAGE; k++)
                CHECK_EQ((unsigned char)slot[s].a[k], slot[s].mark);
            CHECK_EQ(pc_pool_free(p, slot[s].a), 0);
            CHECK_EQ(pc_pool_free(p, slot[s].a), -EINVAL);
            slot[s].a = NULL;
        } else if (op == 2 && slot[s].a != NULL) { /* bad frees */
            char local;
            CHECK_EQ(pc_pool_free(p, slot[s].a + 1 + arg), -EINVAL);
            if (slot[s].n > 1)
                CHECK_EQ(pc_pool_free(p, slot[s].a + TEST_PAGE), -EINVAL);
            CHECK_EQ(pc_pool_free(p, &local), -EINVAL);
        } else if (op == 3) { /* allocation too large or empty */
            CHECK(pc_pool_alloc(p, arg ? (FP_PAGES + arg) * TEST_PAGE : 0) == NULL);
        } else if (op == 4) {
            struct pc_pool_stats st;
            CHECK_EQ(pc_pool_stats(p, &st), 0);
            CHECK_EQ(st.in_use + st.clean + st.dirty, st.capacity);
        }
    }
    pc_pool_destroy(p);
    return 0;
}

#ifndef PC_LIBFUZZER
int main(int argc, char **argv)
{
    unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
    uint64_t seed = 0xfeedfacecafef00dULL;
    uint8_t in[96];
    for (unsigned long it = 0; it < iters; it++) {
        for (size_t i = 0; i < sizeof(in); i++)
            in[i] = (uint8_t)rng_next(&seed);
        LLVMFuzzerTestOneInput(in, sizeof(in));
    }
    printf("ok: %lu sequences\n", iters);
    return 0;
}
#endif
