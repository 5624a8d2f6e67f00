/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_hint.c - the folio_zero_user order, observed: with one-page units
 * the resched callback runs between pages, so the test sees which page
 * each unit cleared. The sequence must be right range, left range, then
 * the neighbourhood, each ascending; compared with an independent model of
 * the rule and, for a few cases, with sequences written out by hand.
 */
#include <errno.h>

#include "harness.h"

#define MAXPAGES 600

struct observe {
    char *buf;       /* pattern-filled extent */
    size_t len;
    size_t npages;   /* pages of the extent (first may start mid-page) */
    size_t off0;     /* offset of buf within its first page */
    int zero[MAXPAGES];
    size_t seq[MAXPAGES + 1];
    size_t nseq;
};

/* The page range [s, e) of buf that page index i covers. */
static void page_span(const struct observe *o, size_t i, size_t *s, size_t *e)
{
    size_t ps = i * TEST_PAGE, pe = ps + TEST_PAGE;
    ps = ps > o->off0 ? ps - o->off0 : 0;
    pe = pe - o->off0 < o->len ? pe - o->off0 : o->len;
    *s = ps;
    *e = pe;
}

/* Record every page that became zero since the last look. A page reads
 * as zero only when all of it is; a page half-done is a failure. */
static void look(struct observe *o)
{
    for (size_t i = 0; i < o->npages; i++) {
        if (o->zero[i])
            continue;
        size_t s, e, nz = 0;
        page_span(o, i, &s, &e);
        for (size_t k = s; k < e; k++)
            nz += o->buf[k] == 0;
        CHECK(nz == 0 || nz == e - s);
        if (nz) {
            o->zero[i] = 1;
            CHECK(o->nseq < MAXPAGES);
            o->seq[o->nseq++] = i;
        }
    }
}

static int on_resched(void *ctx, size_t done, size_t total)
{
    struct observe *o = ctx;
    (void)done;
    (void)total;
    look(o);
    return 0;
}

/* The hint rule (pc_clear_hint in pageclear.h: right, left, then the
 * neighbourhood), written independently of the library. */
static size_t model(size_t n, size_t fault, size_t *out)
{
    long lo = (long)fault - 2, hi = (long)fault + 2, k = 0;
    if (lo < 0)
        lo = 0;
    if (hi > (long)n - 1)
        hi = (long)n - 1;
    for (long i = hi + 1; i < (long)n; i++)
        out[k++] = (size_t)i;
    for (long i = 0; i < lo; i++)
        out[k++] = (size_t)i;
    for (long i = lo; i <= hi; i++)
        out[k++] = (size_t)i;
    return (size_t)k;
}

/* Clear len bytes starting off0 bytes into a page, hint at byte hint_off. */
static void observe_case(struct guarded *g, size_t off0, size_t len, size_t hint_off,
                         const size_t *want, size_t nwant)
{
    static struct observe o;
    struct pc_batch b;
    size_t cleared;

    o = (struct observe){.buf = g->lo + off0, .len = len, .off0 = off0};
    o.npages = (off0 + len + TEST_PAGE - 1) / TEST_PAGE;
    CHECK(o.npages <= MAXPAGES);
    pat_fill(g->lo, g->len);
    pc_batch_init(&b);
    b.unit = TEST_PAGE;
    b.model = PC_PREEMPT_VOLUNTARY;
    b.resched = on_resched;
    b.ctx = &o;
    CHECK_EQ(pc_clear_hint_batched(o.buf, len, o.buf + hint_off, &b, &cleared), 0);
    look(&o);
    CHECK_EQ(cleared, len);
    CHECK_EQ(pat_check(g->lo, g->len, off0, off0 + len), SIZE_MAX);

    size_t ref[MAXPAGES];
    size_t nref = model(o.npages, (off0 + hint_off) / TEST_PAGE, ref);
    CHECK_EQ(o.nseq, nref);
    for (size_t i = 0; i < nref; i++)
        CHECK_EQ(o.seq[i], ref[i]);
    if (want != NULL) {
        CHECK_EQ(o.nseq, nwant);
        for (size_t i = 0; i < nwant; i++)
            CHECK_EQ(o.seq[i], want[i]);
    }
}

int main(void)
{
    struct guarded g;
    const size_t P = TEST_PAGE, N = 512; /* a 2 MiB folio */

    guarded_alloc(&g, (N + 2) * P);

    /* Written out by hand. */
    { size_t w[] = {0}; observe_case(&g, 0, P, 100, w, 1); }
    { size_t w[] = {0, 1}; observe_case(&g, 0, 2 * P, P + 5, w, 2); }
    { size_t w[] = {0, 1}; observe_case(&g, 0, 2 * P, 0, w, 2); }
    { size_t w[] = {5, 6, 7, 0, 1, 2, 3, 4}; observe_case(&g, 0, 8 * P, 2 * P, w, 8); }
    { size_t w[] = {0, 1, 2, 3, 4, 5}; observe_case(&g, 0, 6 * P, 5 * P + 7, w, 6); }
    { size_t w[] = {8, 9, 0, 1, 2, 3, 4, 5, 6, 7}; observe_case(&g, 0, 10 * P, 5 * P, w, 10); }

    /* A 2 MiB folio with the hint at every interesting page. */
    size_t faults[] = {0, 1, 2, 3, 100, 255, 256, N - 3, N - 2, N - 1};
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        observe_case(&g, 0, N * P, faults[i] * P + 123, NULL, 0);

    /* Small extents: every page count 1..7, every hint page. */
    for (size_t n = 1; n <= 7; n++)
        for (size_t f = 0; f < n; f++)
            observe_case(&g, 0, n * P, f * P + f, NULL, 0);

    /* Unaligned ends: partial first and last pages. */
    observe_case(&g, 100, 20 * P + 1, 0, NULL, 0);
    observe_case(&g, P - 1, 9 * P, 9 * P - 1, NULL, 0);
    observe_case(&g, 2000, 3000, 2500, NULL, 0);

    /* Under a preemptible model: no callbacks, same bytes cleared. */
    pat_fill(g.lo, g.len);
    struct pc_batch b;
    pc_batch_init(&b);
    b.model = PC_PREEMPT_FULL;
    size_t cleared;
    CHECK_EQ(pc_clear_hint_batched(g.lo + 3, 40 * P, g.lo + 17 * P, &b, &cleared), 0);
    CHECK_EQ(cleared, 40 * P);
    CHECK_EQ(pat_check(g.lo, g.len, 3, 3 + 40 * P), SIZE_MAX);

    /* And the plain call. */
    pat_fill(g.lo, g.len);
    CHECK_EQ(pc_clear_hint(g.lo, N * P, g.lo + 7 * P), 0);
    CHECK_EQ(pat_check(g.lo, g.len, 0, N * P), SIZE_MAX);

    guarded_free(&g);
    puts("ok");
    return 0;
}
