/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * parallel_bench.h - clear and populate scaling (parallel_bench.c): `pageclear
 * parallel` and the default suite's table.
 */
#ifndef PAGECLEAR_CLI_PARALLEL_BENCH_H
#define PAGECLEAR_CLI_PARALLEL_BENCH_H

#include <stddef.h>

#include "output.h"

/* pc_clear_parallel and pc_populate over size bytes from one thread to all
 * cores, `runs` runs each; the table (numbered table_no) prints when fmt
 * is CLI_FMT_DEFAULT, records go to rs (may be NULL). 0, or
 * CLI_EXIT_RUNTIME after a message. */
int cli_parallel_bench(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                       struct cli_records *rs);

#endif
