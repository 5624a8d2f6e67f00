/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_decide.c - where `pageclear tune` puts a threshold (cli/tune/decide.c),
 * fed synthetic machines: a clear crossover, one primitive winning
 * everywhere, states that disagree, the candidate floor, states not
 * weighed, and a crossover lost in the noise.
 */
#include "../../cli/tune/decide.h"
#include "../../cli/measure/target.h"
#include "../../cli/units.h"
#include "harness.h"

static const size_t sizes[] = {256 * KIB, 1 * MIB, 4 * MIB, 16 * MIB, 64 * MIB};
#define N (sizeof(sizes) / sizeof(sizes[0]))

/* a and b as functions of the size index, in one state, spread sd. */
static void fill(struct cli_xover *x, int c, const double *a, const double *b, double sd)
{
    x->n = N;
    x->sizes = sizes;
    for (size_t i = 0; i < N; i++) {
        x->a[i][c] = a[i];
        x->b[i][c] = b[i];
        x->a_sd[i][c] = x->b_sd[i][c] = sd;
    }
}

int main(void)
{
    struct cli_xover x;
    struct cli_decision d;
    size_t wi;
    int wc;

    /* a leads by 30% below 4 MiB, b from there: the threshold is 4 MiB. */
    const double a1[N] = {13, 13, 10, 10, 10}, b1[N] = {10, 10, 13, 13, 13};
    x = (struct cli_xover){.tol = {[CLI_CACHE_USE] = 0.05}};
    fill(&x, CLI_CACHE_USE, a1, b1, 1);
    cli_decide(&x, &d);
    CHECK_EQ(d.threshold, 4 * MIB);
    CHECK(d.worst_loss < 1e-9);
    CHECK_EQ(d.ambiguous, 0);

    /* b everywhere: the first candidate; a everywhere: never. */
    const double lo[N] = {10, 10, 10, 10, 10}, hi[N] = {14, 14, 14, 14, 14};
    fill(&x, CLI_CACHE_USE, lo, hi, 1);
    cli_decide(&x, &d);
    CHECK_EQ(d.threshold, sizes[0]);
    fill(&x, CLI_CACHE_USE, hi, lo, 1);
    cli_decide(&x, &d);
    CHECK_EQ(d.threshold, SIZE_MAX);
    /* ... but never below the floor of candidates. */
    fill(&x, CLI_CACHE_USE, lo, hi, 1);
    x.first = 2;
    cli_decide(&x, &d);
    CHECK_EQ(d.threshold, sizes[2]);
    x.first = 0;

    /* States disagree: use wants b from 4 MiB (a loses 25% there, 5%
     * tolerance), warm wants a up to 16 MiB (b loses 15%, 10% tolerance).
     * Worst losses: threshold 4 MiB costs 1.5 tolerances in warm, 16 MiB
     * costs 5 in use: 4 MiB. */
    const double ua[N] = {10, 10, 7.5, 7.5, 7.5}, ub[N] = {9, 9, 10, 10, 10};
    const double wa[N] = {20, 20, 20, 20, 20}, wb[N] = {17, 17, 17, 17, 20};
    x = (struct cli_xover){.tol = {[CLI_CACHE_WARM] = 0.10, [CLI_CACHE_USE] = 0.05}};
    fill(&x, CLI_CACHE_USE, ua, ub, 1);
    fill(&x, CLI_CACHE_WARM, wa, wb, 1);
    cli_decide(&x, &d);
    CHECK_EQ(d.threshold, 4 * MIB);
    CHECK_EQ(d.worst_state, CLI_CACHE_WARM);
    CHECK(d.worst_loss > 0.149 && d.worst_loss < 0.151);
    double l16 = cli_xover_loss(&x, 16 * MIB, &wi, &wc);
    CHECK_EQ(wc, CLI_CACHE_USE);
    CHECK(l16 > 0.249 && l16 < 0.251);
    /* Weigh use alone and the warm losses no longer count. */
    x.tol[CLI_CACHE_WARM] = 0;
    cli_decide(&x, &d);
    CHECK_EQ(d.threshold, 4 * MIB);
    CHECK(d.worst_loss < 1e-9);

    /* Lost in the noise: a and b 1% apart with runs spread 10%. Every
     * candidate is near the best, so the crossover is ambiguous, and the
     * built-in threshold stays (whether measured or not). */
    const double na[N] = {10.1, 10.1, 10.1, 10.1, 10.1}, nb[N] = {10, 10, 10, 10, 10};
    x = (struct cli_xover){.tol = {[CLI_CACHE_USE] = 0.05}, .dflt = 1 * MIB, .runs = 4};
    fill(&x, CLI_CACHE_USE, na, nb, 10);
    cli_decide(&x, &d);
    CHECK_EQ(d.ambiguous, 1);
    CHECK(d.noise_pct > 6 && d.noise_pct < 6.5); /* 1.25 x 10% / sqrt(4) */
    CHECK_EQ(d.threshold, 1 * MIB);
    x.dflt = 3 * MIB;
    cli_decide(&x, &d);
    CHECK_EQ(d.threshold, 3 * MIB);
    /* The same spread over 400 runs: the medians are known to 0.6%, the
     * 1% gap is real, and a runs everywhere. */
    x.runs = 400;
    cli_decide(&x, &d);
    CHECK_EQ(d.ambiguous, 0);
    CHECK_EQ(d.threshold, SIZE_MAX);
    x.runs = 4;
    /* The same figures without the noise: a everywhere. */
    fill(&x, CLI_CACHE_USE, na, nb, 0);
    cli_decide(&x, &d);
    CHECK_EQ(d.ambiguous, 0);
    CHECK_EQ(d.threshold, SIZE_MAX);
    /* Noise, but the built-in is clearly worse (a 30% crossover at 4 MiB,
     * built-in never): the near-tied candidate with the least pessimistic
     * loss, which is the crossover itself. */
    x = (struct cli_xover){.tol = {[CLI_CACHE_USE] = 0.05}, .dflt = SIZE_MAX, .runs = 1};
    fill(&x, CLI_CACHE_USE, a1, b1, 3);
    cli_decide(&x, &d);
    CHECK_EQ(d.threshold, 4 * MIB);
    printf("ok   decide\n");
    return 0;
}
