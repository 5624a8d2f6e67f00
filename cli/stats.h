/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* stats.h - statistics over repeated runs, and the clock they use (stats.c). */
#ifndef PAGECLEAR_CLI_STATS_H
#define PAGECLEAR_CLI_STATS_H

#include <stddef.h>
#include <stdint.h>

struct cli_stats {
    double mean, median, min, max, p99;
    double stdev_pct; /* sample standard deviation, % of the mean */
    size_t n;
};
void cli_stats(const double *v, size_t n, struct cli_stats *s);
uint64_t cli_now_ns(void);

#endif
