/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_parallel.h - tune's measurement for parallel_nt_threshold: every
 * core clearing its share of an extent at once, as pc_clear_parallel does
 * (tune_parallel.c).
 */
#ifndef PAGECLEAR_CLI_TUNE_PARALLEL_H
#define PAGECLEAR_CLI_TUNE_PARALLEL_H

#include <stddef.h>

#include "decide.h"

/* The most threads tune starts: more cores than this share the extent
 * among this many. */
#define CLI_TUNE_MAX_THREADS 64

/* Fill x's figures (a: primitive index ia, b: ib) for the extents
 * x->sizes[0..x->n), each split over `threads` threads, in every state
 * x->tol weighs, `runs` interleaved runs after an untimed one. 0, or -1
 * after a message. */
int cli_tune_parallel(int ia, int ib, unsigned long threads, unsigned long runs,
                      struct cli_xover *x);

#endif
