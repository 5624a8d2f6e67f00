/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_glibc.h - the GLIBC_TUNABLES setting `pageclear tune` suggests for
 * programs that do not use pageclear, checked by timing the C library's
 * memset under it in processes of their own (tune_glibc.c).
 */
#ifndef PAGECLEAR_CLI_TUNE_GLIBC_H
#define PAGECLEAR_CLI_TUNE_GLIBC_H

#include <stdio.h>

#include "pageclear.h"

#include "output.h"

/* Set in the environment of the processes that time memset for tune, to
 * tune's pid: `pageclear tune` whose parent has that pid then answers
 * "SIZE STATE" lines on stdin with one run's GB/s each, and nothing else
 * (with any other value it is an ordinary tune). */
#define CLI_TUNE_MEMSET_ENV "PAGECLEAR_TUNE_MEMSET"
/* 1 if this process is such a timing process. */
int cli_tune_memset_wanted(void);
/* That process's loop; its exit status. */
int cli_tune_memset_child(void);
/* After tune chose `chosen`: the GLIBC_TUNABLES setting closest to it for
 * this C library, the memset figures now and under it (each process
 * started once, runs interleaved between them), and the verdict; in
 * --json/--csv the figures go to rs and the verdict line to stderr. */
void cli_tune_glibc(FILE *rep, struct cli_records *rs, enum cli_format fmt,
                    const struct pc_tuning *chosen, int quick, unsigned long runs);

#endif
