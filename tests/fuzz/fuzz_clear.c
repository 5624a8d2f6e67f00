/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fuzz_clear.c - fuzz target over (offset, length, hint, unit, model,
 * primitive) inside a buffer fenced by guard pages. Whatever the input,
 * each entry point returns what its contract says, zeroes exactly its range
 * when it succeeds and writes nothing when it fails.
 * Built for libFuzzer with clang (-DPC_FUZZ=ON); otherwise a built-in
 * driver feeds it seeded random inputs, so it also runs as a plain test.
 */
#include <errno.h>

#include "harness.h"

#define FUZZ_PAGES 24
#define FUZZ_BYTES (FUZZ_PAGES * TEST_PAGE)

static struct guarded g;

static uint64_t take(const uint8_t **d, size_t *n, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        v = v << 8 | (*n ? **d : 0);
        if (*n) {
            (*d)++;
            (*n)--;
        }
    }
    return v;
}

static int stop_after(void *ctx, size_t done, size_t total)
{
    (void)total;
    return done >= *(size_t *)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (g.map == NULL)
        guarded_alloc(&g, FUZZ_BYTES);
    size_t off = take(&data, &size, 2) % (FUZZ_BYTES + 1);
    size_t len = take(&data, &size, 3) % (FUZZ_BYTES + 1 - off);
    size_t hint = take(&data, &size, 3) % (FUZZ_BYTES + 2); /* may be outside */
    size_t unit = take(&data, &size, 2);
    unsigned model = (unsigned)take(&data, &size, 1) % 5; /* 4 is invalid */
    size_t cancel = take(&data, &size, 3);
    unsigned which = (unsigned)take(&data, &size, 1);
    char *addr = g.lo + off;

    struct pc_batch b;
    pc_batch_init(&b);
    b.unit = unit;
    b.model = (enum pc_preempt)model;
    b.resched = stop_after;
    b.ctx = &cancel;
    size_t cleared = 0;
    int rc;

    pat_fill(g.lo, g.len);
    switch (which % 4) {
    case 0:
        CHECK_EQ(pc_clear(addr, len), 0);
        CHECK_EQ(pat_check(g.lo, g.len, off, off + len), SIZE_MAX);
        break;
    case 1: {
        size_t i = (which >> 2) % pc_impl_count();
        struct pc_impl_info in;
        pc_impl_get(i, &in);
        rc = pc_impl_clear(i, addr, len);
        CHECK_EQ(rc, in.supported ? 0 : -ENOTSUP);
        CHECK_EQ(pat_check(g.lo, g.len, off, rc == 0 ? off + len : off), SIZE_MAX);
        break;
    }
    case 2:
        rc = pc_clear_batched(addr, len, &b, &cleared);
        if (model == 4) {
            CHECK_EQ(rc, -EINVAL);
            CHECK_EQ(cleared, 0);
        } else {
            CHECK(rc == 0 || rc == -ECANCELED);
            CHECK(rc == 0 ? cleared == len : cleared < len);
        }
        CHECK_EQ(pat_check(g.lo, g.len, off, off + cleared), SIZE_MAX);
        break;
    default: {
        char *h = g.lo + hint - 1; /* hint 0 means one byte before the buffer */
        int inside = len > 0 && h >= addr && h < addr + len;
        rc = pc_clear_hint_batched(addr, len, h, &b, &cleared);
        if (len == 0)
            CHECK_EQ(rc, 0);
        else if (!inside || model == 4)
            CHECK_EQ(rc, -EINVAL);
        else
            CHECK(rc == 0 || rc == -ECANCELED);
        if (rc == 0) {
            CHECK_EQ(cleared, len);
            CHECK_EQ(pat_check(g.lo, g.len, off, off + len), SIZE_MAX);
        } else {
            /* Cancelled or refused: whatever was cleared lies inside the
             * range and counts exactly the zero bytes; outside, nothing. */
            CHECK_EQ(pat_check(g.lo, off, SIZE_MAX, SIZE_MAX), SIZE_MAX);
            size_t zeros = 0;
            for (size_t i = 0; i < len; i++)
                zeros += addr[i] == 0;
            CHECK_EQ(zeros, cleared);
            for (size_t i = off + len; i < g.len; i++)
                CHECK((unsigned char)g.lo[i] == pat(i));
        }
        break;
    }
    }
    return 0;
}

#ifndef PC_LIBFUZZER
/* Plain-test driver: seeded random inputs, biased to short ones. */
int main(int argc, char **argv)
{
    unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 3000;
    uint64_t seed = 0x5eed5eed12345678ULL;
    uint8_t in[24];
    for (unsigned long it = 0; it < iters; it++) {
        for (size_t i = 0; i < sizeof(in); i++)
            in[i] = (uint8_t)rng_next(&seed);
        if (it % 3 == 0) /* short lengths and small units often */
            in[2] = in[3] = 0, in[8] = 0;
        LLVMFuzzerTestOneInput(in, sizeof(in));
    }
    printf("ok: %lu inputs\n", iters);
    return 0;
}
#endif
