/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_primitives.c - every primitive this host can run, and pc_clear
 * itself, against the reference: the cleared range reads zero and every
 * byte around it keeps its pattern. Lengths 0..1024 at alignments 0..63
 * and 4096-i, extents ending flush against a guard page, random lengths
 * up to 8 MiB, and a 256 MiB extent for the large-extent primitives.
 * The fill twins (pc_impl_fill, perf's memset workload) the same way with
 * non-zero bytes, and refused where the instruction only zeroes.
 */
#include <errno.h>

#include "harness.h"
#if !defined(PC_PORTABLE_ONLY) && defined(__x86_64__)
#include "arch/x86_64/probe.h"
#define HAVE_PROBE 1
#endif

#define SMALL_MAX 1024
#define ALIGN_MAX 64
#define MARGIN 64 /* sentinel bytes checked on each side */
#define RANDOM_CASES 48
#define RANDOM_MAX ((size_t)8 << 20)
#define LARGE ((size_t)256 << 20)

typedef int (*clear_fn)(size_t which, void *p, size_t n);

/* The byte the function under test stores: 0 for the clears. */
static unsigned char fill_byte;

static int via_impl(size_t which, void *p, size_t n)
{
    return pc_impl_clear(which, p, n);
}

static int via_fill(size_t which, void *p, size_t n)
{
    return pc_impl_fill(which, p, n, fill_byte);
}

static int via_pc_clear(size_t which, void *p, size_t n)
{
    (void)which;
    return pc_clear(p, n);
}

static int via_pc_clear_cold(size_t which, void *p, size_t n)
{
    (void)which;
    return pc_clear_cold(p, n);
}

/* Clear [off, off + len) of a window [w0, w1) of g and check the window. */
static void one(const char *name, clear_fn fn, size_t which, struct guarded *g,
                size_t w0, size_t w1, size_t off, size_t len)
{
    char *w = g->lo + w0;
    size_t wlen = w1 - w0;
    pat_fill(w, wlen);
    CHECK_EQ(fn(which, g->lo + off, len), 0);
    size_t bad = pat_check_byte(w, wlen, off - w0, off - w0 + len, fill_byte);
    if (bad != SIZE_MAX) {
        fprintf(stderr, "%s: wrong byte at window offset %zu (dst offset %zu, len %zu)\n",
                name, bad, off, len);
        exit(1);
    }
}

static void run(const char *name, clear_fn fn, size_t which, int large)
{
    struct guarded g;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;

    guarded_alloc(&g, 4 * TEST_PAGE);
    /* Every length at every alignment, margins on both sides. */
    for (size_t a = 0; a < ALIGN_MAX; a++)
        for (size_t len = 0; len <= SMALL_MAX; len++)
            one(name, fn, which, &g, 0, MARGIN + a + len + MARGIN, MARGIN + a, len);
    /* Alignments 4096 - i: the extent starts just before a page boundary. */
    for (size_t i = 1; i <= ALIGN_MAX; i++)
        for (size_t len = 0; len <= SMALL_MAX; len += 7)
            one(name, fn, which, &g, 0, 2 * TEST_PAGE + MARGIN, TEST_PAGE - i, len);
    /* Flush against the guard page after the buffer: no margin to spare. */
    for (size_t len = 0; len <= SMALL_MAX; len++)
        one(name, fn, which, &g, g.len - len - MARGIN, g.len, g.len - len, len);
    /* And against the guard page before it. */
    for (size_t len = 0; len <= SMALL_MAX; len++)
        one(name, fn, which, &g, 0, len + MARGIN, 0, len);
    guarded_free(&g);

    guarded_alloc(&g, RANDOM_MAX + 2 * TEST_PAGE);
    for (int c = 0; c < RANDOM_CASES; c++) {
        size_t len = (size_t)(rng_next(&seed) % RANDOM_MAX);
        size_t off = MARGIN + (size_t)(rng_next(&seed) % TEST_PAGE);
        one(name, fn, which, &g, off - MARGIN, off + len + MARGIN, off, len);
    }
    guarded_free(&g);

    if (large) {
        /* An extent past any LLC, unaligned at both ends, flush with the
         * guard page at its end. */
        guarded_alloc(&g, LARGE);
        one(name, fn, which, &g, 0, g.len, 13, g.len - 13);
        guarded_free(&g);
    }
    printf("ok   %s\n", name);
}

/* x86-64-probe chooses its branch by timing, which the test cannot steer
 * by the extent it picks: run it again with each branch forced (both must
 * clear exactly the extent, at every length and alignment above), and
 * count the runs so a renamed primitive cannot skip this silently. */
static size_t run_probe_forced(size_t which, const char *name)
{
#if defined(HAVE_PROBE)
    if (strcmp(name, "x86-64-probe") != 0)
        return 0;
    static const struct {
        int force;
        const char *label, *fill_label;
    } branches[] = {{PCI_PROBE_CACHED, "x86-64-probe forced cached",
                     "x86-64-probe forced cached fill 0x5a"},
                    {PCI_PROBE_COLD, "x86-64-probe forced cold",
                     "x86-64-probe forced cold fill 0x5a"}};
    for (size_t b = 0; b < 2; b++) {
        pci_probe_force = branches[b].force;
        run(branches[b].label, via_impl, which, 1);
        fill_byte = 0x5a;
        run(branches[b].fill_label, via_fill, which, 0);
        fill_byte = 0;
    }
    pci_probe_force = PCI_PROBE_DECIDE;
    return 1;
#else
    (void)which;
    (void)name;
    return 0;
#endif
}

int main(void)
{
    size_t probe_forced = 0, probe_supported = 0;
    size_t tested = 0;
    for (size_t i = 0; i < pc_impl_count(); i++) {
        struct pc_impl_info in;
        CHECK_EQ(pc_impl_get(i, &in), 0);
        if (!in.supported) {
            printf("skip %s (this CPU/OS cannot run it)\n", in.name);
            continue;
        }
        /* Every primitive gets the 256 MiB run, not only the large-extent
         * ones: pc_clear_batched may hand any of them a 32 MiB unit. */
        run(in.name, via_impl, i, 1);
        tested++;
        probe_supported += strcmp(in.name, "x86-64-probe") == 0;
        probe_forced += run_probe_forced(i, in.name);
        /* Its fill twin with bytes whose halves differ (a byte-order slip
         * shows) and with every bit set; zero-only ones refuse and write
         * nothing. */
        static const unsigned char bytes[] = {0x5a, 0xff, 0x01};
        char label[64];
        for (size_t b = 0; b < sizeof(bytes); b++) {
            fill_byte = bytes[b];
            struct guarded g;
            guarded_alloc(&g, TEST_PAGE);
            pat_fill(g.lo, g.len);
            int rc = pc_impl_fill(i, g.lo + 1, 100, fill_byte);
            if (rc == -ENOTSUP) {
                CHECK(strcmp(in.name, "x86-64-clzero") == 0 ||
                      strcmp(in.name, "aarch64-dczva") == 0);
                CHECK_EQ(pat_check(g.lo, g.len, 0, 0), SIZE_MAX);
                guarded_free(&g);
                fill_byte = 0;
                printf("ok   %s refuses to fill with 0x%02x\n", in.name, bytes[b]);
                break;
            }
            CHECK_EQ(rc, 0);
            guarded_free(&g);
            snprintf(label, sizeof(label), "%s fill 0x%02x", in.name, fill_byte);
            run(label, via_fill, i, 0);
        }
        fill_byte = 0;
    }
    /* Bad input to the fill: nothing written, the documented errors. */
    {
        struct guarded g;
        guarded_alloc(&g, TEST_PAGE);
        pat_fill(g.lo, g.len);
        CHECK_EQ(pc_impl_fill(0, g.lo, 10, 256), -EINVAL);
        CHECK_EQ(pc_impl_fill(0, g.lo, 10, -1), -EINVAL);
        CHECK_EQ(pc_impl_fill(pc_impl_count(), g.lo, 10, 1), -ENOENT);
        CHECK_EQ(pc_impl_fill(0, NULL, 10, 1), -EINVAL);
        CHECK_EQ(pc_impl_fill(0, (void *)(UINTPTR_MAX - 10), 100, 1), -EOVERFLOW);
        CHECK_EQ(pc_impl_fill(0, g.lo, 0, 1), 0);
        CHECK_EQ(pat_check(g.lo, g.len, 0, 0), SIZE_MAX);
        for (size_t i = 0; i < pc_impl_count(); i++) {
            struct pc_impl_info in;
            CHECK_EQ(pc_impl_get(i, &in), 0);
            if (!in.supported)
                CHECK_EQ(pc_impl_fill(i, g.lo, 10, 1), -ENOTSUP);
        }
        CHECK_EQ(pat_check(g.lo, g.len, 0, 0), SIZE_MAX);
        guarded_free(&g);
    }
    run("pc_clear", via_pc_clear, 0, 1);
    run("pc_clear_cold", via_pc_clear_cold, 0, 1);
    /* What every host of each build must run: on x86-64 the portable one
     * plus the three baseline primitives, on arm64 the portable one and
     * stp, elsewhere the portable one. */
#if defined(PC_PORTABLE_ONLY)
    CHECK_EQ(tested, 1);
#elif defined(__x86_64__)
    CHECK(tested >= 4);
    /* Where this host runs the probe, both its branches ran too. */
    CHECK_EQ(probe_forced, probe_supported);
#elif defined(__aarch64__)
    CHECK(tested >= 2);
#else
    CHECK(tested >= 1);
#endif
    return 0;
}
