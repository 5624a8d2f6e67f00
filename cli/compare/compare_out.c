/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * compare_out.c - what `pageclear compare` prints: a table per workload
 * and metric in the form of the kernel work's tables (the first file's
 * figure, then each other file's with its change and the test's p),
 * geometric means, the environments' differences first and the records
 * not in every file last; or the same as JSON or CSV.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "env.h"
#include "json.h"
#include "output.h"
#include "utest.h"

#define LABEL_MIN 24 /* the label column at least, so short tables line up too */

static const char *file_letter(size_t f)
{
    static const char *const letters[CMP_MAX_FILES] = {"A", "B", "C", "D", "E", "F", "G", "H"};
    return letters[f];
}

static const char *value_or(const char *v)
{
    return v ? v : "(unknown)";
}

/* The metric's name: "value", "stime" or "utime". */
static const char *cmp_metric_name(enum cmp_metric m)
{
    return m == CMP_STIME ? "stime" : m == CMP_UTIME ? "utime" : "value";
}

/* 1 if the row's change against the first file is significant. */
static int cmp_significant(const struct cmp_cell *c)
{
    return c->tested && c->t.p < CLI_UTEST_ALPHA;
}

/* "function size [chunk=] page [threads=] [cache] [stores=]" into buf. */
static const char *cmp_label(const struct cli_result *r, char *buf, size_t n)
{
    char s[32], k[32], t[32] = "";
    if (r->chunk)
        snprintf(k, sizeof(k), " chunk=%s", cli_fmt_size(r->chunk, s, sizeof(s)));
    else
        k[0] = '\0';
    if (r->threads != 1)
        snprintf(t, sizeof(t), " threads=%lu", r->threads);
    snprintf(buf, n, "%s %s%s %s%s%s%s%s%s", r->function, cli_fmt_size(r->size, s, sizeof(s)),
             k, r->page, t, r->cache ? " " : "", r->cache ? r->cache : "",
             r->stores ? " stores=" : "", r->stores ? r->stores : "");
    return buf;
}

/* A figure to about four significant digits. */
static const char *fig(double v, char *buf, size_t n)
{
    double a = fabs(v);
    int prec = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4;
    if (a != 0 && a < 0.001)
        snprintf(buf, n, "%.3g", v);
    else
        snprintf(buf, n, "%.*f", prec, v);
    return buf;
}

/* A kernel command line's words in a but not in b, each after mark. */
static void words_missing(FILE *f, const char *a, const char *b, char mark)
{
    for (const char *p = a; *p; p += strcspn(p, " ")) {
        p += strspn(p, " ");
        size_t n = strcspn(p, " ");
        int found = 0;
        for (const char *q = b; *q && !found; q += strcspn(q, " ")) {
            q += strspn(q, " ");
            found = strcspn(q, " ") == n && strncmp(p, q, n) == 0;
        }
        if (n && !found)
            fprintf(f, " %c%.*s", mark, (int)n, p);
    }
}

/* The header keys whose values differ, as "a → b / c"; the command line
 * as the words each file adds to or drops from the first's. */
static void print_env(FILE *f, const struct cmp *c)
{
    int any = 0;
    for (int k = 0; k < CLI_ENV_COUNT; k++) {
        int differ = 0;
        const char *v0 = c->file[0].header[k];
        for (size_t i = 1; i < c->nfiles; i++)
            differ |= strcmp(value_or(v0), value_or(c->file[i].header[k])) != 0;
        if (!differ || cli_env_incidental((enum cli_env_key)k))
            continue;
        if (!any++)
            fprintf(f, "Environment, where the files differ:\n");
        fprintf(f, "  %-16s", cli_env_name((enum cli_env_key)k));
        for (size_t i = 0; i < c->nfiles; i++) {
            const char *v = value_or(c->file[i].header[k]);
            if (k == CLI_ENV_cmdline && i > 0 && v0 != NULL && c->file[i].header[k] != NULL) {
                fprintf(f, "%s%s:", i == 1 ? " A → " : " / ", file_letter(i));
                words_missing(f, v, v0, '+');
                words_missing(f, v0, v, '-');
            } else if (k != CLI_ENV_cmdline || i > 0) {
                fprintf(f, "%s%s", i == 0 ? " " : i == 1 ? " → " : " / ", v);
            }
        }
        fputc('\n', f);
    }
    if (!any)
        fprintf(f, "Environment: the same in every file (kernel %s, clearing %s, preempt %s, "
                "THP %s).\n", value_or(c->file[0].header[CLI_ENV_kernel]),
                value_or(c->file[0].header[CLI_ENV_clearing]),
                value_or(c->file[0].header[CLI_ENV_preempt]),
                value_or(c->file[0].header[CLI_ENV_thp_enabled]));
}

static void print_legend(FILE *f, const struct cmp *c)
{
    for (size_t i = 0; i < c->nfiles; i++)
        fprintf(f, "%s: %s  (%s: %s)\n", file_letter(i), c->path[i],
                value_or(c->file[i].header[CLI_ENV_started]),
                value_or(c->file[i].header[CLI_ENV_command]));
    print_env(f, c);
    fprintf(f,
            "Each figure: the median of a file's runs ± their standard deviation in %% of "
            "the mean;\neach change: of the median, against A, where the Mann-Whitney U test "
            "on the runs\n(two-sided, p exact up to %d runs in the two files together, else "
            "the normal\napproximation with tie and continuity corrections) gives p < %.2f; "
            "else \"~\".\n\"too few samples\": these numbers of runs can never give p < %.2f "
            "(4 or more each can).\n",
            CLI_UTEST_EXACT_MAX, CLI_UTEST_ALPHA, CLI_UTEST_ALPHA);
}

/* One file's cell: its figure, and against A its change and p (padded
 * but in the last column). */
static void print_cell(FILE *f, const struct cmp_cell *c, size_t col, int last)
{
    char a[32], b[40];
    if (!c->have) {
        fprintf(f, "  %16s", "-"); /* one column short of a figure's: "±" is two bytes */
        if (col > 0 && !last)
            fprintf(f, " %-18s", "");
        return;
    }
    fprintf(f, "  %9s ±%4.1f%%", fig(c->median, a, sizeof(a)), c->stdev_pct);
    if (col == 0)
        return;
    if (isnan(c->change_pct))
        snprintf(b, sizeof(b), "-");
    else if (!c->tested)
        snprintf(b, sizeof(b), "%+.1f%% (no runs)", c->change_pct);
    else if (cmp_significant(c) && c->t.p < 0.0005) /* it would print as 0.000 */
        snprintf(b, sizeof(b), "%+.1f%% (p<0.001)", c->change_pct);
    else if (cmp_significant(c))
        snprintf(b, sizeof(b), "%+.1f%% (p=%.3f)", c->change_pct, c->t.p);
    else if (c->t.min_p >= CLI_UTEST_ALPHA)
        snprintf(b, sizeof(b), "~ (too few samples)");
    else
        snprintf(b, sizeof(b), "~ (p=%.3f)", c->t.p);
    fprintf(f, last ? " %s" : " %-18s", b);
}

static const char *title(const struct cmp_section *s, char *buf, size_t n)
{
    if (s->metric == CMP_VALUE)
        snprintf(buf, n, "%s: %s", s->workload, s->unit);
    else
        snprintf(buf, n, "%s: %s CPU seconds per run (every thread's)", s->workload,
                 s->metric == CMP_STIME ? "system" : "user");
    return buf;
}

static void print_section(FILE *f, const struct cmp *c, size_t s, int width)
{
    const struct cmp_section *sec = &c->sec[s];
    char buf[256], a[32];
    fprintf(f, "\n## %s\n%-*s", title(sec, buf, sizeof(buf)), width, "");
    for (size_t i = 0; i < c->nfiles; i++) {
        fprintf(f, "  %16s", file_letter(i));
        if (i > 0)
            fprintf(f, i + 1 < c->nfiles ? " %-18s" : " %s", "vs A");
    }
    fputc('\n', f);
    for (size_t i = 0; i < c->nrow; i++) {
        const struct cmp_row *r = &c->row[i];
        if (r->section != s || !r->complete)
            continue;
        fprintf(f, "%-*s", width, cmp_label(r->rec, buf, sizeof(buf)));
        for (size_t k = 0; k < c->nfiles; k++)
            print_cell(f, &r->cell[k], k, k + 1 == c->nfiles);
        fputc('\n', f);
    }
    if (sec->geo_rows < 2) /* the geometric mean of one row is that row */
        return;
    fprintf(f, "%-*s", width, "geomean");
    for (size_t k = 0; k < c->nfiles; k++) {
        char ch[32];
        fprintf(f, "  %9s%7s", fig(sec->geo[k], a, sizeof(a)), ""); /* as a figure's median */
        snprintf(ch, sizeof(ch), "%+.1f%%", 100 * (sec->geo[k] / sec->geo[0] - 1));
        if (k > 0)
            fprintf(f, k + 1 < c->nfiles ? " %-18s" : " %s", ch);
    }
    fputc('\n', f);
}

/* The rows some file lacks, with the files that have them. */
static void print_missing(FILE *f, const struct cmp *c)
{
    size_t n = 0;
    char buf[256];
    for (size_t i = 0; i < c->nrow; i++)
        n += !c->row[i].complete;
    if (n == 0)
        return;
    fprintf(f, "\nNot in every file (%zu):\n", n);
    for (size_t i = 0; i < c->nrow; i++) {
        const struct cmp_row *r = &c->row[i];
        if (r->complete)
            continue;
        fputs("  only in", f);
        for (size_t k = 0, first = 1; k < c->nfiles; k++)
            if (r->cell[k].have)
                fprintf(f, "%s%s", first ? " " : ", ", file_letter(k)), first = 0;
        fprintf(f, ": %s %s [%s%s%s]\n", r->rec->workload, cmp_label(r->rec, buf, sizeof(buf)),
                r->metric == CMP_VALUE ? "" : cmp_metric_name(r->metric),
                r->metric == CMP_VALUE ? "" : " ", cmp_row_unit(r));
    }
}

void cmp_print_text(FILE *f, const struct cmp *c)
{
    char buf[256];
    int width = LABEL_MIN;
    for (size_t i = 0; i < c->nrow; i++) {
        int w = (int)strlen(cmp_label(c->row[i].rec, buf, sizeof(buf)));
        width = w > width ? w : width;
    }
    print_legend(f, c);
    for (size_t s = 0; s < c->nsec; s++) {
        size_t complete = 0;
        for (size_t i = 0; i < c->nrow; i++)
            complete += c->row[i].section == s && c->row[i].complete;
        if (complete)
            print_section(f, c, s, width);
    }
    print_missing(f, c);
}

/* A number, or null where it is not one. */
static void json_num(FILE *f, const char *name, double v)
{
    if (isfinite(v))
        fprintf(f, ", \"%s\": %.9g", name, v);
    else
        fprintf(f, ", \"%s\": null", name);
}

static void json_str_or_null(FILE *f, const char *s)
{
    if (s != NULL)
        cli_json_put_string(f, s);
    else
        fputs("null", f);
}

static void json_cell(FILE *f, const struct cmp_cell *c, size_t col)
{
    if (!c->have) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"runs\": %zu", c->n);
    json_num(f, "median", c->median);
    json_num(f, "stdev_pct", c->stdev_pct);
    if (col > 0) {
        json_num(f, "change_pct", c->change_pct);
        json_num(f, "p", c->tested ? c->t.p : NAN);
        json_num(f, "u", c->tested ? c->t.u : NAN);
        fprintf(f, ", \"exact\": %s, \"significant\": %s, \"too_few_samples\": %s",
                c->tested ? c->t.exact ? "true" : "false" : "null",
                cmp_significant(c) ? "true" : "false",
                c->tested && c->t.min_p >= CLI_UTEST_ALPHA ? "true" : "false");
    }
    fputc('}', f);
}

static void json_row(FILE *f, const struct cmp *c, const struct cmp_row *r)
{
    const struct cli_result *k = r->rec;
    fputs("    {\"workload\": ", f);
    cli_json_put_string(f, k->workload);
    fputs(", \"function\": ", f);
    cli_json_put_string(f, k->function);
    fprintf(f, ", \"size\": %zu, \"chunk\": %zu, \"page\": ", k->size, k->chunk);
    cli_json_put_string(f, k->page);
    fprintf(f, ", \"threads\": %lu, \"cache\": ", k->threads);
    json_str_or_null(f, k->cache);
    fputs(", \"stores\": ", f);
    json_str_or_null(f, k->stores);
    fprintf(f, ", \"metric\": \"%s\", \"unit\": ", cmp_metric_name(r->metric));
    cli_json_put_string(f, cmp_row_unit(r));
    fprintf(f, ", \"in_every_file\": %s,\n     \"files\": [", r->complete ? "true" : "false");
    for (size_t i = 0; i < c->nfiles; i++) {
        fputs(i ? ", " : "", f);
        json_cell(f, &r->cell[i], i);
    }
    fputs("]}", f);
}

void cmp_print_json(FILE *f, const struct cmp *c)
{
    fputs("{\"format\": \"pageclear-compare\",\n \"files\": [", f);
    for (size_t i = 0; i < c->nfiles; i++) {
        fputs(i ? ",\n   {\"path\": " : "\n   {\"path\": ", f);
        cli_json_put_string(f, c->path[i]);
        fputs(", \"header\": ", f);
        fputc('{', f);
        for (int k = 0; k < CLI_ENV_COUNT; k++) {
            fprintf(f, "%s\"%s\": ", k ? ", " : "", cli_env_name((enum cli_env_key)k));
            json_str_or_null(f, c->file[i].header[k]);
        }
        fputs("}}", f);
    }
    fprintf(f, "],\n \"test\": {\"name\": \"Mann-Whitney U\", \"sides\": 2, \"alpha\": %.2f, "
               "\"exact_up_to_runs\": %d, \"beyond\": \"normal approximation with tie and "
               "continuity corrections\"},\n \"rows\": [\n", CLI_UTEST_ALPHA,
            CLI_UTEST_EXACT_MAX);
    for (size_t i = 0; i < c->nrow; i++) {
        json_row(f, c, &c->row[i]);
        fputs(i + 1 < c->nrow ? ",\n" : "\n", f);
    }
    fputs(" ],\n \"geomeans\": [", f);
    for (size_t s = 0, n = 0; s < c->nsec; s++) {
        const struct cmp_section *sec = &c->sec[s];
        if (sec->geo_rows == 0)
            continue;
        fprintf(f, "%s\n    {\"workload\": ", n++ ? "," : "");
        cli_json_put_string(f, sec->workload);
        fprintf(f, ", \"metric\": \"%s\", \"unit\": ", cmp_metric_name(sec->metric));
        cli_json_put_string(f, sec->unit);
        fprintf(f, ", \"rows\": %zu, \"values\": [", sec->geo_rows);
        for (size_t k = 0; k < c->nfiles; k++)
            fprintf(f, k ? ", %.9g" : "%.9g", sec->geo[k]);
        fputs("], \"change_pct\": [null", f);
        for (size_t k = 1; k < c->nfiles; k++)
            fprintf(f, ", %.9g", 100 * (sec->geo[k] / sec->geo[0] - 1));
        fputs("]}", f);
    }
    fputs("\n ]}\n", f);
}

void cmp_print_csv(FILE *f, const struct cmp *c)
{
    fputs("workload,function,size,chunk,page,threads,cache,stores,metric,unit,file,median,"
          "stdev_pct,runs,change_pct,p,significant\n", f);
    for (size_t i = 0; i < c->nrow; i++) {
        const struct cmp_row *r = &c->row[i];
        const struct cli_result *k = r->rec;
        for (size_t j = 0; j < c->nfiles; j++) {
            const struct cmp_cell *e = &r->cell[j];
            fprintf(f, "%s,%s,%zu,%zu,%s,%lu,%s,%s,%s,%s,%s,", k->workload, k->function,
                    k->size, k->chunk, k->page, k->threads, k->cache ? k->cache : "",
                    k->stores ? k->stores : "", cmp_metric_name(r->metric), cmp_row_unit(r),
                    file_letter(j));
            if (!e->have) {
                fputs(",,,,,\n", f); /* listed, with nothing to show */
                continue;
            }
            fprintf(f, "%.9g,%.3f,%zu,", e->median, e->stdev_pct, e->n);
            if (j > 0 && isfinite(e->change_pct))
                fprintf(f, "%.3f", e->change_pct);
            fputc(',', f);
            if (j > 0 && e->tested)
                fprintf(f, "%.6g", e->t.p);
            fprintf(f, ",%s\n", j == 0 ? "" : cmp_significant(e) ? "yes" : "no");
        }
    }
}
