/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * contract.h - the tolerances the library's clears are held to, one
 * definition for `check` (its verdicts) and `tune` (where it puts each
 * threshold). Each contract weighs the cache states it serves
 * (docs/tuning.md, "Selection by contract"):
 *   pc_clear, pc_clear_batched  the caller is about to use the memory:
 *                               within 5% of the best primitive in `use`,
 *                               and not losing badly (within 10%) in
 *                               `warm`, the state it is not chosen on
 *   pc_clear_cold               memory nobody reads soon: within 5% in
 *                               `cold`
 * pc_clear_parallel's threshold is held to pc_clear's contract.
 */
#ifndef PAGECLEAR_CLI_CONTRACT_H
#define PAGECLEAR_CLI_CONTRACT_H

#include "target.h"

#define CLI_TOL_CONTRACT 0.05 /* in the state the contract serves */
#define CLI_TOL_WARM 0.10     /* pc_clear in `warm` */

enum cli_contract { CLI_CONTRACT_CLEAR, CLI_CONTRACT_COLD };

/* The tolerance of contract k in state c (a fraction of the best
 * primitive's figure); 0 where the contract does not weigh c. */
static inline double cli_contract_tol(enum cli_contract k, enum cli_cache c)
{
    if (k == CLI_CONTRACT_COLD)
        return c == CLI_CACHE_COLD ? CLI_TOL_CONTRACT : 0;
    return c == CLI_CACHE_USE ? CLI_TOL_CONTRACT : c == CLI_CACHE_WARM ? CLI_TOL_WARM : 0;
}

#endif
