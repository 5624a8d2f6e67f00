/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * print.c - perf bench mem's output, line for line, so that what reads
 * perf's reads this (tests/integration/command/perf_shape.py holds it to
 * the real tool's):
 *   # function 'NAME' (WHAT)
 *   # Copying SIZE bytes ...        SIZE as typed; then a blank line
 *         12.345678 GB/sec          "%14lf", in 2^30 bytes (MB/sec below
 *                                   1 GiB/s, and so on down)
 * With threads the figure is each thread's, "/thread\t( +-  1.23% )".
 * --format=simple prints only the function's line and the bare bytes a
 * second (or cycles per byte).
 */
#include <stdio.h>

#include "args.h"
#include "perf.h"

void cli_perf_function(const char *name, const char *desc)
{
    printf("# function '%s' (%s)\n", name, desc);
}

void cli_perf_copying(const struct cli_perf *pf, const char *size_str)
{
    if (pf->format == CLI_PERF_DEFAULT)
        printf("# Copying %s bytes ...\n\n", size_str);
}

/* Bytes a second in the largest binary unit it reaches. perf writes its
 * KB/sec figure with a stray "d" after the number; a parser of its
 * output expects it, so it is kept. */
static void rate(double x)
{
    const double k = 1024.0;
    if (x < k)
        printf(" %14f bytes/sec", x);
    else if (x < k * k)
        printf(" %14fd KB/sec", x / k);
    else if (x < k * k * k)
        printf(" %14f MB/sec", x / k / k);
    else
        printf(" %14f GB/sec", x / k / k / k);
}

void cli_perf_result(const struct cli_perf *pf, double bytes, double time, int cycles,
                     unsigned int threads, double spread_pct)
{
    double r = cycles ? time / bytes : bytes / time;
    if (pf->format == CLI_PERF_SIMPLE) {
        printf("%f\n", r);
        return;
    }
    if (cycles)
        printf(" %14f cycles/byte", r);
    else
        rate(r);
    if (threads > 1)
        printf("/thread\t( +- %6.2f%% )", spread_pct);
    printf("\n");
}

void cli_perf_alloc_failed(const char *size_str, enum cli_page page, const char *why)
{
    printf("# Memory allocation failed - maybe size (%s) %s?\n", size_str,
           page != CLI_PAGE_4K ? "has insufficient hugepages" : "is too large");
    fflush(stdout);
    cli_error("bench mem: %s", why);
}
