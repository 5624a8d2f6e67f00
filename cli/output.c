/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * output.c - the command's output formats. Bandwidth is always GB/s, that
 * is 10^9 bytes per second (perf bench's "GB/sec" is 2^30: multiply ours
 * by 0.931 to compare). Sizes are printed in binary units named as such.
 *   default  a human-readable line per measurement
 *   simple   the bare mean, as perf bench --format=simple
 *   json     one object: the environment, then the records with their
 *            runs (docs/results.schema.json; `pageclear compare` reads it)
 *   csv      a header line, then one line per record
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "json.h"
#include "measure.h"
#include "output.h"
#include "stats.h"

const char *cli_fmt_size(size_t v, char *buf, size_t n)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;
    double d = (double)v;
    while (d >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
        d /= 1024;
        u++;
    }
    if (d == (double)(size_t)d)
        snprintf(buf, n, "%zu%s", (size_t)d, units[u]);
    else
        snprintf(buf, n, "%.2f%s", d, units[u]);
    return buf;
}

static int records_printed;

void cli_record_header(FILE *f, enum cli_format fmt)
{
    records_printed = 0;
    if (fmt == CLI_FMT_JSON) {
        fprintf(f, "{\"format\": \"%s\", \"schema\": %d,\n \"header\": ", CLI_RESULTS_FORMAT,
                CLI_RESULTS_SCHEMA);
        cli_env_print_json(f, 1);
        fputs(",\n \"records\": [\n", f);
    } else if (fmt == CLI_FMT_CSV) {
        fputs("workload,function,size,chunk,page,loops,threads,unit,mean,median,min,max,p99,"
              "stdev_pct,runs,l1d_loads,l1d_misses,cache,stores,verdict,stime_s,utime_s,"
              "samples\n", f);
    }
}

/* Counter fields: a number per run, or null/empty when not had. */
static const char *count_str(const struct cli_counts *c, int misses, int json,
                             char *buf, size_t n)
{
    if (c == NULL || !c->available)
        return json ? "null" : "";
    snprintf(buf, n, "%.0f", misses ? c->l1d_misses : c->l1d_loads);
    return buf;
}

/* A JSON string member, or null. */
static void json_str(FILE *f, const char *name, const char *v)
{
    fprintf(f, ", \"%s\": ", name);
    if (v == NULL)
        fputs("null", f);
    else
        cli_json_put_string(f, v);
}

/* v[0, n) as a JSON array, or null for none. */
static void json_array(FILE *f, const char *name, const double *v, size_t n, const char *fmt)
{
    fprintf(f, ", \"%s\": ", name);
    if (v == NULL) {
        fputs("null", f);
        return;
    }
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        fprintf(f, fmt, v[i]);
    }
    fputc(']', f);
}

static void print_json(FILE *f, const struct cli_record *r)
{
    const struct cli_stats *st = &r->st;
    const double *user = NULL, *sys = NULL;
    char c1[32], c2[32];
    fputs(records_printed ? ",\n  {\"workload\": " : "  {\"workload\": ", f);
    cli_json_put_string(f, r->workload);
    json_str(f, "function", r->function);
    fprintf(f, ", \"size\": %zu, \"chunk\": %zu", r->size, r->chunk);
    json_str(f, "page", r->page);
    fprintf(f, ", \"loops\": %lu, \"threads\": %lu", r->loops, r->threads);
    json_str(f, "unit", r->unit);
    fprintf(f,
            ", \"mean\": %.6f, \"median\": %.6f, \"min\": %.6f, \"max\": %.6f, \"p99\": %.6f, "
            "\"stdev_pct\": %.3f, \"runs\": %zu, \"l1d_loads\": %s, \"l1d_misses\": %s",
            st->mean, st->median, st->min, st->max, st->p99, st->stdev_pct, st->n,
            count_str(r->counts, 0, 1, c1, sizeof(c1)),
            count_str(r->counts, 1, 1, c2, sizeof(c2)));
    json_str(f, "cache", r->cache);
    json_str(f, "stores", r->stores);
    json_str(f, "verdict", r->verdict);
    /* The runs at full precision: compare tests them against another
     * file's, and a rounded copy would tie runs that differ. */
    json_array(f, "samples", cli_stats_samples(st), st->n, "%.9g");
    cli_stats_cpu_samples(st, &user, &sys);
    json_array(f, "utime_s", user, st->n, "%.6f");
    json_array(f, "stime_s", sys, st->n, "%.6f");
    fputc('}', f);
}

/* The median CPU seconds of r's runs, user and system; 0 if not had. */
static int cpu_medians(const struct cli_record *r, double *user, double *sys)
{
    const double *u, *s;
    struct cli_stats su, ss;
    if (cli_stats_cpu_samples(&r->st, &u, &s) != 0)
        return 0;
    cli_stats_summary(u, r->st.n, &su);
    cli_stats_summary(s, r->st.n, &ss);
    *user = su.median;
    *sys = ss.median;
    return 1;
}

static void print_csv(FILE *f, const struct cli_record *r)
{
    const struct cli_stats *st = &r->st;
    const double *v = cli_stats_samples(st);
    double user, sys;
    char c1[32], c2[32];
    fprintf(f, "%s,%s,%zu,%zu,%s,%lu,%lu,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%zu,%s,%s,%s,%s,\"%s\",",
            r->workload, r->function, r->size, r->chunk, r->page, r->loops, r->threads, r->unit,
            st->mean, st->median, st->min, st->max, st->p99, st->stdev_pct, st->n,
            count_str(r->counts, 0, 0, c1, sizeof(c1)),
            count_str(r->counts, 1, 0, c2, sizeof(c2)), r->cache ? r->cache : "",
            r->stores ? r->stores : "", r->verdict ? r->verdict : "");
    if (cpu_medians(r, &user, &sys))
        fprintf(f, "%.6f,%.6f,", sys, user);
    else
        fputs(",,", f);
    fputc('"', f);
    for (size_t i = 0; v != NULL && i < st->n; i++)
        fprintf(f, i ? " %.9g" : "%.9g", v[i]);
    fputs("\"\n", f);
}

static void print_default(FILE *f, const struct cli_record *r)
{
    char s1[32], s2[32], c1[32], c2[32];
    const struct cli_stats *st = &r->st;
    double user, sys;
    fprintf(f, "# function '%s', %s, chunk %s, %s pages, %lu loops, %zu runs", r->function,
            cli_fmt_size(r->size, s1, sizeof(s1)),
            r->chunk ? cli_fmt_size(r->chunk, s2, sizeof(s2)) : "whole", r->page, r->loops,
            st->n);
    if (r->threads > 1)
        fprintf(f, ", %lu threads", r->threads);
    if (r->cache != NULL)
        fprintf(f, ", cache %s", r->cache);
    if (r->stores != NULL)
        fprintf(f, ", stores %s", r->stores);
    fprintf(f, "\n%14.6f %s  (mean ±%.2f%%; median %.3f, min %.3f, max %.3f)\n", st->mean,
            r->unit, st->stdev_pct, st->median, st->min, st->max);
    if (r->counts != NULL && r->counts->available)
        fprintf(f, "%14s L1-dcache loads, %s misses per run\n",
                count_str(r->counts, 0, 0, c1, sizeof(c1)),
                count_str(r->counts, 1, 0, c2, sizeof(c2)));
    if (cpu_medians(r, &user, &sys))
        fprintf(f, "%14.6f s system, %.6f s user CPU time per run (median)\n", sys, user);
}

void cli_record_print(FILE *f, enum cli_format fmt, const struct cli_record *r)
{
    if (fmt == CLI_FMT_SIMPLE)
        fprintf(f, "%.6f\n", r->st.mean);
    else if (fmt == CLI_FMT_JSON)
        print_json(f, r);
    else if (fmt == CLI_FMT_CSV)
        print_csv(f, r);
    else
        print_default(f, r);
    records_printed++;
}

void cli_record_footer(FILE *f, enum cli_format fmt)
{
    if (fmt == CLI_FMT_JSON)
        fputs(records_printed ? "\n ]}\n" : " ]}\n", f);
}

void cli_progress(const char *fmt, ...)
{
    static int tty = -1;
    if (tty < 0)
        tty = isatty(STDERR_FILENO);
    if (!tty)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[K", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

void cli_records_add(struct cli_records *rs, const struct cli_record *r)
{
    if (rs == NULL || rs->n == CLI_MAX_RECORDS)
        return;
    size_t i = rs->n++;
    rs->r[i] = *r;
    snprintf(rs->function[i], sizeof(rs->function[i]), "%.47s", r->function);
    rs->r[i].function = rs->function[i];
    if (r->stores != NULL) {
        snprintf(rs->stores[i], sizeof(rs->stores[i]), "%.11s", r->stores);
        rs->r[i].stores = rs->stores[i];
    }
    if (r->verdict != NULL) {
        snprintf(rs->verdict[i], sizeof(rs->verdict[i]), "%.159s", r->verdict);
        rs->r[i].verdict = rs->verdict[i];
    }
    rs->r[i].counts = NULL;
}

void cli_records_print(FILE *f, enum cli_format fmt, const struct cli_records *rs)
{
    cli_record_header(f, fmt);
    for (size_t i = 0; i < rs->n; i++)
        cli_record_print(f, fmt, &rs->r[i]);
    cli_record_footer(f, fmt);
}
