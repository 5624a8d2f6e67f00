/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * utest.c - the Mann-Whitney U test, two-sided.
 *
 * The runs of both samples are ranked together, tied runs sharing the
 * mean of their ranks (midranks). Ranks are kept doubled, so midranks are
 * whole numbers and the rank sum can index a table. With few runs, p is
 * counted exactly: of all C(N, nx) ways to pick nx of the N ranks, the
 * share whose sum is at or below (at or above) x's, the smaller of the
 * two doubled. With more, U is taken as normal with mean nx ny / 2 and
 * the variance corrected for ties, and |U - mean| is reduced by 1/2 for
 * continuity.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "utest.h"

struct run {
    double v;
    int of_x;
};

static int by_value(const void *a, const void *b)
{
    double x = ((const struct run *)a)->v, y = ((const struct run *)b)->v;
    return (x > y) - (x < y);
}

/* C(n, k) as a double (exact while it is below 2^53). */
static double choose(size_t n, size_t k)
{
    double c = 1;
    if (k > n - k)
        k = n - k;
    for (size_t i = 1; i <= k; i++)
        c = c * (double)(n - k + i) / (double)i;
    return c;
}

/* Exact two-sided p: k ranks of rank2[0, n) (doubled) summing to obs. */
static int exact_p(const unsigned *rank2, size_t n, size_t k, unsigned obs, double *p)
{
    size_t smax = (size_t)n * (n + 1); /* every doubled rank together */
    /* ways[j * (smax + 1) + s]: ways to pick j of the ranks seen so far
     * with doubled sum s. */
    double *ways = calloc((k + 1) * (smax + 1), sizeof(*ways));
    if (ways == NULL)
        return -1;
    ways[0] = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = (i + 1 < k ? i + 1 : k); j >= 1; j--)
            for (size_t s = rank2[i]; s <= smax; s++)
                ways[j * (smax + 1) + s] += ways[(j - 1) * (smax + 1) + s - rank2[i]];
    double le = 0, ge = 0, all = choose(n, k);
    for (size_t s = 0; s <= smax; s++) {
        double w = ways[k * (smax + 1) + s];
        if (s <= obs)
            le += w;
        if (s >= obs)
            ge += w;
    }
    free(ways);
    double tail = (le < ge ? le : ge) / all;
    *p = 2 * tail < 1 ? 2 * tail : 1;
    return 0;
}

/* Normal approximation: p for U with nx, ny runs and tie term ties =
 * sum over tied groups of (t^3 - t). */
static double normal_p(double u, size_t nx, size_t ny, double ties)
{
    double n = (double)(nx + ny), mean = (double)nx * (double)ny / 2;
    double var = (double)nx * (double)ny / 12 * ((n + 1) - ties / (n * (n - 1)));
    if (var <= 0)
        return 1; /* every run tied: nothing tells the samples apart */
    double z = (fabs(u - mean) - 0.5) / sqrt(var);
    return z <= 0 ? 1 : erfc(z / sqrt(2));
}

int cli_utest(const double *x, size_t nx, const double *y, size_t ny, struct cli_utest *t)
{
    size_t n = nx + ny;
    if (nx == 0 || ny == 0)
        return -1;
    struct run *r = malloc(n * sizeof(*r));
    unsigned *rank2 = malloc(n * sizeof(*rank2));
    if (r == NULL || rank2 == NULL) {
        free(r);
        free(rank2);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        r[i] = (struct run){i < nx ? x[i] : y[i - nx], i < nx};
    qsort(r, n, sizeof(*r), by_value);
    double rx2 = 0; /* x's rank sum, doubled */
    double ties = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && r[j].v == r[i].v; j++)
            ;
        /* ranks i+1 .. j share their mean, (i + 1 + j) / 2: doubled, i + 1 + j */
        double tn = (double)(j - i);
        ties += tn * tn * tn - tn;
        for (size_t k = i; k < j; k++) {
            rank2[k] = (unsigned)(i + 1 + j);
            rx2 += r[k].of_x ? rank2[k] : 0;
        }
    }
    *t = (struct cli_utest){.u = rx2 / 2.0 - (double)nx * (double)(nx + 1) / 2,
                            .exact = n <= CLI_UTEST_EXACT_MAX};
    double least = 2 / choose(n, nx);
    t->min_p = least < 1 ? least : 1;
    int rc = 0;
    if (t->exact)
        rc = exact_p(rank2, n, nx, (unsigned)rx2, &t->p);
    else
        t->p = normal_p(t->u, nx, ny, ties);
    free(r);
    free(rank2);
    return rc;
}
