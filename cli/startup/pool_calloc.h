/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* pool_calloc.h - the calloc-style rows under the pool table (pool_calloc.c). */
#ifndef PAGECLEAR_CLI_POOL_CALLOC_H
#define PAGECLEAR_CLI_POOL_CALLOC_H

#include "output.h"

/* Allocate 256 MiB, write 1 MiB, free, allocate again: `runs` rounds per
 * row (THP and base pages, tracking written pages and off). Prints its
 * table when fmt is CLI_FMT_DEFAULT, records go to rs (may be NULL). 0,
 * or CLI_EXIT_RUNTIME after a message. */
int cli_pool_calloc_bench(unsigned long runs, enum cli_format fmt, struct cli_records *rs);

#endif
