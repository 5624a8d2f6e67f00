/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_utest.c - the Mann-Whitney U test of `pageclear compare` against
 * values computed by hand (the comments show how), and its invariants:
 * swapping the samples keeps p and turns U into nx ny - U; a sample
 * against itself is never significant; too few runs can never be.
 */
#include <math.h>

#include "harness.h"
#include "utest.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * fmax(1.0, fabs(b)))

static void expect(const double *x, size_t nx, const double *y, size_t ny, double u, double p,
                   int exact, int line)
{
    struct cli_utest t, back;
    CHECK_EQ(cli_utest(x, nx, y, ny, &t), 0);
    if (!NEAR(t.u, u) || !(NEAR(t.p, p) || fabs(t.p - p) < 1e-15) || t.exact != exact) {
        fprintf(stderr, "line %d: U %.17g p %.17g exact %d; want U %.17g p %.17g exact %d\n",
                line, t.u, t.p, t.exact, u, p, exact);
        exit(1);
    }
    CHECK_EQ(cli_utest(y, ny, x, nx, &back), 0);
    CHECK(NEAR(back.u, (double)nx * (double)ny - u));
    CHECK(NEAR(back.p, t.p) || fabs(back.p - t.p) < 1e-15);
}

int main(void)
{
    /* 5 against 5, no ties: C(10, 5) = 252 ways to place x's ranks. The
     * number with U = k is the number of partitions of k into at most 5
     * parts of at most 5: 1, 1, 2 for k = 0, 1, 2. */
    const double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    expect(a, 5, b, 5, 0, 2.0 / 252, 1, __LINE__); /* 2 * 1/252 */
    const double c[] = {1, 2, 3, 4, 6}, d[] = {5, 7, 8, 9, 10};
    expect(c, 5, d, 5, 1, 4.0 / 252, 1, __LINE__); /* 2 * (1 + 1)/252 */
    const double e[] = {1, 2, 3, 5, 6}, f[] = {4, 7, 8, 9, 10};
    expect(e, 5, f, 5, 2, 8.0 / 252, 1, __LINE__); /* 2 * (1 + 1 + 2)/252 */
    /* Order within a sample does not matter. */
    const double e2[] = {6, 3, 5, 1, 2}, f2[] = {10, 4, 9, 7, 8};
    expect(e2, 5, f2, 5, 2, 8.0 / 252, 1, __LINE__);
    /* Ties: x = {1, 2}, y = {2, 3}; ranks 1, 2.5, 2.5, 4; x's sum 3.5, U
     * = 3.5 - 3 = 0.5. The 6 pairs of ranks sum to 3.5 (twice), 5 (twice),
     * 6.5 (twice): P(sum <= 3.5) = 2/6, P(sum >= 3.5) = 1, p = 2 * 2/6. */
    const double g[] = {1, 2}, h[] = {2, 3};
    expect(g, 2, h, 2, 0.5, 4.0 / 6, 1, __LINE__);
    /* A sample against itself: U = nx ny / 2, both tails hold the
     * observed sum, p = 1. */
    expect(a, 5, a, 5, 12.5, 1, 1, __LINE__);
    const double same[] = {5, 5, 5, 5, 5};
    expect(same, 5, same, 5, 12.5, 1, 1, __LINE__);
    /* 3 against 3: the best p is 2/C(6, 3) = 0.1, never below 0.05. */
    struct cli_utest t;
    const double x3[] = {1, 2, 3}, y3[] = {4, 5, 6};
    expect(x3, 3, y3, 3, 0, 0.1, 1, __LINE__);
    CHECK_EQ(cli_utest(x3, 3, y3, 3, &t), 0);
    CHECK(NEAR(t.min_p, 0.1) && t.min_p >= CLI_UTEST_ALPHA);
    /* 4 against 4 can: 2/C(8, 4) = 2/70. */
    CHECK_EQ(cli_utest(a, 4, b, 4, &t), 0);
    CHECK(NEAR(t.min_p, 2.0 / 70) && NEAR(t.p, 2.0 / 70) && t.p < CLI_UTEST_ALPHA);
    /* 30 against 30 (N = 60 > 50): the normal approximation.
     * x = 1..30, y = 31..60: U = 0, mean 450, variance 30*30/12 * 61 =
     * 4575, z = (450 - 0.5) / sqrt(4575), p = erfc(z / sqrt 2). */
    double x[30], y[30], y2[30], ones[30], twos[30];
    for (int i = 0; i < 30; i++) {
        x[i] = i + 1, y[i] = i + 31, y2[i] = i + 16, ones[i] = 1, twos[i] = 2;
    }
    expect(x, 30, y, 30, 0, 3.019859359162151e-11, 0, __LINE__);
    /* y = 16..45: 15 values in both (15 ties of 2, sum of t^3 - t = 90);
     * U = (1 + ... + 14) + 15/2 = 112.5; variance 75 * (61 - 90/3540) =
     * 4573.0932..., z = (450 - 112.5 - 0.5) / sqrt of it. */
    expect(x, 30, y2, 30, 112.5, 6.247984928789204e-07, 0, __LINE__);
    /* Two groups of 30 tied runs: sum of t^3 - t = 2 * 26970, variance
     * 75 * (61 - 53940/3540) = 3432.2033..., U = 0. */
    expect(ones, 30, twos, 30, 0, 1.685298194892658e-14, 0, __LINE__);
    /* All 60 runs tied: no variance, nothing to tell apart. */
    expect(ones, 30, ones, 30, 450, 1, 0, __LINE__);
    /* Empty samples are refused. */
    CHECK_EQ(cli_utest(a, 0, b, 5, &t), -1);
    CHECK_EQ(cli_utest(a, 5, b, 0, &t), -1);
    printf("ok: Mann-Whitney U against hand-computed values\n");
    return 0;
}
