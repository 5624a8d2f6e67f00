/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* grid.h - functions x extent sizes x cache states, measured together (grid.c). */
#ifndef PAGECLEAR_CLI_GRID_H
#define PAGECLEAR_CLI_GRID_H

#include <stddef.h>

#include "measure.h"
#include "stats.h"
#include "target.h"

#define CLI_GRID_MAX_SIZES 24
/* Functions x sizes x cache states. Fill in the inputs, run, read with
 * cli_grid_at, free. */
struct cli_grid {
    const struct cli_fn *fns;
    size_t nfn;
    const size_t *sizes;
    size_t nsize;
    unsigned states;      /* bits 1 << enum cli_cache */
    unsigned long runs;
    size_t bytes_per_run; /* each run clears at least this much */
    unsigned long loops[CLI_GRID_MAX_SIZES]; /* out: calls per run, per size */
    struct cli_stats *st; /* out */
    double *raw;          /* out: every run, see cli_grid_ratio */
};
/* 0, or -1 after a message (label names the command in it). */
int cli_grid_run(struct cli_grid *g, const char *label);
struct cli_stats *cli_grid_at(const struct cli_grid *g, size_t size_index,
                              enum cli_cache c, size_t fn_index);
void cli_grid_free(struct cli_grid *g);
/* Median over the rounds of fn_a's figure over fn_b's in the same round:
 * the paired comparison, free of the drift both saw. */
double cli_grid_ratio(const struct cli_grid *g, size_t size_index, enum cli_cache c,
                      size_t fn_a, size_t fn_b);

#endif
