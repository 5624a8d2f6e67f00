/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * grid.c - functions x extent sizes x cache states, measured the way the
 * command measures everything (measure.c): per size and state, runs
 * interleaved across the functions. `check`, `tune` and the default
 * suite's state table are grids.
 */
#include <stddef.h>
#include <stdlib.h>

#include "args.h"
#include "buffer.h"
#include "grid.h"
#include "measure.h"
#include "output.h"
#include "stats.h"
#include "target.h"

struct cli_stats *cli_grid_at(const struct cli_grid *g, size_t si, enum cli_cache c,
                              size_t fi)
{
    return &g->st[(si * CLI_NCACHE + (size_t)c) * g->nfn + fi];
}

static double *raw_at(const struct cli_grid *g, size_t si, enum cli_cache c, size_t fi)
{
    return &g->raw[((si * CLI_NCACHE + (size_t)c) * g->nfn + fi) * g->runs];
}

double cli_grid_ratio(const struct cli_grid *g, size_t si, enum cli_cache c, size_t fa,
                      size_t fb)
{
    const double *a = raw_at(g, si, c, fa), *b = raw_at(g, si, c, fb);
    double r[256];
    size_t n = g->runs < 256 ? g->runs : 256;
    for (size_t i = 0; i < n; i++)
        r[i] = b[i] > 0 ? a[i] / b[i] : 0;
    struct cli_stats st;
    cli_stats(r, n, &st);
    return st.median;
}

int cli_grid_run(struct cli_grid *g, const char *label)
{
    char a[32], err[512];
    g->st = calloc(g->nsize * CLI_NCACHE * g->nfn, sizeof(*g->st));
    g->raw = calloc(g->nsize * CLI_NCACHE * g->nfn * g->runs, sizeof(*g->raw));
    if (g->st == NULL || g->raw == NULL) {
        cli_error("%s: out of memory", label);
        return -1;
    }
    for (size_t si = 0; si < g->nsize; si++) {
        size_t size = g->sizes[si];
        struct cli_target cold;
        /* One region serves all three states: its first extent is the warm
         * one, the rotation over all of it the cold and use ones. */
        if (cli_target_map(&cold, size, CLI_CACHE_COLD, CLI_PAGE_4K, CLI_FILL_NONE, err,
                           sizeof(err)) != 0) {
            cli_error("%s: %s", label, err);
            return -1;
        }
        unsigned long loops = cli_loops_per_run(size, g->bytes_per_run);
        for (int c = 0; c < CLI_NCACHE; c++) {
            if (!(g->states & (1u << c)))
                continue;
            cli_progress("%s: %s, %s", label, cli_fmt_size(size, a, sizeof(a)),
                         cli_cache_name((enum cli_cache)c));
            struct cli_target warm, *t = &cold;
            if (c == CLI_CACHE_WARM) {
                cli_target_warm(&warm, cold.base, size);
                t = &warm;
            }
            cold.cache = (enum cli_cache)c;
            cli_measure_runs(g->fns, g->nfn, t, loops, g->runs, 0,
                             cli_grid_at(g, si, (enum cli_cache)c, 0), NULL,
                             raw_at(g, si, (enum cli_cache)c, 0));
            g->loops[si] = loops;
        }
        cli_target_unmap(&cold);
    }
    cli_progress("%s", "");
    return 0;
}

void cli_grid_free(struct cli_grid *g)
{
    free(g->st);
    free(g->raw);
    g->st = NULL;
    g->raw = NULL;
}
