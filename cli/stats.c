/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* stats.c - statistics over repeated runs, and the clock they use. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cli_stats(const double *v, size_t n, struct cli_stats *s)
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

uint64_t cli_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
