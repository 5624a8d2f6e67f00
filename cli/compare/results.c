/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * results.c - reading a results file back (schema 2). Everything the
 * writer (output.c) promises is checked, so that what `compare` prints
 * rests on a file that holds together: pageclear's format and this
 * schema, a header of strings, and records whose runs number what `runs`
 * says. A file that fails any of it is refused whole, with the reason.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "json.h"
#include "output.h"
#include "results.h"

/* Integers in a results file: counts and sizes, exact in a double. */
#define INT_MAX_EXACT 9007199254740992.0 /* 2^53 */

static int why(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int why(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The string member `name` of o into *out; NULL is accepted (and given)
 * only if nullable. */
static int get_str(const struct cli_json *d, const struct cli_json_node *o, const char *name,
                   int nullable, const char **out)
{
    const struct cli_json_node *m = cli_json_get(d, o, name);
    *out = cli_json_str(d, m);
    return *out != NULL || (nullable && m != NULL && m->type == CLI_JSON_NULL) ? 0 : -1;
}

/* A whole number in [min, 2^53] into *out. */
static int get_count(const struct cli_json *d, const struct cli_json_node *o, const char *name,
                     double min, size_t *out)
{
    const struct cli_json_node *m = cli_json_get(d, o, name);
    if (m == NULL || m->type != CLI_JSON_NUMBER || m->num != floor(m->num) || m->num < min ||
        m->num > INT_MAX_EXACT || m->num > (double)SIZE_MAX)
        return -1;
    *out = (size_t)m->num;
    return 0;
}

static int get_num(const struct cli_json *d, const struct cli_json_node *o, const char *name,
                   double *out)
{
    const struct cli_json_node *m = cli_json_get(d, o, name);
    if (m == NULL || m->type != CLI_JSON_NUMBER)
        return -1;
    *out = m->num;
    return 0;
}

/* The array member `name`: 0 for null, 1 for exactly n numbers, each
 * at least min (copied to out, if not NULL); -1 for anything else. */
static int get_runs(const struct cli_json *d, const struct cli_json_node *o, const char *name,
                    size_t n, double min, double *out)
{
    const struct cli_json_node *m = cli_json_get(d, o, name);
    if (m != NULL && m->type == CLI_JSON_NULL)
        return 0;
    if (m == NULL || m->type != CLI_JSON_ARRAY || m->len != n)
        return -1;
    size_t i = 0;
    for (const struct cli_json_node *e = cli_json_first(d, m); e; e = cli_json_next(d, e), i++)
        if (e->type != CLI_JSON_NUMBER || e->num < min)
            return -1;
        else if (out != NULL)
            out[i] = e->num;
    return 1;
}

/* The identifying members and the figure of record o into *r. */
static int record_fields(const struct cli_json *d, const struct cli_json_node *o,
                         struct cli_result *r, char *err, size_t errlen, size_t i)
{
    size_t threads;
    static const char *const strs[] = {"workload", "function", "page", "unit"};
    const char **dst[] = {&r->workload, &r->function, &r->page, &r->unit};
    for (size_t k = 0; k < 4; k++)
        if (get_str(d, o, strs[k], 0, dst[k]) != 0)
            return why(err, errlen, "records[%zu]: \"%s\" is missing or not a string", i,
                       strs[k]);
    if (get_str(d, o, "cache", 1, &r->cache) != 0 || get_str(d, o, "stores", 1, &r->stores))
        return why(err, errlen, "records[%zu]: \"cache\" or \"stores\" is neither a string "
                   "nor null", i);
    if (get_count(d, o, "size", 0, &r->size) != 0 || get_count(d, o, "chunk", 0, &r->chunk) ||
        get_count(d, o, "threads", 1, &threads) || get_count(d, o, "runs", 1, &r->runs))
        return why(err, errlen, "records[%zu]: \"size\", \"chunk\", \"threads\" and \"runs\" "
                   "must be whole numbers (threads and runs at least 1)", i);
    r->threads = (unsigned long)threads;
    if (get_num(d, o, "median", &r->median) != 0 || get_num(d, o, "stdev_pct", &r->stdev_pct))
        return why(err, errlen, "records[%zu]: \"median\" or \"stdev_pct\" is not a number", i);
    return 0;
}

/* Record o into *r, its runs into a block it owns (*block). */
static int record(const struct cli_json *d, const struct cli_json_node *o, struct cli_result *r,
                  double **block, char *err, size_t errlen, size_t i)
{
    static const char *const arrays[3] = {"samples", "utime_s", "stime_s"};
    const double min[3] = {-HUGE_VAL, 0, 0}; /* CPU seconds are never negative */
    const double **dst[3] = {&r->samples, &r->utime, &r->stime};
    int had[3];
    *r = (struct cli_result){0};
    if (o->type != CLI_JSON_OBJECT)
        return why(err, errlen, "records[%zu] is not an object", i);
    if (record_fields(d, o, r, err, errlen, i) != 0)
        return -1;
    /* Checked before anything is allocated: what is allocated is what the
     * text holds, never what a "runs" claims. */
    size_t need = 0;
    for (int k = 0; k < 3; k++) {
        had[k] = get_runs(d, o, arrays[k], r->runs, min[k], NULL);
        if (had[k] < 0)
            return why(err, errlen, "records[%zu]: \"%s\" must be null or %zu %s (runs)", i,
                       arrays[k], r->runs, k ? "numbers of seconds" : "numbers");
        need += had[k] ? r->runs : 0;
    }
    double *v = *block = need ? malloc(need * sizeof(double)) : NULL;
    if (need && v == NULL)
        return why(err, errlen, "out of memory");
    for (int k = 0; k < 3; k++)
        if (had[k]) {
            get_runs(d, o, arrays[k], r->runs, min[k], v);
            *dst[k] = v;
            v += r->runs;
        }
    return 0;
}

/* The format, the schema and the header of root. */
static int head(struct cli_results *f, const struct cli_json_node *root, char *err,
                size_t errlen)
{
    const struct cli_json *d = &f->doc;
    const char *fmt;
    double schema;
    if (root->type == CLI_JSON_ARRAY)
        return why(err, errlen, "a results file of schema 1 (a bare array of records, from "
                   "an earlier pageclear): it keeps no runs to test and no environment; "
                   "measure again with this pageclear");
    if (root->type != CLI_JSON_OBJECT || get_str(d, root, "format", 0, &fmt) != 0 ||
        strcmp(fmt, CLI_RESULTS_FORMAT) != 0)
        return why(err, errlen, "not a pageclear results file (no \"format\": \"%s\")",
                   CLI_RESULTS_FORMAT);
    if (get_num(d, root, "schema", &schema) != 0)
        return why(err, errlen, "\"schema\" is missing or not a number");
    if (schema != CLI_RESULTS_SCHEMA)
        return why(err, errlen, "results schema %.6g; this pageclear reads schema %d", schema,
                   CLI_RESULTS_SCHEMA);
    const struct cli_json_node *h = cli_json_get(d, root, "header");
    if (h == NULL || h->type != CLI_JSON_OBJECT)
        return why(err, errlen, "\"header\" is missing or not an object");
    for (int k = 0; k < CLI_ENV_COUNT; k++) {
        const char *name = cli_env_name((enum cli_env_key)k);
        const struct cli_json_node *m = cli_json_get(d, h, name);
        f->header[k] = cli_json_str(d, m);
        if (m != NULL && m->type != CLI_JSON_STRING && m->type != CLI_JSON_NULL)
            return why(err, errlen, "header: \"%s\" is neither a string nor null", name);
    }
    return 0;
}

static int parse(struct cli_results *f, const char *text, size_t len, char *err, size_t errlen)
{
    if (cli_json_parse(&f->doc, text, len, err, errlen) != 0)
        return -1;
    const struct cli_json_node *root = cli_json_root(&f->doc);
    if (head(f, root, err, errlen) != 0)
        return -1;
    const struct cli_json_node *recs = cli_json_get(&f->doc, root, "records");
    if (recs == NULL || recs->type != CLI_JSON_ARRAY)
        return why(err, errlen, "\"records\" is missing or not an array");
    if (recs->len > CLI_RESULTS_MAX_RECORDS)
        return why(err, errlen, "more than %d records", CLI_RESULTS_MAX_RECORDS);
    f->r = calloc(recs->len ? recs->len : 1, sizeof(*f->r));
    f->values = calloc(recs->len ? recs->len : 1, sizeof(*f->values));
    if (f->r == NULL || f->values == NULL)
        return why(err, errlen, "out of memory");
    for (const struct cli_json_node *o = cli_json_first(&f->doc, recs); o;
         o = cli_json_next(&f->doc, o), f->n++)
        if (record(&f->doc, o, &f->r[f->n], &f->values[f->n], err, errlen, f->n) != 0) {
            f->n++; /* its block, if any, is freed with the rest */
            return -1;
        }
    return 0;
}

int cli_results_parse(struct cli_results *f, const char *text, size_t len, char *err,
                      size_t errlen)
{
    *f = (struct cli_results){0};
    if (errlen > 0)
        err[0] = '\0';
    int rc = parse(f, text, len, err, errlen);
    if (rc != 0)
        cli_results_free(f);
    return rc;
}

int cli_results_read(struct cli_results *f, const char *path, char *err, size_t errlen)
{
    *f = (struct cli_results){0};
    FILE *in = fopen(path, "rb");
    if (in == NULL)
        return why(err, errlen, "cannot open: %s", strerror(errno));
    /* One byte more than the reader takes, to tell "too large" apart. */
    char *text = malloc(CLI_JSON_MAX_BYTES + 1);
    size_t len = text ? fread(text, 1, CLI_JSON_MAX_BYTES + 1, in) : 0;
    int bad = ferror(in);
    fclose(in);
    int rc = text == NULL ? why(err, errlen, "out of memory")
             : bad        ? why(err, errlen, "cannot read: %s", strerror(errno))
                          : cli_results_parse(f, text, len, err, errlen);
    free(text);
    return rc;
}

void cli_results_free(struct cli_results *f)
{
    for (size_t i = 0; f->values != NULL && i < f->n; i++)
        free(f->values[i]);
    free(f->values);
    free(f->r);
    cli_json_free(&f->doc);
    *f = (struct cli_results){0};
}
