/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * decide.c - where `pageclear tune` puts a threshold between two
 * primitives, from what it measured. A pure function of the measurements,
 * so tests can feed it any machine.
 *
 * Below the threshold primitive a runs, from it primitive b. Every
 * candidate threshold (each measured size, or never) is scored by its
 * worst loss: over the sizes and the cache states the contract weighs, how
 * far the primitive it runs falls behind the better of the two, divided by
 * that state's tolerance (5% where the contract is judged, 10% where it
 * must only not lose badly). The lowest worst loss wins, ties going to the
 * lower sum of losses. When the medians' own uncertainty (from the runs'
 * spread) is larger than the candidates' scores differ, the crossover is
 * ambiguous and tune takes the safe side:
 * the built-in threshold if it is among the near-tied (the measurement
 * cannot tell it is wrong, so it is not moved on noise), else among them
 * the one with the lowest worst loss under pessimistic figures (the chosen
 * primitive's median less its standard error, the other's plus its
 * standard error): the least that can go wrong if the noise hid the
 * truth.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "decide.h"
#include "grid.h"
#include "stats.h"
#include "target.h"

double cli_median_se(double sd_pct, unsigned long runs)
{
    /* 1.25 sigma / sqrt(runs): a median's standard error for roughly
     * normal runs (sqrt(pi / 2) times the mean's) */
    return 1.2533 * sd_pct / 100 / sqrt(runs > 1 ? (double)runs : 1);
}

static double se(const struct cli_xover *x, double sd_pct)
{
    return cli_median_se(sd_pct, x->runs);
}

/* Score of threshold t. pess: use pessimistic figures. *sum gets the sum
 * of the normalised losses; *wi, *ws the worst size index and state. */
static double score(const struct cli_xover *x, size_t t, int pess, double *sum,
                    size_t *wi, int *ws)
{
    double worst = 0;
    *sum = 0;
    *wi = 0;
    *ws = -1;
    for (size_t i = 0; i < x->n; i++)
        for (int c = 0; c < CLI_NCACHE; c++) {
            if (x->tol[c] <= 0)
                continue;
            int use_b = x->sizes[i] >= t;
            double mine = use_b ? x->b[i][c] : x->a[i][c];
            double other = use_b ? x->a[i][c] : x->b[i][c];
            if (pess) {
                mine *= 1 - se(x, use_b ? x->b_sd[i][c] : x->a_sd[i][c]);
                other *= 1 + se(x, use_b ? x->a_sd[i][c] : x->b_sd[i][c]);
            }
            double top = mine > other ? mine : other;
            double loss = top > 0 ? (1 - mine / top) / x->tol[c] : 0;
            *sum += loss;
            if (loss > worst || *ws < 0) {
                if (loss > worst)
                    worst = loss;
                *wi = i;
                *ws = c;
            }
        }
    return worst;
}

double cli_xover_loss(const struct cli_xover *x, size_t t, size_t *worst_i, int *worst_c)
{
    double sum;
    double s = score(x, t, 0, &sum, worst_i, worst_c);
    /* back from tolerance units to a fraction of the better primitive */
    return *worst_c >= 0 ? s * x->tol[*worst_c] : 0;
}

static size_t candidate(const struct cli_xover *x, size_t k)
{
    return k < x->n ? x->sizes[k] : SIZE_MAX;
}

void cli_decide(const struct cli_xover *x, struct cli_decision *d)
{
    size_t best = x->first, wi, cells = 0;
    double best_s = HUGE_VAL, best_sum = HUGE_VAL;
    int ws;
    for (int c = 0; c < CLI_NCACHE; c++)
        cells += x->tol[c] > 0 ? x->n : 0;
    for (size_t k = x->first; k <= x->n; k++) {
        double sum, s = score(x, candidate(x, k), 0, &sum, &wi, &ws);
        if (s < best_s - 1e-12 || (s <= best_s + 1e-12 && sum < best_sum)) {
            best = k;
            best_s = s;
            best_sum = sum;
        }
    }
    /* The noise: the standard error of a median of `runs` runs (1.25
     * sigma / sqrt(runs) for roughly normal runs), with sigma the median
     * spread of the runs the decision rests on, in the units of the score
     * (tolerance multiples). */
    double sds[2 * CLI_GRID_MAX_SIZES * CLI_NCACHE];
    size_t nsd = 0;
    double tol_min = HUGE_VAL;
    for (int c = 0; c < CLI_NCACHE; c++) {
        if (x->tol[c] <= 0)
            continue;
        if (x->tol[c] < tol_min)
            tol_min = x->tol[c];
        for (size_t i = 0; i < x->n; i++) {
            sds[nsd++] = x->a_sd[i][c];
            sds[nsd++] = x->b_sd[i][c];
        }
    }
    struct cli_stats st;
    cli_stats(sds, nsd, &st);
    double margin = nsd ? se(x, st.median) / tol_min : 0;
    double mean_best = cells ? best_sum / (double)cells : 0;

    /* Near-tied: within the noise of the best in the worst loss and in the
     * mean loss alike. */
    size_t near = 0, pick = best;
    double pick_p = HUGE_VAL, sum;
    for (size_t k = x->first; k <= x->n; k++) {
        double s = score(x, candidate(x, k), 0, &sum, &wi, &ws);
        if (s - best_s > margin || (cells && sum / (double)cells - mean_best > margin))
            continue;
        near++;
        double p = score(x, candidate(x, k), 1, &sum, &wi, &ws);
        if (p < pick_p - 1e-12) {
            pick = k;
            pick_p = p;
        }
    }
    *d = (struct cli_decision){.threshold = candidate(x, pick)};
    /* The built-in, if the measurement could have chosen it and cannot
     * tell it from the best. */
    int dflt_in_range = x->dflt == SIZE_MAX || x->dflt >= candidate(x, x->first);
    if (near > 1 && dflt_in_range) {
        double s = score(x, x->dflt, 0, &sum, &wi, &ws);
        if (s - best_s <= margin && (!cells || sum / (double)cells - mean_best <= margin))
            d->threshold = x->dflt; /* not moved on noise */
    }
    d->ambiguous = near > 1;
    d->noise_pct = nsd ? 100 * se(x, st.median) : 0;
    d->worst_loss = cli_xover_loss(x, d->threshold, &d->worst_index, &d->worst_state);
}
