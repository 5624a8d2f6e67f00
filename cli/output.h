/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * output.h - the command's output formats: records of measurements,
 * printed one by one or gathered and printed at the end, and progress on
 * the terminal (output.c).
 */
#ifndef PAGECLEAR_CLI_OUTPUT_H
#define PAGECLEAR_CLI_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "stats.h"

struct cli_counts; /* measure.h */

enum cli_format { CLI_FMT_DEFAULT, CLI_FMT_SIMPLE, CLI_FMT_JSON, CLI_FMT_CSV };
/* One measurement; bandwidth in GB/s (10^9 bytes per second). */
struct cli_record {
    const char *workload, *function, *page;
    size_t size, chunk; /* chunk 0: whole size */
    unsigned long loops, threads;
    const char *unit; /* "GB/s" */
    struct cli_stats st; /* with its runs, and their CPU time where the
                            workload faults memory in (stats.h) */
    const struct cli_counts *counts; /* NULL: not asked for */
    const char *cache;  /* mem, check, tune: warm/cold/use; else NULL */
    const char *stores; /* mem, check, tune: "zero", "loop-index" or a byte
                           ("0x5a"); else NULL */
    const char *verdict; /* check: "ok ..." or "short ..." for a library
                            function in its contract's state; else NULL */
};
/* The JSON form (docs/results.schema.json): one object, the environment
 * in its header (env.h) and the records with their runs. */
#define CLI_RESULTS_FORMAT "pageclear-results"
#define CLI_RESULTS_SCHEMA 2
/* "4KiB", "2MiB", "1.5GiB": binary units, exactly named. */
const char *cli_fmt_size(size_t v, char *buf, size_t n);
void cli_record_header(FILE *f, enum cli_format fmt);
void cli_record_print(FILE *f, enum cli_format fmt, const struct cli_record *r);
void cli_record_footer(FILE *f, enum cli_format fmt);
/* Records gathered across a run and printed once at the end, so --json
 * gives one file however many tables produced them. */
#define CLI_MAX_RECORDS 2048 /* `check` makes ~400, the suite ~200 */
struct cli_records {
    struct cli_record r[CLI_MAX_RECORDS];
    char function[CLI_MAX_RECORDS][48]; /* owned copies of the names */
    char stores[CLI_MAX_RECORDS][12];   /* and of what was stored */
    char verdict[CLI_MAX_RECORDS][160]; /* and of check's verdicts */
    size_t n;
};
/* Add a copy of *r (its function name and stores copied, counts dropped);
 * no-op if rs is NULL or full. */
void cli_records_add(struct cli_records *rs, const struct cli_record *r);
/* Header, every record, footer. */
void cli_records_print(FILE *f, enum cli_format fmt, const struct cli_records *rs);
/* Progress on stderr, only when stderr is a terminal. */
void cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
