/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_preload.h - where `pageclear tune` puts preload_min, the length
 * from which libpageclear-preload.so sends memset through pc_clear
 * (tune_preload.c).
 */
#ifndef PAGECLEAR_CLI_TUNE_PRELOAD_H
#define PAGECLEAR_CLI_TUNE_PRELOAD_H

#include "decide.h"

/* x: the C library's memset (a) against pc_clear with the thresholds tune
 * chose (b), at the ladder's sizes from nt_threshold on (or the built-in
 * preload_min, where that is lower), in the states
 * x->tol weighs. d->threshold: the smallest size from which b is not
 * behind a beyond the noise in any weighed state, at that size and every
 * larger one; SIZE_MAX (never) if b is behind at the largest. d's worst
 * loss is that threshold's (cli_xover_loss); it is never ambiguous. */
void cli_preload_decide(const struct cli_xover *x, struct cli_decision *d);

#endif
