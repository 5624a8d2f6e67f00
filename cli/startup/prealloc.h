/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * prealloc.h - time to usable memory (`pageclear prealloc`, the default
 * suite's table): the ways a VMM or a heap makes memory resident before
 * use, one run of each (prealloc_run.c) and the table (prealloc.c).
 */
#ifndef PAGECLEAR_CLI_PREALLOC_H
#define PAGECLEAR_CLI_PREALLOC_H

#include <stddef.h>

#include "buffer.h"
#include "output.h"

enum cli_pa_method {
    CLI_PA_TOUCH,        /* one thread writing a byte per page */
    CLI_PA_MAP_POPULATE, /* mmap(MAP_POPULATE): the kernel, one thread */
    CLI_PA_QEMU,         /* MADV_POPULATE_WRITE over equal static shares,
                            a thread each, started per call (QEMU's
                            prealloc) */
    CLI_PA_PC_POPULATE,  /* pc_populate */
    CLI_PA_NMETHODS
};

/* One run: wall time and the process's system and user CPU time, s. */
struct cli_pa_sample {
    double secs, stime, utime;
};

const char *cli_pa_method_name(enum cli_pa_method m);
/* Map size bytes of page p fresh, make them resident by method m on
 * threads threads, and unmap (untimed). 0 with *out, or -errno with a
 * message in err. */
int cli_pa_run(enum cli_pa_method m, enum cli_page p, size_t size, int threads,
               struct cli_pa_sample *out, char *err, size_t errlen);

/* The table over size bytes (scaled per page size to what can be had),
 * runs interleaved rounds; printed as table table_no when fmt is
 * CLI_FMT_DEFAULT, records to rs (may be NULL). reserve: take hugetlb
 * pages as needed (and give them back). pages: NULL for every page size,
 * else pages[i] != 0 for 4KB, thp, 2MB, 1GB in that order. 0 if any page
 * size was measured, else CLI_EXIT_RUNTIME after a message. */
int cli_prealloc_bench(size_t size, unsigned long runs, int reserve, const int *pages,
                       enum cli_format fmt, int table_no, struct cli_records *rs);

#endif
