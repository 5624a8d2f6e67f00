/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * compare.h - `pageclear compare`: results files matched record by
 * record, each figure against the first file's with the Mann-Whitney U
 * test on the runs (compare.c), and printed as a table, JSON or CSV
 * (compare_out.c).
 */
#ifndef PAGECLEAR_CLI_COMPARE_H
#define PAGECLEAR_CLI_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "results.h"
#include "utest.h"

#define CMP_MAX_FILES 8 /* columns that still fit a terminal */

/* What a row compares: the record's figure, or its runs' CPU time. */
enum cmp_metric { CMP_VALUE, CMP_STIME, CMP_UTIME };

/* One file's figure in a row. */
struct cmp_cell {
    int have;           /* the file has the record (and the metric) */
    double median;      /* of its runs (the written median without runs) */
    double stdev_pct;   /* of its runs, % of their mean */
    size_t n;           /* its runs */
    int runs;           /* 1: the runs are there to test */
    /* Against the first file (cell 0 has none): */
    double change_pct;  /* of the median; NaN where it cannot be had */
    int tested;         /* 1: t holds the U test of the two files' runs */
    struct cli_utest t;
};

struct cmp_row {
    const struct cli_result *rec; /* the record, as the first file that has it */
    enum cmp_metric metric;
    size_t section;
    int complete; /* in every file */
    struct cmp_cell cell[CMP_MAX_FILES];
};

/* The rows of one workload, metric and unit, with their geometric means
 * over the rows that are in every file with positive figures. */
struct cmp_section {
    const char *workload, *unit;
    enum cmp_metric metric;
    size_t rows, geo_rows;
    double geo[CMP_MAX_FILES];
};

struct cmp {
    size_t nfiles;
    const char *path[CMP_MAX_FILES];
    struct cli_results file[CMP_MAX_FILES];
    struct cmp_row *row;
    size_t nrow;
    struct cmp_section *sec;
    size_t nsec;
};

/* The unit a row's figures are in: "s" for the CPU times, else the
 * record's. */
static inline const char *cmp_row_unit(const struct cmp_row *r)
{
    return r->metric == CMP_VALUE ? r->rec->unit : "s";
}

/* The outputs (compare_out.c). */
void cmp_print_text(FILE *f, const struct cmp *c);
void cmp_print_json(FILE *f, const struct cmp *c);
void cmp_print_csv(FILE *f, const struct cmp *c);

#endif
