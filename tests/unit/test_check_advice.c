/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_check_advice.c - whether `pageclear check` offers a profile line
 * (cli/check/check_advice.c), fed synthetic runs: a change that costs nothing
 * elsewhere, a small gain for a large loss, a large gain for a smaller
 * loss, states the contract does not weigh, and states not measured.
 */
#include "../../cli/check/check_advice.h"
#include "../../cli/tune/contract.h"
#include "../../cli/measure/target.h"
#include "harness.h"

/* pc_clear's contract: use within 5%, warm within 10%, cold not weighed. */
static struct cli_advice_in clear_in(enum cli_cache state, double warm, double cold, double use)
{
    struct cli_advice_in in = {.state = state};
    in.ratio[CLI_CACHE_WARM] = warm;
    in.ratio[CLI_CACHE_COLD] = cold;
    in.ratio[CLI_CACHE_USE] = use;
    for (int c = 0; c < CLI_NCACHE; c++)
        in.tol[c] = cli_contract_tol(CLI_CONTRACT_CLEAR, (enum cli_cache)c);
    return in;
}

int main(void)
{
    struct cli_advice a;
    struct cli_advice_in in;

    /* Streaming 15% faster in use, as fast warm (within its 10%), twice as
     * fast cold: offered, with what it does elsewhere. */
    in = clear_in(CLI_CACHE_USE, 0.97, 2.0, 1.15);
    cli_advice_weigh(&in, &a);
    CHECK_EQ(a.offer, 1);
    CHECK(a.gain > 0.13 && a.gain < 0.131); /* 1 - 1/1.15 */
    CHECK_EQ(a.worst, CLI_CACHE_WARM);
    CHECK(a.cost[CLI_CACHE_WARM] > 0.029 && a.cost[CLI_CACHE_WARM] < 0.031);
    CHECK(a.cost[CLI_CACHE_COLD] < -0.999 && a.cost[CLI_CACHE_COLD] > -1.001);
    CHECK(a.cost[CLI_CACHE_USE] == 0); /* the short state itself: its gain */

    /* A small gain for a large loss: 7% in use (1.4 tolerances) for 30%
     * warm (3 tolerances). Never offered, however cold fares. */
    in = clear_in(CLI_CACHE_USE, 0.70, 2.0, 1.07);
    cli_advice_weigh(&in, &a);
    CHECK_EQ(a.offer, 0);
    CHECK_EQ(a.worst, CLI_CACHE_WARM);
    CHECK(a.cost[CLI_CACHE_WARM] > 0.299 && a.cost[CLI_CACHE_WARM] < 0.301);

    /* The same the other way round: warm short by 30% against rep stosb,
     * which loses 7% in use: 3 tolerances removed, 1.4 brought: offered. */
    in = clear_in(CLI_CACHE_WARM, 1 / 0.70, 1.0, 0.93);
    cli_advice_weigh(&in, &a);
    CHECK_EQ(a.offer, 1);
    CHECK_EQ(a.worst, CLI_CACHE_USE);

    /* Zen 3 between 1 and 8 MiB: streaming +35% in use (5.2 tolerances
     * short), -35% warm (3.5 tolerances): the worst loss falls, offered,
     * and the cost it reports is warm's 35%. */
    in = clear_in(CLI_CACHE_USE, 0.65, 1.5, 1.35);
    cli_advice_weigh(&in, &a);
    CHECK_EQ(a.offer, 1);
    CHECK(a.cost[CLI_CACHE_WARM] > 0.349 && a.cost[CLI_CACHE_WARM] < 0.351);
    /* ... but at +15% in use (2.6 tolerances) the 35% warm loss wins. */
    in.ratio[CLI_CACHE_USE] = 1.15;
    cli_advice_weigh(&in, &a);
    CHECK_EQ(a.offer, 0);

    /* A state the contract does not weigh never withholds a line:
     * pc_clear_cold weighs cold alone, so a warm loss is only reported. */
    in = (struct cli_advice_in){.state = CLI_CACHE_COLD};
    in.ratio[CLI_CACHE_WARM] = 0.4;
    in.ratio[CLI_CACHE_COLD] = 1.2;
    in.ratio[CLI_CACHE_USE] = 0.9;
    for (int c = 0; c < CLI_NCACHE; c++)
        in.tol[c] = cli_contract_tol(CLI_CONTRACT_COLD, (enum cli_cache)c);
    cli_advice_weigh(&in, &a);
    CHECK_EQ(a.offer, 1);
    CHECK_EQ(a.worst, -1);
    CHECK(a.cost[CLI_CACHE_WARM] > 0.599 && a.cost[CLI_CACHE_WARM] < 0.601);
    CHECK(a.cost[CLI_CACHE_USE] > 0.099 && a.cost[CLI_CACHE_USE] < 0.101);

    /* A state not measured in the run is neither weighed nor printed. */
    in = clear_in(CLI_CACHE_USE, 0, 0, 1.2);
    cli_advice_weigh(&in, &a);
    CHECK_EQ(a.offer, 1);
    CHECK(a.cost[CLI_CACHE_WARM] == 0 && a.cost[CLI_CACHE_COLD] == 0);
    CHECK_EQ(a.worst, -1);
    /* No gain here (the paired ratio says the primitive is not faster):
     * nothing to offer. */
    in = clear_in(CLI_CACHE_USE, 1.0, 1.0, 0.99);
    cli_advice_weigh(&in, &a);
    CHECK_EQ(a.offer, 0);
    printf("ok   check advice\n");
    return 0;
}
