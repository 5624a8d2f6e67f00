/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_preload.c - preload_min: from which length the preload sends a
 * program's memset through pc_clear. A memset caller promises nothing
 * about the memory's next use, so the preload must not lose to the C
 * library's memset in any state it weighs (warm and use): unlike the
 * other thresholds, no loss in one state is traded for a gain in
 * another. Below nt_threshold pc_clear runs the same kinds of stores as
 * memset (vector stores, the string instruction): nothing to gain, a call
 * to pay; so tune measures from nt_threshold on (from the built-in
 * preload_min where that is lower: a C library whose memset never takes
 * the string instruction, src/tuning/defaults.c), and the answer is the
 * smallest size from which pc_clear is within the noise of memset or
 * ahead, there and at every larger size measured. Tested on synthetic
 * machines in tests/unit/test_tune_preload.c.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "decide.h"
#include "target.h"
#include "tune_preload.h"

/* The standard error of the difference of two medians, as a fraction:
 * each median's, added in quadrature. */
static double noise(const struct cli_xover *x, size_t i, int c)
{
    double sa = cli_median_se(x->a_sd[i][c], x->runs);
    double sb = cli_median_se(x->b_sd[i][c], x->runs);
    return sqrt(sa * sa + sb * sb);
}

/* Is b (pc_clear) behind a (memset) beyond the noise at size index i? */
static int behind(const struct cli_xover *x, size_t i)
{
    for (int c = 0; c < CLI_NCACHE; c++)
        if (x->tol[c] > 0 && x->b[i][c] < x->a[i][c] * (1 - noise(x, i, c)))
            return 1;
    return 0;
}

void cli_preload_decide(const struct cli_xover *x, struct cli_decision *d)
{
    size_t from = x->n;
    for (size_t i = x->n; i-- > x->first && !behind(x, i);)
        from = i;
    *d = (struct cli_decision){.threshold = from < x->n ? x->sizes[from] : SIZE_MAX};
    d->worst_loss = cli_xover_loss(x, d->threshold, &d->worst_index, &d->worst_state);
}
