/*
 * grid.c - functions x extent sizes x cache states, measured the way the
 * command measures everything (measure.c): per size and state, runs
 * interleaved across the functions. `check`, `tune` and the default
 * suite's state table are grids.
 */
#include <stdlib.h>

#include "cli.h"

struct cli_stats *cli_grid_at(const struct cli_grid *g, size_t si, enum cli_cache c,
                              size_t fi)
{
    return &g->st[(si * CLI_NCACHE + (size_t)c) * g->nfn + fi];
}

int cli_grid_run(struct cli_grid *g, const char *label)
{
    char a[32], err[512];
    g->st = calloc(g->nsize * CLI_NCACHE * g->nfn, sizeof(*g->st));
    if (g->st == NULL) {
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
        unsigned long loops = size >= g->bytes_per_run ? 1
                                                       : (unsigned long)(g->bytes_per_run / size);
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
            cli_measure(g->fns, g->nfn, t, loops, g->runs, 0,
                        cli_grid_at(g, si, (enum cli_cache)c, 0), NULL);
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
    g->st = NULL;
}
