/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * stats.h - statistics over repeated runs, the runs themselves with the
 * CPU time each took where it was measured, and the clocks they use: wall
 * time and the process's CPU time (stats.c).
 */
#ifndef PAGECLEAR_CLI_STATS_H
#define PAGECLEAR_CLI_STATS_H

#include <stddef.h>
#include <stdint.h>

struct cli_stats {
    double mean, median, min, max, p99;
    double stdev_pct; /* sample standard deviation, % of the mean */
    size_t n;
    size_t samples; /* where cli_stats kept the n runs: 1 + their index in
                       its store; 0 for none (a figure built by hand) */
    size_t cpu;     /* where cli_stats_cpu kept the runs' user and system
                       times, the same way; 0 for none */
};
/* The statistics of v[0, n), keeping a copy of the n values (results
 * files carry every run, so that two of them can be tested against each
 * other: compare.c). */
void cli_stats(const double *v, size_t n, struct cli_stats *s);
/* The same statistics, the values not kept. */
void cli_stats_summary(const double *v, size_t n, struct cli_stats *s);
/* The n runs behind s, or NULL if it has none. The pointer is valid until
 * the next call of cli_stats or cli_stats_cpu (the store may move as it
 * grows). */
const double *cli_stats_samples(const struct cli_stats *s);

/* CPU time this process has used so far, every thread's: user (its own
 * instructions) and system (the kernel's work for it: page faults and the
 * clearing of the pages they hand out). Seconds. */
struct cli_cpu {
    double user, sys;
};
void cli_cpu_now(struct cli_cpu *c);
/* The CPU time of each of s's n runs: after[r] - before[r]. */
void cli_stats_cpu(struct cli_stats *s, const struct cli_cpu *before,
                   const struct cli_cpu *after);
/* The user and system seconds of s's runs (n each, valid as
 * cli_stats_samples's); 0, or -1 if they were not measured. */
int cli_stats_cpu_samples(const struct cli_stats *s, const double **user, const double **sys);

/* The clock every timed run reads: CLOCK_MONOTONIC in nanoseconds, unless
 * cli_clock_set gave another for the whole process (`bench mem -c`: CPU
 * cycles; each "GB/s" figure is then bytes per cycle). */
uint64_t cli_now_ns(void);
void cli_clock_set(uint64_t (*now)(void));

#endif
