/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench_states.h - the default suite's tables on the cache state and on
 * zero against a non-zero byte (bench_states.c).
 */
#ifndef PAGECLEAR_CLI_BENCH_STATES_H
#define PAGECLEAR_CLI_BENCH_STATES_H

#include <stddef.h>

#include "output.h"

/* The cache-state table (sizes 4 KiB .. max) and the zero-against-fill
 * table (1 MiB and size), numbered table_no; tables print when fmt is
 * CLI_FMT_DEFAULT, records go to rs. 0, or -1 after a message. */
int cli_states_table(size_t max, unsigned long runs, enum cli_format fmt, int table_no,
                     struct cli_records *rs);
int cli_fill_table(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                   struct cli_records *rs);

#endif
