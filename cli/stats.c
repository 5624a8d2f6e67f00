/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * stats.c - statistics over repeated runs, the runs themselves, and the
 * clocks they use.
 *
 * Every run behind a statistic is kept in one store for the life of the
 * command: records are printed at the end (the suite's, check's) and
 * carry their runs, and the store is how they reach the output without
 * every table passing its arrays along. It grows by what is measured: a
 * few thousand doubles for the default suite.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "stats.h"

static struct {
    double *v;
    size_t n, cap;
} store;

/* Keep v[0, n) in the store; 1 + its index there. */
static size_t keep(const double *v, size_t n)
{
    if (n > store.cap - store.n) {
        size_t cap = store.cap ? store.cap : 1024;
        while (cap - store.n < n)
            cap *= 2;
        double *p = realloc(store.v, cap * sizeof(*p));
        if (p == NULL) {
            fputs("pageclear: out of memory\n", stderr);
            exit(1); /* a few doubles: out of memory here means nothing works */
        }
        store.v = p;
        store.cap = cap;
    }
    memcpy(store.v + store.n, v, n * sizeof(*v));
    store.n += n;
    return store.n - n + 1;
}

const double *cli_stats_samples(const struct cli_stats *s)
{
    return s->samples && s->n ? store.v + s->samples - 1 : NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cli_stats(const double *v, size_t n, struct cli_stats *s)
{
    cli_stats_summary(v, n, s);
    if (n > 0)
        s->samples = keep(v, n);
}

void cli_stats_summary(const double *v, size_t n, struct cli_stats *s)
{
    *s = (struct cli_stats){.n = n};
    if (n == 0)
        return;
    double *sorted = malloc(n * sizeof(*sorted));
    if (sorted == NULL)
        abort(); /* a few doubles: out of memory here means nothing works */
    memcpy(sorted, v, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    s->mean = sum / (double)n;
    s->min = sorted[0];
    s->max = sorted[n - 1];
    s->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    /* Nearest rank: the smallest value with at least 99% at or below it. */
    size_t rank = (size_t)((99 * n + 99) / 100);
    s->p99 = sorted[(rank ? rank : 1) - 1];
    if (n > 1 && s->mean != 0) {
        double ss = 0;
        for (size_t i = 0; i < n; i++)
            ss += (v[i] - s->mean) * (v[i] - s->mean);
        s->stdev_pct = 100.0 * sqrt(ss / (double)(n - 1)) / s->mean;
    }
    free(sorted);
}

/* Another clock for every timed run, set once before any (perf's -c). */
static uint64_t (*other_clock)(void);

void cli_clock_set(uint64_t (*now)(void))
{
    other_clock = now;
}

uint64_t cli_now_ns(void)
{
    if (other_clock != NULL)
        return other_clock();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void cli_cpu_now(struct cli_cpu *c)
{
    struct rusage ru;
    *c = (struct cli_cpu){0, 0};
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return;
    c->user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    c->sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

void cli_stats_cpu(struct cli_stats *s, const struct cli_cpu *before,
                   const struct cli_cpu *after)
{
    if (s->n == 0)
        return;
    /* Kept as user[0, n) then sys[0, n), one block. */
    double *d = malloc(2 * s->n * sizeof(*d));
    if (d == NULL)
        abort(); /* as in cli_stats_summary */
    for (size_t r = 0; r < s->n; r++) {
        d[r] = after[r].user - before[r].user;
        d[s->n + r] = after[r].sys - before[r].sys;
    }
    s->cpu = keep(d, 2 * s->n);
    free(d);
}

int cli_stats_cpu_samples(const struct cli_stats *s, const double **user, const double **sys)
{
    if (!s->cpu || !s->n)
        return -1;
    *user = store.v + s->cpu - 1;
    *sys = *user + s->n;
    return 0;
}
