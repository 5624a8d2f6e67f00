/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * decide.h - where `pageclear tune` puts a threshold between two
 * primitives, from what it measured (decide.c says how).
 */
#ifndef PAGECLEAR_CLI_DECIDE_H
#define PAGECLEAR_CLI_DECIDE_H

#include <stddef.h>

#include "grid.h"
#include "target.h"

/* Two primitives measured over sizes and cache states: a runs below a
 * threshold, b from it. tol[c] is state c's tolerance (0: not weighed). */
struct cli_xover {
    size_t n;
    const size_t *sizes;   /* ascending */
    size_t first;          /* candidates: sizes[first..n-1], and never */
    size_t dflt;           /* the built-in threshold: kept when the
                              measurement cannot tell it is wrong */
    double a[CLI_GRID_MAX_SIZES][CLI_NCACHE], b[CLI_GRID_MAX_SIZES][CLI_NCACHE];
    double a_sd[CLI_GRID_MAX_SIZES][CLI_NCACHE], b_sd[CLI_GRID_MAX_SIZES][CLI_NCACHE];
    double tol[CLI_NCACHE];
    unsigned long runs; /* behind each median (their standard error) */
};
struct cli_decision {
    size_t threshold;   /* a measured size, or SIZE_MAX for never */
    double worst_loss;  /* fraction behind the better primitive, at: */
    size_t worst_index; /* that size index */
    int worst_state;    /* and that state (-1: nothing weighed) */
    int ambiguous;      /* candidates within the noise of each other */
    double noise_pct;   /* the medians' standard error, % */
};
/* The standard error, as a fraction, of a median of `runs` runs whose
 * spread (standard deviation) is sd_pct percent. */
double cli_median_se(double sd_pct, unsigned long runs);
/* Choose the threshold (decide.c says how). */
void cli_decide(const struct cli_xover *x, struct cli_decision *d);
/* Worst loss (fraction) of any threshold t, with where it happens. */
double cli_xover_loss(const struct cli_xover *x, size_t t, size_t *worst_index,
                      int *worst_state);

#endif
