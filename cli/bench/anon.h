/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * anon.h - the anon-w-seq workload (anon.c): threads that map anonymous
 * memory and write it in order, timed with the system and user CPU time
 * they take; `pageclear mmap -f anon-w-seq` and the default suite's table.
 */
#ifndef PAGECLEAR_CLI_ANON_H
#define PAGECLEAR_CLI_ANON_H

#include <stddef.h>

#include "buffer.h"
#include "output.h"
#include "stats.h"

/* `loops` rounds of `threads` threads each mapping size / threads bytes
 * backed by `page` and writing all of it in order; *st gets GB/s per
 * round (10^9 bytes written per second, all threads together) with each
 * round's CPU time. 0, or -errno with the reason in err. */
int cli_anon_measure(size_t size, enum cli_page page, unsigned long threads,
                     unsigned long loops, struct cli_stats *st, char *err, size_t errlen);
/* The suite's table: anon-w-seq over size bytes on every CPU, for each
 * page size that can be had; printed (numbered table_no) when fmt is
 * CLI_FMT_DEFAULT, records to rs (may be NULL). */
void cli_anon_table(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                    struct cli_records *rs);

#endif
