/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * mmap.h - the kernel's fault path timed (mmap.c): `pageclear mmap` and
 * the default suite's fault table.
 */
#ifndef PAGECLEAR_CLI_MMAP_H
#define PAGECLEAR_CLI_MMAP_H

#include <stddef.h>

#include "buffer.h"
#include "stats.h"

/* Time `loops` rounds of mapping size bytes and writing a byte per page;
 * *st gets GB/s per round. 0, or -errno with the reason in err. */
int cli_fault_measure(size_t size, enum cli_page page, int populate,
                      unsigned long loops, unsigned long threads,
                      unsigned long seed, int noreserve, struct cli_stats *st,
                      char *err, size_t errlen);
/* One round of it: *gbs, and the process's CPU time before and after. */
int cli_fault_once(size_t size, enum cli_page page, int populate, unsigned long threads,
                   unsigned long seed, int noreserve, double *gbs, struct cli_cpu *before,
                   struct cli_cpu *after, char *err, size_t errlen);

#endif
