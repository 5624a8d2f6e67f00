/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * check_advice.h - whether `pageclear check` offers a profile line for a
 * short verdict, weighing every cache state (check_advice.c says how).
 */
#ifndef PAGECLEAR_CLI_CHECK_ADVICE_H
#define PAGECLEAR_CLI_CHECK_ADVICE_H

#include <stddef.h>

#include "target.h"

/* A short verdict in state `state`: the library function runs `now`; a
 * profile line would make it run `faster` at this size. ratio[c] is
 * faster's figure over the function's in state c, paired within the
 * rounds of the same run (0: not measured); tol[c] is the function's
 * contract's tolerance in c (0: a state the contract does not weigh). */
struct cli_advice_in {
    enum cli_cache state;
    double ratio[CLI_NCACHE];
    double tol[CLI_NCACHE];
};
struct cli_advice {
    int offer;             /* 1: offer the line */
    double gain;           /* in `state`: the fraction the function is behind */
    double cost[CLI_NCACHE]; /* in each other measured state: the fraction
                                the change loses there (negative: it gains) */
    int worst;             /* the weighed state that would lose most, -1: none */
};
/* Weigh the change (check_advice.c says how). */
void cli_advice_weigh(const struct cli_advice_in *in, struct cli_advice *out);

#endif
