/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * results.h - reading a results file (schema 2, docs/results.schema.json)
 * back: its environment and its records with their runs (results.c).
 */
#ifndef PAGECLEAR_CLI_RESULTS_H
#define PAGECLEAR_CLI_RESULTS_H

#include <stddef.h>

#include "env.h"
#include "json.h"

/* At most this many records: `check` writes ~400, the suite ~250; what
 * compare does with them grows with their square at worst. */
#define CLI_RESULTS_MAX_RECORDS 20000

/* One record as read; the strings live in the file's parsed text. */
struct cli_result {
    const char *workload, *function, *page, *unit;
    const char *cache, *stores; /* NULL for null */
    size_t size, chunk, runs;
    unsigned long threads;
    double median, stdev_pct;     /* as written: the figure where there
                                     are no runs to recompute it from */
    const double *samples;        /* runs figures, or NULL (tune's) */
    const double *utime, *stime;  /* runs CPU seconds each, or NULL */
};

struct cli_results {
    struct cli_json doc;
    const char *header[CLI_ENV_COUNT]; /* NULL where null or absent */
    struct cli_result *r;
    size_t n;
    double **values; /* r[i]'s arrays, one block each */
};

/* Read text[0, len) as a results file. 0, or -1 with the reason in err
 * (another format or schema, malformed, truncated, a record that does not
 * hold together) and *f empty. */
int cli_results_parse(struct cli_results *f, const char *text, size_t len, char *err,
                      size_t errlen);
/* The same for the file at path. */
int cli_results_read(struct cli_results *f, const char *path, char *err, size_t errlen);
void cli_results_free(struct cli_results *f);

#endif
