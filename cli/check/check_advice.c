/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * check_advice.c - whether `pageclear check` offers a profile line for a
 * short verdict. A pure function of the run's figures, so tests can feed
 * it any machine.
 *
 * A threshold moved for one state moves the clear in every state: on the
 * Zen 3 guest (docs/notes.md, "Selection thresholds") streaming stores gain
 * ~30%
 * in `use` from 1 to 8 MiB and lose 30-50% in `warm`, and a profile line
 * offered for the `use` verdict alone took warm to 0.74 of the best. So the
 * change is weighed as `pageclear tune` weighs a threshold (cli/tune/decide.c):
 * each state's loss in units of its tolerance, and the line is offered
 * only if it lowers the worst of them at this size, i.e. the loss it
 * brings to any other weighed state, in that state's tolerances, is less
 * than the shortfall it removes here. A small gain in one state for a
 * large loss in another is never offered; what it would cost is said
 * either way.
 */
#include "check_advice.h"
#include "target.h"

void cli_advice_weigh(const struct cli_advice_in *in, struct cli_advice *out)
{
    *out = (struct cli_advice){.worst = -1};
    double r = in->ratio[in->state];
    out->gain = r > 0 ? 1 - 1 / r : 0;
    double here = in->tol[in->state] > 0 ? out->gain / in->tol[in->state] : 0;
    double worst = 0;
    for (int c = 0; c < CLI_NCACHE; c++) {
        if (c == (int)in->state || in->ratio[c] <= 0)
            continue;
        out->cost[c] = 1 - in->ratio[c];
        if (in->tol[c] <= 0)
            continue;
        double loss = out->cost[c] / in->tol[c];
        if (loss > worst) {
            worst = loss;
            out->worst = c;
        }
    }
    out->offer = out->gain > 0 && worst < here;
}
