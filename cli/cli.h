/*
 * cli.h - shared pieces of the `pageclear` command: argument helpers,
 * statistics over repeated runs, benchmark buffers and output formats.
 * The command includes only the public pageclear.h from the library.
 */
#ifndef PAGECLEAR_CLI_H
#define PAGECLEAR_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pageclear.h"

/* Exit statuses: 2 for usage errors, 1 for run-time failures. */
#define CLI_EXIT_USAGE 2
#define CLI_EXIT_RUNTIME 1

/* ---- args.c ---- */
/* Print "pageclear: <msg>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse a size for option opt; on failure print why and return -1. */
int cli_size(const char *opt, const char *s, size_t *out);
/* Parse a positive integer in [min, max]; on failure print why, return -1. */
int cli_uint(const char *opt, const char *s, unsigned long min,
             unsigned long max, unsigned long *out);
/* "4KiB", "2MiB", "1.5GiB": binary units, exactly named. */
const char *cli_fmt_size(size_t v, char *buf, size_t n);

/* ---- stats.c ---- */
struct cli_stats {
    double mean, median, min, max;
    double stdev_pct; /* sample standard deviation, % of the mean */
    size_t n;
};
void cli_stats(const double *v, size_t n, struct cli_stats *s);
uint64_t cli_now_ns(void);

/* ---- buffer.c ---- */
enum cli_page { CLI_PAGE_4K, CLI_PAGE_THP, CLI_PAGE_2M, CLI_PAGE_1G };
struct cli_buf {
    char *addr;
    size_t len;     /* what was asked for */
    size_t map_len; /* what was mapped (rounded to the page size) */
    enum cli_page page;
};
/* Parse 4KB|thp|2MB|1GB (also 4K, 2M, 1G, any case). -1 if invalid. */
int cli_parse_page(const char *s, enum cli_page *out);
const char *cli_page_name(enum cli_page p);
size_t cli_page_bytes(enum cli_page p);
/* Map len bytes backed by page size p. populate: MAP_POPULATE (and one
 * untimed write pass for THP). Returns 0, or -errno with a message in err
 * that says what to do (e.g. how many hugetlb pages to reserve). */
int cli_buf_map(struct cli_buf *b, size_t len, enum cli_page p, int populate,
                char *err, size_t errlen);
void cli_buf_unmap(struct cli_buf *b);
/* Bytes of memory available (MemAvailable), 0 if unknown. */
size_t cli_mem_available(void);

/* ---- output.c ---- */
enum cli_format { CLI_FMT_DEFAULT, CLI_FMT_SIMPLE, CLI_FMT_JSON, CLI_FMT_CSV };
/* One measurement; bandwidth in GB/s (10^9 bytes per second). */
struct cli_record {
    const char *workload, *function, *page;
    size_t size, chunk; /* chunk 0: whole size */
    unsigned long loops, threads;
    const char *unit; /* "GB/s" */
    struct cli_stats st;
};
/* Parse --format=X / --json / --csv. Returns 1 if arg was a format option. */
int cli_parse_format(const char *arg, enum cli_format *fmt);
void cli_record_header(FILE *f, enum cli_format fmt);
void cli_record_print(FILE *f, enum cli_format fmt, const struct cli_record *r);
void cli_record_footer(FILE *f, enum cli_format fmt);
/* Progress on stderr, only when stderr is a terminal. */
void cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- workloads ---- */
int cli_mem(int argc, char **argv);

#endif
