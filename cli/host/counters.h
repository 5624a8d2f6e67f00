/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* counters.h - L1 data cache loads and misses, and CPU cycles, where the host has them
 * (counters.c). */
#ifndef PAGECLEAR_CLI_COUNTERS_H
#define PAGECLEAR_CLI_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

struct cli_counter_set {
    int loads, misses; /* perf event fds */
};
/* 0, or -errno when hardware counters cannot be had here. */
int cli_counters_open(struct cli_counter_set *cs);
void cli_counters_start(struct cli_counter_set *cs);
void cli_counters_stop(struct cli_counter_set *cs, uint64_t *loads, uint64_t *misses);
void cli_counters_close(struct cli_counter_set *cs);
/* CPU cycles of this process's calling thread, counting from the open
 * (perf bench's -c): 0, or -errno where the host has no such counter.
 * cli_cycles_now reads it (0 if it is not open). */
int cli_cycles_open(void);
uint64_t cli_cycles_now(void);
/* "available ..." or "not supported here (...)". */
const char *cli_counters_status(char *buf, size_t n);

#endif
