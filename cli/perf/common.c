/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * common.c - what every mem benchmark of perf's takes: -s, -p, -f, -l, -c
 * with perf's defaults (1MB, 4KB pages, all functions, one loop), and the
 * checks perf makes of them, in its order and with its messages. Two
 * more are pageclear's: no loop and no thread are refused, where perf
 * would divide by them and print "nan".
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "perf.h"
#include "stats.h"
#include "units.h"

/* Threads beyond this are refused: each maps its own SIZE. */
#define MAX_THREADS 1024

void cli_perf_mem_defaults(struct cli_perf_mem *m)
{
    *m = (struct cli_perf_mem){.size_str = "1MB", .page_str = "4KB", .function = "all",
                               .chunk_str = "0", .loops = 1, .threads = 1};
}

void cli_perf_mem_options(struct cli_perf_mem *m, struct cli_perf_opt *out)
{
    out[0] = (struct cli_perf_opt){'s', "size", CLI_PERF_STRING, "1MB",
                                   "bytes in each buffer: B, KB, MB, GB or TB (powers of 1024)",
                                   0, &m->size_str};
    out[1] = (struct cli_perf_opt){'p', "page", CLI_PERF_STRING, "4KB",
                                   "the pages backing the buffers: 4KB, 2MB or 1GB", 0,
                                   &m->page_str};
    out[2] = (struct cli_perf_opt){'f', "function", CLI_PERF_STRING, "all",
                                   "the function to run: a name, \"all\", or \"help\" to list "
                                   "them", 0, &m->function};
    out[3] = (struct cli_perf_opt){'l', "nr_loops", CLI_PERF_UINT, NULL,
                                   "times to run it, timed together (default: 1)", 0,
                                   &m->loops};
    out[4] = (struct cli_perf_opt){'c', "cycles", CLI_PERF_BOOL, NULL,
                                   "count CPU cycles instead of time (hardware counters)", 0,
                                   &m->cycles};
}

int cli_perf_wants_all(const char *function)
{
    return strncmp(function, "all", 3) == 0;
}

static int invalid(const char *what, const char *value)
{
    fflush(stdout);
    fprintf(stderr, "Invalid %s:%s\n", what, value);
    return CLI_PERF_EXIT_VALUE;
}

/* -p as perf reads it: a size that is one of the three page sizes. */
static int page_of(const char *s, enum cli_page *out)
{
    uint64_t v;
    if (cli_perf_size(s, &v) != 0)
        return -1;
    if (v == 4 * KIB)
        *out = CLI_PAGE_4K;
    else if (v == 2 * MIB)
        *out = CLI_PAGE_2M;
    else if (v == GIB)
        *out = CLI_PAGE_1G;
    else
        return -1;
    return 0;
}

int cli_perf_mem_check(struct cli_perf_mem *m)
{
    char n[24];
    uint64_t v;
    if (m->cycles) {
        if (cli_cycles_open() != 0) {
            fflush(stdout);
            fprintf(stderr, "Failed to open cycles counter\n");
            return CLI_PERF_EXIT_COUNTER;
        }
        cli_clock_set(cli_cycles_now);
    }
    if (cli_perf_size(m->size_str, &v) != 0 || v == 0 || v > SIZE_MAX / 2)
        return invalid("size", m->size_str);
    m->size = (size_t)v;
    if (cli_perf_size(m->chunk_str, &v) != 0 || v > m->size)
        return invalid("chunk_size", m->chunk_str);
    m->chunk = (size_t)v;
    if (page_of(m->page_str, &m->page) != 0)
        return invalid("page-size", m->page_str);
    snprintf(n, sizeof(n), "%u", m->loops);
    if (m->loops == 0)
        return invalid("nr_loops", n);
    snprintf(n, sizeof(n), "%u", m->threads);
    if (m->threads == 0 || m->threads > MAX_THREADS)
        return invalid("threads", n);
    return 0;
}
