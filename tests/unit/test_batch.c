/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_batch.c - batching: the number and sizes of units the callback
 * sees, that each unit clears a prefix in order, cancellation, each
 * preemption model, and the first unit of an extent that starts mid-page.
 */
#include <errno.h>

#include "harness.h"

#define MIB ((size_t)1 << 20)

struct watch {
    char *buf;
    size_t len;
    size_t calls;
    size_t last_done;
    size_t cancel_at; /* return non-zero when done reaches this */
    size_t dones[256];
};

/* Before each unit: [0, done) must already be zero, the rest untouched. */
static int on_resched(void *ctx, size_t done, size_t total)
{
    struct watch *w = ctx;
    CHECK_EQ(total, w->len);
    CHECK(done >= w->last_done);
    CHECK(done < total);
    CHECK_EQ(pat_check(w->buf, w->len, 0, done), SIZE_MAX);
    if (w->calls < 256)
        w->dones[w->calls] = done;
    w->calls++;
    w->last_done = done;
    return done >= w->cancel_at;
}

static void run(struct guarded *g, size_t len, size_t unit, enum pc_preempt model,
                size_t cancel_at, struct watch *w, int *rc, size_t *cleared)
{
    struct pc_batch b;
    pc_batch_init(&b);
    b.unit = unit;
    b.model = model;
    b.resched = on_resched;
    b.ctx = w;
    *w = (struct watch){.buf = g->lo, .len = len, .cancel_at = cancel_at};
    pat_fill(g->lo, g->len);
    *rc = pc_clear_batched(g->lo, len, &b, cleared);
}

/* An extent off bytes into a page, in units of unit bytes: the offsets
 * (done) the callback sees, want[0..n). */
static void unaligned(struct guarded *g, size_t off, size_t unit, size_t len,
                      const size_t *want, size_t n)
{
    struct watch w = {.buf = g->lo + off, .len = len, .cancel_at = SIZE_MAX};
    struct pc_batch b;
    size_t cleared;
    pc_batch_init(&b);
    b.unit = unit;
    b.resched = on_resched;
    b.ctx = &w;
    pat_fill(w.buf, len);
    CHECK_EQ(pc_clear_batched(w.buf, len, &b, &cleared), 0);
    CHECK_EQ(cleared, len);
    CHECK_EQ(w.calls, n);
    for (size_t i = 0; i < n; i++)
        CHECK_EQ(w.dones[i], want[i]);
    CHECK_EQ(pat_check(w.buf, len, 0, len), SIZE_MAX);
}

int main(void)
{
    struct guarded g;
    struct watch w;
    int rc;
    size_t cleared;
    const size_t len = 10 * MIB + 123;

    guarded_alloc(&g, 82 * MIB);

    /* 1 MiB units over 10 MiB + 123 B: 11 units, the last 123 B. */
    for (enum pc_preempt m = PC_PREEMPT_NONE; m <= PC_PREEMPT_VOLUNTARY; m++) {
        run(&g, len, MIB, m, SIZE_MAX, &w, &rc, &cleared);
        CHECK_EQ(rc, 0);
        CHECK_EQ(cleared, len);
        CHECK_EQ(w.calls, 11);
        for (size_t i = 0; i < w.calls; i++)
            CHECK_EQ(w.dones[i], i * MIB);
        CHECK_EQ(pat_check(g.lo, g.len, 0, len), SIZE_MAX);
    }

    /* Preemptible models: one unit, no resched point at all. */
    for (enum pc_preempt m = PC_PREEMPT_FULL; m <= PC_PREEMPT_LAZY; m++) {
        run(&g, len, MIB, m, 0, &w, &rc, &cleared);
        CHECK_EQ(rc, 0);
        CHECK_EQ(w.calls, 0);
        CHECK_EQ(cleared, len);
        CHECK_EQ(pat_check(g.lo, g.len, 0, len), SIZE_MAX);
    }

    /* Cancelled before the fourth unit: exactly three units cleared. */
    run(&g, len, MIB, PC_PREEMPT_VOLUNTARY, 3 * MIB, &w, &rc, &cleared);
    CHECK_EQ(rc, -ECANCELED);
    CHECK_EQ(w.calls, 4);
    CHECK_EQ(cleared, 3 * MIB);
    CHECK_EQ(pat_check(g.lo, g.len, 0, 3 * MIB), SIZE_MAX);

    /* Cancelled before the first unit: nothing written. */
    run(&g, len, MIB, PC_PREEMPT_NONE, 0, &w, &rc, &cleared);
    CHECK_EQ(rc, -ECANCELED);
    CHECK_EQ(cleared, 0);
    CHECK_EQ(pat_check(g.lo, g.len, 0, 0), SIZE_MAX);

    /* Unit 0 means the default: 32 MiB where the host has a native
     * primitive, one page under the portable one. 2.5 units: 3 calls. */
    size_t unit = pc_default_unit();
    if (getenv("PAGECLEAR_UNIT") == NULL) {
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(PC_PORTABLE_ONLY)
        CHECK_EQ(unit, 32 * MIB);
#else
        CHECK_EQ(unit, TEST_PAGE);
#endif
    }
    CHECK(unit <= 32 * MIB);
    size_t big = 2 * unit + unit / 2;
    run(&g, big, 0, PC_PREEMPT_NONE, SIZE_MAX, &w, &rc, &cleared);
    CHECK_EQ(rc, 0);
    CHECK_EQ(w.calls, 3);
    CHECK_EQ(cleared, big);
    CHECK_EQ(pat_check(g.lo, g.len, 0, big), SIZE_MAX);

    /* A unit larger than the extent: one unit. One-byte units: one call a
     * byte, still a prefix each time. */
    run(&g, 5000, MIB, PC_PREEMPT_VOLUNTARY, SIZE_MAX, &w, &rc, &cleared);
    CHECK_EQ(w.calls, 1);
    run(&g, 300, 1, PC_PREEMPT_VOLUNTARY, SIZE_MAX, &w, &rc, &cleared);
    CHECK_EQ(rc, 0);
    CHECK_EQ(w.calls, 300);
    CHECK_EQ(pat_check(g.lo, g.len, 0, 300), SIZE_MAX);

    /* The first-unit rule (pageclear.h, struct pc_batch): a unit of whole
     * pages starting 16 bytes into a page is first 8192 - 16 = 8176 bytes,
     * so the later ones start on page boundaries; 5 pages: 3 units, the
     * last 4112 bytes. A unit that is not whole pages is not adjusted. */
    const size_t grid[] = {0, 8176, 16368};
    unaligned(&g, 16, 2 * TEST_PAGE, 5 * TEST_PAGE, grid, 3);
    const size_t plain[] = {0, 5000, 10000, 15000, 20000};
    unaligned(&g, 16, 5000, 5 * TEST_PAGE, plain, 5);
    const size_t aligned[] = {0, 8192, 16384};
    unaligned(&g, 0, 2 * TEST_PAGE, 5 * TEST_PAGE, aligned, 3);

    /* No batch, no callback, no cleared pointer: defaults still clear. */
    pat_fill(g.lo, g.len);
    CHECK_EQ(pc_clear_batched(g.lo + 1, 3 * MIB, NULL, NULL), 0);
    CHECK_EQ(pat_check(g.lo, g.len, 1, 1 + 3 * MIB), SIZE_MAX);
    CHECK_EQ(pc_clear_batched(g.lo, 0, NULL, &cleared), 0);
    CHECK_EQ(cleared, 0);

    guarded_free(&g);
    puts("ok");
    return 0;
}
