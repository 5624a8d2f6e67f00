/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * headroom.h - the default suite's table of the kernel's headroom: its
 * fault path against what user space clears the same memory at
 * (headroom.c, headroom_out.c).
 */
#ifndef PAGECLEAR_CLI_HEADROOM_H
#define PAGECLEAR_CLI_HEADROOM_H

#include <stddef.h>

#include "buffer.h"
#include "kernel.h"
#include "measure.h"
#include "output.h"
#include "stats.h"

/* The contenders of a row, in this order: the fault path's two, the
 * kernel's way (its string instruction in its units), then the
 * primitives over the whole extent. */
enum { CLI_HR_POPULATE, CLI_HR_DEMAND, CLI_HR_KERNEL, CLI_HR_FIRST_PRIMITIVE };
#define CLI_HR_MAX (CLI_HR_FIRST_PRIMITIVE + CLI_MAX_FNS)

/* One page size's row. */
struct cli_hr_row {
    enum cli_page page;
    size_t size;  /* bytes each contender clears or maps per run */
    size_t chunk; /* the kernel's units: bytes per call of its way */
    int assumed;  /* chunk is a guess (kernel.c could not tell) */
    int remapped; /* too few huge pages to keep the target: mapped per run */
    size_t n;     /* contenders */
    struct cli_fn fn[CLI_HR_MAX]; /* [CLI_HR_KERNEL, n): the clears */
    struct cli_stats st[CLI_HR_MAX];
    int ok;
    char err[512]; /* why not, when !ok */
    size_t best_temporal, best_stream; /* indices into fn, 0 for none */
};

/* The table, numbered table_no, over extents of size bytes and runs
 * runs; printed when fmt is CLI_FMT_DEFAULT, records to rs. A page size
 * that cannot be had, or is larger than size, is a row saying why. */
void cli_headroom_table(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                        struct cli_records *rs);
/* What headroom_out.c prints: the table, under its heading. */
void cli_hr_print(const struct cli_kernel *k, const struct cli_hr_row *rows, size_t nrows,
                  unsigned long runs, int table_no);

#endif
