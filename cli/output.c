/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * output.c - the command's output formats. Bandwidth is always GB/s, that
 * is 10^9 bytes per second (perf bench's "GB/sec" is 2^30: multiply ours
 * by 0.931 to compare). Sizes are printed in binary units named as such.
 *   default  a human-readable line per measurement
 *   simple   the bare mean, as perf bench --format=simple
 *   json     one JSON array of records (docs/results.schema.json)
 *   csv      a header line, then one line per record
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "measure.h"
#include "output.h"
#include "stats.h"

int cli_parse_format(const char *arg, enum cli_format *fmt)
{
    if (strcmp(arg, "--format=simple") == 0)
        *fmt = CLI_FMT_SIMPLE;
    else if (strcmp(arg, "--format=default") == 0)
        *fmt = CLI_FMT_DEFAULT;
    else if (strcmp(arg, "--json") == 0 || strcmp(arg, "--format=json") == 0)
        *fmt = CLI_FMT_JSON;
    else if (strcmp(arg, "--csv") == 0 || strcmp(arg, "--format=csv") == 0)
        *fmt = CLI_FMT_CSV;
    else
        return 0;
    return 1;
}

static int records_printed;

void cli_record_header(FILE *f, enum cli_format fmt)
{
    records_printed = 0;
    if (fmt == CLI_FMT_JSON)
        fputs("[\n", f);
    else if (fmt == CLI_FMT_CSV)
        fputs("workload,function,size,chunk,page,loops,threads,unit,mean,median,"
              "min,max,p99,stdev_pct,runs,l1d_loads,l1d_misses,cache,stores,verdict\n", f);
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

/* A string field: quoted, or null/empty when absent. */
static const char *str_field(const char *v, int json, char *buf, size_t n)
{
    if (v == NULL)
        return json ? "null" : "";
    snprintf(buf, n, json ? "\"%s\"" : "%s", v);
    return buf;
}

void cli_record_print(FILE *f, enum cli_format fmt, const struct cli_record *r)
{
    char s1[32], s2[32], c1[32], c2[32], k1[32], k2[32], vd[200];
    const struct cli_stats *st = &r->st;
    int json = fmt == CLI_FMT_JSON;
    count_str(r->counts, 0, json, c1, sizeof(c1));
    count_str(r->counts, 1, json, c2, sizeof(c2));
    switch (fmt) {
    case CLI_FMT_SIMPLE:
        fprintf(f, "%.6f\n", st->mean);
        break;
    case CLI_FMT_JSON:
        fprintf(f,
                "%s  {\"workload\": \"%s\", \"function\": \"%s\", \"size\": %zu, "
                "\"chunk\": %zu, \"page\": \"%s\", \"loops\": %lu, \"threads\": %lu, "
                "\"unit\": \"%s\", \"mean\": %.6f, \"median\": %.6f, \"min\": %.6f, "
                "\"max\": %.6f, \"p99\": %.6f, \"stdev_pct\": %.3f, \"runs\": %zu, "
                "\"l1d_loads\": %s, \"l1d_misses\": %s, \"cache\": %s, \"stores\": %s, "
                "\"verdict\": %s}",
                records_printed ? ",\n" : "", r->workload, r->function, r->size,
                r->chunk, r->page, r->loops, r->threads, r->unit, st->mean,
                st->median, st->min, st->max, st->p99, st->stdev_pct, st->n,
                count_str(r->counts, 0, 1, c1, sizeof(c1)),
                count_str(r->counts, 1, 1, c2, sizeof(c2)),
                str_field(r->cache, 1, k1, sizeof(k1)),
                str_field(r->stores, 1, k2, sizeof(k2)),
                str_field(r->verdict, 1, vd, sizeof(vd)));
        break;
    case CLI_FMT_CSV:
        fprintf(f, "%s,%s,%zu,%zu,%s,%lu,%lu,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%zu,%s,%s,%s,%s,"
                   "\"%s\"\n",
                r->workload, r->function, r->size, r->chunk, r->page, r->loops,
                r->threads, r->unit, st->mean, st->median, st->min, st->max,
                st->p99, st->stdev_pct, st->n, count_str(r->counts, 0, 0, c1, sizeof(c1)),
                count_str(r->counts, 1, 0, c2, sizeof(c2)),
                str_field(r->cache, 0, k1, sizeof(k1)), str_field(r->stores, 0, k2, sizeof(k2)),
                str_field(r->verdict, 0, vd, sizeof(vd)));
        break;
    default:
        fprintf(f, "# function '%s', %s, chunk %s, %s pages, %lu loops, %zu runs%s%s%s%s\n",
                r->function, cli_fmt_size(r->size, s1, sizeof(s1)),
                r->chunk ? cli_fmt_size(r->chunk, s2, sizeof(s2)) : "whole",
                r->page, r->loops, st->n, r->cache ? ", cache " : "",
                r->cache ? r->cache : "", r->stores ? ", stores " : "",
                r->stores ? r->stores : "");
        fprintf(f, "%14.6f %s  (mean ±%.2f%%; median %.3f, min %.3f, max %.3f)\n",
                st->mean, r->unit, st->stdev_pct, st->median, st->min, st->max);
        if (r->counts != NULL && r->counts->available)
            fprintf(f, "%14s L1-dcache loads, %s misses per run\n", c1, c2);
        break;
    }
    records_printed++;
}

void cli_record_footer(FILE *f, enum cli_format fmt)
{
    if (fmt == CLI_FMT_JSON)
        fputs(records_printed ? "\n]\n" : "]\n", f);
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
