/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* pool_bench.h - the init_on_alloc table (pool_bench.c): `pageclear pool`
 * and the default suite's. */
#ifndef PAGECLEAR_CLI_POOL_BENCH_H
#define PAGECLEAR_CLI_POOL_BENCH_H

#include <stddef.h>

#include "output.h"

/* n zeroed 2 MiB allocations per round, each method `runs` rounds; the
 * table (numbered table_no) prints when fmt is CLI_FMT_DEFAULT, records go
 * to rs (may be NULL). 0, or CLI_EXIT_RUNTIME after a message. */
int cli_pool_bench(size_t n, unsigned long runs, enum cli_format fmt, int table_no,
                   struct cli_records *rs);

#endif
