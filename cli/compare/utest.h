/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * utest.h - the Mann-Whitney U test (the Wilcoxon rank-sum test), two-
 * sided, as `pageclear compare` applies it to two files' runs (utest.c).
 */
#ifndef PAGECLEAR_CLI_UTEST_H
#define PAGECLEAR_CLI_UTEST_H

#include <stddef.h>

/* A difference is significant when p < CLI_UTEST_ALPHA: benchstat's
 * threshold, a 1-in-20 chance of calling noise a change. */
#define CLI_UTEST_ALPHA 0.05
/* Up to this many runs in the two samples together, p is exact: the
 * permutation distribution of the rank sum, counted (the counts stay
 * exact in a double: C(50, 25) ~ 1.3e14 < 2^53). Beyond, the normal
 * approximation with the tie and continuity corrections, which is within
 * ~1e-3 of exact there. */
#define CLI_UTEST_EXACT_MAX 50

struct cli_utest {
    double u;     /* U of x: the pairs (x_i, y_j) with x_i > y_j, ties 1/2 */
    double p;     /* two-sided: twice the smaller tail, at most 1 */
    int exact;    /* 1: exact (with ties: given them); 0: normal approximation */
    double min_p; /* the smallest p samples of these sizes can give: at or
                     above alpha, no difference can be significant */
};

/* Test x[0, nx) against y[0, ny). 0, or -1 if either is empty (or memory
 * for the exact count cannot be had). */
int cli_utest(const double *x, size_t nx, const double *y, size_t ny, struct cli_utest *t);

#endif
