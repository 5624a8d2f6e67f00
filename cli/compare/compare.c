/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * compare.c - `pageclear compare A.json B.json [C.json...]`: the before
 * and after of a change (a kernel, a setting, a profile) measured on one
 * machine. Records are matched on all that defines a measurement (the
 * workload, function, size, chunk, page size, threads, cache state,
 * stores, and the unit, which tells apart the two figures the latency
 * table keeps per unit), the n-th of equal records in one file with the
 * n-th in another. Each figure is set against the first file's, with
 * the Mann-Whitney U test on their runs (utest.c); the CPU times where
 * recorded likewise. What only some files have is listed, not dropped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "compare.h"
#include "output.h"
#include "results.h"
#include "stats.h"
#include "utest.h"

static int str_cmp(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int num_cmp(size_t a, size_t b)
{
    return (a > b) - (a < b);
}

static int key_cmp(const struct cli_result *a, const struct cli_result *b)
{
    int c;
    if ((c = strcmp(a->workload, b->workload)) || (c = strcmp(a->function, b->function)) ||
        (c = num_cmp(a->size, b->size)) || (c = num_cmp(a->chunk, b->chunk)) ||
        (c = strcmp(a->page, b->page)) || (c = num_cmp(a->threads, b->threads)) ||
        (c = str_cmp(a->cache, b->cache)) || (c = str_cmp(a->stores, b->stores)))
        return c;
    return strcmp(a->unit, b->unit);
}

/* One file's records in key order (equal keys in file order), and
 * which have been matched. */
struct index {
    const struct cli_results *f;
    size_t *order;
    char *used;
};

static const struct cli_results *sorting; /* qsort has no context */

static int by_key(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = key_cmp(&sorting->r[i], &sorting->r[j]);
    return c ? c : num_cmp(i, j);
}

static int index_build(struct index *x, const struct cli_results *f)
{
    x->f = f;
    x->order = malloc((f->n ? f->n : 1) * sizeof(size_t));
    x->used = calloc(f->n ? f->n : 1, 1);
    if (x->order == NULL || x->used == NULL)
        return -1;
    for (size_t i = 0; i < f->n; i++)
        x->order[i] = i;
    sorting = f;
    qsort(x->order, f->n, sizeof(size_t), by_key);
    return 0;
}

/* The first record of x not yet matched with r's key: marked, or NULL. */
static const struct cli_result *index_take(struct index *x, const struct cli_result *r)
{
    size_t lo = 0, hi = x->f->n;
    while (lo < hi) { /* the first with a key not below r's */
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&x->f->r[x->order[mid]], r) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < x->f->n && key_cmp(&x->f->r[x->order[lo]], r) == 0; lo++)
        if (!x->used[x->order[lo]]) {
            x->used[x->order[lo]] = 1;
            return &x->f->r[x->order[lo]];
        }
    return NULL;
}

/* File f's figure of metric m from record r (NULL: the file has none). */
static void fill_cell(struct cmp_cell *c, const struct cli_result *r, enum cmp_metric m)
{
    const double *v = r == NULL ? NULL : m == CMP_STIME ? r->stime
                                       : m == CMP_UTIME ? r->utime
                                                        : r->samples;
    *c = (struct cmp_cell){.change_pct = NAN};
    if (r == NULL || (v == NULL && m != CMP_VALUE))
        return;
    c->have = 1;
    c->n = r->runs;
    if (v == NULL) { /* a figure without runs (tune's): as written */
        c->median = r->median;
        c->stdev_pct = r->stdev_pct;
        return;
    }
    struct cli_stats st;
    cli_stats_summary(v, r->runs, &st);
    c->median = st.median;
    c->stdev_pct = st.stdev_pct;
    c->runs = 1;
}

/* The runs of metric m behind record r. */
static const double *runs_of(const struct cli_result *r, enum cmp_metric m)
{
    return m == CMP_STIME ? r->stime : m == CMP_UTIME ? r->utime : r->samples;
}

/* The section of row r: found, or added after the others. */
static size_t section_of(struct cmp *c, const struct cmp_row *r)
{
    const char *unit = cmp_row_unit(r);
    for (size_t s = 0; s < c->nsec; s++)
        if (c->sec[s].metric == r->metric && strcmp(c->sec[s].workload, r->rec->workload) == 0 &&
            strcmp(c->sec[s].unit, unit) == 0)
            return s;
    c->sec[c->nsec] = (struct cmp_section){r->rec->workload, unit, r->metric, 0, 0, {0}};
    return c->nsec++;
}

/* A row of metric m for the records rec[0, nfiles) of one key. */
static void add_row(struct cmp *c, const struct cli_result *const *rec, enum cmp_metric m)
{
    struct cmp_row *r = &c->row[c->nrow++];
    *r = (struct cmp_row){.metric = m, .complete = 1};
    for (size_t f = 0; f < c->nfiles; f++) {
        fill_cell(&r->cell[f], rec[f], m);
        if (r->rec == NULL && rec[f] != NULL)
            r->rec = rec[f];
        r->complete &= r->cell[f].have;
    }
    const struct cmp_cell *a = &r->cell[0];
    for (size_t f = 1; f < c->nfiles && a->have; f++) {
        struct cmp_cell *b = &r->cell[f];
        if (b->have && a->median != 0)
            b->change_pct = 100 * (b->median / a->median - 1);
        else if (b->have && b->median == 0) /* nothing, both times: no change */
            b->change_pct = 0;
        if (a->runs && b->runs)
            b->tested = cli_utest(runs_of(rec[0], m), a->n, runs_of(rec[f], m), b->n,
                                  &b->t) == 0;
    }
    r->section = section_of(c, r);
    c->sec[r->section].rows++;
}

/* Every key of every file, in the order first seen: its value row, and
 * CPU-time rows where any file has them. */
static int match(struct cmp *c)
{
    struct index x[CMP_MAX_FILES] = {{0}};
    size_t total = 0;
    int rc = 0;
    for (size_t f = 0; f < c->nfiles && rc == 0; f++) {
        total += c->file[f].n;
        rc = index_build(&x[f], &c->file[f]);
    }
    c->row = rc ? NULL : malloc((3 * total + 1) * sizeof(*c->row));
    c->sec = rc ? NULL : malloc((3 * total + 1) * sizeof(*c->sec));
    rc = c->row == NULL || c->sec == NULL ? -1 : 0;
    for (size_t f = 0; f < c->nfiles && rc == 0; f++)
        for (size_t i = 0; i < c->file[f].n; i++) {
            const struct cli_result *rec[CMP_MAX_FILES] = {NULL};
            if (x[f].used[i])
                continue;
            x[f].used[i] = 1;
            rec[f] = &c->file[f].r[i];
            int st = rec[f]->stime != NULL, ut = rec[f]->utime != NULL;
            for (size_t g = f + 1; g < c->nfiles; g++)
                if ((rec[g] = index_take(&x[g], rec[f])) != NULL)
                    st |= rec[g]->stime != NULL, ut |= rec[g]->utime != NULL;
            add_row(c, rec, CMP_VALUE);
            if (st)
                add_row(c, rec, CMP_STIME);
            if (ut)
                add_row(c, rec, CMP_UTIME);
        }
    for (size_t f = 0; f < c->nfiles; f++)
        free(x[f].order), free(x[f].used);
    return rc;
}

/* Each section's geometric mean per file, over its rows that are in
 * every file with positive figures (a ratio needs both). */
static void geomeans(struct cmp *c)
{
    for (size_t s = 0; s < c->nsec; s++) {
        struct cmp_section *sec = &c->sec[s];
        double logs[CMP_MAX_FILES] = {0};
        for (size_t i = 0; i < c->nrow; i++) {
            const struct cmp_row *r = &c->row[i];
            int ok = r->section == s && r->complete;
            for (size_t f = 0; f < c->nfiles && ok; f++)
                ok = r->cell[f].median > 0;
            if (!ok)
                continue;
            for (size_t f = 0; f < c->nfiles; f++)
                logs[f] += log(r->cell[f].median);
            sec->geo_rows++;
        }
        for (size_t f = 0; f < c->nfiles && sec->geo_rows; f++)
            sec->geo[f] = exp(logs[f] / (double)sec->geo_rows);
    }
}

void cli_compare_usage(FILE *f)
{
    fprintf(f,
            "usage: pageclear compare A.json B.json [C.json ...] [--json|--csv]\n"
            "  Results files of `pageclear ... --json` (schema %d), matched record by\n"
            "  record: each file's median ± %%stdev, its change against A, and whether\n"
            "  that change is significant (Mann-Whitney U test on the runs, two-sided,\n"
            "  alpha %.2f; \"~\" where it is not). The environments' differences first;\n"
            "  geometric means per workload; records not in every file are listed.\n"
            "  At most %d files.\n",
            CLI_RESULTS_SCHEMA, CLI_UTEST_ALPHA, CMP_MAX_FILES);
}

/* The options and the files; 0, 1 for --help (done), or -1. */
static int parse(int argc, char **argv, struct cmp *c, enum cli_format *fmt)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (cli_parse_format(a, fmt) && *fmt != CLI_FMT_SIMPLE)
            continue;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return cli_compare_usage(stdout), 1;
        if (a[0] == '-' && a[1] != '\0') {
            cli_error("compare: unknown option '%s'", a);
            return cli_compare_usage(stderr), -1;
        }
        if (c->nfiles == CMP_MAX_FILES) {
            cli_error("compare: at most %d files", CMP_MAX_FILES);
            return -1;
        }
        c->path[c->nfiles++] = a;
    }
    if (c->nfiles < 2) {
        cli_error("compare: two results files or more are needed");
        return cli_compare_usage(stderr), -1;
    }
    return 0;
}

static void cmp_free(struct cmp *c)
{
    for (size_t f = 0; f < c->nfiles; f++)
        cli_results_free(&c->file[f]);
    free(c->row);
    free(c->sec);
}

int cli_compare(int argc, char **argv)
{
    static struct cmp c; /* eight files' headers and records: not on the stack */
    enum cli_format fmt = CLI_FMT_DEFAULT;
    char err[512];
    memset(&c, 0, sizeof(c));
    int rc = parse(argc, argv, &c, &fmt);
    if (rc != 0)
        return rc > 0 ? 0 : CLI_EXIT_USAGE;
    for (size_t f = 0; f < c.nfiles; f++)
        if (cli_results_read(&c.file[f], c.path[f], err, sizeof(err)) != 0) {
            cli_error("compare: %s: %s", c.path[f], err);
            cmp_free(&c);
            return CLI_EXIT_USAGE;
        }
    if (match(&c) != 0) {
        cli_error("compare: out of memory");
        cmp_free(&c);
        return CLI_EXIT_RUNTIME;
    }
    geomeans(&c);
    if (fmt == CLI_FMT_JSON)
        cmp_print_json(stdout, &c);
    else if (fmt == CLI_FMT_CSV)
        cmp_print_csv(stdout, &c);
    else
        cmp_print_text(stdout, &c);
    cmp_free(&c);
    return 0;
}
