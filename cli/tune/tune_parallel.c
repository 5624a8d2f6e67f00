/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_parallel.c - the crossover with every core clearing at once. A
 * streaming store's edge changes when all cores compete for the memory
 * bus, so pc_clear_parallel has a threshold of its own, measured the way
 * it clears: each thread one contiguous share, all started together, the
 * pass timed from the first start to the last finish.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "decide.h"
#include "output.h"
#include "stats.h"
#include "target.h"
#include "tune_parallel.h"

/* Runs kept per figure: tune's -n accepts up to 60. */
#define MAX_RUNS 64

struct par {
    pthread_barrier_t start, end;
    char *base;
    size_t share;
    int impl, use;
    unsigned long threads;
};

struct par_arg {
    struct par *p;
    unsigned long i;
};

static void *par_worker(void *arg)
{
    struct par_arg *a = arg;
    struct par *p = a->p;
    char *mine = p->base + a->i * p->share;
    pthread_barrier_wait(&p->start);
    (void)pc_impl_clear((size_t)p->impl, mine, p->share);
    if (p->use)
        cli_target_use(mine, p->share);
    pthread_barrier_wait(&p->end);
    return NULL;
}

/* One timed pass of every thread clearing its share of [base, +size):
 * GB/s. */
static double par_once(struct par *p, char *base, size_t size)
{
    pthread_t th[CLI_TUNE_MAX_THREADS];
    struct par_arg args[CLI_TUNE_MAX_THREADS];
    p->base = base;
    p->share = size / p->threads;
    pthread_barrier_init(&p->start, NULL, (unsigned)p->threads + 1);
    pthread_barrier_init(&p->end, NULL, (unsigned)p->threads + 1);
    for (unsigned long i = 0; i < p->threads; i++) {
        args[i] = (struct par_arg){p, i};
        if (pthread_create(&th[i], NULL, par_worker, &args[i]) != 0) {
            cli_error("tune: cannot start a thread");
            exit(CLI_EXIT_RUNTIME);
        }
    }
    pthread_barrier_wait(&p->start);
    uint64_t t0 = cli_now_ns();
    pthread_barrier_wait(&p->end);
    uint64_t ns = cli_now_ns() - t0;
    for (unsigned long i = 0; i < p->threads; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&p->start);
    pthread_barrier_destroy(&p->end);
    return (double)size / (double)(ns ? ns : 1);
}

/* Both primitives over target tg in state c, interleaved; x's figures for
 * size index si. */
static void par_state(struct par *p, int ia, int ib, unsigned long runs, struct cli_target *tg,
                      enum cli_cache c, size_t si, struct cli_xover *x)
{
    double v[2][MAX_RUNS];
    p->use = c == CLI_CACHE_USE;
    tg->cache = c;
    for (unsigned long r = 0; r <= runs && r < MAX_RUNS; r++)
        for (int f = 0; f < 2; f++) {
            p->impl = f ? ib : ia;
            if (c != CLI_CACHE_WARM)
                cli_target_evict(tg);
            double g = par_once(p, c == CLI_CACHE_WARM ? tg->base : cli_target_next(tg),
                                tg->size);
            if (r > 0) /* the first pass is untimed, as everywhere */
                v[f][r - 1] = g;
        }
    struct cli_stats sa, sb;
    cli_stats(v[0], runs, &sa);
    cli_stats(v[1], runs, &sb);
    x->a[si][c] = sa.median;
    x->a_sd[si][c] = sa.stdev_pct;
    x->b[si][c] = sb.median;
    x->b_sd[si][c] = sb.stdev_pct;
}

int cli_tune_parallel(int ia, int ib, unsigned long threads, unsigned long runs,
                      struct cli_xover *x)
{
    char err[512];
    struct par p = {.threads = threads};
    for (size_t si = 0; si < x->n; si++) {
        struct cli_target tg;
        /* A cold target: its rotation serves the cold and use states, its
         * first extent the warm one. */
        if (cli_target_map(&tg, x->sizes[si], CLI_CACHE_COLD, CLI_PAGE_4K, CLI_FILL_NONE, err,
                           sizeof(err)) != 0) {
            cli_error("tune: %s", err);
            return -1;
        }
        for (int c = 0; c < CLI_NCACHE; c++) {
            if (x->tol[c] <= 0)
                continue;
            char a[32];
            cli_progress("tune: %lu threads, %s, %s", threads,
                         cli_fmt_size(x->sizes[si], a, sizeof(a)),
                         cli_cache_name((enum cli_cache)c));
            par_state(&p, ia, ib, runs, &tg, (enum cli_cache)c, si, x);
        }
        cli_target_unmap(&tg);
    }
    cli_progress("%s", "");
    return 0;
}
